import Cairo
import FFmpeg
import Foundation
import MapTripGeometry
import MapTripRecord
import MapTripScene
import Testing
import TestSupport
@testable import MapTripRender
@testable import MapTripTiles

/// The pixel proofs of the styled vector map on Helsinki's OpenStreetMap tiles (Assets/tiles):
/// maptrip's frames against an independent drawing of the same tiles (PyPI's mapbox-vector-tile
/// decoding, Pillow drawing: tools/vector-reference.py), and the same frame from every kind of source.
@Suite("Vector tile proofs: an independent drawing, every source alike")
struct VectorProofTests {
    /// A view of the Helsinki set: maptrip's camera (its zoom less one is the style's zoom).
    struct View: CustomStringConvertible {
        var name: String
        var lon, lat, zoom: Double
        var width = 640, height = 360
        var scale = 1.0
        var viewport: Viewport {
            Viewport(camera: Camera(center: LonLat(lon: lon, lat: lat), zoom: zoom), width: width, height: height, scale: scale)
        }
        var json: [String: Any] {
            ["lon": lon, "lat": lat, "zoom": zoom, "width": width, "height": height, "scale": scale, "out": "\(name).png"]
        }
        var description: String { "\(name) (zoom \(zoom) at \(lon), \(lat))" }
    }

    /// Where tiles 14/9326-9327/4741-4742 meet: a view centred there crosses both seams.
    static let seam = (lon: 24.93896484375, lat: 60.17430626192602)

    /// Zooms 14 to 17 (style zooms 13 to 16: tiles of zoom 13, 14, and 14 enlarged), centre and
    /// north, a view across the seams of four tiles, and a pond up close.
    static let views = [
        View(name: "z14", lon: 24.9445, lat: 60.1705, zoom: 14, scale: 2),
        View(name: "z15", lon: 24.9465, lat: 60.1705, zoom: 15),
        View(name: "z16", lon: 24.9465, lat: 60.1695, zoom: 16),
        View(name: "z17-pond", lon: 24.9437, lat: 60.1733, zoom: 17),
        View(name: "seams", lon: seam.lon, lat: seam.lat, zoom: 16),
        View(name: "seams-north", lon: 24.9462, lat: 60.1742, zoom: 17),
    ]

    static let water = (channel: 2, css: "#0000ff"), building = (channel: 1, css: "#00ff00"), road = (channel: 0, css: "#ff0000")

    // MARK: The independent drawing

    /// Runs tools/vector-reference.py on the Helsinki MBTiles for `views`: one image each.
    static func reference(_ views: [View], layers: [[String: Any]], in dir: URL) throws -> [ImageSurface] {
        try FileManager.default.copyItem(at: VectorData.mbtiles, to: dir.appendingPathComponent("helsinki.mbtiles"))
        let job: [String: Any] = ["tiles": "helsinki.mbtiles", "background": [0, 0, 0], "layers": layers, "views": views.map(\.json)]
        let file = dir.appendingPathComponent("job.json")
        try JSONSerialization.data(withJSONObject: job).write(to: file)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", VectorData.root.appendingPathComponent("tools/vector-reference.py").path, file.path]
        let errors = Pipe()
        p.standardError = errors
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "tools/vector-reference.py failed: \(String(decoding: message, as: UTF8.self))")
        return try views.map { try ImageSurface(pngData: Data(contentsOf: dir.appendingPathComponent("\($0.name).png"))) }
    }

    /// The same layers for maptrip: a black background, then each as a fill or a round line.
    static func style(_ layers: [[String: Any]]) throws -> String {
        var out: [[String: Any]] = [["id": "bg", "type": "background", "paint": ["background-color": "#000000"]]]
        for (i, l) in layers.enumerated() {
            let c = l["color"] as! [Int]
            let css = String(format: "#%02x%02x%02x", c[0], c[1], c[2])
            var layer: [String: Any] = ["id": "l\(i)", "type": l["type"]!, "source": "osm", "source-layer": l["source-layer"]!]
            if let classes = l["classes"] as? [String] { layer["filter"] = ["in", "class"] + classes }
            if l["type"] as? String == "line" {
                layer["layout"] = ["line-cap": "round", "line-join": "round"]
                layer["paint"] = ["line-color": css, "line-width": l["width"]!]
            } else {
                layer["paint"] = ["fill-color": css]
            }
            out.append(layer)
        }
        let style: [String: Any] = ["version": 8, "sources": ["osm": ["type": "vector"]], "layers": out]
        return String(decoding: try JSONSerialization.data(withJSONObject: style), as: UTF8.self)
    }

    /// Pixels whose `channel` is at least half on, as a mask.
    static func mask(_ s: ImageSurface, channel: Int) -> [Bool] {
        var out = [Bool](repeating: false, count: s.width * s.height)
        for y in 0..<s.height {
            for x in 0..<s.width {
                let p = s.pixel(x: x, y: y)
                out[y * s.width + x] = [p.r, p.g, p.b][channel] >= 128
            }
        }
        return out
    }

    /// Intersection and union of two masks, and the first's count.
    static func overlap(_ a: [Bool], _ b: [Bool]) -> (intersection: Int, union: Int, a: Int) {
        var i = 0, u = 0, n = 0
        for k in a.indices {
            if a[k] && b[k] { i += 1 }
            if a[k] || b[k] { u += 1 }
            if a[k] { n += 1 }
        }
        return (i, u, n)
    }

    /// maptrip's frame of a view (prepared first, as a render prepares the map for its frames).
    static func frame(_ map: BaseMap, _ viewport: Viewport) throws -> ImageSurface {
        try map.prepare(for: [viewport])
        return try TileTest.render(map, viewport)
    }

    /// maptrip's frames of `views` with the style for `layers`, from the Helsinki MBTiles.
    static func maptrip(_ views: [View], layers: [[String: Any]], in dir: URL) throws -> [ImageSurface] {
        let map = try TileTest.styledMap(tiles: VectorData.mbtiles, style: try style(layers), in: dir)
        return try views.map { try Self.frame(map, $0.viewport) }
    }

    @Test("Water and buildings where OpenStreetMap has them: IoU >= 0.95 against mapbox-vector-tile and Pillow")
    func areasAgainstAnIndependentDrawing() throws {
        try TileTest.withTempDir { dir in
            let layers: [[String: Any]] = [["source-layer": "water", "type": "fill", "color": [0, 0, 255]],
                                           ["source-layer": "building", "type": "fill", "color": [0, 255, 0]]]
            let expected = try Self.reference(Self.views, layers: layers, in: dir)
            let got = try Self.maptrip(Self.views, layers: layers, in: dir)
            var waterViews = 0
            for (n, view) in Self.views.enumerated() {
                for (name, channel) in [("water", Self.water.channel), ("buildings", Self.building.channel)] {
                    let reference = Self.mask(expected[n], channel: channel)
                    let (i, u, count) = Self.overlap(reference, Self.mask(got[n], channel: channel))
                    let iou = Double(i) / Double(max(u, 1))
                    print("\(view) \(name): \(count) reference pixels, IoU \(String(format: "%.4f", iou))")
                    // A view with a few pixels of a class says nothing of it: every view has buildings.
                    if name == "buildings" { #expect(count > 4000, "\(view): \(count) building pixels") }
                    guard count >= 400 else { continue }
                    if name == "water" { waterViews += 1 }
                    #expect(iou >= 0.95, "\(view) \(name): IoU \(iou)")
                }
            }
            #expect(waterViews >= 2)
        }
    }

    @Test("A major road's line lies along the road: the reference's road pixels >= 90% maptrip's road colour")
    func majorRoadAlongTheRoad() throws {
        try TileTest.withTempDir { dir in
            let layers: [[String: Any]] = [["source-layer": "transportation", "type": "line", "classes": ["primary"],
                                            "width": 6, "color": [255, 0, 0]]]
            let views = Array(Self.views.dropFirst())
            let expected = try Self.reference(views, layers: layers, in: dir)
            let got = try Self.maptrip(views, layers: layers, in: dir)
            var checked = 0
            for (n, view) in views.enumerated() {
                let mine = Self.mask(got[n], channel: Self.road.channel)
                let (i, u, count) = Self.overlap(Self.mask(expected[n], channel: Self.road.channel), mine)
                print("\(view) primary roads: \(count) reference pixels, \(i) covered, IoU \(String(format: "%.4f", Double(i) / Double(max(u, 1))))")
                guard count >= 400 else { continue }
                checked += 1
                #expect(Double(i) >= 0.9 * Double(count), "\(view): \(i) of \(count) road pixels covered")
                // And maptrip draws no road where the reference has none.
                #expect(Double(mine.filter { $0 }.count) <= 1.1 * Double(count), "\(view)")
            }
            #expect(checked >= 2)  // primary roads (Mannerheimintie among them) cross the zoom 15 and 16 views
        }
    }

    @Test("On the globe and a PROJ plane: the style's buildings where the Web Mercator frame has them")
    func reprojected() throws {
        try TileTest.withTempDir { dir in
            let layers: [[String: Any]] = [["source-layer": "building", "type": "fill", "color": [0, 255, 0]]]
            let map = try TileTest.styledMap(tiles: VectorData.mbtiles, style: try Self.style(layers), in: dir)
            let lon = 24.9465, lat = 60.1695, zoom = 16.0
            let mercator = try Self.frame(map, Viewport(camera: Camera(center: LonLat(lon: lon, lat: lat), zoom: zoom),
                                                        width: 640, height: 360))
            // The globe and the plane show true scale: Web Mercator's is 1/cos(latitude) larger.
            let trueZoom = zoom + log2(1 / cos(lat * .pi / 180))
            for (name, projection, least) in [("globe", Projection.globe, 0.9),
                                              ("EPSG:3067", Projection.plane(try ProjPlane("EPSG:3067")), 0.8)] {
                let viewport = Viewport(camera: Camera(center: LonLat(lon: lon, lat: lat), zoom: trueZoom), width: 640,
                                        height: 360, projection: projection)
                let frame = try Self.frame(map, viewport)
                // The middle of the frame, where the projections agree best (EPSG:3067's north turns
                // by under 2 degrees here).
                func middle(_ s: ImageSurface) -> [Bool] {
                    let m = Self.mask(s, channel: Self.building.channel)
                    return (90..<270).flatMap { y in (160..<480).map { m[y * 640 + $0] } }
                }
                let (i, u, count) = Self.overlap(middle(mercator), middle(frame))
                let iou = Double(i) / Double(max(u, 1))
                print("\(name): \(count) building pixels in Web Mercator's middle, IoU \(String(format: "%.4f", iou))")
                #expect(count > 10000)
                #expect(iou >= least, "\(name): IoU \(iou)")
            }
            #expect(map.warnings.isEmpty, "\(map.warnings)")  // no labels in this style, none left out
            // A style with labels draws them there too (ReprojectedLabelTests checks where).
            let themed = try TileTest.styledMap(tiles: VectorData.mbtiles, style: "light", in: dir)
            _ = try Self.frame(themed, Viewport(camera: Camera(center: LonLat(lon: lon, lat: lat), zoom: trueZoom), width: 320,
                                                height: 180, projection: .globe))
            #expect(!themed.warnings.contains { $0.contains("label") }, "\(themed.warnings)")
            #expect(!themed.labels.placements.isEmpty)
        }
    }

    // MARK: Every source alike

    /// The Helsinki tiles four ways: the MBTiles, the PMTiles read locally and over HTTP (range
    /// requests to a local server), and a folder of .pbf tiles written from the MBTiles here.
    static func withEverySource<T>(_ body: ([(name: String, tiles: URL)], URL, HTTPTileOptions) throws -> T) throws -> T {
        try HTTPTestServer.withTemporaryDirectory { dir in
            let files = dir.appendingPathComponent("files"), folder = dir.appendingPathComponent("folder")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: VectorData.pmtiles, to: files.appendingPathComponent("helsinki.pmtiles"))
            #expect(try TileTest.writeFolder(from: VectorData.mbtiles, to: folder) == 19)
            let server = try HTTPTestServer(files: files)
            defer { server.stop() }
            let http = HTTPTileOptions(cacheDirectory: dir.appendingPathComponent("cache"), retries: 0)
            let sources = [("MBTiles", VectorData.mbtiles), ("PMTiles", VectorData.pmtiles),
                           ("PMTiles over HTTP", server.url("/files/helsinki.pmtiles")), ("a .pbf folder", folder)]
            let result = try body(sources, dir, http)
            // The HTTP source was read with range requests, not whole.
            let requests = try server.log().requests(to: "/files/helsinki.pmtiles")
            #expect(!requests.isEmpty && requests.allSatisfy { $0.status == 206 && $0.range?.hasPrefix("bytes=") == true })
            return result
        }
    }

    @Test("The same frame from MBTiles, PMTiles read locally and over HTTP, and a folder of .pbf tiles")
    func sameFrameFromEverySource() throws {
        try Self.withEverySource { sources, dir, http in
            var first: [[UInt8]]?
            for (name, tiles) in sources {
                let map = try TileTest.styledMap(tiles: tiles, style: "light", in: dir, http: http)
                let frames = try Self.views.map { try TileTest.pixels(Self.frame(map, $0.viewport)) }
                #expect(map.warnings.isEmpty, "\(name): \(map.warnings)")
                guard let first else {
                    // Not a blank map: every view shows many colours (land, buildings, streets, labels).
                    for (n, f) in frames.enumerated() {
                        var colours = Set<UInt32>()
                        for i in stride(from: 0, to: f.count, by: 4) {
                            colours.insert(UInt32(f[i]) << 16 | UInt32(f[i + 1]) << 8 | UInt32(f[i + 2]))
                        }
                        #expect(colours.count > 50, "\(Self.views[n]): \(colours.count) colours")
                    }
                    first = frames
                    continue
                }
                for (n, view) in Self.views.enumerated() {
                    let differing = zip(first[n], frames[n]).filter { $0 != $1 }.count
                    #expect(differing == 0, "\(name), \(view): \(differing) bytes differ from the MBTiles' frame")
                }
            }
        }
    }

    @Test("The same frame from an XYZ URL template of .pbf tiles on a local server as from the MBTiles")
    func sameFrameFromAnXYZTemplate() throws {
        try HTTPTestServer.withTemporaryDirectory { dir in
            let files = dir.appendingPathComponent("files")
            #expect(try TileTest.writeFolder(from: VectorData.mbtiles, to: files.appendingPathComponent("xyz")) == 19)
            let server = try HTTPTestServer(files: files)
            defer { server.stop() }
            let http = HTTPTileOptions(cacheDirectory: dir.appendingPathComponent("cache"), retries: 0)
            // The MBTiles' zooms (its metadata says 0-14; a template says nothing of its own).
            var source = MapSource(tiles: server.url("/files/xyz").absoluteString + "/{z}/{x}/{y}.pbf", maxZoom: 14)
            source.style = "light"
            let remote = try StyledMaps.make(tiles: try TileSources.make(source, http: http, sceneDirectory: dir), map: source,
                                             scene: Scene(places: []), sceneDirectory: dir,
                                             assets: VectorData.root.appendingPathComponent("Assets"), http: http)
            let local = try TileTest.styledMap(tiles: VectorData.mbtiles, style: "light", in: dir)
            for view in Self.views {
                let a = try TileTest.pixels(Self.frame(local, view.viewport))
                let b = try TileTest.pixels(Self.frame(remote, view.viewport))
                let differing = zip(a, b).filter { $0 != $1 }.count
                #expect(a.count == b.count && differing == 0, "\(view): \(differing) bytes differ from the MBTiles' frame")
            }
            #expect(remote.warnings.isEmpty, "\(remote.warnings)")
            // The tiles came from the server, one .pbf file per request.
            let requests = try server.log().requests.filter { $0.path.hasPrefix("/files/xyz/") }
            #expect(!requests.isEmpty && requests.allSatisfy { $0.path.hasSuffix(".pbf") && $0.status == 200 }, "\(requests.map(\.path))")
        }
    }

    @Test("A render to MP4 from the MBTiles and one from PMTiles over HTTP: the same decoded frames")
    func sameVideoFromMBTilesAndHTTP() throws {
        try Self.withEverySource { sources, dir, _ in
            func render(_ tiles: URL, _ name: String) throws -> [BGRAImage] {
                let scene = """
                    { "video": { "width": 320, "height": 180, "fps": 6 }, "dwell": 1, "flight": 1.5,
                      "map": { "tiles": "\(tiles.isFileURL ? tiles.path : tiles.absoluteString)", "attribution": "© OpenStreetMap contributors" },
                      "places": [ { "name": "Central Station", "lat": 60.1712, "lon": 24.9414, "zoom": 16.5 },
                                  { "name": "Senate Square", "lat": 60.1693, "lon": 24.9517, "zoom": 17 } ] }
                    """
                let file = dir.appendingPathComponent("\(name).json"), out = dir.appendingPathComponent("\(name).mp4")
                try Data(scene.utf8).write(to: file)
                LibraryLogging.configure(verbose: false)
                let summary = try RenderJob(scene: file, output: out, environment: RenderEnvironment(
                    assets: VectorData.root.appendingPathComponent("Assets"), cacheDirectory: dir.appendingPathComponent("render-cache"))).run()
                // The sources warn of nothing. (The scene's flight is longer than its slot on purpose,
                // so that the camera moves on every frame: that warning is the scene's.)
                let fromSources = summary.warnings.filter { !$0.contains(": places[1].flight: the flight of 1.5 s is longer") }
                #expect(fromSources.isEmpty, "\(name): \(summary.warnings)")
                let reader = try VideoReader(path: out.path)
                var frames: [BGRAImage] = []
                while let image = try reader.nextImage() { frames.append(image) }
                return frames
            }
            let a = try render(sources[0].tiles, "mbtiles"), b = try render(sources[2].tiles, "http")
            #expect(a.count == b.count && a.count >= 10, "\(a.count) and \(b.count) frames")
            // The pictures drawn are the same (`sameFrameFromEverySource` compares them exactly); the
            // decoded frames are the same but for the encoder: run beside other tests in one process,
            // a few frames of the two MP4s have come out a few levels apart in a few hundred pixels
            // (54-65 dB PSNR, the frames drawn hash-identical), while two renders in separate processes
            // give the same bytes. So: equal, or as near as that. A different tile or label is 30-45 dB.
            for (n, (x, y)) in zip(a, b).enumerated() where x != y {
                var squared = 0.0, count = 0
                for py in 0..<min(x.height, y.height) {
                    for px in 0..<min(x.width, y.width) {
                        let p = x.pixel(x: px, y: py), q = y.pixel(x: px, y: py)
                        let d = [Double(p.r) - Double(q.r), Double(p.g) - Double(q.g), Double(p.b) - Double(q.b)]
                        if d != [0, 0, 0] { count += 1 }
                        squared += d.reduce(0) { $0 + $1 * $1 }
                    }
                }
                let mse = squared / Double(3 * x.width * x.height)
                let psnr = 10 * log10(255 * 255 / max(mse, 1e-12))
                #expect(psnr >= 48 && count < x.width * x.height / 50,
                        "frame \(n): \(count) pixels differ, \(String(format: "%.1f", psnr)) dB")
            }
            // The streets are there: the still at Senate Square is not one flat colour.
            let last = try #require(a.last)
            var colours = Set<Int>()
            for y in stride(from: 0, to: 180, by: 3) {
                for x in stride(from: 0, to: 320, by: 3) {
                    let p = last.pixel(x: x, y: y)
                    colours.insert(Int(p.r) / 8 << 10 | Int(p.g) / 8 << 5 | Int(p.b) / 8)
                }
            }
            #expect(colours.count > 20, "\(colours.count) colours in the last frame")
        }
    }

    // MARK: Raster layers in a style

    static let orange = RGB(200, 120, 40)

    /// A style of a raster source (`tiles`: its `tiles` or `url` key) drawn under the buildings
    /// (green, shown or not), the raster with `opacity` over a red background.
    static func rasterStyle(_ tiles: String, buildings: Bool, opacity: Double = 1) -> String {
        """
        {"version": 8, "sources": {"osm": {"type": "vector"},
           "shade": {"type": "raster", \(tiles), "tileSize": 256, "attribution": "Raster test"}},
         "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#ff0000"}},
                    {"id": "shade", "type": "raster", "source": "shade", "paint": {"raster-opacity": \(opacity)}},
                    {"id": "b", "type": "fill", "source": "osm", "source-layer": "building",
                     "layout": {"visibility": "\(buildings ? "visible" : "none")"}, "paint": {"fill-color": "#00ff00"}}]}
        """
    }

    /// Pixels whose colour is near `c`, as a mask.
    static func mask(_ s: ImageSurface, near c: RGB, tolerance: Int = 12) -> [Bool] {
        var out = [Bool](repeating: false, count: s.width * s.height)
        for y in 0..<s.height {
            for x in 0..<s.width { out[y * s.width + x] = TileTest.rgb(s, x, y).near(c, tolerance) }
        }
        return out
    }

    @Test("A raster source under vector layers: the raster where no vector draws, the vectors on top, both credited")
    func rasterUnderVectors() throws {
        try TileTest.withTempDir { dir in
            // Raster tiles of the buildings themselves, blue on orange, drawn by a styled map: laid
            // under the vector buildings they vanish if both are in place.
            let painter = try TileTest.styledMap(tiles: VectorData.mbtiles, style: """
                {"version": 8, "sources": {"osm": {"type": "vector"}}, "layers": [
                  {"id": "bg", "type": "background", "paint": {"background-color": "#c87828"}},
                  {"id": "b", "type": "fill", "source": "osm", "source-layer": "building", "paint": {"fill-color": "#0000ff"}}]}
                """, in: dir)
            let helsinki = GeoBounds(west: 24.93, south: 60.16, east: 24.96, north: 60.182)
            try TileTest.pyramid(painter, to: dir.appendingPathComponent("raster"), zooms: 15...17, bounds: helsinki)
            try TileTest.pyramid(painter, to: dir.appendingPathComponent("raster.mbtiles"), zooms: 15...17, bounds: helsinki)
            let views = [Self.views[2], Self.views[4]]
            // A tile folder and an MBTiles file by `tiles`, and the MBTiles by MapLibre's `url` protocol.
            for tiles in [#""tiles": ["raster/{z}/{x}/{y}.png"]"#, #""tiles": ["raster.mbtiles"]"#, #""url": "mbtiles://raster.mbtiles""#] {
                let map = try TileTest.styledMap(tiles: VectorData.pmtiles, style: Self.rasterStyle(tiles, buildings: true), in: dir)
                #expect(map.attribution == "© OpenStreetMap contributors Raster test", "\(tiles)")
                let bare = try TileTest.styledMap(tiles: VectorData.pmtiles, style: Self.rasterStyle(tiles, buildings: false), in: dir)
                let faint = try TileTest.styledMap(tiles: VectorData.pmtiles, style: Self.rasterStyle(tiles, buildings: false, opacity: 0.5), in: dir)
                for view in views {
                    let frame = try Self.frame(map, view.viewport)
                    let size = view.width * view.height
                    let orange = Self.mask(frame, near: Self.orange).filter { $0 }.count
                    let green = Self.mask(frame, channel: 1), blue = Self.mask(frame, channel: 2)
                    let greens = green.filter { $0 }.count, blues = blue.filter { $0 }.count
                    print("\(tiles), \(view): \(orange) raster, \(greens) vector, \(blues) raster building pixels")
                    #expect(orange > size / 4 && greens > size / 10, "\(tiles), \(view): \(orange) orange, \(greens) green")
                    // The raster's buildings lie under the vector ones: none shows beside them.
                    #expect(Double(blues) < 0.02 * Double(greens), "\(tiles), \(view): \(blues) blue pixels")
                    #expect(Self.mask(frame, near: RGB(255, 0, 0), tolerance: 40).filter { $0 }.count < size / 200)
                    // Without the vector buildings, the raster's show where they were.
                    let raster = try Self.frame(bare, view.viewport)
                    let (i, u, _) = Self.overlap(green, Self.mask(raster, channel: 2))
                    #expect(Double(i) / Double(u) > 0.9, "\(tiles), \(view): raster buildings against vector ones: IoU \(Double(i) / Double(u))")
                    // At half opacity over red: the mix.
                    let mixed = Self.mask(try Self.frame(faint, view.viewport), near: RGB(228, 60, 20), tolerance: 6)
                    #expect(mixed.filter { $0 }.count > size / 4, "\(tiles), \(view)")
                }
            }
        }
    }
}
