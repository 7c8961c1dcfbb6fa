import Cairo
import Foundation
import MapTripGeometry
import MapTripTiles

/// A styled map's labels on the globe and PROJ planes. The map under them is its Web Mercator tiles
/// reprojected (`StyledTileSource`); the labels are set over that: each symbol layer's labels
/// collected from the vector tiles the frame shows, in a Web Mercator plane at the frame's scale, then
/// taken through the frame's projection: a point or area label's anchor (upright text; not drawn on
/// the globe's far side, near its rim, or outside the plane's domain), a line label's line point by
/// point (its glyphs set along the line as the frame shows it; a line with a point not shown is not
/// labelled). All are placed against each other as on a flat frame.
///
/// The frame's style zoom is the Web Mercator zoom of its scale at its centre (the globe and the
/// planes show true scale: at 60° N a Web Mercator frame of the same camera zoom is twice as large).
struct ReprojectedLabelView {
    /// The style zoom the labels are evaluated at.
    var styleZoom: Double
    /// Frame pixels per Web Mercator unit world at the frame's centre.
    var pixelsPerWorld: Double

    /// How far into the globe's rim an anchor must be to be labelled (`Viewport.facing`).
    static let leastFacing = 0.5
    /// Samples across the frame for the tiles it shows, and the tiles taken at most (the zoom goes
    /// up a level, to fewer and larger tiles, until they fit).
    static let samples = 32, tileLimit = 64

    init(_ viewport: Viewport) {
        let cx = Double(viewport.width) / 2, cy = Double(viewport.height) / 2
        var scale = viewport.worldSize
        if let o = viewport.unitWorld(atPixel: cx, cy, latitudeCap: 85),
           let r = viewport.unitWorld(atPixel: cx + 1, cy, latitudeCap: 85),
           let d = viewport.unitWorld(atPixel: cx, cy + 1, latitudeCap: 85) {
            let dx = hypot(r.x - o.x - (r.x - o.x).rounded(), r.y - o.y)
            let dy = hypot(d.x - o.x - (d.x - o.x).rounded(), d.y - o.y)
            let s = 1 / (dx * dy).squareRoot()
            if s.isFinite, s > 0 { scale = s }
        }
        pixelsPerWorld = scale
        styleZoom = log2(scale / viewport.scale / WebMercator.tileSize) - 1
    }

    /// The vector tiles of a set the frame shows (each at most once), at the set's zoom for the style
    /// zoom, or fewer levels down when that would be more than `tileLimit`.
    func tiles(_ viewport: Viewport, in set: StyledTiles) -> [TileKey] {
        var points: [WorldPoint] = []
        let n = Self.samples
        for j in 0...n {
            for i in 0...n {
                let x = Double(viewport.width) * Double(i) / Double(n), y = Double(viewport.height) * Double(j) / Double(n)
                if let w = viewport.unitWorld(atPixel: x, y, latitudeCap: 85) { points.append(w) }
            }
        }
        var z = set.tileZoom(styleZoom: styleZoom)
        while true {
            let count = 1 << z
            var seen = Set<TileKey>(), keys: [TileKey] = []
            for p in points {
                let x = ((Int((p.x * Double(count)).rounded(.down)) % count) + count) % count
                let y = min(max(Int((p.y * Double(count)).rounded(.down)), 0), count - 1)
                let key = TileKey(z: z, x: x, y: y)
                if seen.insert(key).inserted { keys.append(key) }
            }
            if keys.count <= Self.tileLimit || z <= set.vectorSet.info.minZoom { return keys }
            z -= 1
        }
    }

    /// A tile's units to the Web Mercator plane the labels are collected in.
    func transform(_ key: TileKey, extent: Double) -> PixelTransform {
        let n = Double(1 << key.z), k = pixelsPerWorld / n
        return PixelTransform(scale: k / extent, offsetX: Double(key.x) * k, offsetY: Double(key.y) * k)
    }

    /// A point of that plane in the frame (nil: not shown there).
    func project(_ x: Double, _ y: Double, in viewport: Viewport) -> (x: Double, y: Double)? {
        let p = WebMercator.unproject(WorldPoint(x: x / pixelsPerWorld, y: y / pixelsPerWorld))
        guard viewport.facing(p) >= Self.leastFacing else { return nil }
        return viewport.pixel(p)
    }
}

extension StyledMap {
    /// Whether the style has labels to draw (any shown symbol layer).
    var hasLabels: Bool { style.layers.contains { $0.type == .symbol && $0.visible } }

    /// The vector tiles a reprojected frame's labels are collected from (loaded by `prepare`).
    func labelTiles(_ viewport: Viewport, in set: StyledTiles) -> [TileKey] {
        hasLabels ? ReprojectedLabelView(viewport).tiles(viewport, in: set) : []
    }

    /// Collects, places and draws a reprojected frame's labels over its map.
    func drawReprojectedLabels(_ viewport: Viewport, in cr: Context) throws {
        guard hasLabels else { return }
        let view = ReprojectedLabelView(viewport)
        labels.begin(viewport) { view.project($0, $1, in: viewport) }
        var shown: [ObjectIdentifier: [TileKey]] = [:]
        for layer in style.layers where layer.type == .symbol && layer.isShown(atZoom: view.styleZoom) {
            guard let name = layer.source, let set = vectorSources[name] else { continue }
            let keys = shown[ObjectIdentifier(set)] ?? view.tiles(viewport, in: set)
            shown[ObjectIdentifier(set)] = keys
            for key in keys {
                guard let tile = set.tile(key), let features = tile.layers[layer.sourceLayer ?? ""] else { continue }
                labels.collect(layer, features, zoom: view.styleZoom, transform: view.transform(key, extent: tile.extent),
                               extent: tile.extent)
            }
        }
        try labels.draw(in: cr)
        try cr.checkStatus("draw the styled map's labels")
    }
}
