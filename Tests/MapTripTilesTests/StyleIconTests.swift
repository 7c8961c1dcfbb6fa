import Cairo
import FFmpeg
import Foundation
import MapTripGeometry
import MapTripRecord
import MapTripScene
import MapTripSupport
import MapTripTime
import Testing
import TestSupport
import MapTripStyle
@testable import MapTripRender
@testable import MapTripTiles

/// Icons (`icon-image`) from a style's sprite, on Helsinki's points of interest: a sprite the test
/// writes (a red square, and a green one in the @2x sprite), each icon at its feature's point, sized,
/// anchored, faded, the text beside it, the two one box; a missing sprite or icon: one warning, the
/// labels drawn.
@Suite("Styled map icons from the style's sprite")
struct StyleIconTests {
    /// Numbers the pictures written for a look (MAPTRIP_TEST_PNG).
    final class Counter: @unchecked Sendable {
        private var n = 0
        private let lock = NSLock()
        func next() -> Int { lock.withLock { n += 1; return n } }
    }
    static let counter = Counter()
    static let camera = Camera(center: LonLat(lon: 24.9465, lat: 60.1695), zoom: 16)

    /// Writes `name.json` and `name.png` (and the @2x pair) into `dir`: "square" is 16 x 16 CSS pixels
    /// of red (green at @2x), "wide" 24 x 12 of blue.
    static func writeSprite(_ name: String, in dir: URL) throws {
        for ratio in [1, 2] {
            let sheet = try ImageSurface(width: 40 * ratio, height: 16 * ratio)
            try sheet.withContext { cr in
                cr.setSource(ratio == 1 ? Color(red: 1, green: 0, blue: 0) : Color(red: 0, green: 1, blue: 0))
                cr.rectangle(0, 0, Double(16 * ratio), Double(16 * ratio))
                cr.fill()
                cr.setSource(Color(red: 0, green: 0, blue: 1))
                cr.rectangle(Double(16 * ratio), 0, Double(24 * ratio), Double(12 * ratio))
                cr.fill()
            }
            let suffix = ratio == 2 ? "@2x" : ""
            try sheet.writePNG(to: dir.appendingPathComponent("\(name)\(suffix).png").path)
            let json: [String: Any] = [
                "square": ["x": 0, "y": 0, "width": 16 * ratio, "height": 16 * ratio, "pixelRatio": ratio],
                // The same pixels as a signed distance field (all inside its outline): drawn in icon-color.
                "square-sdf": ["x": 0, "y": 0, "width": 16 * ratio, "height": 16 * ratio, "pixelRatio": ratio, "sdf": true],
                "wide": ["x": 16 * ratio, "y": 0, "width": 24 * ratio, "height": 12 * ratio, "pixelRatio": ratio],
            ]
            try JSONSerialization.data(withJSONObject: json).write(to: dir.appendingPathComponent("\(name)\(suffix).json"))
        }
    }

    /// A test server of the sprite "remote" (`/files/remote.json`...), its files in `dir/files`.
    static func spriteServer(in dir: URL) throws -> HTTPTestServer {
        let files = dir.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try writeSprite("remote", in: files)
        return try HTTPTestServer(files: files)
    }

    /// A style of the set's named points of interest: each an icon, its name to the right.
    static func style(sprite: String? = "sprites/test", icon: String = "square", layout: String = "", paint: String = "") -> String {
        let spriteKey = sprite.map { #""sprite": "\#($0)","# } ?? ""
        return """
            {"version": 8, \(spriteKey) "sources": {"osm": {"type": "vector"}}, "layers": [
              {"id": "bg", "type": "background", "paint": {"background-color": "#ffffff"}},
              {"id": "poi", "type": "symbol", "source": "osm", "source-layer": "poi", "filter": ["has", "name"],
               "layout": {"icon-image": "\(icon)", "text-field": "{name}", "text-size": 12, "text-anchor": "left",
                          "text-offset": [1, 0] \(layout)},
               "paint": {"text-color": "#000000" \(paint)}}
            ]}
            """
    }

    static func map(_ style: String, in dir: URL) throws -> StyledMap {
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sprites"), withIntermediateDirectories: true)
        try writeSprite("test", in: dir.appendingPathComponent("sprites"))
        return try TileTest.styledMap(tiles: VectorData.pmtiles, style: style, in: dir)
    }

    static func render(_ map: StyledMap, scale: Double = 1) throws -> (ImageSurface, Viewport) {
        let v = Viewport(camera: camera, width: 1280, height: 720, scale: scale)
        try map.prepare(for: [v])
        let s = try TileTest.render(map, v)
        if let out = ProcessInfo.processInfo.environment["MAPTRIP_TEST_PNG"] { try s.writePNG(to: "\(out)-icons-\(counter.next()).png") }
        return (s, v)
    }

    /// The named points of interest, in frame pixels.
    static func points(in v: Viewport) throws -> [String: [(x: Double, y: Double)]] {
        try ReprojectedLabelTests.points().mapValues { $0.compactMap { v.pixel($0) } }
    }

    /// The test sprite's red (its square icon) in a frame, every other pixel of every other row.
    static func redPixels(_ s: ImageSurface) -> Int {
        var red = 0
        for y in stride(from: 0, to: s.height, by: 2) {
            for x in stride(from: 0, to: s.width, by: 2) {
                let c = rgb(s, Double(x), Double(y))
                if c.r > 200 && c.g < 60 { red += 1 }
            }
        }
        return red
    }

    /// Whether a box lies wholly in the 1280 x 720 frame.
    static func inFrame(_ b: Box) -> Bool { b.minX >= 0 && b.minY >= 0 && b.maxX <= 1280 && b.maxY <= 720 }

    static func rgb(_ s: ImageSurface, _ x: Double, _ y: Double) -> (r: Int, g: Int, b: Int) {
        let p = s.pixel(x: Int(x), y: Int(y))
        return (Int(p.r), Int(p.g), Int(p.b))
    }

    @Test("Each icon is drawn at its feature's point, its text to the right, one box around both")
    func iconsAtTheirPoints() throws {
        try TemporaryFolder.with("icons") { dir in
            let map = try Self.map(Self.style(), in: dir)
            let (s, v) = try Self.render(map)
            #expect(map.warnings.isEmpty, "\(map.warnings)")
            let points = try Self.points(in: v)
            let withIcons = map.labels.placements.filter { $0.icon.map(Self.inFrame) == true }
            #expect(withIcons.count >= 5, "icons placed: \(withIcons.count)")
            for p in withIcons {
                let icon = p.icon!
                // 16 x 16 CSS pixels, centred on the feature's point.
                #expect(abs(icon.maxX - icon.minX - 16) < 1e-9 && abs(icon.maxY - icon.minY - 16) < 1e-9)
                let cx = (icon.minX + icon.maxX) / 2, cy = (icon.minY + icon.maxY) / 2
                let nearest = (points[p.text] ?? []).map { hypot($0.x - cx, $0.y - cy) }.min() ?? .infinity
                #expect(nearest < 0.5, "\(p.text): its icon \(nearest) px from its point")
                // Red inside (a pixel in from each edge), the text's ink to the right of it.
                for (x, y) in [(cx, cy), (icon.minX + 1.5, icon.minY + 1.5), (icon.maxX - 1.5, icon.maxY - 1.5)] {
                    let c = Self.rgb(s, x, y)
                    #expect(c.r > 240 && c.g < 15 && c.b < 15, "\(p.text) at \(x), \(y): \(c)")
                }
                let box = p.boxes[0]
                #expect(box.minX <= icon.minX && box.maxX > icon.maxX + 10 && box.minY <= icon.minY && box.maxY >= icon.maxY)
                var ink = 0
                guard box.maxX < 1280 else { continue }
                for y in Int(icon.minY)..<Int(icon.maxY) {
                    for x in Int(icon.maxX + 1)..<min(1280, Int(box.maxX)) where Self.rgb(s, Double(x), Double(y)).g < 96 { ink += 1 }
                }
                #expect(ink > 10, "\(p.text): \(ink) ink pixels right of its icon")
            }
            // The boxes (icon and text as one) do not meet.
            let boxes = map.labels.placements.flatMap(\.boxes)
            for i in boxes.indices { for j in boxes.indices where j > i { #expect(!boxes[i].intersects(boxes[j])) } }
        }
    }

    @Test("icon-size, icon-anchor, icon-offset and icon-opacity; the @2x sprite at pixel ratio 2")
    func iconProperties() throws {
        try TemporaryFolder.with("icons") { dir in
            let points = try Self.points(in: Viewport(camera: Self.camera, width: 1280, height: 720))
            // Twice the size, its bottom on the point, moved 5 (icon-size'd: 10) pixels right, half faded.
            let map = try Self.map(Self.style(icon: "wide", layout: #", "icon-size": 2, "icon-anchor": "bottom", "icon-offset": [5, 0]"#,
                                              paint: #", "icon-opacity": 0.5"#), in: dir)
            let (s, _) = try Self.render(map)
            let placed = map.labels.placements.filter { $0.icon.map(Self.inFrame) == true }
            #expect(placed.count >= 3)
            for p in placed {
                let icon = p.icon!
                #expect(abs(icon.maxX - icon.minX - 48) < 1e-9 && abs(icon.maxY - icon.minY - 24) < 1e-9)
                let nearest = (points[p.text] ?? []).map { hypot($0.x + 10 - (icon.minX + icon.maxX) / 2, $0.y - icon.maxY) }.min() ?? .infinity
                #expect(nearest < 0.5, "\(p.text): \(nearest)")
                // Blue at half opacity over white.
                let c = Self.rgb(s, (icon.minX + icon.maxX) / 2, (icon.minY + icon.maxY) / 2)
                #expect(abs(c.r - 128) < 6 && abs(c.g - 128) < 6 && c.b > 250, "\(p.text): \(c)")
            }
            // At pixel ratio 2, the @2x sprite's green square, 32 frame pixels wide.
            let sharp = try Self.map(Self.style(), in: dir)
            let (s2, _) = try Self.render(sharp, scale: 2)
            let big = sharp.labels.placements.compactMap(\.icon).filter(Self.inFrame)
            #expect(!big.isEmpty)
            for icon in big {
                #expect(abs(icon.maxX - icon.minX - 32) < 1e-9)
                let c = Self.rgb(s2, (icon.minX + icon.maxX) / 2, (icon.minY + icon.maxY) / 2)
                #expect(c.g > 240 && c.r < 15, "\(c)")
            }
        }
    }

    @Test("A sprite over HTTP; an SDF icon in icon-color")
    func httpAndSDF() throws {
        try HTTPTestServer.withTemporaryDirectory { dir in
            let server = try Self.spriteServer(in: dir)
            defer { server.stop() }
            let url = server.url("/files/remote").absoluteString
            let map = try Self.map(Self.style(sprite: url, icon: "square-sdf", paint: ##", "icon-color": "#00ff00""##), in: dir)
            let (s, _) = try Self.render(map)
            #expect(map.warnings.isEmpty, "\(map.warnings)")
            let icons = map.labels.placements.compactMap(\.icon).filter(Self.inFrame)
            #expect(icons.count >= 5)
            for icon in icons {
                let c = Self.rgb(s, (icon.minX + icon.maxX) / 2, (icon.minY + icon.maxY) / 2)
                #expect(c.g > 240 && c.r < 15 && c.b < 15, "\(c)")
            }
            let asked = try server.log().requests.map(\.path)
            #expect(asked.contains("/files/remote.json") && asked.contains("/files/remote.png"), "\(asked)")
        }
    }

    @Test("Icons alone: icon-allow-overlap lets more of them show")
    func iconsAlone() throws {
        try TemporaryFolder.with("icons") { dir in
            func placed(_ overlap: Bool) throws -> Int {
                let style = Self.style(icon: "square").replacingOccurrences(of: #""text-field": "{name}", "#, with: "")
                    .replacingOccurrences(of: #""icon-image""#, with: #""icon-allow-overlap": \#(overlap), "icon-image""#)
                let map = try Self.map(style, in: dir)
                _ = try Self.render(map)
                #expect(map.labels.placements.allSatisfy { $0.text.isEmpty && $0.icon != nil })
                return map.labels.placements.count
            }
            let apart = try placed(false), overlapping = try placed(true)
            #expect(apart >= 20 && overlapping > apart, "\(apart) icons apart, \(overlapping) allowed to overlap")
        }
    }

    @Test("A missing sprite, or an icon it does not have: one warning, the labels drawn")
    func missing() throws {
        try TemporaryFolder.with("icons") { dir in
            for (style, warning) in [(Self.style(sprite: "sprites/nothing"), "its sprite could not be read"),
                                     (Self.style(sprite: nil), "the style names no sprite"),
                                     (Self.style(icon: "{class}"), "not in its sprite")] {
                let map = try Self.map(style, in: dir)
                let (s, _) = try Self.render(map)
                let text = map.labels.placements.filter { !$0.text.isEmpty }
                #expect(text.count >= 5, "\(warning): \(text.count) labels")
                #expect(map.labels.placements.allSatisfy { $0.icon == nil })
                #expect(map.warnings.count == 1 && map.warnings[0].contains(warning), "\(map.warnings)")
                // No red: no icon drawn.
                #expect(Self.redPixels(s) == 0)
            }
        }
    }


    @Test("OSM Liberty with its own sprite: its points of interest get their icons")
    func osmLiberty() throws {
        try TemporaryFolder.with("icons") { dir in
            let fixtures = VectorData.fixtures.appendingPathComponent("osm-liberty-sprite")
            // The fixture's style with its sprite here, less its raster relief (an online source, drawn below zoom 6).
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: VectorData.root.appendingPathComponent(
                "Tests/MapTripStyleTests/Fixtures/osm-liberty.json"))) as? [String: Any])
            #expect(json["sprite"] as? String == "https://maputnik.github.io/osm-liberty/sprites/osm-liberty")
            json["sprite"] = fixtures.appendingPathComponent("osm-liberty").path
            var sources = try #require(json["sources"] as? [String: Any])
            sources["natural_earth_shaded_relief"] = nil
            json["sources"] = sources
            json["layers"] = (json["layers"] as? [[String: Any]])?.filter { $0["source"] as? String != "natural_earth_shaded_relief" }
            let style = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
            let map = try TileTest.styledMap(tiles: VectorData.pmtiles, style: style, in: dir)
            #expect(map.labels.sprite.map { $0.isEmpty } == false)
            let (s, _) = try Self.render(map)
            let icons = map.labels.placements.compactMap(\.icon).filter(Self.inFrame)
            print("OSM Liberty: \(map.labels.placements.count) labels, \(icons.count) icons; warnings: \(map.warnings)")
            #expect(icons.count >= 5)
            // Each icon is drawn: its box holds pixels unlike the land around (Maki's dark glyph on its disc).
            for icon in icons {
                var colours = Set<Int>()
                for y in Int(icon.minY)..<Int(icon.maxY) {
                    for x in Int(icon.minX)..<Int(icon.maxX) {
                        let c = Self.rgb(s, Double(x), Double(y))
                        colours.insert(c.r / 16 * 256 + c.g / 16 * 16 + c.b / 16)
                    }
                }
                #expect(colours.count >= 4, "\(icon): \(colours.count) colours")
            }
            #expect(!map.warnings.contains { $0.contains("icons (icon-image) are not drawn") }, "\(map.warnings)")
        }
    }

    /// Two OpenMapTiles styles as their authors publish them (fetched: Positron and OSM Bright; see
    /// Fixtures/README.md), less only their online sprites: each draws the Helsinki tiles in its own
    /// colours (its background, read from the style, on a good share of the frame, and many other
    /// colours in use: streets, buildings, parks), with street names along the streets.
    @Test("Positron and OSM Bright draw the Helsinki tiles in their own colours, streets named", arguments: ["positron", "osm-bright"])
    func openMapTilesStyles(name: String) throws {
        try TemporaryFolder.with("styles") { dir in
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: VectorData.root.appendingPathComponent(
                "Tests/MapTripStyleTests/Fixtures/\(name).json"))) as? [String: Any])
            json["sprite"] = nil
            let layers = try #require(json["layers"] as? [[String: Any]])
            func fill(_ id: String, _ key: String) throws -> StyleColor {
                let layer = try #require(layers.first { $0["id"] as? String == id })
                let css = try #require((layer["paint"] as? [String: Any])?[key] as? String)
                return try #require(StyleColor(css: css))
            }
            let background = try fill("background", "background-color")
            let style = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
            let map = try TileTest.styledMap(tiles: VectorData.pmtiles, style: style, in: dir)
            let (s, _) = try Self.render(map)
            func share(_ c: StyleColor) -> Double {
                var near = 0, all = 0
                for y in stride(from: 0, to: s.height, by: 3) {
                    for x in stride(from: 0, to: s.width, by: 3) {
                        let p = Self.rgb(s, Double(x), Double(y))
                        all += 1
                        if abs(Double(p.r) - c.red * 255) < 6 && abs(Double(p.g) - c.green * 255) < 6 && abs(Double(p.b) - c.blue * 255) < 6 { near += 1 }
                    }
                }
                return Double(near) / Double(all)
            }
            // The colours in use (to 4 bits a channel), each on at least 0.2% of the frame.
            var counts: [Int: Int] = [:]
            for y in stride(from: 0, to: s.height, by: 3) {
                for x in stride(from: 0, to: s.width, by: 3) {
                    let p = Self.rgb(s, Double(x), Double(y))
                    counts[p.r / 16 * 256 + p.g / 16 * 16 + p.b / 16, default: 0] += 1
                }
            }
            let colours = counts.values.filter { $0 * 500 >= counts.values.reduce(0, +) }.count
            let streets = map.labels.placements.filter { $0.kind == .line }
            print("\(name): background \(share(background)), \(colours) colours, \(map.labels.placements.count) labels, "
                  + "\(streets.count) along streets; style warnings: \(map.style.warnings.map(\.description)); map warnings: \(map.warnings)")
            #expect(share(background) > 0.2 && share(background) < 0.95, "\(name)'s background")
            #expect(colours >= 5)  // (Positron is greys: 6 here; OSM Bright 21)
            #expect(streets.count >= 5)
            // Nothing left undrawn but the icons (their sprite is online, taken away above); the style's only
            // warning its root's "id" (MapTiler's, not the spec's).
            #expect(map.warnings.allSatisfy { $0.contains("the style names no sprite") }, "\(map.warnings)")
            #expect(map.style.warnings.allSatisfy { $0.path == "id" }, "\(map.style.warnings.map(\.description))")
        }
    }
}

/// Through the product: a scene on the globe over the Helsinki tiles, its style's points of interest
/// with the test sprite's blue icon, rendered to MP4 and decoded.
@Suite("Styled map icons on the globe, rendered to MP4")
struct StyleIconVideoTests {
    @Test("The decoded frame's blue icons lie on the points of interest, through the globe")
    func iconsOnTheGlobeInAVideo() throws {
        try TemporaryFolder.with("icons-video") { dir in
            let zoom = 16 + log2(1 / cos(60.1695 * .pi / 180))
            let json = """
                { "video": { "width": 640, "height": 360, "fps": 6 }, "opening": false,
                  "map": { "tiles": "\(VectorData.pmtiles.path)", "style": "style.json", "projection": "globe",
                           "attribution": "© OpenStreetMap contributors" },
                  "places": [ { "name": "A", "lat": 60.1695, "lon": 24.9465, "zoom": \(zoom), "dwell": 1 } ] }
                """
            let (summary, frame, viewport, _) = try LineIconVideoTests.render(scene: json, style: StyleIconTests.style(icon: "wide"), in: dir)
            #expect(summary.warnings.isEmpty, "\(summary.warnings)")
            let points = try ReprojectedLabelTests.points().values.flatMap { $0 }.compactMap { viewport.pixel($0) }
            // Every blue pixel within an icon's reach (24 x 12 CSS pixels about its point, and the
            // encoder's chroma) of a point of interest; and many icons drawn.
            let (blue, stray) = LineIconVideoTests.bluePixels(frame) { px, py in
                points.contains { abs($0.x - px) <= 14 && abs($0.y - py) <= 8 }
            }
            print("globe video: \(blue) blue pixels, \(stray) away from any point of interest")
            #expect(blue > 8 * 200, "\(blue) blue pixels")
            #expect(stray == 0)
        }
    }
}
