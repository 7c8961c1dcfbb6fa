import Foundation

/// One map tile in the XYZ ("slippy map") scheme: zoom `z`, column `x` east from the antimeridian,
/// row `y` south from the top of the Web Mercator square. A valid key has 0 <= x, y < 2^z.
public struct TileKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var z: Int
    public var x: Int
    public var y: Int

    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// `z/x/y`, as in tile URLs and folders.
    public var description: String { "\(z)/\(x)/\(y)" }

    /// Whether x and y lie inside the grid of zoom z.
    public var isValid: Bool {
        guard z >= 0, z <= TileMath.maxZoom else { return false }
        let n = 1 << z
        return x >= 0 && x < n && y >= 0 && y < n
    }

    /// The tile `levels` zooms up that contains this one (itself for 0).
    public func ancestor(levels: Int) -> TileKey {
        let k = max(0, min(levels, z))
        return TileKey(z: z - k, x: x >> k, y: y >> k)
    }

    public var parent: TileKey? { z > 0 ? ancestor(levels: 1) : nil }

    /// The four tiles one zoom down, in row order (NW, NE, SW, SE).
    public var children: [TileKey] {
        [TileKey(z: z + 1, x: 2 * x, y: 2 * y), TileKey(z: z + 1, x: 2 * x + 1, y: 2 * y),
         TileKey(z: z + 1, x: 2 * x, y: 2 * y + 1), TileKey(z: z + 1, x: 2 * x + 1, y: 2 * y + 1)]
    }

    public static func < (a: TileKey, b: TileKey) -> Bool {
        (a.z, a.y, a.x) < (b.z, b.y, b.x)
    }
}

/// A geographic box in degrees. `west > east` means the box crosses the antimeridian.
public struct GeoBounds: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// The whole Web Mercator square.
    public static let world = GeoBounds(west: -180, south: -WebMercator.maxLatitude,
                                        east: 180, north: WebMercator.maxLatitude)

    /// Parses `west,south,east,north` (the MBTiles `bounds` and `--bounds` form). Nil when malformed:
    /// not four numbers, latitudes outside -90...90 or south above north, longitudes outside -180...180.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let w = parts[0], let s = parts[1], let e = parts[2], let n = parts[3],
              w.isFinite, s.isFinite, e.isFinite, n.isFinite,
              (-180...180).contains(w), (-180...180).contains(e),
              (-90...90).contains(s), (-90...90).contains(n), s <= n else { return nil }
        self.init(west: w, south: s, east: e, north: n)
    }

    /// `west,south,east,north`.
    public var description: String {
        [west, south, east, north].map { String(format: "%.6f", $0) }
            .map { $0.replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression) }
            .joined(separator: ",")
    }

    /// Whether the box crosses the antimeridian.
    public var crossesAntimeridian: Bool { west > east }

    /// Whether a unit-world box (x may be any copy of the world) overlaps this box.
    public func intersects(world box: (minX: Double, minY: Double, maxX: Double, maxY: Double)) -> Bool {
        let top = WebMercator.project(LonLat(lon: 0, lat: north)).y
        let bottom = WebMercator.project(LonLat(lon: 0, lat: south)).y
        guard box.maxY > top, box.minY < bottom else { return false }
        if west == -180 && east == 180 { return true }
        let w = (west + 180) / 360
        var e = (east + 180) / 360
        if crossesAntimeridian { e += 1 }
        // Compare against the copies of [w, e] next to the box.
        for shift in [-1.0, 0, 1] where box.maxX > w + shift && box.minX < e + shift {
            return true
        }
        return false
    }
}

/// A rectangle of tiles at one zoom. `columns` is unwrapped: it may run below 0 or past 2^z when
/// the view crosses the antimeridian (or shows the world more than once); `key(column:row:)` wraps
/// it into the grid. `rows` is always clamped into 0..<2^z.
public struct TileRange: Equatable, Sendable {
    public var z: Int
    public var columns: ClosedRange<Int>
    public var rows: ClosedRange<Int>

    /// The tile drawn at an unwrapped column and a row.
    public func key(column: Int, row: Int) -> TileKey {
        TileKey(z: z, x: TileMath.wrap(column, zoom: z), y: row)
    }

    /// Every (unwrapped column, row) position, row by row.
    public var positions: [(column: Int, row: Int)] {
        var out: [(column: Int, row: Int)] = []
        out.reserveCapacity(columns.count * rows.count)
        for row in rows {
            for column in columns { out.append((column, row)) }
        }
        return out
    }

    /// The distinct tiles the range shows (wrapped into the grid), row by row.
    public var keys: [TileKey] {
        var seen = Set<TileKey>()
        var out: [TileKey] = []
        for p in positions {
            let k = key(column: p.column, row: p.row)
            if seen.insert(k).inserted { out.append(k) }
        }
        return out
    }

    public var count: Int { columns.count * rows.count }
}

/// Tile arithmetic for the XYZ / TMS schemes on the Web Mercator square, matching `WebMercator`
/// and `Viewport`: tile (z, x, y) covers the unit-world square [x, x+1] x [y, y+1] / 2^z.
public enum TileMath {
    /// The deepest zoom we compute with (2^30 columns still fit an Int comfortably).
    public static let maxZoom = 30

    /// Columns (and rows) at a zoom: 2^z.
    public static func tileCount(zoom z: Int) -> Int { 1 << max(0, min(z, maxZoom)) }

    /// A column index wrapped into 0..<2^z.
    public static func wrap(_ x: Int, zoom z: Int) -> Int {
        let n = tileCount(zoom: z)
        let r = x % n
        return r < 0 ? r + n : r
    }

    /// The fractional tile coordinates of a position (x wrapped into [0, 2^z), latitude clamped).
    public static func tileCoordinates(_ p: LonLat, zoom z: Int) -> (x: Double, y: Double) {
        let n = Double(tileCount(zoom: z))
        let w = WebMercator.project(LonLat(lon: WebMercator.wrapLongitude(p.lon), lat: p.lat))
        return (w.x * n, w.y * n)
    }

    /// The tile containing a position at zoom z (the XYZ convention: y = 0 at the top).
    public static func tile(for p: LonLat, zoom z: Int) -> TileKey {
        let n = tileCount(zoom: z)
        let t = tileCoordinates(p, zoom: z)
        let x = min(max(Int(t.x.rounded(.down)), 0), n - 1)
        let y = min(max(Int(t.y.rounded(.down)), 0), n - 1)
        return TileKey(z: z, x: x, y: y)
    }

    /// The unit-world square a tile covers.
    public static func worldBounds(of key: TileKey) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let n = Double(tileCount(zoom: key.z))
        return (Double(key.x) / n, Double(key.y) / n, Double(key.x + 1) / n, Double(key.y + 1) / n)
    }

    /// The geographic box a tile covers.
    public static func bounds(of key: TileKey) -> GeoBounds {
        let b = worldBounds(of: key)
        let nw = WebMercator.unproject(WorldPoint(x: b.minX, y: b.minY))
        let se = WebMercator.unproject(WorldPoint(x: b.maxX, y: b.maxY))
        return GeoBounds(west: nw.lon, south: se.lat, east: se.lon, north: nw.lat)
    }

    /// The centre of a tile, as a position (for rendering the tile as a viewport).
    public static func center(of key: TileKey) -> LonLat {
        let b = worldBounds(of: key)
        return WebMercator.unproject(WorldPoint(x: (b.minX + b.maxX) / 2, y: (b.minY + b.maxY) / 2))
    }

    /// XYZ row to TMS row (TMS counts rows from the bottom): y_tms = 2^z - 1 - y. Its own inverse.
    public static func tmsRow(_ y: Int, zoom z: Int) -> Int { tileCount(zoom: z) - 1 - y }
    /// TMS row to XYZ row.
    public static func xyzRow(fromTMS y: Int, zoom z: Int) -> Int { tileCount(zoom: z) - 1 - y }

    /// The tiles of zoom z under a unit-world box: columns unwrapped (the box may cross the
    /// antimeridian or be wider than the world), rows clamped into the grid. Edges that fall exactly
    /// on a tile boundary do not pull in the next tile.
    public static func tileRange(world box: (minX: Double, minY: Double, maxX: Double, maxY: Double),
                                 zoom z: Int) -> TileRange {
        let n = tileCount(zoom: z)
        let nd = Double(n)
        // A hair of tolerance so that a frame edge sitting on a tile edge, give or take rounding,
        // does not add a column of tiles that would cover zero pixels.
        let eps = 1e-9
        let c0 = Int((box.minX * nd + eps).rounded(.down))
        let c1 = max(c0, Int((box.maxX * nd - eps).rounded(.up)) - 1)
        var r0 = Int((box.minY * nd + eps).rounded(.down))
        var r1 = Int((box.maxY * nd - eps).rounded(.up)) - 1
        r0 = min(max(r0, 0), n - 1)
        r1 = min(max(r1, r0), n - 1)
        return TileRange(z: z, columns: c0...c1, rows: r0...r1)
    }

    /// The tiles of zoom z a viewport shows.
    public static func tileRange(covering viewport: Viewport, zoom z: Int) -> TileRange {
        tileRange(world: viewport.worldBounds, zoom: z)
    }

    /// The tiles of zoom z inside a geographic box (for rendering a pyramid). A box crossing the
    /// antimeridian gives columns past 2^z - 1, which `TileRange.key` wraps.
    public static func tileRange(bounds: GeoBounds, zoom z: Int) -> TileRange {
        let nw = WebMercator.project(LonLat(lon: bounds.west, lat: bounds.north))
        let se = WebMercator.project(LonLat(lon: bounds.east, lat: bounds.south))
        var maxX = se.x
        if bounds.crossesAntimeridian { maxX += 1 }
        let r = tileRange(world: (nw.x, nw.y, max(maxX, nw.x), max(se.y, nw.y)), zoom: z)
        // Never more than one copy of the world.
        let n = tileCount(zoom: z)
        if r.columns.count > n { return TileRange(z: z, columns: r.columns.lowerBound...(r.columns.lowerBound + n - 1), rows: r.rows) }
        return r
    }

    /// The continuous ("ideal") tile zoom for a camera: the zoom whose tiles, drawn at their native
    /// size, match the frame's pixel density. 256-px tiles at a pixel ratio of 1 give the camera
    /// zoom itself; a pixel ratio of 2 asks one zoom deeper; 512-px tiles are one zoom shallower.
    public static func idealTileZoom(cameraZoom: Double, scale: Double = 1, tileSize: Int = 256) -> Double {
        cameraZoom + log2(max(scale, 1e-9)) - log2(Double(max(tileSize, 1)) / WebMercator.tileSize)
    }

    /// The integer tile zoom to draw a camera with: the first zoom at or above the ideal one (so
    /// tiles are only ever scaled down, never blurred up), clamped to the source's zooms. Beyond
    /// `maxZoom` the deepest tiles are scaled up ("over-zoom"); nothing deeper is ever asked for.
    public static func tileZoom(cameraZoom: Double, scale: Double = 1, tileSize: Int = 256,
                                minZoom: Int = 0, maxZoom: Int = 22) -> Int {
        let ideal = idealTileZoom(cameraZoom: cameraZoom, scale: scale, tileSize: tileSize)
        return clampZoom(ceilZoom(ideal), minZoom: minZoom, maxZoom: maxZoom)
    }

    /// ceil with a tolerance, so that zoom 10.0000000001 (arithmetic noise) is still tile zoom 10.
    public static func ceilZoom(_ z: Double) -> Int {
        guard z.isFinite else { return z > 0 ? maxZoom : 0 }
        return Int((z - 1e-6).rounded(.up))
    }

    public static func clampZoom(_ z: Int, minZoom: Int, maxZoom: Int) -> Int {
        let lo = max(0, minZoom), hi = max(lo, min(maxZoom, Self.maxZoom))
        return min(max(z, lo), hi)
    }
}
