import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripStyle
import MapTripSupport
import MapTripTiles
import VectorTile

/// A base map drawn from a MapLibre GL style: its layers in order, each a datasource (a vector tile
/// set, a raster tile set) and a style layer, drawn by one renderer, as MapLibre and Mapnik compose
/// a map. Background, fill and line layers are drawn from the vector tiles' features, symbol layers
/// as point labels placed against each other (`StyledLabels`), raster layers with the raster tile
/// map's drawing (`TileBaseMap`); other layer types are skipped with one warning each (the style's
/// checking lists them).
///
/// Zooms: MapLibre's zoom z shows a world 512 x 2^z pixels wide, maptrip's 256 x 2^z; a style's
/// zoom is the camera's less one. Vector tiles are taken at the style zoom's integer part (within
/// the source's zooms: deeper views enlarge the deepest tiles), each decoded once per render.
public final class StyledMap: BaseMap {
    public let style: StyleDocument
    /// The vector tile sets, by the style's source names.
    let vectorSources: [String: StyledTiles]
    /// The raster layers' maps, by the style's source names.
    let rasterMaps: [String: TileBaseMap]
    /// The scene's `map.attribution`, which wins over the sources' own.
    let sceneAttribution: String?
    /// Painted where the style has no background (and beyond the Web Mercator square).
    public var outside = Color(red: 0.94, green: 0.94, blue: 0.92)
    let labels: StyledLabels
    private var styleWarnings: [String]

    public init(style: StyleDocument, vectorSources: [String: StyledTiles], rasterMaps: [String: TileBaseMap] = [:],
                attribution: String? = nil) {
        self.style = style
        self.vectorSources = vectorSources
        self.rasterMaps = rasterMaps
        sceneAttribution = attribution
        labels = StyledLabels()
        styleWarnings = []
        // The style's own warnings (unknown properties, layer types not drawn), each once.
        styleWarnings = style.warnings.map(\.description)
    }

    /// The style's zoom for a viewport (MapLibre's worlds are twice as wide at the same zoom).
    static func styleZoom(_ viewport: Viewport) -> Double { viewport.camera.zoom - 1 }

    public var attribution: String? {
        if let a = sceneAttribution, !a.isEmpty { return a }
        let credits = vectorSources.values.compactMap(\.attribution) + rasterMaps.values.compactMap(\.attribution)
        let unique = credits.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        return unique.isEmpty ? nil : unique.joined(separator: " ")
    }

    public var warnings: [String] {
        styleWarnings + vectorSources.values.flatMap(\.warnings) + rasterMaps.values.flatMap(\.warnings)
    }

    // MARK: Preparing

    /// The vector tiles a viewport shows of a source: their keys, with the unwrapped column each is
    /// drawn at.
    func tiles(of set: StyledTiles, for viewport: Viewport) -> [(key: TileKey, column: Int)] {
        let z = set.tileZoom(styleZoom: Self.styleZoom(viewport))
        let range = TileMath.tileRange(covering: viewport, zoom: z)
        guard range.columns.count * range.rows.count <= 4096 else { return [] }
        var out: [(TileKey, Int)] = []
        for row in range.rows {
            for column in range.columns { out.append((range.key(column: column, row: row), column)) }
        }
        return out
    }

    public func prepare(for viewports: [Viewport]) throws {
        // A style's vector sources are often one set under several names: each set loaded once.
        var sets: [ObjectIdentifier: StyledTiles] = [:]
        for set in vectorSources.values { sets[ObjectIdentifier(set)] = set }
        for set in sets.values {
            var seen = Set<TileKey>(), keys: [TileKey] = []
            for v in viewports {
                for t in tiles(of: set, for: v) where seen.insert(t.key).inserted { keys.append(t.key) }
            }
            set.load(keys)
        }
        for map in rasterMaps.values { try map.prepare(for: viewports) }
    }

    // MARK: Drawing

    public func draw(_ viewport: Viewport, in cr: Context) throws {
        cr.save()
        defer { cr.restore() }
        cr.setOperator(.source)
        cr.setSource(outside)
        cr.paint()
        cr.setOperator(.over)
        let zoom = Self.styleZoom(viewport)
        labels.begin(viewport)
        // The tiles each source shows in this frame, worked out once for all its layers.
        var shown: [String: [(key: TileKey, column: Int)]] = [:]
        func tiles(_ name: String, _ set: StyledTiles) -> [(key: TileKey, column: Int)] {
            if let t = shown[name] { return t }
            let t = self.tiles(of: set, for: viewport)
            shown[name] = t
            return t
        }
        for layer in style.layers where layer.isShown(atZoom: zoom) {
            switch layer.type {
            case .background:
                var c = layer.color("background-color", zoom: zoom)
                c.alpha *= layer.number("background-opacity", zoom: zoom)
                cr.setSource(c.color)
                cr.paint()
            case .fill, .line:
                guard let name = layer.source, let set = vectorSources[name] else { continue }
                for (key, column) in tiles(name, set) {
                    guard let tile = set.tile(key), let features = tile.layers[layer.sourceLayer ?? ""] else { continue }
                    let t = Self.transform(viewport, key: key, column: column, extent: tile.extent)
                    cr.save()
                    // A tile's features reach into its neighbours' (the buffer): each tile draws its own square only.
                    Self.clip(cr, to: t, extent: tile.extent)
                    if layer.type == .fill {
                        try drawFill(layer, features, zoom: zoom, transform: t, in: cr)
                    } else {
                        try drawLine(layer, features, zoom: zoom, transform: t, scale: viewport.scale, in: cr)
                    }
                    cr.restore()
                }
            case .symbol:
                guard let name = layer.source, let set = vectorSources[name] else { continue }
                for (key, column) in tiles(name, set) {
                    guard let tile = set.tile(key), let features = tile.layers[layer.sourceLayer ?? ""] else { continue }
                    let t = Self.transform(viewport, key: key, column: column, extent: tile.extent)
                    labels.collect(layer, features, zoom: zoom, transform: t, extent: tile.extent)
                }
            case .raster:
                guard let name = layer.source, let map = rasterMaps[name] else { continue }
                let opacity = layer.number("raster-opacity", zoom: zoom)
                cr.pushGroup()
                try map.draw(viewport, in: cr)
                cr.popGroupToSource()
                cr.paint(alpha: opacity)
            default:
                continue
            }
        }
        try labels.draw(in: cr)
        try cr.checkStatus("draw the styled map")
    }

    /// Tile units (0...extent across the tile at `key`, drawn at unwrapped `column`) to frame pixels.
    static func transform(_ viewport: Viewport, key: TileKey, column: Int, extent: Double) -> PixelTransform {
        let n = Double(1 << key.z)
        var t = viewport.transform.inUnits(extent * n)
        let x0 = Double(column) * extent, y0 = Double(key.y) * extent
        t.offsetX += t.a * x0 + t.b * y0
        t.offsetY += t.c * x0 + t.d * y0
        return t
    }

    /// Clips drawing to a tile's square (turned with the view).
    static func clip(_ cr: Context, to t: PixelTransform, extent e: Double) {
        cr.newPath()
        cr.move(to: t.x(0, 0), t.y(0, 0))
        cr.line(to: t.x(e, 0), t.y(e, 0))
        cr.line(to: t.x(e, e), t.y(e, e))
        cr.line(to: t.x(0, e), t.y(0, e))
        cr.closePath()
        cr.clip()
    }

    /// Appends a feature's rings or lines to the path, in frame pixels.
    static func append(_ f: StyledFeature, transform t: PixelTransform, close: Bool, to cr: Context) {
        for part in f.parts {
            guard let first = part.first else { continue }
            cr.move(to: t.x(first.x, first.y), t.y(first.x, first.y))
            for p in part.dropFirst() { cr.line(to: t.x(p.x, p.y), t.y(p.x, p.y)) }
            if close { cr.closePath() }
        }
    }

    private func drawFill(_ layer: StyleLayer, _ features: [StyledFeature], zoom: Double, transform t: PixelTransform,
                          in cr: Context) throws {
        // Features painted alike share one path: most fill layers paint every feature the same.
        var groups: [StyleColor: [StyledFeature]] = [:], order: [StyleColor] = []
        for f in features where f.kind == .polygon && layer.matches(zoom: zoom, feature: f.style) {
            var c = layer.color("fill-color", zoom: zoom, feature: f.style)
            c.alpha *= layer.number("fill-opacity", zoom: zoom, feature: f.style)
            guard c.alpha > 0 else { continue }
            if groups[c] == nil { order.append(c) }
            groups[c, default: []].append(f)
        }
        cr.setFillRule(.winding)
        for c in order {
            cr.newPath()
            for f in groups[c]! { Self.append(f, transform: t, close: true, to: cr) }
            cr.setSource(c.color)
            cr.fill()
        }
    }

    private func drawLine(_ layer: StyleLayer, _ features: [StyledFeature], zoom: Double, transform t: PixelTransform,
                          scale: Double, in cr: Context) throws {
        struct Pen: Hashable { var color: StyleColor; var width: Double; var dashes: [Double] }
        var groups: [Pen: [StyledFeature]] = [:], order: [Pen] = []
        for f in features where f.kind != .point && layer.matches(zoom: zoom, feature: f.style) {
            var c = layer.color("line-color", zoom: zoom, feature: f.style)
            c.alpha *= layer.number("line-opacity", zoom: zoom, feature: f.style)
            let width = layer.number("line-width", zoom: zoom, feature: f.style) * scale
            guard c.alpha > 0, width > 0 else { continue }
            // Dash lengths are in line widths.
            let dashes = layer.numbers("line-dasharray", zoom: zoom, feature: f.style).map { $0 * width }
            let pen = Pen(color: c, width: width, dashes: dashes.allSatisfy { $0 >= 0 } && dashes.contains { $0 > 0 } ? dashes : [])
            if groups[pen] == nil { order.append(pen) }
            groups[pen, default: []].append(f)
        }
        guard !order.isEmpty else { return }
        cr.setLineCap(Self.cap(layer.lineCap(zoom: zoom)))
        cr.setLineJoin(Self.join(layer.lineJoin(zoom: zoom)))
        for pen in order {
            cr.newPath()
            for f in groups[pen]! { Self.append(f, transform: t, close: f.kind == .polygon, to: cr) }
            cr.setSource(pen.color.color)
            cr.setLineWidth(pen.width)
            cr.setDash(pen.dashes)
            cr.stroke()
        }
        cr.setDash([])
    }

    static func cap(_ cap: MapTripStyle.LineCap) -> Context.LineCap {
        switch cap { case .round: .round; case .square: .square; case .butt: .butt }
    }

    static func join(_ join: MapTripStyle.LineJoin) -> Context.LineJoin {
        switch join { case .round: .round; case .bevel: .bevel; case .miter: .miter }
    }
}
