import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import Pango

/// A town the embedded map may name for context: a gazetteer place, as its datasource gives it.
public struct Town: Equatable, Sendable {
    public var name: String
    public var position: LonLat
    public var population: Int

    public init(name: String, position: LonLat, population: Int) {
        (self.name, self.position, self.population) = (name, position, population)
    }
}

/// The towns layer's datasource (Mapnik's split: data here, looks in `TownsStyle`): towns most
/// populous first, indexed by cells of the map so that a close-up looks only at those around it. Made
/// by whoever reads the gazetteer (MapTripRecord) and passed down as a value.
public struct TownsDatasource: Sendable {
    /// Most populous first; a town's index is its rank.
    public let towns: [Town]
    /// Indices of the towns in each cell of `cellDegrees` (increasing: most populous first).
    private let cells: [Cell: [Int]]
    private static let cellDegrees = 2.0

    private struct Cell: Hashable { var x: Int, y: Int }

    /// `towns` in any order: they are ranked by population (ties by name).
    public init(towns: [Town]) {
        let sorted = towns.sorted { ($0.population, $1.name) > ($1.population, $0.name) }
        self.towns = sorted
        var cells: [Cell: [Int]] = [:]
        for (i, t) in sorted.enumerated() { cells[Self.cell(t.position), default: []].append(i) }
        self.cells = cells
    }

    private static func cell(_ p: LonLat) -> Cell {
        Cell(x: Int((p.lon / cellDegrees).rounded(.down)), y: Int((p.lat / cellDegrees).rounded(.down)))
    }

    /// The number of towns with at least `population` people (they come first).
    func count(atLeast population: Int) -> Int {
        var lo = 0, hi = towns.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if towns[mid].population >= population { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The indices below `limit` of the towns within the box of longitudes and latitudes, increasing.
    func indices(lon: ClosedRange<Double>, lat: ClosedRange<Double>, below limit: Int) -> [Int] {
        let a = Self.cell(LonLat(lon: lon.lowerBound, lat: lat.lowerBound))
        let b = Self.cell(LonLat(lon: lon.upperBound, lat: lat.upperBound))
        // A box wider than the world: every town.
        guard b.x - a.x < Int(360 / Self.cellDegrees) else { return Array(0..<limit) }
        var found: [Int] = []
        for y in a.y...b.y {
            for x in a.x...b.x {
                // Longitudes beyond ±180 wrap round.
                let n = Int(360 / Self.cellDegrees)
                let wx = ((x + n / 2) % n + n) % n - n / 2
                for i in cells[Cell(x: wx, y: y)] ?? [] where i < limit { found.append(i) }
            }
        }
        return found.sorted()
    }
}

/// How the towns look: a dot and a name on a halo, in the theme's label colours and font, smaller
/// and lighter than the trip's own labels.
public struct TownsStyle: Sendable, Equatable {
    public var dot: Color
    public var halo: Color
    public var text: Color
    public var font: String
    /// Text size and the dot's radius, in layout units.
    public var size: Double
    public var dotRadius: Double

    public init(_ style: Style) {
        dot = style.label.color
        halo = style.label.halo
        text = style.label.color.withAlpha(style.label.color.alpha * 0.85)
        font = style.font
        size = (style.label.size * 0.75).rounded()
        dotRadius = 3.5
    }

    var textStyle: TextStyle {
        TextStyle(family: font, weight: "Regular", size: size, color: text, halo: halo, haloWidth: 3)
    }
}

/// A town placed on a frame: its dot's centre, the box its name takes, the box of both, and how
/// opaque it is (towns fade in as the camera zooms in past their size's threshold).
public struct PlacedTown: Equatable {
    public var town: Town
    public var x: Double, y: Double
    public var label: Box
    public var box: Box
    public var alpha: Double
    /// Whether the name sits left of the dot (where the right side was taken).
    public var leftSide: Bool
    /// The town's rank in its datasource (its index: most populous first).
    public var rank: Int
}

/// The embedded map's layer of towns: which towns a frame names, and where. Chosen by population and
/// zoom (none below zoom `minZoom`; a town shows once the zoom makes room for its size, fading in over
/// half a zoom level), most populous first; a town whose dot and name would meet a larger town's,
/// or a box to avoid (the trip's pins and labels), is left out. The choice looks at the towns around
/// the frame too, so a town on screen keeps its place as the camera moves.
public final class TownsLayer {
    public let datasource: TownsDatasource
    public let style: TownsStyle
    /// Below this zoom no town shows (a world view).
    public var minZoom = TownsLayer.shownFrom
    /// The least zoom towns show at by default.
    public static let shownFrom = 5.0

    public init(datasource: TownsDatasource, style: TownsStyle) {
        self.datasource = datasource
        self.style = style
    }

    /// The least population shown at `zoom`: about 1.4 million at zoom 6, 120,000 at 8, 15,000 from 10.
    public static func minPopulation(zoom: Double) -> Double {
        15_000 * pow(2, max(0, 10 - zoom) * 1.6)
    }

    /// How opaque a town of `population` is at `zoom`: 0 below its threshold, 1 from 1.3 times it
    /// (zooming in, a town fades in over a sixth of a zoom level).
    func opacity(population: Int, zoom: Double) -> Double {
        guard zoom >= minZoom else { return 0 }
        let over = log2(Double(population) / Self.minPopulation(zoom: zoom))
        return max(0, min(1, over / 0.4, (zoom - minZoom) / 0.5))
    }

    /// The towns `viewport` names, most populous first, clear of `obstacles` and of one another.
    /// `unit`: frame pixels per layout unit; `measure` gives the laid-out size of the name of the
    /// town of a rank (an index into the datasource's towns).
    func place(_ viewport: Viewport, unit: Double, avoiding obstacles: [Box],
               measure: (Int) throws -> (width: Double, height: Double)) rethrows -> [PlacedTown] {
        let zoom = viewport.camera.zoom
        guard zoom >= minZoom else { return [] }
        let limit = datasource.count(atLeast: Int(Self.minPopulation(zoom: zoom).rounded(.up)))
        guard limit > 0 else { return [] }
        let w = Double(viewport.width), h = Double(viewport.height)
        // The frame and a margin around it: a town just off screen still keeps its neighbours out, as it
        // did when it was on screen.
        let margin = max(w, h) / 3
        let around = Box(minX: -margin, minY: -margin, maxX: w + margin, maxY: h + margin)
        let candidates: [Int]
        if case .webMercator = viewport.projection {
            let corners = [(around.minX, around.minY), (around.maxX, around.minY), (around.minX, around.maxY),
                           (around.maxX, around.maxY)].compactMap { viewport.location(atPixel: $0.0, $0.1) }
            guard corners.count == 4 else { return [] }
            // The corners' longitudes unwrapped around the first's (the frame may straddle 180°).
            let lon0 = corners[0].lon
            let lons = corners.map { lon0 + remainder($0.lon - lon0, 360) }
            candidates = datasource.indices(lon: lons.min()!...lons.max()!,
                                            lat: corners.map(\.lat).min()!...corners.map(\.lat).max()!, below: limit)
        } else {
            candidates = Array(0..<limit)
        }
        let r = style.dotRadius * unit, gap = 3 * unit, pad = 2 * unit
        var taken: [Box] = []
        var placed: [PlacedTown] = []
        func free(_ b: Box) -> Bool {
            !obstacles.contains { b.overlaps($0) } && !taken.contains { b.overlaps($0) }
        }
        for i in candidates {
            let town = datasource.towns[i]
            let alpha = opacity(population: town.population, zoom: zoom) * viewport.facing(town.position)
            guard alpha > 0, let p = viewport.pixel(town.position),
                  around.contains(Box(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y)) else { continue }
            let size = try measure(i)
            let dot = Box(minX: p.x - r, minY: p.y - r, maxX: p.x + r, maxY: p.y + r)
            let right = Box(minX: p.x + r + gap, minY: p.y - size.height / 2, maxX: p.x + r + gap + size.width,
                            maxY: p.y + size.height / 2)
            let left = Box(minX: p.x - r - gap - size.width, minY: right.minY, maxX: p.x - r - gap, maxY: right.maxY)
            guard let (label, leftSide) = [(right, false), (left, true)].first(where: { free($0.0.union(dot)) })
            else { continue }
            let box = label.union(dot)
            taken.append(box.padded(by: pad))
            placed.append(PlacedTown(town: town, x: p.x, y: p.y, label: label, box: box, alpha: alpha, leftSide: leftSide,
                                     rank: i))
        }
        // Only those that touch the frame.
        return placed.filter { $0.box.overlaps(Box(minX: 0, minY: 0, maxX: w, maxY: h)) }
    }
}

/// Draws the base map's towns (`ShapefileBaseMap.towns`) over the map and the route, under the trip's
/// pins and labels, and clear of them: the boxes the places overlay takes on the frame
/// (`PlacesOverlay.tripBoxes`). Each town is a picture drawn once (dot and name) and painted where
/// it goes, so every output path (a frame drawn, or composited into I420) shows the same towns.
public final class TownsOverlay: OverlayFastPaths {
    private let text = TextCache()
    private let pictures = Sprites(limitBytes: 4 << 20)
    /// Whose pins and labels the towns keep clear of (with `FrameContext.overlayBoxes`).
    public let places: PlacesOverlay?

    public init(places: PlacesOverlay?) { self.places = places }

    /// The last placement and what it was made for: a frame at rest places the same towns as the frame
    /// before it (frames drawn at rest for a clip or a presenter placed them anew each time).
    private var lastPlacement: (viewport: Viewport, unit: Double, obstacles: [Box], placed: [PlacedTown])?
    /// The names' laid-out sizes by town rank, for one text style and unit (see `placed`).
    private var sizes: (style: TextStyle?, unit: Double, byRank: [Int: (width: Double, height: Double)]) = (nil, 0, [:])
    private let lastPlacementLock = NSLock()

    /// The towns on `frame` (none when its base map has no towns layer).
    public func placed(_ frame: FrameContext) throws -> [PlacedTown] {
        guard let layer = (frame.baseMap as? ShapefileBaseMap)?.towns else { return [] }
        let ts = layer.style.textStyle, unit = frame.layout.unit
        // Clear of the trip's pins and labels, and of what sits over the map (the counter, the clock...).
        let obstacles = try (places?.tripBoxes(frame) ?? []) + frame.overlayBoxes
        let viewport = frame.viewport
        if let last = lastPlacementLock.withLock({ lastPlacement }), last.viewport == viewport, last.unit == unit,
           last.obstacles == obstacles {
            return last.placed
        }
        // Each name measured once (by its town's rank) for the text style and unit: a frame measures
        // every town around it, and laying each out again was a string look-up a town a frame.
        lastPlacementLock.withLock { if sizes.style != ts || sizes.unit != unit { sizes = (ts, unit, [:]) } }
        let placed = try layer.place(viewport, unit: unit, avoiding: obstacles) { rank in
            if let size = lastPlacementLock.withLock({ sizes.byRank[rank] }) { return size }
            let size = try text.layout(layer.datasource.towns[rank].name, ts, scale: unit).size
            lastPlacementLock.withLock { sizes.byRank[rank] = size }
            return size
        }
        lastPlacementLock.withLock { lastPlacement = (viewport, unit, obstacles, placed) }
        return placed
    }

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        for mark in try marks(frame) ?? [] { mark.paint(in: cr) }
    }

    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        guard let layer = (frame.baseMap as? ShapefileBaseMap)?.towns else { return [] }
        let style = layer.style, ts = style.textStyle, unit = frame.layout.unit
        return try placed(frame).map { t in
            let r = style.dotRadius * unit, halo = ts.haloWidth * unit
            // The picture's anchor is the dot's centre; the name's top-left relative to it.
            let dx = t.label.minX - t.x, dy = t.label.minY - t.y
            let extent = Box(minX: t.box.minX - t.x - halo, minY: t.box.minY - t.y - halo,
                             maxX: t.box.maxX - t.x + halo, maxY: t.box.maxY - t.y + halo)
            // (Named by rank: the datasource is the layer's for the whole render.)
            return try pictures.mark(TownKey(rank: t.rank, left: t.leftSide, size: ts.size * unit), x: t.x, y: t.y,
                                     extent: extent, alpha: t.alpha) { sc in
                let l = try text.layout(t.town.name, ts, scale: unit)
                sc.arc(x: 0, y: 0, radius: r + 1.5 * unit)
                sc.setSource(style.halo)
                sc.fill()
                sc.arc(x: 0, y: 0, radius: r)
                sc.setSource(style.dot)
                sc.fill()
                text.draw(l, ts, x: dx, y: dy, scale: unit, in: sc)
            }
        }
    }

    private struct TownKey: Hashable { var rank: Int, left: Bool, size: Double }
}
