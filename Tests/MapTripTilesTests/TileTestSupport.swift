import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripRender
@testable import MapTripTiles
import MapTripRecord
import TestSupport

/// Helpers for the tile tests (prefixed to keep clear of the HTTP tests' helpers).
enum TileTest {
    /// A fresh folder, removed afterwards.
    static func withTempDir<T>(_ body: (URL) throws -> T) throws -> T {
        try TemporaryFolder.with("tile-tests", body)
    }

    /// Writes a pyramid of `baseMap` into `url` (folder or .mbtiles).
    @discardableResult
    static func pyramid(_ baseMap: BaseMap, to url: URL, zooms: ClosedRange<Int>, tileSize: Int = 256,
                        bounds: GeoBounds = .world, attribution: String? = nil) throws -> TilePyramidSummary {
        let writer = try TilePyramidWriter(baseMap: baseMap, options: TilePyramidOptions(
            minZoom: zooms.lowerBound, maxZoom: zooms.upperBound, bounds: bounds, tileSize: tileSize,
            name: "test", attribution: attribution))
        return try writer.write(to: TilePyramidOutput(path: url))
    }

    /// Draws one frame.
    static func render(_ map: BaseMap, _ viewport: Viewport) throws -> ImageSurface {
        let surface = try ImageSurface(width: viewport.width, height: viewport.height)
        try surface.withContext { try map.draw(viewport, in: $0) }
        return surface
    }

    /// The styled map of vector `tiles` (a file, folder or URL) with `style` (a theme's name, or a
    /// style file's text, written into `dir`, the scene's folder), as a scene with `map.style` gives it.
    static func styledMap(tiles: URL, style: String, in dir: URL, http: HTTPTileOptions = HTTPTileOptions()) throws -> StyledMap {
        var map = MapSource(tiles: tiles.isFileURL ? tiles.path : tiles.absoluteString)
        map.style = style
        if !Style.themes.contains(style) {
            try Data(style.utf8).write(to: dir.appendingPathComponent("style.json"))
            map.style = "style.json"
        }
        return try StyledMaps.make(tiles: try TileSources.make(map, http: http, sceneDirectory: dir), map: map,
                                   scene: Scene(places: []), sceneDirectory: dir, assets: VectorData.root.appendingPathComponent("Assets"),
                                   http: http)
    }

    /// Writes every tile of an MBTiles file, as stored, into `folder/{z}/{x}/{y}.ext`; returns how many.
    @discardableResult
    static func writeFolder(from mbtiles: URL, to folder: URL, ext: String = "pbf") throws -> Int {
        let keys = try VectorData.keys(mbtiles)
        let tiles = try MBTilesSource(file: mbtiles).tiles(for: keys)
        for key in keys {
            let d = folder.appendingPathComponent("\(key.z)/\(key.x)")
            try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
            guard let bytes = try tiles[key]?.get() else { throw TileError.missing(key) }
            try bytes.write(to: d.appendingPathComponent("\(key.y).\(ext)"))
        }
        return keys.count
    }

    /// A surface's pixels, row by row (its stride's padding left out).
    static func pixels(_ s: ImageSurface) -> [UInt8] {
        s.flush()
        var out: [UInt8] = []
        out.reserveCapacity(s.width * s.height * 4)
        for y in 0..<s.height { out += UnsafeBufferPointer(start: s.data + y * s.stride, count: s.width * 4) }
        return out
    }

    static func viewport(lon: Double, lat: Double, zoom: Double, width: Int = 512, height: Int = 512,
                         scale: Double = 1) -> Viewport {
        Viewport(camera: Camera(center: LonLat(lon: lon, lat: lat), zoom: zoom), width: width, height: height, scale: scale)
    }

    /// A solid PNG tile.
    static func solidPNG(_ color: RGB, size: Int = 256) throws -> Data {
        let s = try ImageSurface(width: size, height: size)
        try s.withContext { cr in
            cr.setSource(color.color)
            cr.paint()
        }
        return try s.pngData()
    }

    static func rgb(_ s: ImageSurface, _ x: Int, _ y: Int) -> RGB {
        let p = s.pixel(x: x, y: y)
        return RGB(Int(p.r), Int(p.g), Int(p.b))
    }
}

/// An opaque 8-bit colour, compared with a tolerance.
struct RGB: Equatable, CustomStringConvertible {
    var r, g, b: Int
    init(_ r: Int, _ g: Int, _ b: Int) {
        self.r = r
        self.g = g
        self.b = b
    }
    var color: Color { Color(red: Double(r) / 255, green: Double(g) / 255, blue: Double(b) / 255) }
    func near(_ o: RGB, _ tolerance: Int = 1) -> Bool {
        abs(r - o.r) <= tolerance && abs(g - o.g) <= tolerance && abs(b - o.b) <= tolerance
    }
    var description: String { "rgb(\(r),\(g),\(b))" }
}

/// Paints every frame pixel straight from the geography: one colour per quadrant of the world
/// (north-east, north-west, south-west, south-east), black outside the Web Mercator square.
final class QuadrantBaseMap: BaseMap {
    static let ne = RGB(220, 60, 60), nw = RGB(60, 180, 60), sw = RGB(60, 60, 220), se = RGB(220, 200, 40)
    var attributionText: String? = "Quadrants"
    var attribution: String? { attributionText }
    private(set) var prepared: [Viewport] = []

    func prepare(for viewports: [Viewport]) throws { prepared = viewports }

    static func color(lon: Double, lat: Double) -> RGB {
        let east = WebMercator.wrapLongitude(lon) >= 0
        return lat >= 0 ? (east ? ne : nw) : (east ? se : sw)
    }

    func draw(_ viewport: Viewport, in cr: Context) throws {
        let s = cr.surface
        s.flush()
        let c = viewport.centerWorld, size = viewport.worldSize
        let data = s.data, stride = s.stride
        for py in 0..<viewport.height {
            let wy = c.y + (Double(py) + 0.5 - Double(viewport.height) / 2) / size
            for px in 0..<viewport.width {
                var wx = c.x + (Double(px) + 0.5 - Double(viewport.width) / 2) / size
                wx -= wx.rounded(.down)
                let color: RGB
                if wy < 0 || wy > 1 { color = RGB(0, 0, 0) } else {
                    color = wy < 0.5 ? (wx >= 0.5 ? Self.ne : Self.nw) : (wx >= 0.5 ? Self.se : Self.sw)
                }
                let p = data + py * stride + px * 4
                p[0] = UInt8(color.b); p[1] = UInt8(color.g); p[2] = UInt8(color.r); p[3] = 255
            }
        }
        s.markDirty()
    }
}

/// One colour everywhere.
final class UniformBaseMap: BaseMap {
    let color: RGB
    init(_ color: RGB) { self.color = color }
    func draw(_ viewport: Viewport, in cr: Context) throws {
        cr.setSource(color.color)
        cr.paint()
    }
}

/// A grey whose level says which integer zoom was rendered: tiles of each level differ.
final class ZoomShadeBaseMap: BaseMap {
    static func shade(_ z: Int) -> RGB { RGB(30 + 40 * z, 30 + 40 * z, 30 + 40 * z) }
    func draw(_ viewport: Viewport, in cr: Context) throws {
        let z = Int((viewport.camera.zoom + 1e-9).rounded(.down))
        cr.setSource(Self.shade(z).color)
        cr.paint()
    }
}

/// Wraps a source and records every key asked for.
final class CountingSource: TileSource {
    let inner: TileSource
    private(set) var requested: [TileKey] = []
    private(set) var batches = 0
    init(_ inner: TileSource) { self.inner = inner }
    var info: TileSetInfo { inner.info }
    var label: String { inner.label }
    func tiles(for keys: [TileKey]) -> [TileKey: Result<Data, Error>] {
        batches += 1
        requested += keys
        return inner.tiles(for: keys)
    }
}

/// Answers URLs from a table; anything else is an HTTP 404.
final class FakeFetcher: TileFetching {
    var responses: [String: Result<Data, Error>] = [:]
    var fallback: (URL) -> Result<Data, Error> = { _ in .failure(HTTPTileError.status(404)) }
    private(set) var requested: [URL] = []
    func fetch(_ urls: [URL]) -> [URL: Result<Data, Error>] {
        requested += urls
        var out: [URL: Result<Data, Error>] = [:]
        for u in urls { out[u] = responses[u.absoluteString] ?? fallback(u) }
        return out
    }
}
