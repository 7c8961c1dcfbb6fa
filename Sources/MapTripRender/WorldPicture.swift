import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport
import MapTripTiles

/// A picture of the whole world in the equirectangular projection (plate carrée: longitude -180 to
/// 180 left to right, latitude 90 to -90 top to bottom), such as Natural Earth's shaded relief or
/// NASA's Blue Marble: one more kind of base-map layer. It is decoded once per render (JPEG through
/// libavcodec, PNG through Cairo, as tiles and photos are) and served as Web Mercator tiles
/// (`WorldPictureTiles`), so that the raster tiles' drawing (`TileBaseMap`) places it on Web
/// Mercator frames and reprojects it onto PROJ planes and the globe.
public final class WorldPicture: @unchecked Sendable {
    /// The picture, as decoded.
    public let image: ImageSurface
    /// Its credit, shown while it is on screen.
    public let credit: String
    /// The picture halved until it is no wider than a tile level's world (built when first asked).
    private var reduced: [Int: ImageSurface] = [:]
    private let lock = NSLock()

    public init(image: ImageSurface, credit: String) {
        self.image = image
        self.credit = credit
    }

    /// The picture in `file`, decoded (`path`: where the scene asks for it, for the message).
    public convenience init(file: URL, credit: String) throws {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw Diagnostic.error("no world picture at \(file.path)",
                                   hint: "run tools/world-pictures.sh to make Assets/pictures, or choose another theme")
        }
        let image: ImageSurface
        do {
            image = try StandardTileDecoder(strict: true).decode(data)
        } catch {
            throw Diagnostic.error("the world picture \(file.path) does not decode: \(error)",
                                   hint: "run tools/world-pictures.sh to make it again")
        }
        guard image.width >= 2 * image.height - 2, image.width <= 2 * image.height + 2 else {
            throw Diagnostic.error("the world picture \(file.path) is \(image.width)x\(image.height), not twice as wide as high",
                                   hint: "give an equirectangular picture of the whole world (360 by 180 degrees)")
        }
        self.init(image: image, credit: credit)
    }

    /// The picture of a ready theme (`relief`, `satellite`) under the assets folder, and its credit; nil
    /// for a theme drawn from vectors only.
    public static func forTheme(_ theme: String, assets: URL) throws -> WorldPicture? {
        let credits = ["relief": "Natural Earth", "satellite": "NASA Blue Marble, Natural Earth"]
        guard let credit = credits[theme] else { return nil }
        return try WorldPicture(file: assets.appendingPathComponent("pictures/\(theme).jpg"), credit: credit)
    }

    /// The colour of the picture at a place (bilinear between its pixels), straight RGB in 0...1.
    public func color(at position: LonLat) -> Color {
        let (r, g, b) = Self.sample(image, x: (position.lon + 180) / 360 * Double(image.width) - 0.5,
                                    y: (90 - position.lat) / 180 * Double(image.height) - 0.5)
        return Color(red: r / 255, green: g / 255, blue: b / 255)
    }

    /// The picture's mean colour beyond Web Mercator's edge (85.0511 degrees) at the north or the south
    /// pole, each pixel weighted by the area it covers: what a reprojected frame shows there (its
    /// tiles end at the edge), so that a globe's pole shows the picture's ice, not a flat colour of
    /// the theme's.
    public func capColor(south: Bool) -> Color {
        let h = image.height, w = image.width, stride = image.stride, data = image.data
        let rows = max(1, Int(((90 - WebMercator.maxLatitude) / 180 * Double(h)).rounded(.up)))
        var sum = (0.0, 0.0, 0.0), weight = 0.0
        for k in 0..<rows {
            let y = south ? h - 1 - k : k
            // The row's latitude at its centre: its pixels' area goes as its cosine.
            let lat = 90 - (Double(k) + 0.5) / Double(h) * 180
            let c = cos(lat * .pi / 180)
            let row = data + y * stride
            for x in 0..<w {
                let p = row + x * 4
                sum.0 += Double(p[2]) * c
                sum.1 += Double(p[1]) * c
                sum.2 += Double(p[0]) * c
            }
            weight += c * Double(w)
        }
        guard weight > 0 else { return color(at: LonLat(lon: 0, lat: south ? -90 : 90)) }
        return Color(red: sum.0 / weight / 255, green: sum.1 / weight / 255, blue: sum.2 / weight / 255)
    }

    /// The picture reduced (by halving, Cairo's GOOD filter) to at most twice `width` pixels across,
    /// so that sampling it bilinearly for a tile level never skips pixels.
    func reduced(toward width: Int) throws -> ImageSurface {
        var level = 0, w = image.width
        while w > 2 * width && w > 2 {
            w /= 2
            level += 1
        }
        if level == 0 { return image }
        return try lock.withLock {
            if let r = reduced[level] { return r }
            let h = max(1, image.height >> level)
            let out = try ImageSurface(width: w, height: h)
            try out.withContext { cr in
                cr.scale(Double(w) / Double(image.width), Double(h) / Double(image.height))
                cr.setSource(image, x: 0, y: 0)
                cr.setSourceExtendPad()
                cr.setSourceFilter(.good)
                cr.paint()
            }
            out.flush()
            reduced[level] = out
            return out
        }
    }

    /// Bilinear sample of an opaque surface at pixel coordinates (pixel centres at whole numbers):
    /// wrapping around in x (the antimeridian), clamped in y (the poles).
    static func sample(_ s: ImageSurface, x: Double, y: Double) -> (Double, Double, Double) {
        let w = s.width, h = s.height, stride = s.stride, data = s.data
        let fx = x.rounded(.down), fy = y.rounded(.down)
        let tx = x - fx, ty = y - fy
        let x0 = ((Int(fx) % w) + w) % w, x1 = (x0 + 1) % w
        let y0 = min(max(Int(fy), 0), h - 1), y1 = min(max(Int(fy) + 1, 0), h - 1)
        var out = (0.0, 0.0, 0.0)
        for (px, py, k) in [(x0, y0, (1 - tx) * (1 - ty)), (x1, y0, tx * (1 - ty)), (x0, y1, (1 - tx) * ty), (x1, y1, tx * ty)] {
            let p = data + py * stride + px * 4
            out.0 += Double(p[2]) * k
            out.1 += Double(p[1]) * k
            out.2 += Double(p[0]) * k
        }
        return out
    }

    /// The Web Mercator tile `key` (256 pixels square) cut from the picture: each pixel the picture's
    /// colour at its centre's longitude and latitude.
    func tile(_ key: TileKey, size: Int = 256) throws -> ImageSurface {
        let n = Double(1 << key.z), world = Double(size) * n
        let source = try reduced(toward: Int(world))
        let sw = Double(source.width), sh = Double(source.height)
        let tile = try ImageSurface(width: size, height: size)
        tile.flush()
        let stride = tile.stride, data = tile.data
        // Each row's latitude once (Mercator's inverse), each column's longitude once.
        let columns = (0..<size).map { i in (Double(key.x * size + i) + 0.5) / world * sw - 0.5 }
        for j in 0..<size {
            let v = (Double(key.y * size + j) + 0.5) / world
            let lat = atan(sinh(.pi * (1 - 2 * v))) * 180 / .pi
            let y = (90 - lat) / 180 * sh - 0.5
            let row = data + j * stride
            for (i, x) in columns.enumerated() {
                let (r, g, b) = Self.sample(source, x: x, y: y)
                let p = row + i * 4
                p[0] = UInt8(min(255, b.rounded()))
                p[1] = UInt8(min(255, g.rounded()))
                p[2] = UInt8(min(255, r.rounded()))
                p[3] = 255
            }
        }
        tile.markDirty()
        return tile
    }
}

/// A world picture as a Web Mercator tile set (zooms 0 to `maxZoom`; deeper views enlarge its
/// deepest tiles): each tile named by its key, drawn by `WorldPictureDecoder`.
final class WorldPictureTiles: TileSource {
    let info: TileSetInfo
    let label = "the world picture"

    init(maxZoom: Int) {
        info = TileSetInfo.drawn(maxZoom: maxZoom, tileSize: 256)
    }

    func tiles(for keys: [TileKey]) -> [TileKey: Result<Data, Error>] {
        Dictionary(uniqueKeysWithValues: keys.map { ($0, .success(StyledTileSource.name($0))) })
    }
}

/// Cuts the tile a `WorldPictureTiles` names from the picture.
struct WorldPictureDecoder: TileDecoding {
    let picture: WorldPicture

    func decode(_ data: Data) throws -> ImageSurface {
        guard let key = StyledTileSource.key(data) else { throw TileError.undecodable(TileKey(z: 0, x: 0, y: 0), "not a tile's name") }
        return try picture.tile(key)
    }
}

/// A base map of two layers: a world picture over the vector map, the picture shown up to `fade`'s
/// lower zoom and faded out (smoothstep) to the vector map by its upper one, beyond the picture's
/// resolution. The picture is drawn by the raster tiles' map (`TileBaseMap`), reprojected on the
/// globe and PROJ planes as tiles are.
public final class PictureBaseMap: BaseMap {
    public let vector: BaseMap
    public let picture: WorldPicture
    /// The picture's tiles, drawn and reprojected as raster tiles are.
    public let tiles: TileBaseMap
    /// The zooms over which the picture gives way to the vector map.
    public let fade: ClosedRange<Double>

    /// `style`: the scene's (its polar, space and atmosphere colours around the picture).
    public init(picture: WorldPicture, over vector: BaseMap, style: Style, fade: ClosedRange<Double> = 5...6) {
        self.vector = vector
        self.picture = picture
        self.fade = fade
        // Tiles as deep as the picture has pixels for (a world of 256 x 2^z pixels no wider than
        // twice the picture), and at least as deep as the fade's start.
        let deepest = Int(log2(Double(picture.image.width) / 128).rounded(.down))
        tiles = TileBaseMap(source: WorldPictureTiles(maxZoom: max(1, min(deepest, Int(fade.upperBound)))),
                            decoder: WorldPictureDecoder(picture: picture))
        tiles.background = style.polar
        // Beyond the tiles' edge at 85.05 degrees, each pole the picture's own colour there.
        tiles.polar = picture.capColor(south: false)
        tiles.polarSouth = picture.capColor(south: true)
        tiles.space = style.space
        tiles.atmosphere = style.atmosphere
    }

    /// How much of the picture a camera at `zoom` shows: 1 up to the fade, 0 past it.
    public func pictureOpacity(zoom: Double) -> Double {
        let s = min(max((zoom - fade.lowerBound) / (fade.upperBound - fade.lowerBound), 0), 1)
        return 1 - s * s * (3 - 2 * s)
    }

    public func prepare(for viewports: [Viewport]) throws {
        try tiles.prepare(for: viewports.filter { pictureOpacity(zoom: $0.camera.zoom) > 0 })
        try vector.prepare(for: viewports.filter { pictureOpacity(zoom: $0.camera.zoom) < 1 })
    }

    public func plan(frames cameras: [Camera], format: FrameFormat) {
        vector.plan(frames: cameras, format: format)
    }

    public func draw(_ viewport: Viewport, in cr: Context) throws {
        let a = pictureOpacity(zoom: viewport.camera.zoom)
        if a >= 1 { return try tiles.draw(viewport, in: cr) }
        try vector.draw(viewport, in: cr)
        guard a > 0 else { return }
        cr.pushGroup()
        try tiles.draw(viewport, in: cr)
        cr.popGroupToSource()
        cr.paint(alpha: a)
        cr.setSource(red: 0, green: 0, blue: 0)
    }

    public func drawPlanar(_ viewport: Viewport, into picture: PlanarPicture, scratch: ImageSurface) throws -> Bool {
        pictureOpacity(zoom: viewport.camera.zoom) > 0 ? false
            : try vector.drawPlanar(viewport, into: picture, scratch: scratch)
    }

    public func drawAhead() throws -> Bool { try vector.drawAhead() }

    public func endRecording() {
        vector.endRecording()
        tiles.endRecording()
    }

    /// The picture's credit and the vector map's, each source named once.
    public var attribution: String? {
        var parts = picture.credit.components(separatedBy: ", ")
        for part in (vector.attribution ?? "").components(separatedBy: ", ") where !part.isEmpty && !parts.contains(part) {
            parts.append(part)
        }
        return parts.joined(separator: ", ")
    }

    public var warnings: [String] { tiles.warnings + vector.warnings }
    /// The vector map's: the world picture's tiles are not cached.
    public var rasterCacheStatistics: RasterCacheStatistics? { vector.rasterCacheStatistics }
}
