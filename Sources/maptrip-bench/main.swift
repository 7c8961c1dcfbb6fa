// maptrip-bench: how fast the whole pipeline records a trip, compared with the encoder alone on
// the same frames, and how much memory the pipeline adds. Prints figures; asserts nothing.
// `maptrip-bench --help` lists the phases and their options (`usage` below).
//
// Each phase runs in its own process so that its peak memory (ru_maxrss) is its own:
//   capture   renders the trip once and saves every distinct picture as I420, with the repeats;
//   encoder   encodes exactly those pictures (reading them back; no drawing, no conversion);
//   pipeline  the real thing: scene -> timeline -> renderer -> libyuv -> encoder -> MP4.
// The ratio pipeline/encoder shows what drawing and converting cost on top of the encoder.
//   codec     the real thing (RenderJob) into each output maptrip writes, with its default settings:
//             frames written per second, size on disk (a PNG sequence's folder in total), peak memory;
//   av1       libsvtav1 (maptrip's AV1) and libaom-av1 alone on the captured pictures, side by side.
// --quick: one preset (veryfast); the codecs on the scene's first three places, one run each.

import Cairo
import FFmpeg
import MapTripTiles
import Foundation
import MapTripSupport
import Heap
import MapTripBatch
import MapTripGeometry
import MapTripScene
import MapTripTime
import MapTripGazetteer
import MapTripOutput
import MapTripRecord
import MapTripRender
import YUV

struct Failure: Error, CustomStringConvertible {
    let description: String
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// CPU time this process has used so far, all its threads, user and system, in seconds.
func cpuSeconds() -> Double {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return s(u.ru_utime) + s(u.ru_stime)
}

/// When each frame was handed to the encoder (wall and process CPU seconds), and when the timed run
/// began and ended (wall), written as JSON to a file for `--stretches`.
final class FrameClock {
    typealias Times = (wall: [Double], cpu: [Double], start: Double, end: Double)
    let path: String
    var wall: [Double] = [], cpu: [Double] = []
    var start = 0.0, end = 0.0
    init(path: String) { self.path = path }

    func tick() {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        wall.append(now())
        cpu.append(Double(t.tv_sec) + Double(t.tv_nsec) / 1e9)
    }

    func write() throws {
        try JSONSerialization.data(withJSONObject: ["wall": wall, "cpu": cpu, "span": [start, end]])
            .write(to: URL(fileURLWithPath: path))
    }

    static func read(_ path: String) throws -> Times {
        let obj = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: [Double]]
        guard let wall = obj?["wall"], let cpu = obj?["cpu"], let span = obj?["span"], wall.count == cpu.count,
              span.count == 2 else {
            throw Failure(description: "no frame times in \(path)")
        }
        return (wall, cpu, span[0], span[1])
    }
}

/// Peak resident memory of this process in MB: the kernel's high-water mark of its address space
/// (VmHWM). Not ru_maxrss: Linux carries that across execve from the address space the child was
/// spawned from, so a child started by a parent that had grown reports the parent's peak.
func peakMB() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        if let kb = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) { return kb / 1024 }
    }
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return Double(u.ru_maxrss) / 1024
}

func option(_ name: String, in args: [String]) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

func assetsURL() throws -> URL {
    try AssetLocator.locate(explicit: nil, environment: ProcessInfo.processInfo.environment)
}

/// The environment `maptrip render` gives a render: the embedded map, its levels of detail kept
/// between renders in `$XDG_CACHE_HOME/maptrip/geometry` (the benchmark gives its children a cache
/// folder of its own, warmed by its first child: the capture of the pictures). `tiles`: where its
/// drawn tiles are kept (the drawn tile cache; nil: none kept, `--no-drawn-tile-cache`).
func renderEnvironment(tiles: URL? = nil) throws -> RenderEnvironment {
    let env = ProcessInfo.processInfo.environment
    var environment = RenderEnvironment(assets: try assetsURL(),
                                        geometryCache: CacheDirectories.default("geometry", environment: env).map { GeometryCache(directory: $0) },
                                        drawnTiles: tiles.map { DrawnTileCache(directory: $0) })
    // As `maptrip render` reads it: a fast path's worth measured by running without it.
    environment.fastPaths = try FastPaths.from(environment: env)
    return environment
}

/// The environment `maptrip render` gives a render by default: `renderEnvironment` with the drawn
/// tile cache in its default folder (the children's own `XDG_CACHE_HOME`, so kept from one child to
/// the next, as a user's renders of one map keep theirs).
func defaultRenderEnvironment() throws -> RenderEnvironment {
    try renderEnvironment(tiles: CacheDirectories.default("drawn-tiles", environment: ProcessInfo.processInfo.environment))
}

/// One untimed render of the scene with the drawn tile cache, so that the timed ones that follow
/// find its map's tiles kept, as a user's later renders of a map do.
func keepDrawnTiles(_ scenePath: String, preset: String = "veryfast") throws {
    _ = try child(["pipeline", scenePath, preset, "--tiles", "warm"])
}

/// The kinds of render the pipeline child times: without the drawn tile cache (`none`, as
/// `maptrip render --no-drawn-tile-cache`), and as `maptrip render` runs by default, with the cache:
/// the map's tiles kept by a render before (`warm`), or the map's first render, its folder empty
/// (`cold`); or the map's tiles kept, but paged out of memory (`paged`: on disk only, as a render
/// some time after the last finds them on a machine whose memory went to other work).
enum TileCacheRun: String {
    case none, warm, cold, paged
}

/// Drops the packs under `folder` from memory (written out first): their pages left only on disk.
func pageOut(_ folder: URL) {
    let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
    for url in files where url.pathExtension == "pack" {
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else { continue }
        fdatasync(fd)
        Platform.dropCache(fd)
        close(fd)
    }
}

/// The children's `XDG_CACHE_HOME`: the benchmark's own, not the user's.
let childCacheHome = NSTemporaryDirectory() + "maptrip-bench-cache-\(getpid())"

/// A sink that keeps every distinct picture as I420 in a file, and the frame sequence as a list of
/// flags (1 = new picture, 0 = repeat).
final class CaptureSink: FrameSink {
    let width: Int, height: Int
    let handle: FileHandle
    var flags: [UInt8] = []
    var y: [UInt8], u: [UInt8], v: [UInt8]

    init(path: String, width: Int, height: Int) throws {
        self.width = width
        self.height = height
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let h = FileHandle(forWritingAtPath: path) else { throw Failure(description: "cannot write \(path)") }
        handle = h
        y = [UInt8](repeating: 0, count: width * height)
        u = [UInt8](repeating: 0, count: width * height / 4)
        v = [UInt8](repeating: 0, count: width * height / 4)
    }

    func write(bgra: UnsafePointer<UInt8>, stride: Int) throws {
        try YUV.argbToI420(src: bgra, srcStride: stride, y: &y, yStride: width, u: &u, uStride: width / 2,
                           v: &v, vStride: width / 2, width: width, height: height,
                           matrix: YUVMatrix.forFrame(width: width, height: height))
        handle.write(Data(y))
        handle.write(Data(u))
        handle.write(Data(v))
        flags.append(1)
    }

    func repeatLast() throws { flags.append(0) }
}

func loadScene(_ path: String) throws -> Scene {
    try SceneLoader.loadForRender(contentsOf: URL(fileURLWithPath: path))
}

/// child: capture SCENE FRAMES FLAGS
func capture(_ scenePath: String, _ framesPath: String, _ flagsPath: String) throws {
    let scene = try loadScene(scenePath)
    // The scene's own map (its tiles and style, or the embedded map), as the render draws it: the
    // encoder alone must encode the pictures the pipeline encodes (a flat picture costs x264 far less).
    let sceneURL = URL(fileURLWithPath: scenePath)
    let map = try BaseMaps.make(for: scene, format: scene.video.format, sceneDirectory: sceneURL.deletingLastPathComponent(),
                                environment: try renderEnvironment())
    // The pictures the scene names (photos, clips, the presenter), as the render draws them.
    let media = try SceneMedia.load(for: scene, sceneFile: sceneURL, assets: try assetsURL())
    let recorder = try Recorder(scene: scene, baseMap: map, media: media)
    let sink = try CaptureSink(path: framesPath, width: scene.video.width, height: scene.video.height)
    let summary = try recorder.record(to: sink)
    try Data(sink.flags).write(to: URL(fileURLWithPath: flagsPath))
    // The raster cache's tiles, all drawn here (no drawn tile cache): how many, how many again.
    let tiles = summary.rasterCache
    print("{\"frames\":\(sink.flags.count),\"drawn\":\(sink.flags.filter { $0 == 1 }.count),"
          + "\"tilesDrawn\":\(tiles?.tilesDrawn ?? 0),\"tilesAgain\":\(tiles?.tilesDrawnAgain ?? 0),"
          + "\"composited\":\(tiles?.framesComposited ?? 0),\"cachePeakMB\":\(Double(tiles?.peakBytes ?? 0) / 1e6),"
          + "\"cacheLimitMB\":\(Double(tiles?.limitBytes ?? 0) / 1e6)}")
}

/// Encodes the captured pictures (read back from FRAMES, repeated as FLAGS says) with `settings` into
/// `out`; returns the wall seconds and the number of frames sent.
func encodeCaptured(_ framesPath: String, _ flagsPath: String, settings: VideoEncoderSettings, format: String,
                    out: String, clock: FrameClock? = nil) throws -> (seconds: Double, frames: Int) {
    let width = settings.width, height = settings.height
    let flags = [UInt8](try Data(contentsOf: URL(fileURLWithPath: flagsPath)))
    guard let input = FileHandle(forReadingAtPath: framesPath) else { throw Failure(description: "no \(framesPath)") }
    let frame = try Frame(width: width, height: height, pixelFormat: .yuv420p)
    frame.colorTags = .bt601Limited
    let start = now()
    clock?.start = start
    var writer: VideoWriter? = try VideoWriter(path: out, format: format, settings: settings)
    let planes = [(0, width, height), (1, width / 2, height / 2), (2, width / 2, height / 2)]
    // Each plane read straight into the frame (one copy, from the page cache: the cheapest way to give
    // x264 a picture), row by row where the frame's rows are padded; the same frame every picture:
    // no allocation, and no fresh pages.
    func readFully(_ p: UnsafeMutablePointer<UInt8>, _ count: Int) -> Bool {
        var got = 0
        while got < count {
            let r = read(input.fileDescriptor, p + got, count - got)
            if r <= 0 { return false }
            got += r
        }
        return true
    }
    for (n, flag) in flags.enumerated() {
        if flag == 1 {
            try frame.makeWritable()
            for (plane, w, h) in planes {
                guard let dst = frame.data(plane: plane) else { throw Failure(description: "no plane \(plane)") }
                let stride = frame.linesize(plane: plane)
                let whole = stride == w ? readFully(dst, w * h) : (0..<h).allSatisfy { readFully(dst + $0 * stride, w) }
                guard whole else { throw Failure(description: "short read of \(framesPath)") }
            }
        }
        try writer!.send(frame: frame, pts: Int64(n))
        clock?.tick()
    }
    try writer!.finish()
    // Closed within the time, as a render closes its encoder within its own (x264's threads joined,
    // its pictures freed).
    writer = nil
    clock?.end = now()
    return (now() - start, flags.count)
}

/// child: encoder FRAMES FLAGS WIDTH HEIGHT FPS PRESET
func encodeOnly(_ framesPath: String, _ flagsPath: String, _ width: Int, _ height: Int, _ fps: Int,
                _ preset: String, threads: Int? = nil, clock: FrameClock? = nil) throws {
    let out = NSTemporaryDirectory() + "maptrip-bench-encoder-\(getpid()).mp4"
    defer { try? FileManager.default.removeItem(atPath: out) }
    // The floor as a render runs it: without transparent huge pages (see `RenderJob.run`).
    Heap.avoidHugePages()
    Heap.fillNewBlocks()
    let (settings, _) = try CodecProfile.profile(for: .h264).settings(
        options: EncodingOptions(preset: preset, threads: threads), width: width, height: height, fps: fps, transparent: false)
    let (seconds, frames) = try encodeCaptured(framesPath, flagsPath, settings: settings, format: "mp4", out: out,
                                               clock: clock)
    try clock?.write()
    print("{\"seconds\":\(seconds),\"frames\":\(frames),\"peakMB\":\(peakMB()),\"cpu\":\(cpuSeconds())}")
}

/// The AV1 encoders compared on the captured pictures: maptrip's (libsvtav1, its CodecProfile
/// defaults: preset 10, crf 35) and libaom-av1 at its fastest good-quality speed (cpu-used 8, row-mt,
/// the same crf, keyframe interval and colour tags).
func av1Settings(_ encoder: String, width: Int, height: Int, fps: Int) throws -> VideoEncoderSettings {
    var (s, _) = try CodecProfile.profile(for: .av1).settings(options: EncodingOptions(), width: width,
                                                              height: height, fps: fps, transparent: false)
    switch encoder {
    case "libsvtav1":
        break
    case "libaom-av1":
        s.codecName = "libaom-av1"
        s.preset = nil
        s.options = ["cpu-used": "8", "row-mt": "1"]
        if s.bitRate == nil { s.bitRate = 0 }  // crf alone: constant quality
    default:
        throw Failure(description: "unknown AV1 encoder \(encoder)")
    }
    return s
}

/// child: av1 ENCODER FRAMES FLAGS WIDTH HEIGHT FPS
func encodeAV1(_ encoder: String, _ framesPath: String, _ flagsPath: String, _ width: Int, _ height: Int,
               _ fps: Int) throws {
    let out = NSTemporaryDirectory() + "maptrip-bench-\(encoder)-\(getpid()).webm"
    defer { try? FileManager.default.removeItem(atPath: out) }
    let settings = try av1Settings(encoder, width: width, height: height, fps: fps)
    let (seconds, frames) = try encodeCaptured(framesPath, flagsPath, settings: settings, format: "webm", out: out)
    let bytes = (try FileManager.default.attributesOfItem(atPath: out)[.size] as? NSNumber)?.doubleValue ?? 0
    print("{\"seconds\":\(seconds),\"frames\":\(frames),\"bytes\":\(bytes),\"width\":\(width),"
          + "\"height\":\(height),\"fps\":\(fps),\"peakMB\":\(peakMB())}")
}

/// child: pipeline SCENE PRESET [THREADS] [--tiles warm|cold] (see `TileCacheRun`; a cold run's folder
/// is its own, removed after).
func pipeline(_ scenePath: String, _ preset: String, threads: Int? = nil, clock: FrameClock? = nil,
              tileCache: TileCacheRun = .none, clipsAhead: Bool = false) throws {
    let out = NSTemporaryDirectory() + "maptrip-bench-pipeline-\(getpid()).mp4"
    let env = ProcessInfo.processInfo.environment
    let tiles: URL? = switch tileCache {
    case .none: nil
    case .warm, .paged: CacheDirectories.default("drawn-tiles", environment: env)
    case .cold: URL(fileURLWithPath: NSTemporaryDirectory() + "maptrip-bench-cold-tiles-\(getpid())")
    }
    defer {
        try? FileManager.default.removeItem(atPath: out)
        if tileCache == .cold, let tiles { try? FileManager.default.removeItem(at: tiles) }
    }
    if tileCache == .paged, let tiles { pageOut(tiles) }
    var environment = try renderEnvironment(tiles: tiles)
    // The clips' pictures decoded before the drawing starts, their time and CPU left out.
    let ahead = AheadTimes()
    if clipsAhead { environment.preparedMedia = { media, scene, format in try decodedAhead(media, scene, format, times: ahead) } }
    let start = now()
    clock?.start = start
    let job = RenderJob(scene: URL(fileURLWithPath: scenePath), output: URL(fileURLWithPath: out),
                        options: EncodingOptions(preset: preset, threads: threads), environment: environment)
    // The progress report comes on the encoding thread as each frame has been sent to the encoder.
    let summary = try job.run(progress: clock.map { c in { _ in c.tick() } })
    let seconds = now() - start - ahead.seconds
    clock?.end = now()
    try clock?.write()
    let made = summary.rasterCache
    print("{\"seconds\":\(seconds),\"frames\":\(summary.frames),\"drawn\":\(summary.drawnFrames),\"peakMB\":\(peakMB()),"
          + "\"cpu\":\(cpuSeconds() - ahead.cpu),\"tilesDrawn\":\(made?.tilesDrawn ?? 0),\"tilesAgain\":\(made?.tilesDrawnAgain ?? 0),"
          + "\"tilesRead\":\(made?.tilesRead ?? 0),\"cachePeakMB\":\(Double(made?.peakBytes ?? 0) / 1e6)}")
}

/// How long decoding the clips ahead took (`decodedAhead`).
final class AheadTimes: @unchecked Sendable {
    var seconds = 0.0, cpu = 0.0
}

/// A clip's pictures at the seconds a render asks for, decoded ahead.
final class DecodedClip: ClipFrames {
    let aspect: Double
    private let clip: ClipFrames
    private var pictures: [Double: ImageSurface] = [:]

    init(_ clip: ClipFrames) {
        self.clip = clip
        aspect = clip.aspect
    }

    func add(_ seconds: Double) throws {
        if pictures[seconds] == nil { pictures[seconds] = try clip.picture(at: seconds) }
    }

    func picture(at seconds: Double) throws -> ImageSurface {
        if let made = pictures[seconds] { return made }
        return try clip.picture(at: seconds)
    }
}

/// Which video a frame shows a picture of: a place's clip, or the presenter.
enum BenchVideo { case clip(Int), presenter }

/// Each picture of a video the trip's frames show, in the frames' order, with its second in the file.
func forEachVideoPicture(_ timeline: Timeline, _ body: (BenchVideo, Double) throws -> Void) rethrows {
    for n in 0..<timeline.frameCount {
        let values = timeline.values(at: n)
        for card in values.cards {
            if case .clip(let i) = card.cue { try body(.clip(i), card.seconds ?? 0) }
        }
        if let p = values.presenter { try body(.presenter, p.seconds) }
    }
}

/// `media` with its clips' and presenter's pictures decoded for every frame of the trip, ahead.
func decodedAhead(_ media: SceneMedia, _ scene: Scene, _ format: FrameFormat, times: AheadTimes) throws -> SceneMedia {
    let start = now(), cpu0 = cpuSeconds()
    var media = media
    let clips = media.clips.mapValues { DecodedClip($0) }
    let presenter = media.presenter.map { DecodedClip($0) }
    try forEachVideoPicture(Timeline(scene: scene, format: format)) { video, seconds in
        switch video {
        case .clip(let i): try clips[i]?.add(seconds)
        case .presenter: try presenter?.add(seconds)
        }
    }
    media.clips = clips
    media.presenter = presenter
    times.seconds = now() - start
    times.cpu = cpuSeconds() - cpu0
    return media
}

/// The outputs of the codecs phase: key (for `--codecs`), label, extension, codec. Each is written with
/// maptrip's defaults for it (GIF: 15 fps, at most 720 px wide).
let codecOutputs: [(key: String, label: String, ext: String, codec: VideoCodec)] = [
    ("h264", "H.264 MP4", "mp4", .h264),
    ("hevc", "HEVC MP4", "mp4", .hevc),
    ("vp9", "VP9 WebM", "webm", .vp9),
    ("av1", "AV1 WebM (libsvtav1)", "webm", .av1),
    ("prores", "ProRes 4444 MOV", "mov", .prores),
    ("gif", "GIF", "gif", .gif),
    ("png", "PNG sequence", "png", .png),
]

/// Bytes in a file, or in all the files of a folder.
func diskBytes(_ path: String) -> Double {
    let fm = FileManager.default
    var isDirectory: ObjCBool = false
    guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { return 0 }
    if !isDirectory.boolValue {
        return (try? fm.attributesOfItem(atPath: path)[.size] as? NSNumber)?.doubleValue ?? 0
    }
    return ((try? fm.contentsOfDirectory(atPath: path)) ?? []).reduce(0) { $0 + diskBytes(path + "/" + $1) }
}

/// child: codec KEY SCENE — the whole render (RenderJob) into one output, its defaults.
func codecRender(_ key: String, _ scenePath: String) throws {
    guard let c = codecOutputs.first(where: { $0.key == key }) else { throw Failure(description: "unknown codec \(key)") }
    let base = NSTemporaryDirectory() + "maptrip-bench-\(key)-\(getpid())"
    let path = c.codec == .png ? base + "/frame_%05d.png" : base + "." + c.ext
    let written = c.codec == .png ? base : path
    defer { try? FileManager.default.removeItem(atPath: written) }
    let start = now()
    let job = RenderJob(scene: URL(fileURLWithPath: scenePath), output: OutputRequest(path: path, codec: c.codec),
                        environment: try defaultRenderEnvironment())
    let summary = try job.run()
    let seconds = now() - start
    let peak = peakMB()
    let video = try job.prepare().format  // the picture as written (GIF: its own size and rate)
    print("{\"seconds\":\(seconds),\"frames\":\(summary.frames),\"drawn\":\(summary.drawnFrames),"
          + "\"duration\":\(summary.duration),\"bytes\":\(diskBytes(written)),\"width\":\(video.width),"
          + "\"height\":\(video.height),\"fps\":\(video.fps),\"peakMB\":\(peak)}")
}

/// Where drawing time goes: each base-map layer alone, the overlays, and the colour conversion,
/// in milliseconds per drawn frame over the trip's moving frames.
func profile(_ scenePath: String) throws {
    let scene = try loadScene(scenePath)
    let timeline = Timeline(scene: scene)
    let assets = try assetsURL()
    var states: [FrameValues] = []
    var last: FrameValues?
    for n in 0..<timeline.frameCount {
        let s = timeline.values(at: n)
        if s != last { states.append(s) }
        last = s
    }
    print("profile: \(states.count) distinct frames of \(scenePath) at \(scene.video.width)x\(scene.video.height)")
    func time(_ label: String, _ renderer: FrameRenderer) throws {
        try renderer.baseMap.prepare(for: states.map { renderer.viewport($0.camera) })
        let t0 = now()
        for s in states { try renderer.render(s) }
        print(String(format: "  %@ %7.2f ms/frame", label.padding(toLength: 46, withPad: " ", startingAt: 0),
                     (now() - t0) * 1000 / Double(states.count)))
    }
    for layer in MapLayer.standard(.standard) {
        let map = try ShapefileBaseMap(assets: assets, layers: [layer])
        try time("layer \(layer.name) (\(layer.source.split(separator: "/").last!))", FrameRenderer(scene: scene, baseMap: map, overlays: []))
    }
    let all = try ShapefileBaseMap(assets: assets)
    try time("whole base map", FrameRenderer(scene: scene, baseMap: all, overlays: []))
    try time("base map + overlays", FrameRenderer(scene: scene, baseMap: all))
    let r = try FrameRenderer(scene: scene, baseMap: all)
    try r.render(states[0])
    let w = scene.video.width, h = scene.video.height
    var y = [UInt8](repeating: 0, count: w * h), u = [UInt8](repeating: 0, count: w * h / 4), v = u
    for matrix in [YUVMatrix.bt601, .bt709] {
        let t0 = now()
        for _ in 0..<100 {
            try YUV.argbToI420(src: r.surface.data, srcStride: r.surface.stride, y: &y, yStride: w, u: &u, uStride: w / 2,
                               v: &v, vStride: w / 2, width: w, height: h, matrix: matrix)
        }
        let label = matrix == .bt601 ? "BGRA -> I420 BT.601 (libyuv)" : "BGRA -> I420 BT.709 (maptrip's kernel)"
        print(String(format: "  %@ %7.2f ms/frame", label.padding(toLength: 46, withPad: " ", startingAt: 0),
                     (now() - t0) * 10))
    }
}

/// Runs this program again in a child mode and returns the JSON object it printed last.
func child(_ args: [String]) throws -> [String: Double] {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).absoluteURL
    p.arguments = ["child"] + args
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_CACHE_HOME"] = childCacheHome
    p.environment = environment
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0,
          let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last,
          let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        throw Failure(description: "child \(args.first ?? "") failed (status \(p.terminationStatus))")
    }
    return obj.compactMapValues { ($0 as? NSNumber)?.doubleValue }
}

/// A copy of the scene with its places repeated `times` times (same look, a longer trip).
func longerScene(_ path: String, times: Int) throws -> String {
    try derivedScene(path, name: "x\(times)") { obj in
        obj["places"] = Array(repeating: obj["places"] as! [Any], count: times).flatMap { $0 }
    }
}

/// A copy of the scene with only its first `count` places (the same look, a shorter trip).
func shorterScene(_ path: String, places count: Int) throws -> String {
    try derivedScene(path, name: "first\(count)") { obj in obj["places"] = Array((obj["places"] as! [Any]).prefix(count)) }
}

/// A changed copy of a scene, written beside it (a hidden file) so that the files it names relative
/// to itself (tiles, photos, music) are found from the copy too.
func derivedScene(_ path: String, name: String, _ change: (inout [String: Any]) -> Void) throws -> String {
    var obj = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    change(&obj)
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
    let out = folder.appendingPathComponent(".maptrip-bench-\(name)-\(getpid()).json").path
    try JSONSerialization.data(withJSONObject: obj).write(to: URL(fileURLWithPath: out))
    return out
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// A captured trip: every distinct picture as I420 and the frame sequence, removed by `remove()`.
struct Capture {
    let framesPath: String, flagsPath: String
    let frames: Int, drawn: Int
    /// What the capture's raster cache did (`capture`): tiles drawn, of them drawn again, frames
    /// composited, peak and bound in MB.
    let tiles: [String: Double]

    init(_ scenePath: String, tag: String) throws {
        let tmp = NSTemporaryDirectory() + "maptrip-bench-\(getpid())-\(tag)"
        framesPath = tmp + ".i420"
        flagsPath = tmp + ".flags"
        let cap = try child(["capture", scenePath, framesPath, flagsPath])
        frames = Int(cap["frames"] ?? 0)
        drawn = Int(cap["drawn"] ?? 0)
        tiles = cap
    }

    /// The raster cache's line: its tiles drawn, once or again, within what memory.
    var tilesLine: String {
        let drawn = Int(tiles["tilesDrawn"] ?? 0), again = Int(tiles["tilesAgain"] ?? 0)
        return String(format: "raster cache: %d tiles drawn, %d distinct (%d drawn again); %d frames composited; "
                      + "peak %.1f MB of a %.1f MB bound", drawn, drawn - again, again, Int(tiles["composited"] ?? 0),
                      tiles["cachePeakMB"] ?? 0, tiles["cacheLimitMB"] ?? 0)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: framesPath)
        try? FileManager.default.removeItem(atPath: flagsPath)
    }
}

/// The codecs phase: each output rendered whole (RenderJob, in a child process), `runs` times,
/// alternating; then libsvtav1 and libaom-av1 alone on the captured pictures (`capture`, else one made
/// here).
func codecsPhase(scenePath: String, label: String, keys: [String], runs: Int, capture existing: Capture?) throws {
    let v = try loadScene(scenePath).video
    var capture = existing
    if capture == nil && keys.contains("av1") { capture = try Capture(scenePath, tag: "codecs") }
    defer { if existing == nil { capture?.remove() } }
    let outputs = codecOutputs.filter { keys.contains($0.key) }
    var results = [String: [[String: Double]]]()
    for _ in 0..<runs {
        for c in outputs { results[c.key, default: []].append(try child(["codec", c.key, scenePath])) }
    }
    let encoders = keys.contains("av1")
        ? [("libsvtav1", "AV1 libsvtav1 p10, enc. alone"), ("libaom-av1", "AV1 libaom cpu8 row-mt, alone")] : []
    var alone = [String: [[String: Double]]]()
    for _ in 0..<runs {
        for (e, _) in encoders {
            alone[e, default: []].append(try child(["av1", e, capture!.framesPath, capture!.flagsPath, "\(v.width)",
                                                    "\(v.height)", "\(v.fps)"]))
        }
    }

    let duration = results[outputs[0].key]![0]["duration"]!
    print("codecs: \(label), \(String(format: "%.1f", duration)) s, each output with its defaults; \(runs) "
          + "run\(runs == 1 ? "" : "s") each, alternating; medians, the frames/s range in brackets")
    print("")
    print("output                          frames  picture          frames/s [range]      real-time    size MB  Mbit/s  peak MB")
    func row(_ label: String, _ results: [[String: Double]]) {
        let first = results[0]
        let frames = first["frames"]!
        let fpsRange = results.map { frames / $0["seconds"]! }
        let s = median(results.map { $0["seconds"]! })
        let mb = median(results.map { $0["bytes"]! }) / 1_000_000
        let picture = "\(Int(first["width"]!))x\(Int(first["height"]!))@\(Int(first["fps"]!))"
        let range = String(format: "%.1f [%.1f-%.1f]", frames / s, fpsRange.min()!, fpsRange.max()!)
        print(String(format: "%@  %6.0f  %@  %@  %8.2fx  %9.1f  %6.2f  %7.0f",
                     label.padding(toLength: 30, withPad: " ", startingAt: 0), frames,
                     picture.padding(toLength: 15, withPad: " ", startingAt: 0),
                     range.padding(toLength: 20, withPad: " ", startingAt: 0), duration / s, mb,
                     mb * 8 / duration, median(results.map { $0["peakMB"]! })))
    }
    for c in outputs { row(c.label, results[c.key]!) }
    for (e, label) in encoders { row(label, alone[e]!) }
    if !encoders.isEmpty {
        print("")
        print("(the last two rows: the encoder alone on the trip's pictures captured as I420, no drawing or "
              + "conversion; both crf 35, a keyframe every 2 s)")
    }
}

// MARK: Designers: one-frame previews and the gazetteer

/// child: preview SCENE SECONDS: one frame as a PNG, as `maptrip preview --at` makes it.
func previewOnce(_ scenePath: String, _ seconds: Double) throws {
    let out = NSTemporaryDirectory() + "maptrip-bench-preview-\(getpid()).png"
    defer { try? FileManager.default.removeItem(atPath: out) }
    let start = now()
    _ = try PreviewJob(scene: URL(fileURLWithPath: scenePath), subject: .time(seconds),
                       output: URL(fileURLWithPath: out), environment: try defaultRenderEnvironment()).run()
    print("{\"seconds\":\(now() - start),\"peakMB\":\(peakMB())}")
}

/// child: places: opening the gazetteer and the first lookup in a fresh process, then warm lookups
/// and suggestions.
func placesOnce() throws {
    let names = ["Seoul", "서울", "東京", "Москва", "São Paulo", "Paris", "Springfield", "Busan", "القاهرة", "Zürich"]
    var start = now()
    let gazetteer = try Gazetteer(assets: try assetsURL())
    _ = try gazetteer.matches(for: "Busan", country: nil)
    let open = now() - start
    start = now()
    let rounds = 200
    for _ in 0..<rounds { for n in names { _ = try gazetteer.matches(for: n, country: nil) } }
    let lookup = (now() - start) / Double(rounds * names.count)
    start = now()
    let typos = ["Pariss", "Bussan", "Sooul", "Zurrich", "Springfeld"]
    for t in typos { _ = try gazetteer.suggestions(for: t, country: nil, limit: 3) }
    let suggestion = (now() - start) / Double(typos.count)
    print("{\"open\":\(open),\"lookup\":\(lookup),\"suggestion\":\(suggestion)}")
}

// MARK: Batches: clips per hour by jobs side by side and encoder threads

/// Writes `count` short scenes (3 places, 1 s each, 640x360 at 24 fps, 3 s clips) into `folder`.
func writeShortScenes(_ count: Int, into folder: URL) throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let stops = [(37.5665, 126.978), (35.1796, 129.0756), (33.4996, 126.5312), (35.6895, 139.6917),
                 (34.6937, 135.5022), (39.9042, 116.4074), (31.2304, 121.4737), (25.033, 121.5654)]
    for i in 0..<count {
        let places = (0..<3).map { k -> String in
            let (lat, lon) = stops[(i + k * 3) % stops.count]
            return "{\"name\": \"Stop \(k + 1)\", \"lat\": \(lat), \"lon\": \(lon), \"zoom\": \(5 + (i + k) % 3)}"
        }
        let json = "{\"title\": \"Clip \(i)\", \"dwell\": 1, \"flight\": 0.5, "
            + "\"video\": {\"width\": 640, \"height\": 360, \"fps\": 24}, \"places\": [\(places.joined(separator: ", "))]}"
        try Data(json.utf8).write(to: folder.appendingPathComponent(String(format: "clip%02d.json", i)))
    }
}

/// child: batch SCENES JOBS THREADS (0: the encoder's choice): the batch into a fresh folder.
func batchOnce(_ scenes: String, _ jobs: Int, _ threads: Int) throws {
    let out = URL(fileURLWithPath: NSTemporaryDirectory() + "maptrip-bench-batch-\(getpid())")
    defer { try? FileManager.default.removeItem(at: out) }
    let start = now()
    let plan = try BatchPlan.discover([scenes], outputFolder: out)
    let options = BatchOptions(encoding: EncodingOptions(threads: threads > 0 ? threads : nil))
    let report = try BatchRunner(plan: plan, folder: out, options: options,
                                 environment: try defaultRenderEnvironment(), jobs: jobs).run()
    guard report.succeeded else { throw Failure(description: "\(report.failed.count) scenes failed") }
    print("{\"seconds\":\(now() - start),\"clips\":\(report.rendered.count),\"peakMB\":\(peakMB())}")
}

func batchPhase(runs: Int, scenes count: Int) throws {
    let folder = URL(fileURLWithPath: NSTemporaryDirectory() + "maptrip-bench-scenes-\(getpid())")
    defer { try? FileManager.default.removeItem(at: folder) }
    try writeShortScenes(count, into: folder)
    print("maptrip-bench --batch: \(count) scenes of 3 s at 640x360 @ 24 fps (plus posters); "
          + "\(ProcessInfo.processInfo.activeProcessorCount) cores; \(runs) run(s) each, alternating; medians")
    print("jobs  x264 threads   clips/hour   seconds   peak MB")
    let mixes: [(Int, Int)] = [(1, 0), (2, 0), (3, 0), (4, 0), (2, 1), (4, 1)]
    var results: [[String: Double]] = Array(repeating: [:], count: mixes.count)
    var seconds: [[Double]] = Array(repeating: [], count: mixes.count)
    // One untimed batch first: the timed ones find the scenes' map tiles kept (the drawn tile cache).
    _ = try child(["batch", folder.path, "2", "0"])
    for _ in 0..<runs {
        for (i, (jobs, threads)) in mixes.enumerated() {
            let r = try child(["batch", folder.path, "\(jobs)", "\(threads)"])
            seconds[i].append(r["seconds"]!)
            results[i] = r
        }
    }
    for (i, (jobs, threads)) in mixes.enumerated() {
        let t = median(seconds[i])
        let label = (threads == 0 ? "auto" : "\(threads)").padding(toLength: 12, withPad: " ", startingAt: 0)
        print(String(format: "%4d  %@  %11.0f  %8.1f  %8.0f   [%.1f-%.1f s]", jobs, label, Double(count) / t * 3600, t,
                     results[i]["peakMB"]!, seconds[i].min()!, seconds[i].max()!))
    }
}

func designerPhase(scenePath: String, runs: Int) throws {
    let v = try loadScene(scenePath).video
    print("maptrip-bench --designer: \(scenePath), \(v.width)x\(v.height) @ \(v.fps) fps; "
          + "\(runs) alternating runs, medians [range]")
    var previews: [Double] = [], renders: [Double] = [], places: [[String: Double]] = []
    try keepDrawnTiles(scenePath)
    for _ in 0..<runs {
        previews.append(try child(["preview", scenePath, "12.5"])["seconds"]!)
        renders.append(try child(["pipeline", scenePath, "veryfast", "--tiles", "warm"])["seconds"]!)
        places.append(try child(["places"]))
    }
    let p = median(previews), r = median(renders)
    print(String(format: "preview of one frame (t = 12.5 s)   %7.3f s [%.3f-%.3f]", p, previews.min()!, previews.max()!))
    print(String(format: "full render (veryfast)              %7.3f s [%.3f-%.3f]   preview / render: %.3f",
                 r, renders.min()!, renders.max()!, p / r))
    let o = places.map { $0["open"]! }, l = places.map { $0["lookup"]! }, s = places.map { $0["suggestion"]! }
    print(String(format: "gazetteer: open + first lookup      %7.2f ms [%.2f-%.2f]", median(o) * 1e3, o.min()! * 1e3,
                 o.max()! * 1e3))
    print(String(format: "gazetteer: one lookup (warm)        %7.1f µs [%.1f-%.1f]", median(l) * 1e6, l.min()! * 1e6,
                 l.max()! * 1e6))
    print(String(format: "gazetteer: did-you-mean suggestions %7.2f ms [%.2f-%.2f]", median(s) * 1e3, s.min()! * 1e3,
                 s.max()! * 1e3))
}

/// `--cinematics`: the scene rendered with no route or vehicle, then with a great-circle route and a
/// plane on every leg and the distance counter, alternately, `runs` times each: what the cinematics
/// layers cost (the issue asks at most 10% more).
func cinematicsPhase(scenePath: String, runs: Int) throws {
    var obj = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scenePath))) as! [String: Any]
    let directory = URL(fileURLWithPath: scenePath).deletingLastPathComponent().path
    func write(_ tag: String, _ edit: (inout [String: Any]) -> Void) throws -> String {
        var o = obj
        edit(&o)
        // Beside the original, so relative paths in it still resolve.
        let out = directory + "/.maptrip-bench-\(tag)-\(getpid()).json"
        try JSONSerialization.data(withJSONObject: o).write(to: URL(fileURLWithPath: out))
        return out
    }
    obj.removeValue(forKey: "$schema")
    let plain = try write("plain") { $0["route"] = ["path": "none"]; $0["vehicle"] = "none" }
    let full = try write("cinematics") {
        $0["route"] = ["path": "geodesic"]; $0["vehicle"] = "plane"; $0["distance"] = true
    }
    defer {
        try? FileManager.default.removeItem(atPath: plain)
        try? FileManager.default.removeItem(atPath: full)
    }
    let v = try loadScene(scenePath).video
    print("maptrip-bench --cinematics: \(scenePath), \(v.width)x\(v.height) @ \(v.fps) fps, veryfast; "
          + "\(runs) alternating runs, medians [range]")
    var a: [Double] = [], b: [Double] = []
    var drawn = (0.0, 0.0)
    try keepDrawnTiles(plain)
    for _ in 0..<runs {
        let x = try child(["pipeline", plain, "veryfast", "--tiles", "warm"]),
            y = try child(["pipeline", full, "veryfast", "--tiles", "warm"])
        a.append(x["seconds"]!)
        b.append(y["seconds"]!)
        drawn = (x["drawn"]!, y["drawn"]!)
    }
    let ma = median(a), mb = median(b)
    print(String(format: "no route, no vehicle                %7.2f s [%.2f-%.2f]  %.0f frames drawn", ma, a.min()!,
                 a.max()!, drawn.0))
    print(String(format: "routes + plane + distance counter   %7.2f s [%.2f-%.2f]  %.0f frames drawn", mb, b.min()!,
                 b.max()!, drawn.1))
    print(String(format: "cost of the cinematics layers       %+6.1f%%", (mb / ma - 1) * 100))
}

/// `--sound`: a trip with voices and music (default `Scenes/voices.json`) rendered as it is and without
/// its sound (no `audio`, no voices; the same frames), alternately `runs` times each at veryfast: what
/// decoding the voices and music, mixing, ducking and encoding AAC cost, as a ratio.
func soundPhase(scenePath: String, runs: Int) throws {
    let silent = try derivedScene(scenePath, name: "silent") { obj in
        obj.removeValue(forKey: "audio")
        obj.removeValue(forKey: "voices")
        // The voices' lengths as dwells, so that the silent trip has the same frames.
        obj["places"] = (obj["places"] as? [[String: Any]] ?? []).map { place in
            var p = place
            p.removeValue(forKey: "voice")
            return p
        }
    }
    defer { try? FileManager.default.removeItem(atPath: silent) }
    // The voiced scene's dwells as `plan` shows them (lengthened by the voices) go into the silent one.
    let voiced = try loadScene(scenePath)
    let frozen = try derivedScene(silent, name: "silent-dwells") { obj in
        var places = obj["places"] as? [[String: Any]] ?? []
        for i in places.indices where i < voiced.places.count { places[i]["dwell"] = voiced.places[i].dwell }
        obj["places"] = places
    }
    defer { try? FileManager.default.removeItem(atPath: frozen) }
    let v = voiced.video
    let voices = voiced.places.filter { $0.voice != nil }.count
    print("maptrip-bench --sound: \(scenePath), \(v.width)x\(v.height) @ \(v.fps) fps, veryfast, \(voices) voices"
          + (voiced.audio == nil ? "" : " + music") + "; \(runs) alternating runs, medians [range]")
    try keepDrawnTiles(frozen)
    var a: [Double] = [], b: [Double] = []
    for _ in 0..<runs {
        a.append(try child(["pipeline", frozen, "veryfast", "--tiles", "warm"])["seconds"]!)
        b.append(try child(["pipeline", scenePath, "veryfast", "--tiles", "warm"])["seconds"]!)
    }
    let ma = median(a), mb = median(b)
    print(String(format: "without sound                       %7.2f s [%.2f-%.2f]", ma, a.min()!, a.max()!))
    print(String(format: "voices + music, mixed and ducked    %7.2f s [%.2f-%.2f]", mb, b.min()!, b.max()!))
    print(String(format: "ratio                               %7.3f", mb / ma))
}

/// `--projections`: drawing a moving frame (base map and overlays, no encoder) of the same trip on
/// Web Mercator, on the globe and in LAEA Europe, alternately `runs` times: the projections' cost as
/// ratios to today's Mercator frame (the issue's targets: at most 1.5x for the globe).
func projectionsPhase(scenePath: String, runs: Int) throws {
    let base = try loadScene(scenePath)
    let assets = try assetsURL()
    func frames(_ scene: Scene, _ projection: Projection) -> [FrameValues] {
        let timeline = Timeline(scene: scene, projection: projection)
        var out: [FrameValues] = []
        var last: Camera?
        for n in 0..<timeline.frameCount {
            let v = timeline.values(at: n)
            if v.camera != last { out.append(v) }
            last = v.camera
        }
        // MAPTRIP_BENCH_FRAMES=N: every k-th moving frame, N in all (for a profiler's slow runs).
        if let n = ProcessInfo.processInfo.environment["MAPTRIP_BENCH_FRAMES"].flatMap({ Int($0) }), n > 0, n < out.count {
            let k = out.count / n
            out = (0..<n).map { out[$0 * k] }
        }
        return out
    }
    var kinds: [(String, FrameRenderer, [FrameValues])] = []
    // MAPTRIP_BENCH_ONLY="tiles globe,tiles EPSG:3857": only those kinds.
    let only = ProcessInfo.processInfo.environment["MAPTRIP_BENCH_ONLY"].map { $0.split(separator: ",").map(String.init) }
    // Web Mercator's frames twice: as `render` draws them (composited from rasters of the map), and
    // from the vectors as every other projection draws them (the cost the globe was first measured against).
    for (spec, rasters) in [(ProjectionSpec.webMercator, true), (.webMercator, false), (.globe, true), (.proj("+proj=robin"), true)] {
        let name = spec.description + (rasters ? "" : " vectors")
        guard only == nil || only!.contains(name) else { continue }
        var scene = base
        scene.projection = spec
        let projection = try Projection.make(for: scene)
        let map = try ShapefileBaseMap(assets: assets, style: MapStyle(scene.style), caching: MapCaching(cachesRasters: rasters))
        let renderer = try FrameRenderer(scene: scene, baseMap: map, projection: projection)
        let values = frames(scene, projection)
        try renderer.baseMap.prepare(for: values.map { renderer.viewport($0.camera) })
        kinds.append((name, renderer, values))
    }
    // The same trip on raster tiles: a pyramid of the embedded map (zooms 0-5), made once.
    let tilesDir = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-bench-tiles")
    if !FileManager.default.fileExists(atPath: tilesDir.appendingPathComponent("5").path) {
        let writer = try TilePyramidWriter(baseMap: try ShapefileBaseMap(assets: assets),
                                           options: TilePyramidOptions(minZoom: 0, maxZoom: 5, name: "bench"))
        _ = try writer.write(to: .folder(tilesDir))
    }
    for spec in [ProjectionSpec.webMercator, .globe, .proj("EPSG:3035")] where only == nil || only!.contains("tiles " + spec.description) {
        var scene = base
        scene.projection = spec
        scene.map = MapSource(tiles: tilesDir.path, attribution: "Natural Earth", maxZoom: 5)
        if case .proj = spec { scene.places = scene.places.filter { $0.position.lon > -30 && $0.position.lon < 45 && $0.position.lat > 30 } }
        guard scene.places.count >= 2 else { continue }
        let projection = try Projection.make(for: scene)
        let map = try BaseMaps.make(for: scene, format: scene.video.format, sceneDirectory: tilesDir, environment: RenderEnvironment(assets: assets))
        let renderer = try FrameRenderer(scene: scene, baseMap: map, projection: projection)
        let values = frames(scene, projection)
        try renderer.baseMap.prepare(for: values.map { renderer.viewport($0.camera) })
        kinds.append(("tiles " + spec.description, renderer, values))
    }
    print("maptrip-bench --projections: \(scenePath), \(base.video.width)x\(base.video.height), moving frames drawn "
          + "(base map + overlays, no encoder); \(runs) alternating runs, medians [range]")
    var times = Array(repeating: [Double](), count: kinds.count)
    for _ in 0..<runs {
        for (k, kind) in kinds.enumerated() {
            let t0 = now()
            for v in kind.2 { try kind.1.render(v) }
            times[k].append((now() - t0) * 1000 / Double(kind.2.count))
        }
    }
    func reference(_ name: String) -> Double? { kinds.firstIndex { $0.0 == name }.map { median(times[$0]) } }
    let mercator = reference("EPSG:3857"), vectors = reference("EPSG:3857 vectors")
    let tileMercator = reference("tiles EPSG:3857")
    for (k, kind) in kinds.enumerated() {
        let m = median(times[k])
        let tiles = kind.0.hasPrefix("tiles")
        var line = String(format: "%@ %7.2f ms/frame [%.2f-%.2f] over %d frames   %.2fx Mercator",
                          kind.0.padding(toLength: 20, withPad: " ", startingAt: 0), m, times[k].min()!, times[k].max()!,
                          kind.2.count, m / ((tiles ? tileMercator : mercator) ?? 1))
        if !tiles, kind.0 != "EPSG:3857", let vectors { line += String(format: ", %.2fx Mercator from the vectors", m / vectors) }
        print(line)
    }
}

/// The raster cache against the vectors: every frame of the trip the cache composites, drawn both
/// ways (base map and overlays) and compared by SSIM; and the time to draw the trip's frames both ways.
func rasterQuality(_ scenePath: String, scale: Double, print show: Bool) throws -> [String: Double] {
    let scene = try loadScene(scenePath)
    var format = scene.video.format
    if scale != 1 {
        format.width = Int((Double(format.width) * scale).rounded())
        format.height = Int((Double(format.height) * scale).rounded())
        format.scale *= scale
    }
    let assets = try assetsURL()
    let timeline = Timeline(scene: scene, format: format)
    let cameras = (0..<timeline.frameCount).map { timeline.camera(at: $0) }
    var states: [FrameValues] = []
    for n in 0..<timeline.frameCount {
        let s = timeline.values(at: n)
        if s != states.last { states.append(s) }
    }
    let cachedMap = try ShapefileBaseMap(assets: assets, style: MapStyle(scene.style))
    let directMap = try ShapefileBaseMap(assets: assets, style: MapStyle(scene.style), caching: MapCaching(cachesRasters: false))
    let cached = try FrameRenderer(scene: scene, format: format, baseMap: cachedMap), direct = try FrameRenderer(scene: scene, format: format, baseMap: directMap)
    for r in [cached, direct] {
        try r.baseMap.prepare(for: states.map { r.viewport($0.camera) })
        r.baseMap.plan(frames: cameras, format: format)
    }
    let similarity = try Similarity(width: format.width, height: format.height)
    var scores: [Double] = []
    var worst = (ssim: 2.0, frame: 0)
    for (i, s) in states.enumerated() {
        let before = cachedMap.rasterCacheStatistics?.framesComposited ?? 0
        try cached.render(s)
        guard (cachedMap.rasterCacheStatistics?.framesComposited ?? 0) > before else { continue }
        try direct.render(s)
        let v = try similarity.ssim(cached.surface.data, strideX: cached.surface.stride, direct.surface.data,
                                    strideY: direct.surface.stride)
        scores.append(v)
        if v < worst.ssim { worst = (v, i) }
    }
    // The frames an I420 output (H.264 and the like) gets: drawn straight into I420 where the map
    // composites them, against the vectors' frames converted by libyuv, compared in I420.
    let W = format.width, H = format.height
    let planarMap = try ShapefileBaseMap(assets: assets, style: MapStyle(scene.style))
    let planar = try FrameRenderer(scene: scene, format: format, baseMap: planarMap)
    try planarMap.prepare(for: states.map { planar.viewport($0.camera) })
    planarMap.plan(frames: cameras, format: format)
    let picture = I420Buffers(width: W, height: H), reference = I420Buffers(width: W, height: H)
    let similarity420 = try Similarity(width: W, height: H, pixelFormat: .yuv420p)
    var planarScores: [Double] = []
    // For reference, the same measure of BGRA compositing (what the other outputs get), converted.
    var convertedScores: [Double] = []
    let bgraCached = try FrameRenderer(scene: scene, format: format, baseMap: try ShapefileBaseMap(assets: assets, style: MapStyle(scene.style)))
    try bgraCached.baseMap.prepare(for: states.map { bgraCached.viewport($0.camera) })
    bgraCached.baseMap.plan(frames: cameras, format: format)
    let converted = I420Buffers(width: W, height: H)
    for s in states {
        let before = planarMap.rasterCacheStatistics?.framesComposited ?? 0
        guard try planar.renderPlanar(s, into: picture.picture),
              (planarMap.rasterCacheStatistics?.framesComposited ?? 0) > before else { continue }
        try direct.render(s)
        try reference.convert(direct.surface)
        let v420 = try similarity420.ssim(planes: picture.planes, reference.planes)
        if let dir = ProcessInfo.processInfo.environment["MAPTRIP_BENCH_DUMP"], v420 < (planarScores.min() ?? 2) {
            try Data(bytes: picture.planes[0].data, count: W * H * 3 / 2).write(to: URL(fileURLWithPath: dir + "/planar.yuv"))
            try Data(bytes: reference.planes[0].data, count: W * H * 3 / 2).write(to: URL(fileURLWithPath: dir + "/reference.yuv"))
            print("worst I420 frame so far: the \(planarScores.count)th composited, SSIM \(v420), \(s.camera), in \(dir)")
        }
        planarScores.append(v420)
        try bgraCached.render(s)
        try converted.convert(bgraCached.surface)
        convertedScores.append(try similarity420.ssim(planes: converted.planes, reference.planes))
    }
    // Drawing time, every way, alternately (fresh maps: the cache starts empty). Cached with maptrip's
    // compositing kernel, cached with pixman's, from the vectors; then as an I420 output gets its
    // frames: cached and converted by libyuv, or drawn straight into I420 (converted where not); the
    // last, straight into I420 without the overlays: the map's share of it.
    var times: [[Double]] = [[], [], [], [], [], []]
    for _ in 0..<3 {
        for (k, (caches, ownKernel)) in [(true, true), (true, false), (false, true), (true, true), (true, true), (true, true)].enumerated() {
            let map = try ShapefileBaseMap(assets: assets, style: MapStyle(scene.style), caching: MapCaching(cachesRasters: caches))
            map.caching.compositesWithOwnKernel = ownKernel
            let r = try FrameRenderer(scene: scene, format: format, baseMap: map, overlays: k == 5 ? [] : nil)
            try map.prepare(for: states.map { r.viewport($0.camera) })
            map.plan(frames: cameras, format: format)
            let t0 = now()
            for s in states {
                if k >= 4, try r.renderPlanar(s, into: picture.picture) { continue }
                try r.render(s)
                if k >= 3 { try picture.convert(r.surface) }
            }
            times[k].append((now() - t0) * 1000 / Double(states.count))
        }
    }
    let stats = cachedMap.rasterCacheStatistics
    let sorted = scores.sorted()
    let out: [String: Double] = [
        "ssimMin": sorted.first ?? 1, "ssimMedian": sorted.isEmpty ? 1 : median(sorted), "framesCompared": Double(scores.count),
        "framesDrawn": Double(states.count), "tilesDrawn": Double(stats?.tilesDrawn ?? 0),
        "heldPicturesDrawn": Double(stats?.stillsDrawn ?? 0), "framesFromHeldPictures": Double(stats?.framesFromStill ?? 0),
        "cachePeakMB": Double(stats?.peakBytes ?? 0) / 1e6, "cacheLimitMB": Double(stats?.limitBytes ?? 0) / 1e6,
        "msPerFrameCached": median(times[0]), "msPerFrameCachedPixman": median(times[1]),
        "msPerFrameDirect": median(times[2]), "msPerFrameCachedConverted": median(times[3]),
        "msPerFrameI420": median(times[4]), "msPerFrameI420MapOnly": median(times[5]),
        "ssimI420Min": planarScores.min() ?? 1, "ssimI420Median": planarScores.isEmpty ? 1 : median(planarScores.sorted()),
        "ssimConvertedMin": convertedScores.min() ?? 1, "tilesDrawnI420": Double(planarMap.rasterCacheStatistics?.tilesDrawn ?? 0),
        "cachePeakMBI420": Double(planarMap.rasterCacheStatistics?.peakBytes ?? 0) / 1e6,
        "heldPicturesFromTilesI420": Double(planarMap.rasterCacheStatistics?.stillsFromTiles ?? 0),
        "flatTilesI420": Double(planarMap.rasterCacheStatistics?.flatTiles ?? 0),
        "ssimConvertedMedian": convertedScores.isEmpty ? 1 : median(convertedScores.sorted()),
    ]
    if show {
        print("maptrip-bench --quality: \(scenePath) at \(format.width)x\(format.height): \(states.count) frames drawn, "
              + "\(scores.count) composited from the raster cache")
        print(String(format: "SSIM cached vs vectors: min %.4f (drawn frame %d), median %.4f", worst.ssim, worst.frame,
                     out["ssimMedian"]!))
        print(String(format: "tiles drawn %d, cache peak %.1f MB (limit %.1f MB); as I420 (H.264's path): %d tiles drawn "
                     + "(%d of them flat, kept as their samples), peak %.1f MB with the held pictures", stats?.tilesDrawn ?? 0,
                     out["cachePeakMB"]!, out["cacheLimitMB"]!, Int(out["tilesDrawnI420"]!), Int(out["flatTilesI420"]!),
                     out["cachePeakMBI420"]!))
        print("held cameras: \(stats?.stillsDrawn ?? 0) pictures of the map drawn, copied under \(stats?.framesFromStill ?? 0) more frames; "
              + "in I420, \(Int(out["heldPicturesFromTilesI420"]!)) of them their tiles copied one for one")
        print(String(format: "drawn straight into I420 (what H.264 gets), %d composited frames vs the vectors converted: "
                     + "SSIM min %.4f, median %.4f (cached in BGRA and converted, the same measure: min %.4f, median %.4f)",
                     planarScores.count, out["ssimI420Min"]!, out["ssimI420Median"]!, out["ssimConvertedMin"]!,
                     out["ssimConvertedMedian"]!))
        print(String(format: "drawing, 3 alternating runs, medians: cached %.2f ms/frame [%.2f-%.2f] (tiles composited "
                     + "by pixman instead: %.2f [%.2f-%.2f]), vectors %.2f ms/frame [%.2f-%.2f]",
                     median(times[0]), times[0].min()!, times[0].max()!, median(times[1]), times[1].min()!,
                     times[1].max()!, median(times[2]), times[2].min()!, times[2].max()!))
        print(String(format: "into I420 frames: cached and converted %.2f ms/frame [%.2f-%.2f], drawn straight into I420 "
                     + "%.2f [%.2f-%.2f] (the map alone, no overlays: %.2f [%.2f-%.2f])", median(times[3]), times[3].min()!,
                     times[3].max()!, median(times[4]), times[4].min()!, times[4].max()!, median(times[5]),
                     times[5].min()!, times[5].max()!))
    }
    return out
}

/// An I420 picture in memory of its own, for the benchmark's comparisons.
final class I420Buffers {
    let width: Int, height: Int
    private let memory: UnsafeMutablePointer<UInt8>

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        memory = .allocate(capacity: width * height * 3 / 2)
        memory.initialize(repeating: 0, count: width * height * 3 / 2)
    }

    deinit { memory.deallocate() }

    var picture: PlanarPicture {
        PlanarPicture(y: memory, yStride: width, u: memory + width * height, uStride: width / 2,
                      v: memory + width * height * 5 / 4, vStride: width / 2, width: width, height: height,
                      matrix: YUVMatrix.forFrame(width: width, height: height))
    }

    var planes: [(data: UnsafePointer<UInt8>, stride: Int)] {
        let p = picture
        return [(UnsafePointer(p.y), p.yStride), (UnsafePointer(p.u), p.uStride), (UnsafePointer(p.v), p.vStride)]
    }

    func convert(_ surface: ImageSurface) throws {
        surface.flush()
        let p = picture
        try YUV.argbToI420(src: surface.data, srcStride: surface.stride, y: p.y, yStride: p.yStride, u: p.u,
                           uStride: p.uStride, v: p.v, vStride: p.vStride, width: width, height: height, matrix: p.matrix)
    }
}

/// The pipeline against the encoder alone on the captured pictures, per preset, `runs` times each,
/// in an order rotated each round: without the drawn tile cache (`--no-drawn-tile-cache`), and as `maptrip render` runs
/// by default, with it (`TileCacheRun`): the map's tiles kept by a render before (one untimed render
/// first fills the cache) and the map's first render (its cache empty, every tile drawn and written). Returns per preset: pipeline and
/// encoder-alone frames per second, the time ratio's median, min and max (and with the cache, warm
/// and cold), and the peak memory of each and the difference.
func presetsPhase(scenePath: String, capture cap: Capture, presets: [String], runs: Int,
                  show: Bool) throws -> [String: [String: Double]] {
    let v = try loadScene(scenePath).video
    let frames = cap.frames, drawn = cap.drawn
    let duration = Double(frames) / Double(v.fps)
    if show {
        print("maptrip-bench: \(scenePath), \(v.width)x\(v.height) @ \(v.fps) fps, \(frames) frames "
              + "(\(String(format: "%.1f", duration)) s), \(drawn) drawn, \(frames - drawn) repeated still frames")
        print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; each phase runs \(runs) times, in an order rotated each round; "
              + "figures are medians, the ratio's range in brackets; pipeline: without the drawn tile cache "
              + "(--no-drawn-tile-cache); by default, with it: the map's tiles kept by a render before, and the map's "
              + "first render (its cache empty)")
        print("")
        print("preset      pipeline fps  real-time  encoder-alone fps  pipeline/encoder time   default, tiles kept"
              + "         default, the map's first render   peak MB pipeline  encoder  beyond encoder   CPU s pipeline  encoder")
    }
    if let first = presets.first { try keepDrawnTiles(scenePath, preset: first) }
    var out: [String: [String: Double]] = [:]
    for preset in presets {
        var enc: [[String: Double]] = [], pipe: [[String: Double]] = [], warm: [[String: Double]] = [],
            cold: [[String: Double]] = []
        // The four runs of a round in an order rotated each round: a run's place in the round (which
        // run it follows, what the machine did just before) moved a build by up to 3% in sets that
        // always ran it in the same place.
        let kinds: [() throws -> Void] = [
            { enc.append(try child(["encoder", cap.framesPath, cap.flagsPath, "\(v.width)", "\(v.height)", "\(v.fps)", preset])) },
            { pipe.append(try child(["pipeline", scenePath, preset])) },
            { warm.append(try child(["pipeline", scenePath, preset, "--tiles", "warm"])) },
            { cold.append(try child(["pipeline", scenePath, preset, "--tiles", "cold"])) },
        ]
        for round in 0..<runs {
            for k in 0..<kinds.count { try kinds[(round + k) % kinds.count]() }
        }
        let es = median(enc.map { $0["seconds"]! }), ps = median(pipe.map { $0["seconds"]! })
        func ratios(_ runs: [[String: Double]]) -> [Double] { zip(runs, enc).map { $0["seconds"]! / $1["seconds"]! } }
        let r = ratios(pipe), rw = ratios(warm), rc = ratios(cold)
        let pm = median(pipe.map { $0["peakMB"]! }), em = median(enc.map { $0["peakMB"]! })
        out[preset] = ["pipelineFPS": Double(frames) / ps, "encoderFPS": Double(frames) / es, "ratioMedian": median(r),
                       "ratioMin": r.min()!, "ratioMax": r.max()!,
                       "ratioTilesKeptMedian": median(rw), "ratioTilesKeptMin": rw.min()!, "ratioTilesKeptMax": rw.max()!,
                       "ratioTilesFirstMedian": median(rc), "ratioTilesFirstMin": rc.min()!, "ratioTilesFirstMax": rc.max()!,
                       "peakMBPipeline": pm, "peakMBEncoder": em, "peakMBBeyond": pm - em,
                       // CPU seconds of each whole process (user and system, start-up included).
                       "cpuPipeline": median(pipe.map { $0["cpu"]! }), "cpuEncoder": median(enc.map { $0["cpu"]! })]
        if show {
            print(String(format: "%@  %12.1f  %8.1fx  %17.1f  %8.3f [%.3f-%.3f]  %8.3f [%.3f-%.3f]  %8.3f [%.3f-%.3f]"
                         + "          %16.0f  %7.0f  %14.0f  %15.2f  %7.2f",
                         preset.padding(toLength: 10, withPad: " ", startingAt: 0), Double(frames) / ps, duration / ps,
                         Double(frames) / es, median(r), r.min()!, r.max()!, median(rw), rw.min()!, rw.max()!,
                         median(rc), rc.min()!, rc.max()!, pm, em, pm - em,
                         out[preset]!["cpuPipeline"]!, out[preset]!["cpuEncoder"]!))
        }
    }
    return out
}

/// Peak memory of the pipeline (veryfast) on the trip and on the same trip three times over.
func memoryFlatness(_ scenePath: String) throws -> [String: Double] {
    let long = try longerScene(scenePath, times: 3)
    defer { try? FileManager.default.removeItem(atPath: long) }
    let one = try child(["pipeline", scenePath, "veryfast", "--tiles", "warm"])
    let three = try child(["pipeline", long, "veryfast"])
    return ["frames": one["frames"]!, "peakMB": one["peakMB"]!, "framesLong": three["frames"]!, "peakMBLong": three["peakMB"]!]
}

/// A copy of the scene drawn `scale` times larger (`video.scale`: the same view, more pixels).
func scaledScene(_ path: String, scale: Double) throws -> String {
    var obj = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    let v = try loadScene(path).video
    var video = obj["video"] as? [String: Any] ?? [:]
    video["width"] = Int((Double(v.width) * scale).rounded())
    video["height"] = Int((Double(v.height) * scale).rounded())
    video["scale"] = v.scale * scale
    obj["video"] = video
    let out = NSTemporaryDirectory() + "maptrip-bench-scale\(scale)-\(getpid()).json"
    try JSONSerialization.data(withJSONObject: obj).write(to: URL(fileURLWithPath: out))
    return out
}

/// `--stretches`: where the pipeline loses time to the encoder alone along the trip. Both record when
/// each frame has been handed to the encoder; `runs` pairs, the order swapped every run; per stretch
/// of 30 frames, the medians of each one's wall and CPU time (from the previous stretch's last frame,
/// or from frame 0 for the first: start-up is left out), and what the trip does there (frames drawn);
/// each preset in turn, on one capture.
func stretchesPhase(scenePath: String, presets: [String], runs: Int) throws {
    let v = try loadScene(scenePath).video
    let cap = try Capture(scenePath, tag: "stretches")
    defer { cap.remove() }
    let flags = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cap.flagsPath)))
    let timesPath = NSTemporaryDirectory() + "maptrip-bench-times-\(getpid()).json"
    defer { try? FileManager.default.removeItem(atPath: timesPath) }
    for preset in presets {
        var pipe: [FrameClock.Times] = [], enc: [FrameClock.Times] = []
        for run in 0..<runs {
            for isEncoder in (run % 2 == 0 ? [true, false] : [false, true]) {
                if isEncoder {
                    _ = try child(["encoder", cap.framesPath, cap.flagsPath, "\(v.width)", "\(v.height)", "\(v.fps)", preset,
                                   "--times", timesPath])
                    enc.append(try FrameClock.read(timesPath))
                } else {
                    _ = try child(["pipeline", scenePath, preset, "--times", timesPath])
                    pipe.append(try FrameClock.read(timesPath))
                }
            }
        }
        let n = flags.count
        guard (pipe + enc).allSatisfy({ $0.wall.count == n }) else {
            throw Failure(description: "a run handed over a different number of frames than the trip's \(n)")
        }
        print("maptrip-bench --stretches: \(scenePath), \(v.width)x\(v.height), \(preset), \(runs) alternating pairs, medians; "
              + "times from frame 0 handed to the encoder")
        print("frames     drawn  pipeline ms  encoder ms  difference  cores pipeline  encoder")
        var kinds: [String: (p: Double, e: Double)] = [:]
        for first in stride(from: 0, to: n, by: 30) {
            let last = min(first + 30, n) - 1, from = max(first - 1, 0)
            func span(_ t: [FrameClock.Times], _ key: KeyPath<FrameClock.Times, [Double]>) -> Double {
                median(t.map { $0[keyPath: key][last] - $0[keyPath: key][from] }) * 1000
            }
            let pw = span(pipe, \.wall), ew = span(enc, \.wall), pc = span(pipe, \.cpu), ec = span(enc, \.cpu)
            let drawn = flags[first...last].reduce(0) { $0 + Int($1) }
            let kind = first == 0 ? "the first stretch" : drawn * 2 >= last - first + 1 ? "moving stretches" : "still stretches"
            kinds[kind, default: (0, 0)].p += pw
            kinds[kind, default: (0, 0)].e += ew
            print(String(format: "%4d-%-4d  %5d  %11.1f  %10.1f  %+10.1f  %14.2f  %7.2f", first, last, drawn, pw, ew, pw - ew,
                         pc / max(pw, 1e-9), ec / max(ew, 1e-9)))
        }
        // Outside the frames: from the start of the timed run to frame 0 (loading, opening the output,
        // drawing the first frame), and from the last frame to the end (flushing, writing the file out).
        kinds["before frame 0"] = (median(pipe.map { ($0.wall[0] - $0.start) * 1000 }),
                                   median(enc.map { ($0.wall[0] - $0.start) * 1000 }))
        kinds["after the last frame"] = (median(pipe.map { ($0.end - $0.wall[n - 1]) * 1000 }),
                                         median(enc.map { ($0.end - $0.wall[n - 1]) * 1000 }))
        for kind in ["before frame 0", "the first stretch", "moving stretches", "still stretches", "after the last frame"] {
            guard let k = kinds[kind] else { continue }
            print(String(format: "%@: pipeline %.0f ms, encoder alone %.0f ms, %+.0f ms", kind, k.p, k.e, k.p - k.e))
        }
        print(String(format: "whole runs: pipeline %.0f ms, encoder alone %.0f ms, ratio of medians %.3f",
                     median(pipe.map { ($0.end - $0.start) * 1000 }), median(enc.map { ($0.end - $0.start) * 1000 }),
                     median(pipe.map { $0.end - $0.start }) / median(enc.map { $0.end - $0.start })))
    }
}

/// `--paged-out`: renders with the map's tiles kept, in memory and paged out of it (`TileCacheRun`),
/// and without the cache, against the encoder alone, `runs` rounds in an order rotated each round:
/// the time ratios' medians and ranges, and when the first frame was handed to the encoder.
func pagedOutPhase(scenePath: String, preset: String, runs: Int) throws {
    let v = try loadScene(scenePath).video
    let cap = try Capture(scenePath, tag: "paged")
    defer { cap.remove() }
    try keepDrawnTiles(scenePath, preset: preset)
    let timesPath = NSTemporaryDirectory() + "maptrip-bench-paged-\(getpid()).json"
    defer { try? FileManager.default.removeItem(atPath: timesPath) }
    let kinds: [(label: String, args: [String])] = [
        ("encoder alone", ["encoder", cap.framesPath, cap.flagsPath, "\(v.width)", "\(v.height)", "\(v.fps)", preset]),
        ("tiles kept, in memory", ["pipeline", scenePath, preset, "--tiles", "warm"]),
        ("tiles kept, paged out", ["pipeline", scenePath, preset, "--tiles", "paged"]),
        ("without the cache", ["pipeline", scenePath, preset, "--tiles", "none"]),
    ]
    var seconds = Array(repeating: [Double](), count: kinds.count), first = seconds
    for round in 0..<runs {
        for k in 0..<kinds.count {
            let i = (round + k) % kinds.count
            seconds[i].append(try child(kinds[i].args + ["--times", timesPath])["seconds"]!)
            let t = try FrameClock.read(timesPath)
            first[i].append((t.wall[0] - t.start) * 1000)
        }
    }
    print("maptrip-bench --paged-out: \(scenePath), \(v.width)x\(v.height), \(preset), \(runs) rounds, medians [range]")
    print("                          time ratio to the encoder alone   frame 0 handed over (ms)")
    for (i, kind) in kinds.enumerated() {
        let r = zip(seconds[i], seconds[0]).map { $0 / $1 }
        print(String(format: "%@  %8.3f [%.3f-%.3f]          %7.1f [%.1f-%.1f]", kind.label.padding(toLength: 22, withPad: " ", startingAt: 0),
                     median(r), r.min()!, r.max()!, median(first[i]), first[i].min()!, first[i].max()!))
    }
}

/// `--json`: every figure #11 asks for as one JSON object on stdout (progress on stderr): per preset
/// at the scene's size, veryfast at 4K (video.scale 2), the raster cache's SSIM at both, and memory
/// against trip length.
func jsonReport(scenePath: String, presets: [String], runs: Int, with4K: Bool) throws {
    func note(_ s: String) { FileHandle.standardError.write(Data("maptrip-bench --json: \(s)\n".utf8)) }
    let cpu = ((try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? "").split(separator: "\n")
        .first { $0.hasPrefix("model name") }.map { String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces) } ?? "unknown"
    var report: [String: Any] = [
        "scene": scenePath, "runs": runs,
        "machine": ["cores": ProcessInfo.processInfo.activeProcessorCount, "cpu": cpu,
                    "memoryGB": Double(ProcessInfo.processInfo.physicalMemory) / 1e9],
    ]
    func section(_ path: String, _ presets: [String], scale: Double) throws -> [String: Any] {
        let v = try loadScene(path).video
        note("\(v.width)x\(v.height): capturing the trip's pictures")
        let cap = try Capture(path, tag: "json\(v.width)")
        defer { cap.remove() }
        note("\(v.width)x\(v.height): \(presets.joined(separator: ", ")), \(runs) runs each")
        let figures = try presetsPhase(scenePath: path, capture: cap, presets: presets, runs: runs, show: false)
        note("\(v.width)x\(v.height): raster cache against the vectors (SSIM)")
        let q = try rasterQuality(scenePath, scale: scale, print: false)
        return ["width": v.width, "height": v.height, "fps": v.fps, "frames": cap.frames, "drawn": cap.drawn,
                "presets": figures, "rasterCache": q]
    }
    report["hd"] = try section(scenePath, presets, scale: 1)
    if with4K {
        let big = try scaledScene(scenePath, scale: 2)
        defer { try? FileManager.default.removeItem(atPath: big) }
        report["4k"] = try section(big, ["veryfast"], scale: 2)
    }
    note("memory against trip length")
    report["memoryVsLength"] = try memoryFlatness(scenePath)
    let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys, .prettyPrinted])
    print(String(decoding: data, as: UTF8.self))
}

/// A video for `--clips`: `seconds` of a moving picture at `fps` (a diagonal gradient sweeping across,
/// a bar running down: every frame differs everywhere, as footage does), H.264 ultrafast CRF 23.
func writeBenchClip(_ path: String, width: Int, height: Int, fps: Int, seconds: Int) throws {
    var settings = VideoEncoderSettings(width: width, height: height, frameRate: Rational(Int32(fps), 1), preset: "ultrafast",
                                        crf: 23, profile: nil, gopSeconds: 2)
    settings.options = ["bf": "0"]
    let writer = try VideoWriter(path: path, settings: settings)
    let frame = try Frame(width: width, height: height, pixelFormat: .yuv420p)
    for n in 0..<(fps * seconds) {
        try frame.makeWritable()
        for plane in 0..<3 {
            let w = plane == 0 ? width : width / 2, h = plane == 0 ? height : height / 2
            guard let data = frame.data(plane: plane) else { continue }
            let stride = frame.linesize(plane: plane)
            for y in 0..<h {
                let row = data + y * stride
                let bar = abs(y - (n * 7) % h) < h / 40
                for x in 0..<w {
                    row[x] = bar ? 235 : UInt8(truncatingIfNeeded: plane == 0 ? (x + y + n * 9) / 4 + 16 : 128 + ((x - y + n * (plane * 5)) % 64) - 32)
                }
            }
        }
        try writer.send(frame: frame, pts: Int64(n))
    }
    try writer.finish()
}

/// child: clipdecode SCENE: the scene's clips and presenter played as a render plays them (each
/// frame's pictures decoded, scaled, turned into surfaces), without drawing or encoding: what the
/// decoding costs, apart.
func clipDecode(_ scenePath: String) throws {
    let scene = try loadScene(scenePath)
    let start = now(), cpu0 = cpuSeconds()
    let media = try SceneMedia.load(for: scene, sceneFile: URL(fileURLWithPath: scenePath), assets: try assetsURL())
    var pictures = 0
    try forEachVideoPicture(Timeline(scene: scene)) { video, seconds in
        let clip: ClipFrames? = switch video {
        case .clip(let i): media.clips[i]
        case .presenter: media.presenter
        }
        guard let clip else { return }
        _ = try clip.picture(at: seconds)
        pictures += 1
    }
    print("{\"seconds\":\(now() - start),\"cpu\":\(cpuSeconds() - cpu0),\"pictures\":\(pictures),\"peakMB\":\(peakMB())}")
}

/// `--clips`: Scenes/clips.json at 1920x1080 with a 1080p clip in its cards and a 720x720 presenter
/// (made here), the pipeline against the encoder alone on its captured pictures at veryfast, `runs`
/// rounds alternated; the clips' decoding measured apart (`clipdecode`); and the render with the
/// clips' pictures decoded before it starts (`--clips-ahead`), the issue's target: within 1.20 of the
/// encoder alone, decoding costing its own CPU.
func clipsPhase(runs: Int) throws {
    let folder = NSTemporaryDirectory() + "maptrip-bench-clips-\(getpid())"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let clip = folder + "/clip1080.mp4", me = folder + "/presenter.mp4"
    try writeBenchClip(clip, width: 1920, height: 1080, fps: 30, seconds: 10)
    try writeBenchClip(me, width: 720, height: 720, fps: 30, seconds: 22)
    let base = URL(fileURLWithPath: "Scenes/clips.json").standardizedFileURL.path
    let scenePath = try derivedScene(base, name: "clips1080") { obj in
        obj.removeValue(forKey: "$schema")
        // The pictures' cost: the voices and music are `--sound`'s to measure.
        obj.removeValue(forKey: "audio")
        obj.removeValue(forKey: "voices")
        var places = obj["places"] as! [[String: Any]]
        for i in places.indices { places[i].removeValue(forKey: "voice") }
        for i in places.indices where places[i]["clip"] != nil { places[i]["clip"] = clip }
        obj["places"] = places
        var presenter = obj["presenter"] as! [String: Any]
        presenter["file"] = me
        presenter.removeValue(forKey: "places")
        obj["presenter"] = presenter
    }
    defer { try? FileManager.default.removeItem(atPath: scenePath) }
    let v = try loadScene(scenePath).video
    let cap = try Capture(scenePath, tag: "clips")
    defer { cap.remove() }
    print("maptrip-bench --clips: Scenes/clips.json at \(v.width)x\(v.height) @ \(v.fps) fps, \(cap.frames) frames "
          + "(\(cap.drawn) drawn), a 1920x1080 30 fps clip in two cards, a 720x720 presenter the whole trip; veryfast; "
          + "\(runs) rounds alternated, medians [range]")
    try keepDrawnTiles(scenePath)
    var enc: [[String: Double]] = [], pipe: [[String: Double]] = [], dec: [[String: Double]] = [], ahead: [[String: Double]] = []
    for round in 0..<runs {
        let kinds: [() throws -> Void] = [
            { enc.append(try child(["encoder", cap.framesPath, cap.flagsPath, "\(v.width)", "\(v.height)", "\(v.fps)", "veryfast"])) },
            { pipe.append(try child(["pipeline", scenePath, "veryfast", "--tiles", "warm"])) },
            { dec.append(try child(["clipdecode", scenePath])) },
            { ahead.append(try child(["pipeline", scenePath, "veryfast", "--tiles", "warm", "--clips-ahead"])) },
        ]
        for k in 0..<kinds.count { try kinds[(round + k) % kinds.count]() }
    }
    let r = zip(pipe, enc).map { $0["seconds"]! / $1["seconds"]! }
    let es = median(enc.map { $0["seconds"]! }), ps = median(pipe.map { $0["seconds"]! })
    print(String(format: "encoder alone               %7.2f s   CPU %6.2f s", es, median(enc.map { $0["cpu"]! })))
    print(String(format: "pipeline (clips, presenter) %7.2f s   CPU %6.2f s   peak %4.0f MB", ps, median(pipe.map { $0["cpu"]! }),
                 median(pipe.map { $0["peakMB"]! })))
    print(String(format: "pipeline / encoder time     %7.3f [%.3f-%.3f]   (decoding included)", median(r), r.min()!, r.max()!))
    // The issue's target is for the drawing: the same render, the clips' pictures decoded beforehand.
    let ra = zip(ahead, enc).map { $0["seconds"]! / $1["seconds"]! }
    print(String(format: "pipeline, decoded ahead     %7.2f s   CPU %6.2f s   peak %4.0f MB", median(ahead.map { $0["seconds"]! }),
                 median(ahead.map { $0["cpu"]! }), median(ahead.map { $0["peakMB"]! })))
    print(String(format: "  ... / encoder time        %7.3f [%.3f-%.3f]   (target: within 1.20)", median(ra), ra.min()!, ra.max()!))
    print(String(format: "decoding apart              %7.2f s   CPU %6.2f s   %.0f pictures, peak %4.0f MB",
                 median(dec.map { $0["seconds"]! }), median(dec.map { $0["cpu"]! }), dec.last?["pictures"] ?? 0,
                 median(dec.map { $0["peakMB"]! })))
}

// MARK: Recorded journeys: a 2-hour ride followed heading-up, and a thousand tracks at once

/// A seeded generator (SplitMix64), so that the bench's recordings are the same on every run.
struct BenchRandom {
    var state: UInt64
    mutating func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}

/// Writes a GPX 1.1 track of `points` (lat, lon, elevation, seconds after 08:00 UTC on 1 June 2026).
func writeBenchGPX(_ path: String, name: String, points: [(lat: Double, lon: Double, ele: Double, t: Double)]) throws {
    let start = 1_780_300_800.0  // 2026-06-01T08:00:00Z
    let format = ISO8601DateFormatter()
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"maptrip-bench\" "
        + "xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><name>\(name)</name><trkseg>\n"
    for p in points {
        text += String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"><ele>%.1f</ele><time>", p.lat, p.lon, p.ele)
            + format.string(from: Date(timeIntervalSince1970: start + p.t)) + "</time></trkpt>\n"
    }
    text += "</trkseg></trk></gpx>\n"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

/// A ride of `seconds` at one point a second round a loop of central Helsinki (within the embedded
/// Helsinki tiles), its speed changing slowly between 12 and 28 km/h, with a few metres of GPS noise.
func benchRide(seconds: Int, seed: UInt64) -> [(lat: Double, lon: Double, ele: Double, t: Double)] {
    var random = BenchRandom(state: seed)
    let centre = (lat: 60.1699, lon: 24.9384)
    let metresPerDegree = (lat: 111_320.0, lon: 111_320.0 * cos(centre.lat * .pi / 180))
    // A rounded loop of about 5 km: an ellipse 1,000 m by 600 m, wobbling.
    let radius = (x: 1_000.0, y: 600.0)
    var along = 0.0, speed = 5.5
    var points: [(lat: Double, lon: Double, ele: Double, t: Double)] = []
    for t in 0..<seconds {
        speed = min(7.8, max(3.3, speed + (random.next() - 0.5) * 0.4))
        along += speed
        let perimeter = 2 * .pi * sqrt((radius.x * radius.x + radius.y * radius.y) / 2)
        let a = along / perimeter * 2 * .pi
        let wobble = 1 + 0.08 * sin(a * 5)
        let x = radius.x * wobble * cos(a) + (random.next() - 0.5) * 6
        let y = radius.y * wobble * sin(a) + (random.next() - 0.5) * 6
        points.append((centre.lat + y / metresPerDegree.lat, centre.lon + x / metresPerDegree.lon,
                       12 + 10 * sin(a * 2) + random.next(), Double(t)))
    }
    return points
}

/// `--vector`: issue #58's speed lines. Moving frames of Scenes/helsinki.json (base map and
/// overlays, no encoder) drawn from the Helsinki vector tiles as `render` draws them, from the
/// vectors every frame, and from raster tiles of the same map (a pyramid drawn once from the style,
/// so the two show the same view), alternately `runs` times; the vector tiles decoded, counted; then
/// the whole render against the encoder alone, on the vector tiles and on the embedded map with its
/// towns (Scenes/road-trip.json).
func vectorPhase(runs: Int) throws {
    let assets = try assetsURL()
    let scenePath = URL(fileURLWithPath: "Scenes/helsinki.json").standardizedFileURL.path
    let scene = try loadScene(scenePath)
    let sceneDirectory = URL(fileURLWithPath: scenePath).deletingLastPathComponent()
    let projection = try Projection.make(for: scene)
    var moving: [FrameValues] = []
    let timeline = Timeline(scene: scene, projection: projection)
    var last: Camera?
    for n in 0..<timeline.frameCount {
        let v = timeline.values(at: n)
        if v.camera != last { moving.append(v) }
        last = v.camera
    }
    func styled(caches: Bool) throws -> (FrameRenderer, StyledMap) {
        var environment = RenderEnvironment(assets: assets)
        environment.fastPaths.rasterCache = caches
        let map = try BaseMaps.make(for: scene, format: scene.video.format, sceneDirectory: sceneDirectory, environment: environment)
        guard let styledMap = map as? StyledMap else { throw Failure(description: "helsinki.json's map is not a styled vector map") }
        let renderer = try FrameRenderer(scene: scene, baseMap: map, projection: projection)
        try map.prepare(for: moving.map { renderer.viewport($0.camera) })
        map.plan(frames: (0..<timeline.frameCount).map { timeline.values(at: $0).camera }, format: scene.video.format)
        return (renderer, styledMap)
    }
    // Raster tiles of the same style over the walk's area, at the zooms its frames show (a tile of
    // zoom z is shown 1:1 at maptrip zoom z), drawn once and kept in a folder.
    let zooms = moving.map { $0.camera.zoom }
    let lats = scene.places.map(\.position.lat), lons = scene.places.map(\.position.lon)
    let pad = 0.02
    let tilesDir = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-bench-helsinki-raster-\(getpid())")
    defer { try? FileManager.default.removeItem(at: tilesDir) }
    let (_, pyramidMap) = try styled(caches: false)
    let options = TilePyramidOptions(minZoom: Int(zooms.min()!.rounded(.down)), maxZoom: Int(zooms.max()!.rounded(.up)),
                                     bounds: GeoBounds(west: lons.min()! - pad, south: lats.min()! - pad / 2,
                                                       east: lons.max()! + pad, north: lats.max()! + pad / 2),
                                     name: "helsinki raster")
    let t0 = now()
    let written = try TilePyramidWriter(baseMap: pyramidMap, options: options).write(to: .folder(tilesDir))
    print(String(format: "maptrip-bench --vector: raster pyramid of the style, zooms %d-%d, %d tiles in %.1f s", options.minZoom,
                 options.maxZoom, written.tiles, now() - t0))
    var rasterScene = scene
    rasterScene.map = MapSource(tiles: tilesDir.path, attribution: "© OpenStreetMap contributors", maxZoom: options.maxZoom)
    let rasterMap = try BaseMaps.make(for: rasterScene, format: scene.video.format, sceneDirectory: tilesDir,
                                      environment: RenderEnvironment(assets: assets))
    let rasterRenderer = try FrameRenderer(scene: rasterScene, baseMap: rasterMap, projection: projection)
    try rasterMap.prepare(for: moving.map { rasterRenderer.viewport($0.camera) })
    rasterMap.plan(frames: (0..<timeline.frameCount).map { timeline.values(at: $0).camera }, format: scene.video.format)
    let (asRendered, renderedMap) = try styled(caches: true)
    let (fromVectors, _) = try styled(caches: false)
    let kinds: [(String, FrameRenderer)] = [("vector tiles, as render draws them", asRendered),
                                            ("vector tiles, every frame from the vectors", fromVectors),
                                            ("raster tiles of the same map", rasterRenderer)]
    print("maptrip-bench --vector: \(scenePath), \(scene.video.width)x\(scene.video.height), \(moving.count) moving frames "
          + "drawn (base map + overlays, no encoder); \(runs) alternating runs, medians [range]")
    var times = Array(repeating: [Double](), count: kinds.count)
    for _ in 0..<runs {
        for (k, kind) in kinds.enumerated() {
            let t = now()
            for v in moving { try kind.1.render(v) }
            times[k].append((now() - t) * 1000 / Double(moving.count))
        }
    }
    let raster = median(times[2])
    for (k, kind) in kinds.enumerated() {
        print(String(format: "%@ %7.2f ms/frame [%.2f-%.2f]   %.2fx the raster tiles' frame", kind.0.padding(toLength: 44, withPad: " ", startingAt: 0),
                     median(times[k]), times[k].min()!, times[k].max()!, median(times[k]) / raster))
    }
    print(String(format: "target: a vector tile frame at most 1.5x a raster tile frame: %.2fx", median(times[0]) / raster))
    let decoded = renderedMap.vectorTilesDecoded
    print("vector tiles decoded over \(runs) runs of the walk's frames: \(decoded.decodes), \(decoded.distinct) distinct "
          + (decoded.decodes == decoded.distinct ? "(each once)" : "(some decoded again)"))
    print("")
    do {
        let cap = try Capture(scenePath, tag: "vector")
        defer { cap.remove() }
        try encoderRatio(scenePath, capture: cap, runs: runs, label: "a walk in Helsinki, vector tiles", target: 1.10)
    }
    print("")
    let roadTrip = URL(fileURLWithPath: "Scenes/road-trip.json").standardizedFileURL.path
    let cap = try Capture(roadTrip, tag: "towns")
    defer { cap.remove() }
    try encoderRatio(roadTrip, capture: cap, runs: runs, label: "road-trip.json, the embedded map with its towns", target: 1.10)
}

/// `--ride`: issue #59's benchmark line: a 2-hour ride played at 60x (2 minutes of 1080p30) over the
/// Helsinki vector tiles, the camera following it heading-up with live readouts (speed, altitude,
/// distance, elapsed time and the elevation profile), against the encoder alone at
/// veryfast; then a thousand 20-minute tracks played at once, the same way.
func ridePhase(runs: Int, thousand: Bool) throws {
    let folder = NSTemporaryDirectory() + "maptrip-bench-ride-\(getpid())"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let tiles = URL(fileURLWithPath: "Assets/tiles/helsinki.pmtiles").standardizedFileURL.path
    try writeBenchGPX(folder + "/ride.gpx", name: "Ride", points: benchRide(seconds: 7_200, seed: 59))
    let ride: [String: Any] = [
        "title": "A two-hour ride", "video": ["width": 1920, "height": 1080, "fps": 30],
        "map": ["tiles": tiles, "attribution": "© OpenStreetMap contributors"],
        "tracks": [["file": folder + "/ride.gpx", "name": "Rider", "vehicle": "bike"]],
        "playback": ["speed": 60, "clock": "HH:mm"],
        "camera": ["follow": "Rider", "zoom": 15, "headingUp": true, "intro": 3],
        "readouts": ["speed", "altitude", "distance", "elapsed", "profile"],
        "outro": 3,
    ]
    let ridePath = folder + "/ride.json"
    try JSONSerialization.data(withJSONObject: ride).write(to: URL(fileURLWithPath: ridePath))
    do {
        let cap = try Capture(ridePath, tag: "ride")
        defer { cap.remove() }
        print(cap.tilesLine)
        // The map's first render (its drawn tiles kept by none before) and a later one (kept by the one before).
        try keepDrawnTiles(ridePath)
        try encoderRatio(ridePath, capture: cap, runs: runs,
                         label: "a 2-hour ride at 60x, a heading-up chase camera, Helsinki vector tiles", target: 1.10,
                         tiles: [.cold, .warm])
    }
    guard thousand else { return }
    var tracks: [[String: Any]] = []
    for k in 0..<1_000 {
        var random = BenchRandom(state: UInt64(1_000 + k))
        let start = (lat: 60.155 + random.next() * 0.03, lon: 24.90 + random.next() * 0.08)
        var (lat, lon, heading) = (start.lat, start.lon, random.next() * 2 * .pi)
        var points: [(lat: Double, lon: Double, ele: Double, t: Double)] = []
        for i in 0..<240 {
            heading += (random.next() - 0.5) * 0.6
            lat += cos(heading) * 25 / 111_320
            lon += sin(heading) * 25 / (111_320 * cos(lat * .pi / 180))
            points.append((lat, lon, 10, Double(i * 5)))
        }
        let file = folder + "/t\(k).gpx"
        try writeBenchGPX(file, name: "T\(k)", points: points)
        tracks.append(["file": file, "name": "T\(k)"])
    }
    let many: [String: Any] = [
        "title": "A thousand tracks", "video": ["width": 1920, "height": 1080, "fps": 30],
        "map": ["tiles": tiles, "attribution": "© OpenStreetMap contributors"],
        "tracks": tracks, "playback": ["speed": 60, "start": "together"],
    ]
    let manyPath = folder + "/many.json"
    try JSONSerialization.data(withJSONObject: many).write(to: URL(fileURLWithPath: manyPath))
    let cap = try Capture(manyPath, tag: "many")
    defer { cap.remove() }
    print("")
    try encoderRatio(manyPath, capture: cap, runs: runs, label: "1,000 tracks of 20 minutes at 60x together, Helsinki vector tiles",
                     target: nil)
}

/// The render of `scenePath` against the encoder alone on its captured frames at veryfast, `runs`
/// rounds alternated: the seconds, CPU and peak memory of each, and their ratio. `tiles`: the kinds of
/// render timed (see `TileCacheRun`; `warm`, as `maptrip render` renders a map it rendered before),
/// each against the encoder, in time and in CPU.
func encoderRatio(_ scenePath: String, capture cap: Capture, runs: Int, label: String, target: Double?,
                  tiles: [TileCacheRun] = [.warm]) throws {
    let v = try loadScene(scenePath).video
    print("maptrip-bench: \(label): \(v.width)x\(v.height) @ \(v.fps) fps, \(cap.frames) frames (\(cap.drawn) drawn); "
          + "veryfast; \(runs) rounds alternated, medians [range]")
    var enc: [[String: Double]] = []
    var pipes = [[[String: Double]]](repeating: [], count: tiles.count)
    for round in 0..<runs {
        var kinds: [() throws -> Void] = [
            { enc.append(try child(["encoder", cap.framesPath, cap.flagsPath, "\(v.width)", "\(v.height)", "\(v.fps)", "veryfast"])) },
        ]
        for (i, run) in tiles.enumerated() {
            kinds.append { pipes[i].append(try child(["pipeline", scenePath, "veryfast", "--tiles", run.rawValue])) }
        }
        for k in 0..<kinds.count { try kinds[(round + k) % kinds.count]() }
    }
    let frames = Double(cap.frames)
    func line(_ name: String, _ xs: [[String: Double]]) {
        print(String(format: "%@ %7.2f s  %6.1f fps   CPU %6.2f s   peak %4.0f MB", name.padding(toLength: 15, withPad: " ", startingAt: 0),
                     median(xs.map { $0["seconds"]! }), frames / median(xs.map { $0["seconds"]! }), median(xs.map { $0["cpu"]! }),
                     median(xs.map { $0["peakMB"]! })))
    }
    line("encoder alone", enc)
    for (run, pipe) in zip(tiles, pipes) { line(tiles == [.warm] ? "pipeline" : "pipeline, \(run.rawValue)", pipe) }
    for (run, pipe) in zip(tiles, pipes) {
        let r = zip(pipe, enc).map { $0["seconds"]! / $1["seconds"]! }
        let c = zip(pipe, enc).map { $0["cpu"]! / $1["cpu"]! }
        print(String(format: "pipeline%@ / encoder time %7.3f [%.3f-%.3f], CPU %.3f", tiles == [.warm] ? "" : " (\(run.rawValue))",
                     median(r), r.min()!, r.max()!, median(c))
              + (target.map { String(format: "   (target: within %.2f)", $0) } ?? ""))
    }
}

/// What `--help` prints: the phases and their options. Anything else starting with `--` is refused.
let usage = """
    usage: maptrip-bench [phase] [options]        (run it from the checkout: it reads Scenes/ and Assets/)

      (no phase)     pipeline against the encoder alone at each preset, memory, then the codecs
        --presets ultrafast,veryfast,medium   --runs 3   --quick (veryfast; codecs on 3 places)
        --no-codecs    every phase but the codecs
      --json         every speed figure as one JSON object (per preset, 4K veryfast, SSIM, memory)
        --presets ...  --runs 3  --no-4k
      --codecs [h264,hevc,vp9,av1,prores,gif,png]   the codecs phase only  --runs N  --quick
      --profile      where drawing a moving frame's time goes, layer by layer
      --quality      the raster cache's frames against the vectors' (SSIM)  --scale 2
                     (MAPTRIP_BENCH_DUMP=DIR: the worst I420 pair so far, planar.yuv and reference.yuv)
      --projections  a moving frame on the globe, in Robinson, on reprojected tiles  --runs N
      --stretches    where the pipeline loses time to the encoder, 30 frames at a time  --presets  --runs 4
      --paged-out    the map's tiles kept, in memory and paged out, against the encoder  --presets ultrafast  --runs 8
      --batch        clips per hour for each mix of jobs and x264 threads  --runs N  --scenes 40
      --designer     a preview against a full render; gazetteer lookups  --runs 3
      --cinematics   the cinematic features' cost against a plain render  --runs 3
      --sound        a trip with voices and music against the same trip silent  --runs 3
                     (--scene defaults to Scenes/voices.json here)
      --clips        a 1080p clip in the cards and a presenter against the encoder alone; decoding apart  --runs 3
      --ride         a 2-hour ride at 60x followed heading-up against the encoder alone  --runs 3
      --turned       the turned plane kernel alone: ns per sample for each kernel this CPU has  --runs 3
      --vector       Helsinki vector tiles: a frame against raster tiles of it, tiles decoded, render vs encoder  --runs 3
                     --thousand: then 1,000 tracks at once
      --scene FILE   the scene (default Scenes/world.json)
      --help         this text
    """

/// The options `main` reads (with whether each takes a value).
let knownOptions: [String: Bool] = [
    "--scene": true, "--presets": true, "--runs": true, "--scale": true, "--scenes": true, "--codecs": false,
    "--quick": false, "--json": false, "--no-4k": false, "--no-codecs": false, "--profile": false,
    "--quality": false, "--projections": false, "--stretches": false, "--paged-out": false, "--batch": false,
    "--designer": false, "--cinematics": false, "--sound": false, "--clips": false, "--vector": false, "--turned": false, "--ride": false, "--thousand": false, "--help": false, "-h": false,
]

func main() throws {
    let args = Array(CommandLine.arguments.dropFirst())
    LibraryLogging.configure(verbose: false)
    if args.first == "child" {
        var a = Array(args.dropFirst())
        // --times FILE (encoder, pipeline): when each frame was handed to the encoder, for --stretches.
        var clock: FrameClock?
        if let i = a.firstIndex(of: "--times"), i + 1 < a.count {
            clock = FrameClock(path: a[i + 1])
            a.removeSubrange(i...(i + 1))
        }
        // --tiles none|warm|cold|paged (pipeline): with the drawn tile cache or not (see TileCacheRun).
        var tileCache = TileCacheRun.none
        if let i = a.firstIndex(of: "--tiles"), i + 1 < a.count {
            guard let kind = TileCacheRun(rawValue: a[i + 1]) else { throw Failure(description: "--tiles none, warm, cold or paged") }
            tileCache = kind
            a.removeSubrange(i...(i + 1))
        }
        // --clips-ahead (pipeline): the clips' pictures decoded before the drawing, their cost left out.
        let clipsAhead = a.contains("--clips-ahead")
        a.removeAll { $0 == "--clips-ahead" }
        switch a.first {
        case "capture": try capture(a[1], a[2], a[3])
        // An optional last argument: x264's thread count (default: the codec's choice).
        case "encoder": try encodeOnly(a[1], a[2], Int(a[3])!, Int(a[4])!, Int(a[5])!, a[6], threads: a.count > 7 ? Int(a[7]) : nil,
                                       clock: clock)
        case "pipeline": try pipeline(a[1], a[2], threads: a.count > 3 ? Int(a[3]) : nil, clock: clock, tileCache: tileCache,
                                      clipsAhead: clipsAhead)
        case "codec": try codecRender(a[1], a[2])
        case "av1": try encodeAV1(a[1], a[2], a[3], Int(a[4])!, Int(a[5])!, Int(a[6])!)
        case "preview": try previewOnce(a[1], Double(a[2])!)
        case "places": try placesOnce()
        case "batch": try batchOnce(a[1], Int(a[2])!, Int(a[3])!)
        case "clipdecode": try clipDecode(a[1])
        default: throw Failure(description: "unknown child mode")
        }
        return
    }
    if args.contains("--help") || args.contains("-h") {
        print(usage)
        return
    }
    var i = 0
    while i < args.count {
        guard let takesValue = knownOptions[args[i]] else {
            throw Failure(description: "unknown option \(args[i]); see maptrip-bench --help")
        }
        // --codecs takes a list only when one follows.
        i += takesValue || (args[i] == "--codecs" && i + 1 < args.count && !args[i + 1].hasPrefix("-")) ? 2 : 1
    }
    // Absolute: a scene's relative paths (tiles, photos) are resolved against its folder.
    let scenePath = URL(fileURLWithPath: option("--scene", in: args) ?? "Scenes/world.json").standardizedFileURL.path
    defer { try? FileManager.default.removeItem(atPath: childCacheHome) }
    if args.contains("--quality") {
        _ = try rasterQuality(scenePath, scale: option("--scale", in: args).flatMap { Double($0) } ?? 1, print: true)
        return
    }
    if args.contains("--profile") {
        try profile(scenePath)
        return
    }
    if args.contains("--batch") {
        try batchPhase(runs: option("--runs", in: args).flatMap { Int($0) } ?? 1,
                       scenes: option("--scenes", in: args).flatMap { Int($0) } ?? 40)
        return
    }
    if args.contains("--clips") {
        try clipsPhase(runs: option("--runs", in: args).flatMap { Int($0) }.map { max(1, $0) } ?? 3)
        return
    }
    if args.contains("--vector") {
        try vectorPhase(runs: option("--runs", in: args).flatMap { Int($0) }.map { max(1, $0) } ?? 3)
        return
    }
    if args.contains("--turned") {
        try turnedKernelPhase(runs: option("--runs", in: args).flatMap { Int($0) }.map { max(1, $0) } ?? 3)
        return
    }
    if args.contains("--ride") {
        try ridePhase(runs: option("--runs", in: args).flatMap { Int($0) }.map { max(1, $0) } ?? 3, thousand: args.contains("--thousand"))
        return
    }
    if args.contains("--cinematics") {
        try cinematicsPhase(scenePath: scenePath, runs: option("--runs", in: args).flatMap { Int($0) } ?? 3)
        return
    }
    if args.contains("--projections") {
        try projectionsPhase(scenePath: scenePath, runs: option("--runs", in: args).flatMap { Int($0) } ?? 3)
        return
    }
    if args.contains("--stretches") {
        try stretchesPhase(scenePath: scenePath,
                           presets: (option("--presets", in: args) ?? "ultrafast").split(separator: ",").map(String.init),
                           runs: option("--runs", in: args).flatMap { Int($0) }.map { max(1, $0) } ?? 4)
        return
    }
    if args.contains("--paged-out") {
        try pagedOutPhase(scenePath: scenePath, preset: option("--presets", in: args) ?? "ultrafast",
                          runs: option("--runs", in: args).flatMap { Int($0) }.map { max(1, $0) } ?? 8)
        return
    }
    if args.contains("--sound") {
        let scene = option("--scene", in: args).map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            ?? URL(fileURLWithPath: "Scenes/voices.json").standardizedFileURL.path
        try soundPhase(scenePath: scene, runs: option("--runs", in: args).flatMap { Int($0) } ?? 3)
        return
    }
    if args.contains("--designer") {
        try designerPhase(scenePath: scenePath, runs: option("--runs", in: args).flatMap { Int($0) } ?? 3)
        return
    }
    let quick = args.contains("--quick")
    let runsOption = option("--runs", in: args).flatMap { Int($0) }.map { max(1, $0) }
    // --codecs alone, or --codecs h264,av1: only the codecs phase (those outputs).
    let codecsOnly = args.contains("--codecs")
    var codecKeys = codecOutputs.map(\.key)
    if let list = option("--codecs", in: args), !list.hasPrefix("--") {
        codecKeys = list.split(separator: ",").map(String.init)
        if codecKeys.isEmpty { throw Failure(description: "--codecs: name at least one codec") }
        if let bad = codecKeys.first(where: { k in !codecOutputs.contains { $0.key == k } }) {
            throw Failure(description: "unknown codec \(bad); use \(codecOutputs.map(\.key).joined(separator: ","))")
        }
    }
    let withCodecs = codecsOnly || !args.contains("--no-codecs")
    // --quick: the codecs on the first three places (London, Moscow, Cairo), one run each.
    let codecScene = quick ? try shorterScene(scenePath, places: 3) : scenePath
    defer { if quick { try? FileManager.default.removeItem(atPath: codecScene) } }
    let codecLabel = quick ? "\(scenePath), its first 3 places (--quick)" : scenePath
    let codecRuns = runsOption ?? (quick ? 1 : 3)

    if codecsOnly {
        let v = try loadScene(scenePath).video
        print("maptrip-bench: \(scenePath), \(v.width)x\(v.height) @ \(v.fps) fps; machine: "
              + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
        try codecsPhase(scenePath: codecScene, label: codecLabel, keys: codecKeys, runs: codecRuns, capture: nil)
        return
    }

    let presets = (option("--presets", in: args) ?? (quick ? "veryfast" : "ultrafast,veryfast,medium"))
        .split(separator: ",").map(String.init)
    let runs = runsOption ?? 3
    if args.contains("--json") {
        try jsonReport(scenePath: scenePath, presets: presets, runs: runs, with4K: !args.contains("--no-4k"))
        return
    }
    let cap = try Capture(scenePath, tag: "presets")
    defer { cap.remove() }
    _ = try presetsPhase(scenePath: scenePath, capture: cap, presets: presets, runs: runs, show: true)
    if !quick {
        let flat = try memoryFlatness(scenePath)
        print("")
        print(String(format: "memory vs trip length (veryfast): %.0f frames -> peak %.0f MB; %.0f frames -> peak %.0f MB",
                     flat["frames"]!, flat["peakMB"]!, flat["framesLong"]!, flat["peakMBLong"]!))
    }
    if withCodecs {
        print("")
        try codecsPhase(scenePath: codecScene, label: codecLabel, keys: codecKeys, runs: codecRuns,
                        capture: quick ? nil : cap)
    }
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("maptrip-bench: \(error)\n".utf8))
    exit(1)
}
