import Cairo
import Foundation
import Pango
import Proj
import Shapefile
import Testing

let repoAssets = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Assets/basemap").standardizedFileURL

@Suite struct ProjTests {
    let transformation: Transformation

    init() throws {
        transformation = try Transformation(from: "EPSG:4326", to: "EPSG:3857", context: try ProjContext())
    }

    /// Web Mercator metres of well-known places: x = R lon, y = R ln tan(pi/4 + lat/2), R = 6378137,
    /// computed independently of PROJ.
    @Test(arguments: [
        (0.0, 0.0, 0.0, 0.0),
        (180.0, 0.0, 20_037_508.342789244, 0.0),
        (-0.1278, 51.5074, -14_226.631, 6_711_542.476),      // London
        (126.978, 37.5665, 14_135_126.302, 4_518_366.510),    // Seoul
        (151.2093, -33.8688, 16_832_542.279, -4_011_198.647), // Sydney
        (0.0, 85.05112877980659, 0.0, 20_037_508.342789244),  // top of the square world
    ])
    func knownCoordinates(lon: Double, lat: Double, x: Double, y: Double) throws {
        let p = try transformation.forward(x: lon, y: lat)
        #expect(abs(p.x - x) < 0.01, "x \(p.x) for \(lon),\(lat)")
        #expect(abs(p.y - y) < 0.01, "y \(p.y) for \(lon),\(lat)")
    }

    @Test func axisOrderIsLongitudeFirst() throws {
        // Normalised for visualisation: (lon, lat) in, easting first out, unlike EPSG:4326's lat,lon.
        let p = try transformation.forward(x: 126.978, y: 37.5665)
        #expect(p.x > p.y)
    }

    @Test func arraysMatchSingleCoordinates() throws {
        var xs = [-0.1278, 126.978, 151.2093], ys = [51.5074, 37.5665, -33.8688]
        try transformation.forward(xs: &xs, ys: &ys)
        for (i, (lon, lat)) in [(-0.1278, 51.5074), (126.978, 37.5665), (151.2093, -33.8688)].enumerated() {
            let p = try transformation.forward(x: lon, y: lat)
            #expect(xs[i] == p.x && ys[i] == p.y)
        }
    }

    @Test func unknownCRSIsAnErrorWithPROJsMessage() throws {
        #expect {
            _ = try Transformation(from: "EPSG:4326", to: "EPSG:999999", context: try ProjContext())
        } throws: { error in
            guard let e = error as? ProjError else { return false }
            return !e.message.isEmpty && e.description.contains("EPSG:999999")
        }
    }
}

@Suite struct PangoTests {
    /// Every script the example trips use renders with real glyphs: no missing-glyph boxes.
    @Test(arguments: ["서울", "東京", "Москва", "القاهرة", "मुंबई", "São Paulo", "Αθήνα"])
    func scriptsHaveGlyphs(text: String) throws {
        let surface = try ImageSurface(width: 400, height: 80)
        try surface.withContext { cr in
            let layout = try Layout(context: cr)
            layout.setFont(try FontDescription("Noto Sans 24px"))
            layout.text = text
            #expect(layout.unknownGlyphsCount == 0, "\(text) has \(layout.unknownGlyphsCount) missing glyphs")
            #expect(layout.size.width > 20)
            cr.setSource(red: 0, green: 0, blue: 0)
            cr.move(to: 10, 10)
            layout.show(in: cr)
        }
        // Ink reached the surface.
        var inked = 0
        for y in stride(from: 0, to: 80, by: 2) {
            for x in stride(from: 0, to: 400, by: 2) where surface.pixel(x: x, y: y).a > 128 { inked += 1 }
        }
        #expect(inked > 20)
    }

    /// Emoji in captions and names (a family as a ZWJ sequence, a flag, a skin tone) drew as hex
    /// boxes: with the colour emoji font `.ci/setup` installs, each sequence is one coloured glyph,
    /// as wide as a single emoji, drawn in its own colours (a box takes the text's black), not a box
    /// per code point.
    @Test(arguments: ["👨‍👩‍👧", "👨‍👩‍👧‍👦", "🇰🇷", "👍🏽"])
    func emojiSequencesAreOneColouredGlyph(text: String) throws {
        func laidOut(_ text: String) throws -> (width: Double, unknown: Int, coloured: Int) {
            let surface = try ImageSurface(width: 200, height: 80)
            var width = 0.0, unknown = 0
            try surface.withContext { cr in
                let layout = try Layout(context: cr)
                layout.setFont(try FontDescription("Noto Sans 32px"))
                layout.text = text
                width = layout.size.width
                unknown = layout.unknownGlyphsCount
                cr.setSource(red: 0, green: 0, blue: 0)
                cr.move(to: 10, 10)
                layout.show(in: cr)
            }
            var coloured = 0
            for y in 0..<80 {
                for x in 0..<200 {
                    let p = surface.pixel(x: x, y: y)
                    // Drawn in the glyph's own colours: the text's colour (black) is all a box gets.
                    if p.a > 128, max(p.r, p.g, p.b) > 60 { coloured += 1 }
                }
            }
            return (width, unknown, coloured)
        }
        let one = try laidOut("👨"), sequence = try laidOut(text)
        #expect(sequence.unknown == 0, "\(text): \(sequence.unknown) missing glyphs")
        #expect(sequence.width <= one.width * 1.25, "\(text) is \(sequence.width) px wide, one emoji \(one.width)")
        #expect(sequence.coloured > 100, "\(text) drew \(sequence.coloured) coloured pixels")
    }

    @Test func badFontDescriptionStillLaysOut() throws {
        let surface = try ImageSurface(width: 100, height: 40)
        try surface.withContext { cr in
            let layout = try Layout(context: cr)
            layout.setFont(try FontDescription("No Such Family 20px"))
            layout.text = "Seoul"
            #expect(layout.unknownGlyphsCount == 0)  // fontconfig falls back to an installed sans
        }
    }
}

@Suite struct CairoTests {
    @Test func argb32IsBGRAInMemory() throws {
        let s = try ImageSurface(width: 4, height: 4)
        try s.withContext { cr in
            cr.setSource(red: 1, green: 0.5, blue: 0)
            cr.paint()
        }
        let p = s.pixel(x: 1, y: 1)
        #expect(p.b == 0 && p.r == 255 && p.a == 255 && (127...128).contains(Int(p.g)))
        #expect(s.stride >= 16)
    }

    @Test func invalidSizeThrowsCairosMessage() {
        #expect(throws: CairoError.self) { _ = try ImageSurface(width: 0, height: 10) }
        #expect(throws: CairoError.self) { _ = try ImageSurface(width: 40_000, height: 10) }
    }

    @Test func pngRoundTrip() throws {
        let s = try ImageSurface(width: 8, height: 8)
        try s.withContext { cr in
            cr.setSource(red: 0, green: 0, blue: 1)
            cr.paint()
        }
        let data = try s.pngData()
        #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let back = try ImageSurface(pngData: data)
        #expect(back.width == 8 && back.pixel(x: 3, y: 3).b == 255)
    }
}

@Suite struct ShapefileTests {
    @Test func readsNaturalEarthCountries() throws {
        let r = try ShapefileReader(path: repoAssets.appendingPathComponent("110m/ne_110m_admin_0_countries.shp").path)
        #expect(r.entityCount == 177)
        guard case .polygon = r.kind else { Issue.record("expected polygons"); return }
        let g = try r.readAll()
        #expect(g.xs.count == 10654 && g.ys.count == g.xs.count)
        #expect(g.partCount > 177)  // multipolygons: islands are parts
        #expect(g.xs.allSatisfy { abs($0) <= 180 + 1e-9 })
        #expect(g.ys.allSatisfy { (-90...90).contains($0) })
        // Every part is a closed ring.
        for k in 0..<g.partCount {
            let r = g.partRange(k)
            #expect(g.xs[r.lowerBound] == g.xs[r.upperBound - 1] && g.ys[r.lowerBound] == g.ys[r.upperBound - 1])
        }
    }

    @Test func missingOrBrokenFilesThrow() throws {
        #expect(throws: ShapefileError.self) { _ = try ShapefileReader(path: "/nonexistent/x.shp") }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-bad-\(getpid()).shp").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("not a shapefile".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ShapefileError.self) { _ = try ShapefileReader(path: path) }
    }
}

/// The current path as lines (`Context.flattenedPath`).
@Suite struct FlattenedPathTests {
    @Test func closedSubpathsEndWhereTheyStartAndCurvesBecomeLines() throws {
        let surface = try ImageSurface(width: 8, height: 8)
        try surface.withContext { cr in
            cr.translate(2, 3)
            cr.rectangle(1, 2, 10, 20)
            cr.move(to: 50, 50)  // a move alone draws nothing
            cr.move(to: 0, 0)
            cr.curve(to: 30, 0, c1x: 10, c1y: 10, c2x: 20, c2y: 10)
            let lines = try #require(cr.flattenedPath())
            #expect(lines.count == 2)
            let box = lines[0]
            #expect(box.count == 5)
            #expect(box.first! == box.last!, "closed: back at its start")
            #expect(box.map(\.x).min() == 1 && box.map(\.x).max() == 11, "user space, not the device's")
            #expect(box.map(\.y).min() == 2 && box.map(\.y).max() == 22)
            let curve = lines[1]
            #expect(curve.count > 8, "a curve flattened into many lines")
            #expect(curve.first! == (x: 0, y: 0) && curve.last! == (x: 30, y: 0))
            // Within Cairo's tolerance (0.1 px) of the Bezier's top, 7.5 at its middle.
            #expect(abs((curve.map(\.y).max() ?? 0) - 7.5) < 0.11)
        }
    }
}
