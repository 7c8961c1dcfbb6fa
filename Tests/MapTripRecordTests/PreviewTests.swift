import Cairo
import FFmpeg
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import MapTripOutput
import MapTripRecord
import MapTripRender
import MapTripTiles
import Testing
import TileServerFixture

// `maptrip preview` (a frame, a place at rest, a contact sheet), `render --draft`, and `--watch`.

/// Frames a recording hands its sink, kept at the wanted frame numbers: the pictures `render`
/// encodes, before YUV.
final class FrameGrabber: FrameSink {
    let wanted: Set<Int>
    private(set) var frames: [Int: [UInt8]] = [:]
    private(set) var stride = 0
    private var last: [UInt8] = []
    private var n = 0
    private let height: Int

    init(height: Int, wanted: Set<Int>) {
        self.height = height
        self.wanted = wanted
    }

    func write(bgra: UnsafePointer<UInt8>, stride: Int) throws {
        self.stride = stride
        last = Array(UnsafeBufferPointer(start: bgra, count: stride * height))
        repeatLastFrame()
    }

    func repeatLast() throws { repeatLastFrame() }

    private func repeatLastFrame() {
        if wanted.contains(n) { frames[n] = last }
        n += 1
    }

    /// Records `scene` (as `render` draws it, its file in `directory`, with the pictures it names) and
    /// keeps the frames `wanted`. Its BGRA pictures: the frames every output is held to preview by, in
    /// its own codec, are the conformance matrix's (ConformanceTests).
    static func record(_ scene: Scene, directory: URL, wanted: Set<Int>,
                       assets: URL = Trip.assets) throws -> FrameGrabber {
        let environment = RenderEnvironment(assets: assets, cacheDirectory: directory.appendingPathComponent("cache"))
        let map = try BaseMaps.make(for: scene, format: scene.video.format, sceneDirectory: directory, environment: environment)
        let media = try SceneMedia.load(for: scene, sceneFile: directory.appendingPathComponent("scene.json"), assets: assets)
        let recorder = try Recorder(scene: scene, baseMap: map, media: media)
        let grabber = FrameGrabber(height: scene.video.height, wanted: wanted)
        _ = try recorder.record(to: grabber)
        return grabber
    }
}

enum Preview {
    static func decodePNG(_ url: URL) throws -> BGRAImage {
        let data = try Data(contentsOf: url)
        #expect(ImageDecoder.format(of: data) == .png)
        return try ImageDecoder.decode(data)
    }

    /// Pixels of `image` that differ from the premultiplied BGRA `frame` (opaque frames: straight
    /// and premultiplied alpha are the same bytes).
    static func differences(_ image: BGRAImage, _ frame: [UInt8], stride: Int, width: Int, height: Int) -> Int {
        guard image.width == width, image.height == height else { return width * height }
        var count = 0
        for y in 0..<height {
            for x in 0..<width {
                let p = image.pixel(x: x, y: y)
                let o = y * stride + x * 4
                if p.b != frame[o] || p.g != frame[o + 1] || p.r != frame[o + 2] || p.a != frame[o + 3] { count += 1 }
            }
        }
        return count
    }

    /// Pixels that differ between a region of `sheet` at (x, y) and the whole of `image`.
    static func differences(_ sheet: BGRAImage, at origin: (x: Int, y: Int), _ image: BGRAImage) -> Int {
        var count = 0
        for y in 0..<image.height {
            for x in 0..<image.width where sheet.pixel(x: origin.x + x, y: origin.y + y) != image.pixel(x: x, y: y) {
                count += 1
            }
        }
        return count
    }

    static func environment(_ dir: URL) -> RenderEnvironment {
        RenderEnvironment(assets: Trip.assets, cacheDirectory: dir.appendingPathComponent("cache"))
    }

    /// A tile folder `{z}/{x}/{y}.png` over Korea, zooms 0-8: each tile a flat colour of its own
    /// with a diagonal stripe, so a frame shows which tiles it was drawn from.
    static func writeTiles(to folder: URL, maxZoom: Int = 8) throws {
        for z in 0...maxZoom {
            let n = 1 << z
            func column(_ lon: Double) -> Int { min(n - 1, max(0, Int((lon + 180) / 360 * Double(n)))) }
            func row(_ lat: Double) -> Int {
                let r = lat * .pi / 180
                return min(n - 1, max(0, Int((1 - log(tan(r) + 1 / cos(r)) / .pi) / 2 * Double(n))))
            }
            for x in column(118)...column(138) {
                for y in row(44)...row(29) {
                    try writeTile(z: z, x: x, y: y, in: folder)
                }
            }
        }
    }

    static func writeTile(z: Int, x: Int, y: Int, in folder: URL, shade: Double = 0) throws {
        let dir = folder.appendingPathComponent("\(z)/\(x)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let surface = try ImageSurface(width: 256, height: 256)
        try surface.withContext { cr in
            cr.setSource(Color(red: Double((z * 40 + x * 13) % 200) / 255 + shade * 0.2,
                               green: Double((x * 70 + 60) % 220) / 255, blue: Double((y * 110 + 30) % 220) / 255))
            cr.paint()
            cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 0.6))
            cr.setLineWidth(6)
            cr.move(to: 0, 0)
            cr.line(to: 256, 256)
            cr.stroke()
        }
        try surface.writePNG(to: dir.appendingPathComponent("\(y).png").path)
    }

    /// Two places over local tiles (a folder beside the scene).
    static func tileScene(_ tiles: String = "tiles") -> String {
        """
        {
          "title": "Tiles",
          "video": { "width": 320, "height": 180, "fps": 12 },
          "flight": 0.5,
          "map": { "tiles": \(Trip.quoted(tiles)), "attribution": "Test tiles" },
          "places": [
            { "name": "Seoul", "lat": 37.5665, "lon": 126.978, "zoom": 6, "dwell": 1 },
            { "name": "Busan", "lat": 35.1796, "lon": 129.0756, "zoom": 6.5, "dwell": 1.5 }
          ]
        }
        """
    }

    static func run(_ job: PreviewJob) throws -> (PreviewSummary, BGRAImage) {
        let summary = try job.run()
        return (summary, try decodePNG(summary.output))
    }
}

// MARK: - A frame

@Suite struct PreviewTests {
    /// The korea trip with a title card: 3.5 s, 84 frames at 24 fps; slots 0-23, 24-59, 60-83.
    static let korea: TripScene = {
        var trip = TripScene.korea
        trip.title = "Korea"
        return trip
    }()

    @Test func previewAtATimeIsTheFrameRenderEncodes() throws {
        try Trip.withDirectory("preview") { dir in
            let file = try Self.korea.write(to: dir)
            // 1.75 s: frame 42, Busan at rest; 1.1 s: frame 26, in the flight from Seoul (written as
            // `plan` prints it).
            let grabbed = try FrameGrabber.record(try Self.korea.scene(), directory: dir, wanted: [42, 26])
            for (time, frame) in [("1.75", 42), ("0:01.1", 26)] {
                let result = try CLIProcess.run(["preview", "scene.json", "--at", time, "-o", "f\(frame).png"], in: dir)
                #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
                #expect(result.stdout.hasPrefix("wrote f\(frame).png: frame \(frame) of 84 at "), "\(result)")
                let png = try Preview.decodePNG(dir.appendingPathComponent("f\(frame).png"))
                #expect(Preview.differences(png, grabbed.frames[frame]!, stride: grabbed.stride, width: 320, height: 180) == 0)
            }
            // The two differ: each is its own frame, not a poster.
            let a = try Preview.decodePNG(dir.appendingPathComponent("f42.png"))
            #expect(Preview.differences(a, grabbed.frames[26]!, stride: grabbed.stride, width: 320, height: 180) > 1000)
            #expect(FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test func placeAtRestIsTheLastFrameOfItsSlot() throws {
        try Trip.withDirectory("preview-place") { dir in
            try Self.korea.write(to: dir)
            let scene = try Self.korea.scene()
            let timeline = Timeline(scene: scene)
            // Place 1 has the title card: its last frame with the card fully shown (the poster's);
            // the others: the last frame of their slot, the camera on the place, its pin shown.
            let expected = [PosterWriter.defaultFrame(timeline), 59, 83]
            #expect(expected == (0..<3).map { PreviewJob.restFrame(ofPlace: $0, in: timeline) })
            for (i, n) in expected.enumerated() {
                let state = timeline.values(at: n)
                #expect(state.camera == timeline.slots[i].camera && state.reached == i + 1 && state.current == i)
            }
            #expect(timeline.values(at: expected[0]).opacity(of: .title) == 1)
            let grabbed = try FrameGrabber.record(scene, directory: dir, wanted: Set(expected))
            for (i, n) in expected.enumerated() {
                let result = try CLIProcess.run(["preview", "scene.json", "--place", "\(i + 1)", "-o", "p\(i + 1).png"], in: dir)
                #expect(result.status == 0, "\(result)")
                #expect(result.stdout.contains("frame \(n) of 84") && result.stdout.contains("(place \(i + 1))"), "\(result)")
                let png = try Preview.decodePNG(dir.appendingPathComponent("p\(i + 1).png"))
                #expect(Preview.differences(png, grabbed.frames[n]!, stride: grabbed.stride, width: 320, height: 180) == 0,
                        "place \(i + 1)")
            }
            // No choice: place 1, written beside the scene as NAME.preview.png.
            let bare = try CLIProcess.run(["preview", "scene.json"], in: dir)
            #expect(bare.status == 0 && bare.stdout.hasPrefix("wrote scene.preview.png: frame \(expected[0]) of 84"), "\(bare)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("scene.preview.png"))
                    == Data(contentsOf: dir.appendingPathComponent("p1.png")))
        }
    }

    @Test func widthKeepsTheViewAsRenderDoes() throws {
        try Trip.withDirectory("preview-width") { dir in
            let file = try Self.korea.write(to: dir)
            // What `render --width 160` draws: the same view at half the size.
            var scene = try Self.korea.scene()
            scene.video = Video(width: 160, height: 90, fps: 24, scale: 0.5)
            let grabbed = try FrameGrabber.record(scene, directory: dir, wanted: [59])
            let (summary, png) = try Preview.run(PreviewJob(scene: file, subject: .place(2), output: dir.appendingPathComponent("w.png"),
                                                            width: 160, environment: Preview.environment(dir)))
            #expect(summary.width == 160 && summary.height == 90 && summary.shots.map(\.frame) == [59])
            #expect(Preview.differences(png, grabbed.frames[59]!, stride: grabbed.stride, width: 160, height: 90) == 0)
        }
    }

    /// The preview loads only the map data its frame shows: a world view needs none of the 1:10m
    /// data, so it is made with an Assets folder that lacks it, where a close-up (and a render) fail.
    @Test func previewLoadsOnlyTheDataItsFrameShows() throws {
        try Trip.withDirectory("preview-lazy") { dir in
            let assets = dir.appendingPathComponent("Assets/basemap")
            try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Trip.assets.appendingPathComponent("basemap/110m"),
                                             to: assets.appendingPathComponent("110m"))
            // The gazetteer too: the close-ups' towns come from it, and the credit names it from frame 0.
            try FileManager.default.copyItem(at: Trip.assets.appendingPathComponent("gazetteer.sqlite"),
                                             to: dir.appendingPathComponent("Assets/gazetteer.sqlite"))
            var trip = TripScene.korea
            trip.stops[0].zoom = 2
            let file = try trip.write(to: dir)
            let world = PreviewJob(scene: file, subject: .place(1), output: dir.appendingPathComponent("world.png"),
                                   environment: RenderEnvironment(assets: dir.appendingPathComponent("Assets")))
            let (_, png) = try Preview.run(world)
            // And it is the frame a render with all the data draws.
            let grabbed = try FrameGrabber.record(try trip.scene(), directory: dir, wanted: [23])
            #expect(Preview.differences(png, grabbed.frames[23]!, stride: grabbed.stride, width: 320, height: 180) == 0)

            var closeUp = world
            closeUp.subject = .place(2)
            #expect(throws: (any Error).self) { try closeUp.run() }
            let render = try CLIProcess.run(["render", "scene.json", "--assets", "Assets"], in: dir)
            #expect(render.status == 1, "\(render)")
        }
    }

    // MARK: Tiles

    @Test func tilePreviewIsTheFrameRenderEncodes() throws {
        try Trip.withDirectory("preview-tiles") { dir in
            try Preview.writeTiles(to: dir.appendingPathComponent("tiles"))
            let file = dir.appendingPathComponent("trip.json")
            try Preview.tileScene().write(to: file, atomically: true, encoding: .utf8)
            let scene = try SceneLoader.load(contentsOf: file)
            let timeline = Timeline(scene: scene)
            // Place 2 at rest (zoom 6.5: two tile levels, no cross-fade), and a frame mid-flight.
            let rest = PreviewJob.restFrame(ofPlace: 1, in: timeline)!
            let grabbed = try FrameGrabber.record(scene, directory: dir, wanted: [rest, 14])
            for (subject, n) in [(PreviewJob.Subject.place(2), rest), (.time(14.0 / 12), 14)] {
                let (summary, png) = try Preview.run(PreviewJob(scene: file, subject: subject,
                                                                output: dir.appendingPathComponent("t\(n).png"),
                                                                environment: Preview.environment(dir)))
                #expect(summary.shots.map(\.frame) == [n] && summary.warnings.isEmpty)
                #expect(Preview.differences(png, grabbed.frames[n]!, stride: grabbed.stride, width: 320, height: 180) == 0,
                        "frame \(n)")
            }
        }
    }

    @Test(.enabled(if: HTTPTestServer.pythonAvailable))
    func tilePreviewFetchesOnlyTheTilesOfItsFrame() throws {
        try HTTPTestServer.with { server in
            try Trip.withDirectory("preview-http") { dir in
                let template = "http://127.0.0.1:\(server.port)/ok/{z}/{x}/{y}.png"
                let file = dir.appendingPathComponent("trip.json")
                try Preview.tileScene(template).write(to: file, atomically: true, encoding: .utf8)
                let result = try CLIProcess.run(["preview", "trip.json", "--place", "2", "--cache-dir", "cache"], in: dir)
                #expect(result.status == 0, "\(result)")
                let fetched = Set(try server.log().requests.map(\.path).filter { $0.hasPrefix("/ok/") })

                // Exactly the tiles that frame shows.
                let scene = try SceneLoader.load(contentsOf: file)
                let timeline = Timeline(scene: scene)
                let map = try TileBaseMap.make(source: scene.map!, sceneDirectory: dir)
                let n = PreviewJob.restFrame(ofPlace: 1, in: timeline)!
                let viewport = Viewport(camera: timeline.camera(at: n), width: 320, height: 180)
                let needed = Set(map.neededTiles(for: viewport).map { "/ok/\($0.z)/\($0.x)/\($0.y).png" })
                #expect(!needed.isEmpty && fetched == needed)

                // A render needs more (the flight, the other place), fetched now as they are not cached.
                let render = try CLIProcess.run(["render", "trip.json", "--cache-dir", "cache", "-q"], in: dir)
                #expect(render.status == 0, "\(render)")
                let all = Set(try server.log().requests.map(\.path).filter { $0.hasPrefix("/ok/") })
                #expect(all.count > fetched.count && all.isSuperset(of: fetched))
            }
        }
    }

    // MARK: Contact sheet

    @Test func sheetHasOneCellPerPlaceShowingThatPlace() throws {
        try Trip.withDirectory("preview-sheet") { dir in
            try Self.korea.write(to: dir)
            let result = try CLIProcess.run(["preview", "scene.json", "--sheet", "--width", "160"], in: dir)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.hasPrefix("wrote scene.sheet.png: 3 places, 2x2 cells of 160x90, "), "\(result)")
            let sheet = try Preview.decodePNG(dir.appendingPathComponent("scene.sheet.png"))
            let layout = SheetLayout(count: 3, cellWidth: 160, cellHeight: 90)
            #expect(layout.columns == 2 && layout.rows == 2)
            #expect(sheet.width == layout.width && sheet.height == layout.height)

            // Each cell is, pixel for pixel, the preview of its place at the cell's width, and
            // unlike the other places'.
            var places: [BGRAImage] = []
            for i in 1...3 {
                let r = try CLIProcess.run(["preview", "scene.json", "--place", "\(i)", "--width", "160", "-o", "p\(i).png"], in: dir)
                #expect(r.status == 0, "\(r)")
                places.append(try Preview.decodePNG(dir.appendingPathComponent("p\(i).png")))
            }
            for cell in 0..<3 {
                for place in 0..<3 {
                    let d = Preview.differences(sheet, at: layout.origin(ofCell: cell), places[place])
                    if cell == place { #expect(d == 0, "cell \(cell + 1)") } else { #expect(d > 500, "cell \(cell + 1) vs place \(place + 1)") }
                }
            }
            // The fourth cell is empty (the sheet's background); captions lie under the thumbnails.
            let empty = layout.origin(ofCell: 3)
            #expect(sheet.pixel(x: empty.x + 80, y: empty.y + 45) == sheet.pixel(x: 1, y: 1))
            let caption = layout.origin(ofCell: 0)
            var ink = 0
            for y in (caption.y + 90)..<(caption.y + 90 + layout.captionHeight) {
                for x in caption.x..<(caption.x + 160) where sheet.pixel(x: x, y: y).r > 200 { ink += 1 }
            }
            #expect(ink > 50, "the caption is drawn")
        }
    }

    @Test func sheetCaptionsNameThePlaceAndItsTime() throws {
        try Trip.withDirectory("preview-caption") { dir in
            let file = try Self.korea.write(to: dir)
            let (summary, png) = try Preview.run(PreviewJob(scene: file, subject: .sheet, environment: Preview.environment(dir)))
            #expect(summary.output.lastPathComponent == "scene.sheet.png")
            // Place 1 with its title card fully shown (frame 16: the card fades over frames 16-24).
            #expect(summary.shots.map(\.frame) == [16, 59, 83])
            #expect(summary.shots.map(\.place) == [1, 2, 3])
            #expect(summary.sheet!.cellWidth == 480 && summary.sheet!.cellHeight == 270)
            #expect(png.width == summary.sheet!.width && png.height == summary.sheet!.height)
            let scene = try Self.korea.scene()
            let captions = summary.shots.map { PreviewJob.caption($0, scene: scene) }
                .map { $0.filter { !["\u{200E}", "\u{2068}", "\u{2069}"].contains($0) } }
            #expect(captions == ["1 · Seoul · 0:00.7", "2 · Busan · 0:02.5", "3 · Jeju · 0:03.5"])
        }
    }

    // MARK: Errors

    @Test(arguments: [
        (["--place", "0"], "maptrip: error: --place 0: the scene has 3 places; give a number from 1 to 3"),
        (["--place", "4", "-o", "out/p.png"], "maptrip: error: --place 4: the scene has 3 places; give a number from 1 to 3"),
        (["--at", "3.6"], "maptrip: error: --at 3.6: the trip is 3.500 s long; give a time from 0 to 3.5"),
        (["--at=-1"], "maptrip: error: --at -1: the trip is 3.500 s long; give a time from 0 to 3.5"),
        (["--at", "1", "--place", "2"], "maptrip: error: give one of --at TIME, --place N and --sheet"),
        (["--sheet", "--place", "2"], "maptrip: error: give one of --at TIME, --place N and --sheet"),
        (["-o", "frame.gif"], "maptrip: error: preview "),
        (["-o", "link.png"], "maptrip: error: preview link.png is the scene file"),
        (["--width", "8"], "maptrip: error: --width 8 is outside 16-8192"),
    ])
    func badPreviewFailsWithOneLineAndWritesNothing(_ arguments: [String], message: String) throws {
        try Trip.withDirectory("preview-errors") { dir in
            let file = try Self.korea.write(to: dir)
            try FileManager.default.linkItem(at: file, to: dir.appendingPathComponent("link.png"))  // the scene, by another name
            let result = try CLIProcess.run(["preview", "scene.json"] + arguments, in: dir)
            #expect(result.reason == .exit && result.status == 1, "\(result)")
            #expect(result.stdout.isEmpty && result.stderrLines.count == 1, "\(result)")
            #expect(result.stderr.hasPrefix(message), "\(result)")
            #expect(Trip.contents(dir) == ["link.png", "scene.json"])
            #expect(try Data(contentsOf: file) == Data(Self.korea.json.utf8))
        }
    }

    @Test func aPlaceShorterThanAFrameIsNeverOnScreen() throws {
        try Trip.withDirectory("preview-short") { dir in
            var trip = Self.korea
            trip.stops[1].dwell = 0.01  // rounds to no frame at 24 fps
            let file = try trip.write(to: dir)
            let job = PreviewJob(scene: file, subject: .place(2), environment: Preview.environment(dir))
            #expect(throws: PreviewError.neverOnScreen(2, name: "Busan", fps: 24)) { try job.run() }
            // The sheet still has its cell, captioned as such.
            var sheet = job
            sheet.subject = .sheet
            sheet.width = 64
            let summary = try sheet.run()
            #expect(summary.shots.map(\.frame) == [16, nil, 47])
            #expect(PreviewJob.caption(summary.shots[1], scene: try trip.scene()).hasSuffix("Busan\u{2069} · not on screen"))
        }
    }
}

// MARK: - Draft

@Suite struct DraftTests {
    @Test func draftIsHalfSizeSameTimingUltrafastBesideTheScene() throws {
        try Trip.withDirectory("draft") { dir in
            try TripScene.korea.write(to: dir)
            let result = try CLIProcess.run(["render", "scene.json", "--draft"], in: dir)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.hasPrefix("wrote scene.draft.mp4: 3.50 s, 84 frames"), "\(result)")
            #expect(Trip.contents(dir) == ["scene.draft.mp4", "scene.json"])
            let url = dir.appendingPathComponent("scene.draft.mp4")
            let video = try Trip.decode(url)
            #expect(video.info.width == 160 && video.info.height == 90)
            #expect(video.info.frameRate == Rational(24, 1) && video.frames.count == 84)
            // x264 signs its settings into the stream: ultrafast has no CABAC and the simplest search.
            let bytes = String(decoding: try Data(contentsOf: url), as: UTF8.self)
            #expect(bytes.contains("cabac=0") && bytes.contains("subme=0"))

            // The same view, smaller: frame 59 is the preview of place 2 at 160 pixels.
            let preview = try CLIProcess.run(["preview", "scene.json", "--place", "2", "--width", "160", "-o", "p.png"], in: dir)
            #expect(preview.status == 0, "\(preview)")
            let png = try Preview.decodePNG(dir.appendingPathComponent("p.png"))
            #expect(Trip.meanDifference(png, video.frames[59]) < 3)

            // -o wins over the default name.
            let named = try CLIProcess.run(["render", "scene.json", "--draft", "-o", "check.mp4", "-q"], in: dir)
            #expect(named.status == 0, "\(named)")
            #expect(try VideoReader(path: dir.appendingPathComponent("check.mp4").path).countFrames() == 84)
        }
    }

    @Test func watchNeedsDraft() throws {
        try Trip.withDirectory("draft-watch-flag") { dir in
            try TripScene.korea.write(to: dir)
            let result = try CLIProcess.run(["render", "scene.json", "--watch"], in: dir)
            #expect(result.status != 0 && result.stderr.contains("--watch is for drafts"), "\(result)")
            #expect(Trip.contents(dir) == ["scene.json"])
        }
    }
}

// MARK: - Watch

@Suite struct WatchTests {
    /// In-process: a preview drawn at each save; a broken save reports its error and the watch goes
    /// on; the fixed scene draws again.
    @Test func watchDrawsAgainAtEverySaveAndSurvivesABrokenEdit() throws {
        try Trip.withDirectory("watch") { dir in
            let file = try PreviewTests.korea.write(to: dir)
            var changed = PreviewTests.korea
            changed.title = "Korea, again"
            let job = PreviewJob(scene: file, subject: .place(1), output: dir.appendingPathComponent("p.png"),
                                 environment: Preview.environment(dir))
            var pictures: [Data] = []
            var errors: [String] = []
            var changes: [[String]] = []
            let deadline = Date().addingTimeInterval(120)
            try FileWatch(interval: 0.05).run(job, cancellation: Cancellation(), stop: {
                pictures.count == 3 || Date() > deadline
            }, events: { event in
                switch event {
                case .starting(_, let files): changes.append(files.map(\.lastPathComponent))
                case .failed(_, let error):
                    errors.append("\(error)")
                    try? Data(PreviewTests.korea.json.utf8).write(to: file)  // fixed: as at first
                case .finished:
                    if pictures.count == 1 { try? Data(changed.json.utf8).write(to: file) }
                    if pictures.count == 2 { try? Data("{\"places\": [".utf8).write(to: file) }
                }
            }, finished: { summary in
                pictures.append((try? Data(contentsOf: summary.output)) ?? Data())
            })
            #expect(pictures.count == 3)
            guard pictures.count == 3 else { return }
            #expect(pictures[0] != pictures[1], "the new title shows")
            #expect(pictures[2] == pictures[0], "the same scene draws the same picture")
            #expect(errors.count == 1 && errors.first?.contains("scene.json") == true, "\(errors)")
            #expect(changes == [[], ["scene.json"], ["scene.json"], ["scene.json"]])
        }
    }

    /// A file the scene names is watched too: a tile rewritten in place draws the preview again.
    @Test func watchSeesTheTilesTheSceneNames() throws {
        try Trip.withDirectory("watch-tiles") { dir in
            let tiles = dir.appendingPathComponent("tiles")
            try Preview.writeTiles(to: tiles, maxZoom: 6)
            let file = dir.appendingPathComponent("trip.json")
            try Preview.tileScene().write(to: file, atomically: true, encoding: .utf8)
            let job = PreviewJob(scene: file, subject: .place(1), output: dir.appendingPathComponent("p.png"),
                                 environment: Preview.environment(dir))
            // Seoul at zoom 6 is drawn from tile 6/54/24 (among others).
            let scene = try SceneLoader.load(contentsOf: file)
            let map = try TileBaseMap.make(source: scene.map!, sceneDirectory: dir)
            let keys = map.neededTiles(for: Viewport(camera: scene.places[0].camera, width: 320, height: 180))
            let key = try #require(keys.first)
            var pictures: [Data] = []
            var changes: [[String]] = []
            let deadline = Date().addingTimeInterval(120)
            try FileWatch(interval: 0.05).run(job, cancellation: Cancellation(), stop: {
                pictures.count == 2 || Date() > deadline
            }, events: { event in
                if case .starting(_, let files) = event { changes.append(files.map(\.lastPathComponent)) }
                if case .finished = event, pictures.count == 1 {
                    try? Preview.writeTile(z: key.z, x: key.x, y: key.y, in: tiles, shade: 1)
                }
            }, finished: { summary in
                pictures.append((try? Data(contentsOf: summary.output)) ?? Data())
            })
            #expect(pictures.count == 2 && pictures.first != pictures.last)
            #expect(changes == [[], ["tiles"]])
        }
    }

    /// In-process: a draft rendered again when the scene's timing changes.
    @Test func draftWatchRendersAgainWhenTheTimingChanges() throws {
        try Trip.withDirectory("watch-draft") { dir in
            let file = try TripScene.korea.write(to: dir)
            var longer = TripScene.korea
            longer.stops[2].dwell = 2
            let output = dir.appendingPathComponent("d.mp4")
            let job = RenderJob(scene: file, output: OutputRequest(path: output.path), environment: Preview.environment(dir),
                                draft: true)
            var frames: [Int] = []
            let deadline = Date().addingTimeInterval(120)
            try FileWatch(interval: 0.05).run(job, cancellation: Cancellation(), stop: {
                frames.count == 2 || Date() > deadline
            }, finished: { summary in
                frames.append(summary.frames)
                let written = try? VideoReader(path: output.path)
                #expect(written?.info.width == 160 && written?.info.height == 90)
                if frames.count == 1 { try? Data(longer.json.utf8).write(to: file) }
            })
            #expect(frames == [84, 108])
        }
    }

    @Test func ctrlCEndsAWatchAtOnce() throws {
        try Trip.withDirectory("watch-cancel") { dir in
            let file = try TripScene.korea.write(to: dir)
            let cancellation = Cancellation()
            var runs = 0
            #expect(throws: CancelledError.self) {
                try FileWatch(interval: 0.05).run(watching: [file], cancellation: cancellation) {
                    runs += 1
                    cancellation.cancel(signal: SIGINT)
                    return []
                }
            }
            #expect(runs == 1)
        }
    }

    /// The command: errors printed, the watch going on, Ctrl-C ending it with 130.
    @Test func previewWatchCommandPrintsErrorsAndEndsOnCtrlC() throws {
        try Trip.withDirectory("watch-cli") { dir in
            let file = try PreviewTests.korea.write(to: dir)
            let errFile = dir.appendingPathComponent("stderr.txt")
            _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
            let process = try CLIProcess(["preview", "scene.json", "--watch", "-o", "out/p.png"], in: dir,
                                         stderr: try FileHandle(forWritingTo: errFile))
            try process.start()
            let png = dir.appendingPathComponent("out/p.png")
            func wait(_ what: String, _ condition: () -> Bool) {
                let deadline = Date().addingTimeInterval(60)
                while !condition() && Date() < deadline { usleep(50_000) }
                #expect(condition(), "waited for \(what)")
            }
            func stderr() -> String { (try? String(contentsOf: errFile, encoding: .utf8)) ?? "" }
            wait("the first preview") { FileManager.default.fileExists(atPath: png.path) }
            let first = try Data(contentsOf: png)

            try Data("{\"places\": [}".utf8).write(to: file)
            wait("the error") { stderr().contains("maptrip: error: ") }
            #expect(try Data(contentsOf: png) == first, "a broken scene leaves the preview as it was")

            var changed = PreviewTests.korea
            changed.title = "Changed"
            try Data(changed.json.utf8).write(to: file)
            wait("the new preview") { (try? Data(contentsOf: png)) != first }

            process.signal(SIGINT)
            let result = try process.wait()
            #expect(result.status == 130, "\(result)")
            let lines = stderr().split(separator: "\n")
            #expect(lines.count == 2 && lines.first?.hasPrefix("maptrip: error: scene.json:") == true
                    && lines.last == "maptrip: interrupted by Ctrl-C", "\(lines)")
            let out = result.stdout.split(separator: "\n")
            #expect(out.count == 3 && out[0].hasPrefix("watching scene.json") && out[1].hasPrefix("wrote out/p.png: ")
                    && out[2].hasPrefix("wrote out/p.png: "), "\(result)")
            #expect(Trip.contents(dir.appendingPathComponent("out")) == ["p.png"])
        }
    }
}
