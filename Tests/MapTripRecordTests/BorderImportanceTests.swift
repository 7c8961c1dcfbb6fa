import FFmpeg
import Foundation
import MapTripGeometry
import MapTripRender
import MapTripScene
import Testing

/// The embedded map's province lines by importance and its borders one line each (issue #56):
/// checked on decoded frames of real renders (`LooksTests.render`: RenderJob, H.264, decoded).
@Suite("Border importance")
struct BorderImportanceTests {
    /// A straight stretch of a line in the map's data.
    struct Stretch {
        var a: LonLat
        var b: LonLat
        var middle: LonLat { LonLat(lon: (a.lon + b.lon) / 2, lat: (a.lat + b.lat) / 2) }
    }

    /// A segment of the Perugia-Terni province line in Umbria (19 km long, no other line within
    /// 19 km): in a dense grid of provinces, shown from zoom 8.
    static let umbria = Stretch(a: LonLat(lon: 12.068269045979662, lat: 42.93848651643958),
                                b: LonLat(lon: 12.300849620813324, lat: 42.914799992525616))
    /// A segment of the Iowa-Minnesota line on 43.5° N (26 km, nothing else near): shown from zoom 5.
    static let iowa = Stretch(a: LonLat(lon: -93.52662968131472, lat: 43.500590024909684),
                              b: LonLat(lon: -93.85187382231902, lat: 43.50049236932733))

    /// Whether the file `basemap/10m/NAME.shp` has `s` as a segment of a line: its two ends one after
    /// the other (a shapefile keeps a part's points as consecutive little-endian x, y doubles).
    static func holds(_ name: String, _ s: Stretch) throws -> Bool {
        let data = try Data(contentsOf: Trip.assets.appendingPathComponent("basemap/10m/\(name).shp"))
        var bytes: [UInt8] = []
        for v in [s.a.lon, s.a.lat, s.b.lon, s.b.lat] { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes += $0 } }
        return data.range(of: Data(bytes)) != nil
    }

    /// The share of 21 points along the middle of `s` whose 3x3 pixels hold ink: a colour 4 or more
    /// (ΔE76) from the ground 7 px to either side of the line (the nearer match of the two).
    static func inked(_ r: LooksTests.Rendered, _ s: Stretch) throws -> Double {
        let p = try #require(r.viewport.pixel(s.a)), q = try #require(r.viewport.pixel(s.b))
        let dx = q.x - p.x, dy = q.y - p.y, length = (dx * dx + dy * dy).squareRoot()
        let nx = -dy / max(length, 1e-9), ny = dx / max(length, 1e-9)
        func color(_ x: Int, _ y: Int) -> Color {
            let px = r.image.pixel(x: x, y: y)
            return Color(red: Double(px.r) / 255, green: Double(px.g) / 255, blue: Double(px.b) / 255)
        }
        var hits = 0
        for k in 0...20 {
            let t = 0.3 + 0.4 * Double(k) / 20
            let x = p.x + dx * t, y = p.y + dy * t
            let sides = [color(Int(x + 7 * nx), Int(y + 7 * ny)), color(Int(x - 7 * nx), Int(y - 7 * ny))]
            var most = 0.0
            for oy in -1...1 {
                for ox in -1...1 {
                    let c = color(Int(x) + ox, Int(y) + oy)
                    most = max(most, sides.map { c.deltaE76($0) }.min()!)
                }
            }
            if most >= 4 { hits += 1 }
        }
        return Double(hits) / 21
    }

    /// A render at `zoom` with the stretch's middle 150 px left of the frame's centre (the pin and its
    /// label clear of it), no towns.
    static func render(_ s: Stretch, zoom: Double, in dir: URL) throws -> LooksTests.Rendered {
        let degrees = 150 / WebMercator.worldSize(zoom: zoom) * 360
        let place = LonLat(lon: s.middle.lon + degrees, lat: s.middle.lat)
        let r = try LooksTests.render(place, zoom: zoom, extra: "\"map\": {\"towns\": false}", in: dir, name: "z\(Int(zoom))")
        let m = try #require(r.viewport.pixel(s.middle))
        try #require(m.x > 40 && m.x < 220 && m.y > 40 && m.y < 320, "\(m)")
        return r
    }

    /// A line Natural Earth would rank minor (a province line in Italy's dense grid) is absent at
    /// zooms 5 and 7 and drawn at 8; a major one (a US state line) is drawn from zoom 5.
    @Test func provinceLinesShowFromTheirOwnZoom() throws {
        #expect(try Self.holds("ne_10m_admin_1_states_provinces_lines_z8", Self.umbria))
        #expect(try Self.holds("ne_10m_admin_1_states_provinces_lines_z5", Self.iowa))
        try Trip.withDirectory("provinces-by-importance") { dir in
            for zoom in [5.0, 7] {
                let r = try Self.render(Self.umbria, zoom: zoom, in: dir)
                Trip.dump(r.image, "umbria-z\(Int(zoom))")
                let ink = try Self.inked(r, Self.umbria)
                #expect(ink == 0, "Umbria at zoom \(zoom): \(ink)")
            }
            let close = try Self.render(Self.umbria, zoom: 8, in: dir)
            Trip.dump(close.image, "umbria-z8")
            let ink = try Self.inked(close, Self.umbria)
            #expect(ink >= 0.6, "Umbria at zoom 8: \(ink)")
            let wide = try Self.render(Self.iowa, zoom: 5, in: dir)
            Trip.dump(wide.image, "iowa-z5")
            let iowa = try Self.inked(wide, Self.iowa)
            #expect(iowa >= 0.6, "Iowa at zoom 5: \(iowa)")
        }
    }

    /// The inter-Korean border at zoom 6 is one line, where Natural Earth has three (the military
    /// demarcation line and the DMZ's northern and southern limits, each 5.5 km from it, 3 px at this
    /// zoom): across a north-south transect at 127.95° E (no province line near), the rows of border
    /// ink are one run of at most 4 rows (2 measured); the three lines made a run of 9.
    @Test func koreasDemarcationLineIsOneLine() throws {
        let line = Stretch(a: LonLat(lon: 127.95, lat: 38.30), b: LonLat(lon: 127.95, lat: 38.30))
        try Trip.withDirectory("dmz-one-line") { dir in
            let r = try Self.render(line, zoom: 6, in: dir)
            Trip.dump(r.image, "dmz-z6")
            let m = try #require(r.viewport.pixel(line.a))
            let x = Int(m.x.rounded()), y = Int(m.y.rounded())
            func color(_ x: Int, _ y: Int) -> Color {
                let px = r.image.pixel(x: x, y: y)
                return Color(red: Double(px.r) / 255, green: Double(px.g) / 255, blue: Double(px.b) / 255)
            }
            let ground = [color(x, y - 20), color(x, y + 20)]
            #expect(ground[0].deltaE76(ground[1]) < 4, "land on both sides: \(ground)")
            var rows: [Int] = []
            for dy in -14...14 {
                let ink = (-4...4).map { dx in ground.map { color(x + dx, y + dy).deltaE76($0) }.min()! }.max()!
                if ink >= 8 { rows.append(dy) }
            }
            #expect(!rows.isEmpty, "no border ink across the transect")
            #expect(rows.count <= 4, "border ink on rows \(rows)")
            #expect(rows.last.map { $0 - rows[0] + 1 } == rows.count, "one run of ink: \(rows)")
        }
    }
}
