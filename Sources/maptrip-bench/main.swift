// maptrip-bench: how fast the whole pipeline records a trip, compared with the encoder alone on
// the same frames, and how much memory the pipeline adds. Prints figures; asserts nothing.
//
//   maptrip-bench [--scene Scenes/world.json] [--presets ultrafast,veryfast,medium] [--runs 3] [--quick]
//   maptrip-bench --profile [--scene ...]     where drawing time goes
//
// Each phase runs in its own process so that its peak memory (ru_maxrss) is its own:
//   capture   renders the trip once and saves every distinct picture as I420, with the repeats;
//   encoder   encodes exactly those pictures (reading them back; no drawing, no conversion);
//   pipeline  the real thing: scene -> timeline -> renderer -> libyuv -> encoder -> MP4.
// The ratio pipeline/encoder shows what drawing and converting cost on top of the encoder.

import FFmpeg
import Foundation
import MapTripCore
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

/// Peak resident memory of this process in MB (Linux reports ru_maxrss in KiB).
func peakMB() -> Double {
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
                           v: &v, vStride: width / 2, width: width, height: height)
        handle.write(Data(y))
        handle.write(Data(u))
        handle.write(Data(v))
        flags.append(1)
    }

    func repeatLast() throws { flags.append(0) }
}

func loadScene(_ path: String) throws -> Scene {
    try SceneLoader.load(contentsOf: URL(fileURLWithPath: path))
}

/// child: capture SCENE FRAMES FLAGS
func capture(_ scenePath: String, _ framesPath: String, _ flagsPath: String) throws {
    let scene = try loadScene(scenePath)
    let recorder = try Recorder(scene: scene, baseMap: try ShapefileBaseMap(assets: try assetsURL()))
    let sink = try CaptureSink(path: framesPath, width: scene.video.width, height: scene.video.height)
    _ = try recorder.record(to: sink)
    try Data(sink.flags).write(to: URL(fileURLWithPath: flagsPath))
    print("{\"frames\":\(sink.flags.count),\"drawn\":\(sink.flags.filter { $0 == 1 }.count)}")
}

/// child: encoder FRAMES FLAGS WIDTH HEIGHT FPS PRESET
func encodeOnly(_ framesPath: String, _ flagsPath: String, _ width: Int, _ height: Int, _ fps: Int,
                _ preset: String) throws {
    let flags = [UInt8](try Data(contentsOf: URL(fileURLWithPath: flagsPath)))
    guard let input = FileHandle(forReadingAtPath: framesPath) else { throw Failure(description: "no \(framesPath)") }
    let out = NSTemporaryDirectory() + "maptrip-bench-encoder-\(getpid()).mp4"
    defer { try? FileManager.default.removeItem(atPath: out) }
    let (settings, _) = try CodecProfile.profile(for: .h264).settings(
        options: EncodingOptions(preset: preset), width: width, height: height, fps: fps, transparent: false)
    let frame = try Frame(width: width, height: height, pixelFormat: .yuv420p)
    frame.colorTags = .bt601Limited
    let start = now()
    let writer = try VideoWriter(path: out, format: "mp4", settings: settings)
    let planes = [(0, width, height), (1, width / 2, height / 2), (2, width / 2, height / 2)]
    for (n, flag) in flags.enumerated() {
        if flag == 1 {
            try frame.makeWritable()
            for (plane, w, h) in planes {
                let data = input.readData(ofLength: w * h)
                guard data.count == w * h, let dst = frame.data(plane: plane) else {
                    throw Failure(description: "short read of \(framesPath)")
                }
                let stride = frame.linesize(plane: plane)
                data.withUnsafeBytes { src in
                    for row in 0..<h {
                        (dst + row * stride).update(from: src.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * w,
                                                    count: w)
                    }
                }
            }
        }
        try writer.send(frame: frame, pts: Int64(n))
    }
    try writer.finish()
    let seconds = now() - start
    print("{\"seconds\":\(seconds),\"frames\":\(flags.count),\"peakMB\":\(peakMB())}")
}

/// child: pipeline SCENE PRESET
func pipeline(_ scenePath: String, _ preset: String) throws {
    let out = NSTemporaryDirectory() + "maptrip-bench-pipeline-\(getpid()).mp4"
    defer { try? FileManager.default.removeItem(atPath: out) }
    let start = now()
    let job = RenderJob(scene: URL(fileURLWithPath: scenePath), output: URL(fileURLWithPath: out),
                        options: EncodingOptions(preset: preset),
                        environment: RenderEnvironment(assets: try assetsURL()))
    let summary = try job.run()
    let seconds = now() - start
    print("{\"seconds\":\(seconds),\"frames\":\(summary.frames),\"drawn\":\(summary.drawnFrames),\"peakMB\":\(peakMB())}")
}

/// Where drawing time goes: each base-map layer alone, the overlays, and the colour conversion,
/// in milliseconds per drawn frame over the trip's moving frames.
func profile(_ scenePath: String) throws {
    let scene = try loadScene(scenePath)
    let timeline = Timeline(scene: scene)
    let assets = try assetsURL()
    var states: [FrameState] = []
    var last: FrameState?
    for n in 0..<timeline.frameCount {
        let s = timeline.state(at: n)
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
    let t0 = now()
    for _ in 0..<100 {
        try YUV.argbToI420(src: r.surface.data, srcStride: r.surface.stride, y: &y, yStride: w, u: &u, uStride: w / 2,
                           v: &v, vStride: w / 2, width: w, height: h)
    }
    print(String(format: "  %@ %7.2f ms/frame", "BGRA -> I420 (libyuv)".padding(toLength: 46, withPad: " ", startingAt: 0),
                 (now() - t0) * 10))
}

/// Runs this program again in a child mode and returns the JSON object it printed last.
func child(_ args: [String]) throws -> [String: Double] {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).absoluteURL
    p.arguments = ["child"] + args
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
    var obj = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    let places = obj["places"] as! [Any]
    obj["places"] = Array(repeating: places, count: times).flatMap { $0 }
    let out = NSTemporaryDirectory() + "maptrip-bench-x\(times)-\(getpid()).json"
    try JSONSerialization.data(withJSONObject: obj).write(to: URL(fileURLWithPath: out))
    return out
}

func main() throws {
    let args = Array(CommandLine.arguments.dropFirst())
    LibraryLogging.configure(verbose: false)
    if args.first == "child" {
        let a = Array(args.dropFirst())
        switch a.first {
        case "capture": try capture(a[1], a[2], a[3])
        case "encoder": try encodeOnly(a[1], a[2], Int(a[3])!, Int(a[4])!, Int(a[5])!, a[6])
        case "pipeline": try pipeline(a[1], a[2])
        default: throw Failure(description: "unknown child mode")
        }
        return
    }
    let scenePath = option("--scene", in: args) ?? "Scenes/world.json"
    if args.contains("--profile") {
        try profile(scenePath)
        return
    }
    let quick = args.contains("--quick")
    let presets = (option("--presets", in: args) ?? (quick ? "veryfast" : "ultrafast,veryfast,medium"))
        .split(separator: ",").map(String.init)
    let scene = try loadScene(scenePath)
    let v = scene.video
    let tmp = NSTemporaryDirectory() + "maptrip-bench-\(getpid())"
    let framesPath = tmp + ".i420", flagsPath = tmp + ".flags"
    defer {
        try? FileManager.default.removeItem(atPath: framesPath)
        try? FileManager.default.removeItem(atPath: flagsPath)
    }
    let cap = try child(["capture", scenePath, framesPath, flagsPath])
    let frames = Int(cap["frames"] ?? 0), drawn = Int(cap["drawn"] ?? 0)
    let duration = Double(frames) / Double(v.fps)
    print("maptrip-bench: \(scenePath), \(v.width)x\(v.height) @ \(v.fps) fps, \(frames) frames "
          + "(\(String(format: "%.1f", duration)) s), \(drawn) drawn, \(frames - drawn) repeated still frames")
    let runs = max(1, Int(option("--runs", in: args) ?? "3") ?? 3)
    print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; each phase runs \(runs) times, alternating; "
          + "figures are medians, the ratio's range in brackets")
    print("")
    print("preset      pipeline fps  real-time  encoder-alone fps  pipeline/encoder time        peak MB pipeline  encoder  beyond encoder")
    func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
    for preset in presets {
        var enc: [[String: Double]] = [], pipe: [[String: Double]] = []
        for _ in 0..<runs {
            enc.append(try child(["encoder", framesPath, flagsPath, "\(v.width)", "\(v.height)", "\(v.fps)", preset]))
            pipe.append(try child(["pipeline", scenePath, preset]))
        }
        let es = median(enc.map { $0["seconds"]! }), ps = median(pipe.map { $0["seconds"]! })
        let ratios = zip(pipe, enc).map { $0["seconds"]! / $1["seconds"]! }
        let pm = median(pipe.map { $0["peakMB"]! }), em = median(enc.map { $0["peakMB"]! })
        print(String(format: "%@  %12.1f  %8.1fx  %17.1f  %8.3f [%.3f-%.3f]  %16.0f  %7.0f  %14.0f",
                     preset.padding(toLength: 10, withPad: " ", startingAt: 0), Double(frames) / ps, duration / ps,
                     Double(frames) / es, ps / es, ratios.min()!, ratios.max()!, pm, em, pm - em))
    }
    if !quick {
        // Memory must stay flat as trips grow: the same trip three times over.
        let long = try longerScene(scenePath, times: 3)
        defer { try? FileManager.default.removeItem(atPath: long) }
        let one = try child(["pipeline", scenePath, "veryfast"])
        let three = try child(["pipeline", long, "veryfast"])
        print("")
        print(String(format: "memory vs trip length (veryfast): %.0f frames -> peak %.0f MB; %.0f frames -> peak %.0f MB",
                     one["frames"]!, one["peakMB"]!, three["frames"]!, three["peakMB"]!))
    }
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("maptrip-bench: \(error)\n".utf8))
    exit(1)
}
