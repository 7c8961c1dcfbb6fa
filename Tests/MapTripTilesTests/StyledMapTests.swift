import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripStyle
import MapTripSupport
import Testing
import TestSupport
import VectorTile
@testable import MapTripRender
@testable import MapTripTiles

/// The styled map: Helsinki's OpenStreetMap vector tiles (Assets/tiles) drawn with a MapLibre style.
/// Pixels are checked where the tiles' own features are, found by decoding the tiles here.
@Suite("Styled vector map")
struct StyledMapTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let assets = root.appendingPathComponent("Assets")
    static let pmtiles = assets.appendingPathComponent("tiles/helsinki.pmtiles")
    /// Central Helsinki at camera zoom 16 (style zoom 15), where the set's z14 tiles are enlarged.
    static let camera = Camera(center: LonLat(lon: 24.9465, lat: 60.1695), zoom: 16)

    static let red = Color(red: 1, green: 0, blue: 0), green = Color(red: 0, green: 1, blue: 0)
    static let blue = Color(red: 0, green: 0, blue: 1)

    /// A style of a red background, blue water and green buildings, with `extra` layers after them
    /// and `building` as the buildings' layer's extra keys.
    static func style(building: String = "", extra: String = "") -> String {
        """
        {"version": 8, "sources": {"osm": {"type": "vector"}}, "layers": [
          {"id": "bg", "type": "background", "paint": {"background-color": "#ff0000"}},
          {"id": "water", "type": "fill", "source": "osm", "source-layer": "water", "paint": {"fill-color": "#0000ff"}},
          {"id": "building", "type": "fill", "source": "osm", "source-layer": "building", \(building)
           "paint": {"fill-color": "#00ff00"}}\(extra)
        ]}
        """
    }

    /// The styled map of the Helsinki tiles with `style` (a style file's text) as a scene gives it.
    static func map(style text: String, in dir: URL) throws -> StyledMap {
        let file = dir.appendingPathComponent("style.json")
        try Data(text.utf8).write(to: file)
        let source = MapSource(tiles: pmtiles.path, attribution: "© OpenStreetMap contributors")
        var map = source
        map.style = "style.json"
        let tiles = try TileSources.make(source, sceneDirectory: dir)
        #expect(tiles.info.isVector)
        return try StyledMaps.make(tiles: tiles, map: map, scene: Scene(places: []), sceneDirectory: dir, assets: assets)
    }

    static func render(_ map: StyledMap, camera: Camera = camera, width: Int = 640, height: Int = 360) throws
        -> (ImageSurface, Viewport) {
        let v = Viewport(camera: camera, width: width, height: height)
        try map.prepare(for: [v])
        let s = try ImageSurface(width: width, height: height)
        try s.withContext { try map.draw(v, in: $0) }
        return (s, v)
    }

    /// Points well inside the set's buildings (their rings' centroids, inside the ring and outside
    /// its holes, of buildings at least 30 m across), decoded from the z14 tiles.
    static func buildingInteriors() throws -> [LonLat] { try interiors(of: "building", across: 30) }

    /// The same for a layer's polygons at least `metres` across.
    static func interiors(of name: String, across metres: Double) throws -> [LonLat] {
        let set = try VectorTileSet(source: try PMTilesSource(file: pmtiles))
        var out: [LonLat] = []
        for key in [TileKey(z: 14, x: 9327, y: 4741), TileKey(z: 14, x: 9327, y: 4742)] {
            let view = try set.tiles(for: [key])[key]!.get()
            guard let layer = view.tile.layer(named: name) else { continue }
            let e = Double(layer.extent), n = Double(1 << key.z)
            func lonLat(_ x: Double, _ y: Double) -> LonLat {
                WebMercator.unproject(WorldPoint(x: (Double(key.x) + x / e) / n, y: (Double(key.y) + y / e) / n))
            }
            for feature in layer.features {
                for polygon in feature.polygons {
                    let ring = polygon[0].map { (x: Double($0.x), y: Double($0.y)) }
                    let xs = ring.map(\.x), ys = ring.map(\.y)
                    // A metre at 60° north is 1 / (40,075 km x cos 60°) of the world.
                    let size = metres / 40_075_000 / 0.5
                    guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max(),
                          (x1 - x0) / e / n > size, (y1 - y0) / e / n > size else { continue }
                    let cx = xs.reduce(0, +) / Double(xs.count), cy = ys.reduce(0, +) / Double(ys.count)
                    guard cx > 0, cy > 0, cx < e, cy < e, inside(cx, cy, ring),
                          !polygon.dropFirst().contains(where: { inside(cx, cy, $0.map { (x: Double($0.x), y: Double($0.y)) }) })
                    else { continue }
                    out.append(lonLat(cx, cy))
                }
            }
        }
        return out
    }

    static func inside(_ x: Double, _ y: Double, _ ring: [(x: Double, y: Double)]) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in ring.indices {
            let a = ring[i], b = ring[j]
            if (a.y > y) != (b.y > y), x < (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    static func count(_ s: ImageSurface, _ c: Color, tolerance: Int = 8) -> Int {
        var n = 0
        for y in 0..<s.height {
            for x in 0..<s.width where looks(s, (Double(x), Double(y)), like: c, tolerance: tolerance) { n += 1 }
        }
        return n
    }

    static func looks(_ s: ImageSurface, _ p: (x: Double, y: Double), like c: Color, tolerance: Int = 8) -> Bool {
        let px = s.pixel(x: Int(p.x), y: Int(p.y))
        return abs(Int(px.r) - Int(c.red * 255)) <= tolerance && abs(Int(px.g) - Int(c.green * 255)) <= tolerance
            && abs(Int(px.b) - Int(c.blue * 255)) <= tolerance && px.a == 255
    }

    @Test("Buildings are painted where the tiles put them, layers in the style's order")
    func buildingsWhereTheTilesPutThem() throws {
        try TemporaryFolder.with("styled") { dir in
            let (s, v) = try Self.render(try Self.map(style: Self.style(), in: dir))
            let points = try Self.buildingInteriors().compactMap { v.pixel($0) }
                .filter { $0.x >= 2 && $0.y >= 2 && $0.x < 638 && $0.y < 358 }
            #expect(points.count >= 20, "buildings in view: \(points.count)")
            let green = points.filter { Self.looks(s, $0, like: Self.green) }
            #expect(green.count == points.count, "\(points.count - green.count) of \(points.count) building interiors not green")
            #expect(Self.count(s, Self.red) > 640 * 360 / 10)  // streets and yards: the background
            #expect(Self.count(s, Self.blue) > 0)  // Kaisaniemenlahti's water, north of the view's centre
        }
    }

    @Test("Filters, zoom ranges and visibility decide what is drawn")
    func filtersAndZooms() throws {
        try TemporaryFolder.with("styled") { dir in
            let none = try Self.render(try Self.map(style: Self.style(building: #""filter": ["==", ["get", "class"], "no such class"],"#), in: dir)).0
            #expect(Self.count(none, Self.green) == 0)
            // Legacy filter syntax: every building has a render_height.
            let legacy = try Self.render(try Self.map(style: Self.style(building: #""filter": ["has", "render_height"],"#), in: dir)).0
            #expect(Self.count(legacy, Self.green) > 1000)
            // minzoom 16 (style zoom): not shown at camera zoom 16, shown at 17.
            let deep = try Self.map(style: Self.style(building: #""minzoom": 16,"#), in: dir)
            #expect(Self.count(try Self.render(deep).0, Self.green) == 0)
            var closer = Self.camera
            closer.zoom = 17
            #expect(Self.count(try Self.render(deep, camera: closer).0, Self.green) > 1000)
            let hidden = try Self.render(try Self.map(style: Self.style(building: #""layout": {"visibility": "none"},"#), in: dir)).0
            #expect(Self.count(hidden, Self.green) == 0)
        }
    }

    @Test("Line widths follow the style's zoom function")
    func lineWidths() throws {
        try TemporaryFolder.with("styled") { dir in
            func dark(_ width: String) throws -> Int {
                let style = Self.style(extra: """
                    , {"id": "roads", "type": "line", "source": "osm", "source-layer": "transportation",
                       "paint": {"line-color": "#000000", "line-width": \(width)}}
                    """)
                return Self.count(try Self.render(try Self.map(style: style, in: dir)).0, Color(red: 0, green: 0, blue: 0), tolerance: 20)
            }
            let thin = try dark("1"), thick = try dark("4")
            let byZoom = try dark(#"["interpolate", ["linear"], ["zoom"], 14, 1, 16, 7]"#)  // 4 at style zoom 15
            #expect(thin > 500)
            #expect(Double(thick) > 2.5 * Double(thin), "1 px: \(thin), 4 px: \(thick)")
            #expect(abs(Double(byZoom) / Double(thick) - 1) < 0.05, "4 px: \(thick), interpolated: \(byZoom)")
            #expect(try dark("0") == 0)
        }
    }

    @Test("Labels are placed against each other: no two boxes meet")
    func labelsDoNotCollide() throws {
        try TemporaryFolder.with("styled") { dir in
            let style = Self.style(extra: """
                , {"id": "poi", "type": "symbol", "source": "osm", "source-layer": "poi",
                   "layout": {"text-field": "{name}", "text-size": 14, "text-font": ["Noto Sans Regular"]},
                   "paint": {"text-color": "#000000"}},
                  {"id": "places", "type": "symbol", "source": "osm", "source-layer": "place",
                   "layout": {"text-field": ["get", "name"], "text-size": 18}, "paint": {"text-color": "#000000"}}
                """)
            let map = try Self.map(style: style, in: dir)
            let (s, _) = try Self.render(map)
            let boxes = map.labels.boxes
            #expect(boxes.count >= 5, "labels placed: \(boxes.count)")
            for i in boxes.indices {
                for j in boxes.indices where j > i { #expect(!boxes[i].intersects(boxes[j])) }
            }
            // Each placed label inked its box.
            for b in boxes.prefix(10) {
                var ink = 0
                for y in max(0, Int(b.minY))..<min(360, Int(b.maxY)) {
                    for x in max(0, Int(b.minX))..<min(640, Int(b.maxX)) where s.pixel(x: x, y: y).g < 80 { ink += 1 }
                }
                #expect(ink > 10)
            }
            // With overlap allowed, more labels show.
            let crowded = try Self.map(style: style.replacingOccurrences(of: #""text-size": 14,"#,
                                                                         with: #""text-size": 14, "text-allow-overlap": true,"#), in: dir)
            _ = try Self.render(crowded)
            #expect(crowded.labels.placed > map.labels.placed)
        }
    }

    @Test("Every theme's style reads without a warning and draws the theme's colours")
    func themes() throws {
        try TemporaryFolder.with("styled") { dir in
            for name in Style.themes {
                let theme = Style.theme(name)!
                let document = try ThemeStyles.document(assets: Self.assets, style: theme)
                #expect(document.warnings.isEmpty, "\(name): \(document.warnings)")
                var source = MapSource(tiles: Self.pmtiles.path)
                source.style = name
                let tiles = try TileSources.make(source, sceneDirectory: dir)
                let map = try StyledMaps.make(tiles: tiles, map: source, scene: Scene(places: []), sceneDirectory: dir,
                                              assets: Self.assets)
                // The set's ponds and basins: the theme's water; its buildings: not the land's colour.
                let (s, v) = try Self.render(map, camera: Camera(center: LonLat(lon: 24.9465, lat: 60.1715), zoom: 16),
                                             width: 1280, height: 720)
                let ponds = try Self.interiors(of: "water", across: 8).compactMap { v.pixel($0) }
                    .filter { $0.x >= 0 && $0.y >= 0 && $0.x < 1280 && $0.y < 720 }
                #expect(!ponds.isEmpty)
                // (Havis Amanda's fountain lies under its label.)
                let open = ponds.filter { p in !map.labels.boxes.contains { $0.minX <= p.x && p.x <= $0.maxX && $0.minY <= p.y && p.y <= $0.maxY } }
                #expect(!open.isEmpty)
                for p in open { #expect(Self.looks(s, p, like: theme.lakes, tolerance: 10), "\(name): \(p)") }
                let buildings = try Self.buildingInteriors().compactMap { v.pixel($0) }
                    .filter { $0.x >= 0 && $0.y >= 0 && $0.x < 1280 && $0.y < 720 }
                #expect(buildings.count > 10)
                // (A few lie under a street, a path or a label drawn over them.)
                let painted = buildings.filter { !Self.looks(s, $0, like: theme.land, tolerance: 6) }
                #expect(Double(painted.count) >= 0.9 * Double(buildings.count), "\(name): \(painted.count) of \(buildings.count)")
            }
        }
    }

    @Test("A missing style file, and a style for raster tiles, are one clear error each")
    func styleErrors() throws {
        try TemporaryFolder.with("styled") { dir in
            var source = MapSource(tiles: Self.pmtiles.path)
            source.style = "nowhere.json"
            let tiles = try TileSources.make(source, sceneDirectory: dir)
            #expect(throws: Diagnostic.self) {
                try StyledMaps.make(tiles: tiles, map: source, scene: Scene(places: []), sceneDirectory: dir, assets: Self.assets)
            }
            try Data("{\"version\": 8, \"sources\": {\"osm\": {\"type\": \"vector\"}}, \"layers\": [{\"id\": \"x\", \"type\": \"fill\", \"source\": \"osm\", \"paint\": {\"fill-color\": 3}}]}".utf8)
                .write(to: dir.appendingPathComponent("bad.json"))
            source.style = "bad.json"
            do {
                _ = try StyledMaps.make(tiles: tiles, map: source, scene: Scene(places: []), sceneDirectory: dir, assets: Self.assets)
                Issue.record("a fill-color of 3 was accepted")
            } catch {
                #expect("\(error)".contains("bad.json:1:"), "\(error)")
                #expect("\(error)".contains("layers[0].paint.fill-color"), "\(error)")
            }
        }
    }

    @Test("validate reads map.style: a missing file, and a style that does not read, where the scene names it")
    func validateReadsTheStyle() throws {
        try TemporaryFolder.with("styled") { dir in
            let scene = dir.appendingPathComponent("trip.json")
            func check(_ style: String) -> SceneReport {
                let text = "{\n  \"map\": { \"tiles\": \"\(Self.pmtiles.path)\",\n    \"style\": \"\(style)\" },\n"
                    + "  \"places\": [ { \"lat\": 60.17, \"lon\": 24.94 } ]\n}\n"
                try? Data(text.utf8).write(to: scene)
                return SceneLoader.check(contentsOf: scene, styles: StyleFileCheck())
            }
            let missing = check("nowhere.json")
            #expect(missing.errors.count == 1)
            #expect(missing.errors.first?.line == 3 && missing.errors.first?.path == "map.style", "\(missing.errors)")
            #expect(missing.errors.first?.message.contains("'nowhere.json' not found") == true)

            try Data("{\"version\": 8, \"sources\": {\"osm\": {\"type\": \"vector\"}},\n \"layers\": [{\"id\": \"x\", \"type\": \"fill\", \"source\": \"osm\", \"paint\": {\"fill-color\": 3}}]}".utf8)
                .write(to: dir.appendingPathComponent("bad.json"))
            let bad = check("bad.json")
            #expect(bad.errors.count == 1)
            let message = bad.errors.first?.message ?? ""
            #expect(message.contains("bad.json:2:") && message.contains("layers[0].paint.fill-color"), "\(message)")

            try Data("{\"version\": 8, \"sources\": {\"osm\": {\"type\": \"vector\"}}, \"layers\": [{\"id\": \"x\", \"type\": \"fill\", \"source\": \"osm\", \"paint\": {\"fill-colour\": \"red\"}}]}".utf8)
                .write(to: dir.appendingPathComponent("odd.json"))
            let odd = check("odd.json")
            #expect(odd.errors.isEmpty, "\(odd.errors)")
            #expect(odd.warnings.contains { $0.message.contains("fill-colour") }, "\(odd.warnings)")
            #expect(check("dark").errors.isEmpty)
        }
    }

    @Test("a text-font family fontconfig does not have is one warning per family, at its JSON path")
    func missingFontFamilyIsOneWarningPerFamily() throws {
        // What fontconfig has here decides the expectation: a family it has, and one it cannot have.
        #expect(StyleFonts.missing(["Noto Sans Regular"]) == nil)
        let absent = "Maptrip Absent Sans"
        let found = try #require(StyleFonts.missing(["\(absent) Bold"]))
        #expect(found.asked == absent && found.found != absent, "\(found)")
        try TemporaryFolder.with("styled") { dir in
            func symbol(_ id: String, _ font: String) -> String {
                #"{"id": "\#(id)", "type": "symbol", "source": "osm", "source-layer": "place", "layout": {"text-field": "{name}", "text-font": ["\#(font)"]}}"#
            }
            let layers = [symbol("a", "Noto Sans Regular"), symbol("b", "\(absent) Bold"), symbol("c", "\(absent) Regular"),
                          symbol("d", "Noto Sans Bold")]
            let style = "{\"version\": 8, \"sources\": {\"osm\": {\"type\": \"vector\"}},\n \"layers\": [\n"
                + layers.joined(separator: ",\n") + "]}"
            let url = dir.appendingPathComponent("fonts.json")
            try Data(style.utf8).write(to: url)
            let withFonts = StyleFileCheck(fonts: StyleFonts.missing).problems(with: url)
            #expect(withFonts.errors.isEmpty, "\(withFonts.errors)")
            let warnings = withFonts.warnings.filter { $0.message.contains("text-font") }
            #expect(warnings.count == 1, "\(withFonts.warnings)")
            let message = warnings.first?.message ?? ""
            let column = try #require(layers[1].range(of: "\"text-font\": ").map { layers[1].distance(from: layers[1].startIndex, to: $0.upperBound) + 1 })
            #expect(message.hasPrefix("style \(url.relativePath):4:\(column): layers[1].layout.text-font: font family '\(absent)' is not installed"),
                    "\(message)")
            #expect(message.hasSuffix("drawn in '\(found.found)'"), "\(message)")
            // Without fontconfig's answer (the style module alone), no font is judged.
            #expect(StyleFileCheck().problems(with: url).warnings.allSatisfy { !$0.message.contains("text-font") })
        }
    }

    /// A scene given by a relative path (`maptrip-bench --scene Scenes/helsinki.json` did so) finds
    /// tiles named relative to it, `..` included: they were looked for at /Assets/... before.
    @Test("Tiles relative to a scene given by a relative path")
    func relativeSceneFolder() throws {
        let cwd = FileManager.default.currentDirectoryPath
        let local = try #require(try TileSources.localTiles("../Assets/tiles/x.pmtiles", sceneDirectory: URL(fileURLWithPath: "Scenes/")))
        #expect(local.url.path == URL(fileURLWithPath: cwd).appendingPathComponent("Assets/tiles/x.pmtiles").standardizedFileURL.path)
    }
}
