import Cairo
import FFmpeg
import Foundation
import MapTripScene
import MapTripRender
import Testing
import TestSupport

// Helpers shared by RecorderTests and CLITests. Everything is namespaced under `Trip` so it keeps
// clear of the other tests in this target.

/// A scene written as a scene file would be: JSON text, and the `Scene` SceneLoader makes of it.
struct TripScene {
    struct Stop {
        var name: String
        var lat: Double
        var lon: Double
        var zoom: Double = 7
        var dwell: Double
    }

    var title: String?
    var width = 320
    var height = 180
    var fps = 24
    /// The scene's flight (nil: the default, automatic).
    var flight: Double?
    /// The scene's `opening` (nil: the default, on).
    var opening: Bool?
    var stops: [Stop]

    /// Seoul, Busan, Jeju at zoom 7, dwells 1 / 1.5 / 1 s, 0.5 s flights: 3.5 s, and the camera
    /// rests on every place (a flight of 1.5 s would take the whole of the last two slots), from the
    /// first frame (no opening: the recorder's tests count its still frames).
    static let korea = TripScene(flight: 0.5, opening: false, stops: [
        Stop(name: "Seoul", lat: 37.5665, lon: 126.978, dwell: 1),
        Stop(name: "Busan", lat: 35.1796, lon: 129.0756, dwell: 1.5),
        Stop(name: "Jeju", lat: 33.4996, lon: 126.5312, dwell: 1),
    ])

    var json: String {
        var lines = ["{"]
        if let title { lines.append("  \"title\": \(Trip.quoted(title)),") }
        if let flight { lines.append("  \"flight\": \(flight),") }
        if let opening { lines.append("  \"opening\": \(opening),") }
        lines.append("  \"video\": {\"width\": \(width), \"height\": \(height), \"fps\": \(fps)},")
        lines.append("  \"places\": [")
        for (i, s) in stops.enumerated() {
            let comma = i == stops.count - 1 ? "" : ","
            lines.append("    {\"name\": \(Trip.quoted(s.name)), \"lat\": \(s.lat), \"lon\": \(s.lon), "
                         + "\"zoom\": \(s.zoom), \"dwell\": \(s.dwell)}\(comma)")
        }
        lines.append("  ]")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The scene exactly as a render of the file sees it.
    func scene() throws -> Scene {
        try SceneLoader.decode(Data(json.utf8), file: "scene.json")
    }

    /// Writes the scene file into `directory`.
    @discardableResult
    func write(to directory: URL, name: String = "scene.json") throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(json.utf8).write(to: url)
        return url
    }
}

enum Trip {
    /// The repository's Assets folder, found from this file.
    static let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Assets").standardizedFileURL

    /// Tolerance, per 8-bit channel, for a flat area after H.264 (4:2:0, CRF 20) and back.
    static let videoTolerance = 12

    static func quoted(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "\""
    }

    /// A fresh folder under the system's temporary directory; remove it with `FileManager`.
    static func makeDirectory(_ label: String) throws -> URL { try TemporaryFolder.make(label) }

    /// A fresh folder for the body, removed afterwards.
    static func withDirectory<T>(_ label: String, _ body: (URL) throws -> T) throws -> T {
        try TemporaryFolder.with(label, body)
    }

    /// File names in a folder, sorted.
    static func contents(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    /// MediaOutput's temporary files (`.<name>.maptrip-<pid>-<random>.tmp`) left in a folder.
    static func temporaryFiles(_ directory: URL) -> [String] {
        contents(directory).filter { $0.hasPrefix(".") && $0.contains(".maptrip-") }
    }

    /// Some bytes that are certainly not a video, to stand for an earlier render.
    static let previousOutput = Data("an earlier render, to be left alone\n".utf8) + Data((0..<4096).map { UInt8($0 % 251) })

    // MARK: Decoding

    struct Decoded {
        var info: VideoStreamInfo
        var frames: [BGRAImage]
    }

    /// Every frame of a video file, as BGRA.
    static func decode(_ url: URL) throws -> Decoded {
        let reader = try VideoReader(path: url.path)
        var frames: [BGRAImage] = []
        while let image = try reader.nextImage() { frames.append(image) }
        return Decoded(info: reader.info, frames: frames)
    }

    /// Writes an image to $MAPTRIP_TEST_DUMP/name.png when that is set, to look at by eye.
    static func dump(_ image: BGRAImage, _ name: String) {
        guard let dir = ProcessInfo.processInfo.environment["MAPTRIP_TEST_DUMP"] else { return }
        _ = try? image.pixels.withUnsafeBytes { bytes in
            try ImageSurface(width: image.width, height: image.height, bgra: bytes, stride: image.stride)
                .writePNG(to: dir + "/" + name + ".png")
        }
    }

    // MARK: Pixels

    static func rgb(_ c: Color) -> (r: Int, g: Int, b: Int) {
        (Int(c.red * 255 + 0.5), Int(c.green * 255 + 0.5), Int(c.blue * 255 + 0.5))
    }

    /// True when the pixel is within `tolerance` per channel of an opaque colour.
    static func looks(_ image: BGRAImage, _ p: (x: Double, y: Double), like c: Color,
                      tolerance: Int = videoTolerance) -> Bool {
        let px = image.pixel(x: Int(p.x), y: Int(p.y))
        let want = rgb(c)
        return abs(Int(px.r) - want.r) <= tolerance && abs(Int(px.g) - want.g) <= tolerance
            && abs(Int(px.b) - want.b) <= tolerance
    }

    static func describe(_ image: BGRAImage, _ p: (x: Double, y: Double)) -> String {
        let px = image.pixel(x: Int(p.x), y: Int(p.y))
        return "pixel (\(Int(p.x)), \(Int(p.y))) is r\(px.r) g\(px.g) b\(px.b)"
    }

    /// Pin-red pixels in a box around (x, y), clipped to the image: red well above green and blue
    /// (r > 120, r - g > 60, r - b > 40). A 480x270 frame's pin is a dozen pixels, its crimson
    /// darkened by 4:2:0 chroma and the codec (r 130-190, g 50-100): land (r - g of 3) and sea (green
    /// above red) never count.
    static func redPixels(_ image: BGRAImage, x: ClosedRange<Int>, y: ClosedRange<Int>) -> Int {
        var count = 0
        for py in max(0, y.lowerBound)...min(image.height - 1, y.upperBound) {
            for px in max(0, x.lowerBound)...min(image.width - 1, x.upperBound) {
                let p = image.pixel(x: px, y: py)
                let r = Int(p.r), g = Int(p.g), b = Int(p.b)
                if r > 120 && r - g > 60 && r - b > 40 { count += 1 }
            }
        }
        return count
    }

    /// Where the body of a pin with its tip at `tip` is (the current place's pin at scale 1 is 44 px
    /// tall, its round head centred about 30 px above the tip).
    /// `unit`: the frame's layout unit (its shorter side / 1080): pins are sized in it.
    static func pinBody(above tip: (x: Double, y: Double), unit: Double = 1) -> (x: ClosedRange<Int>, y: ClosedRange<Int>) {
        let x = Int(tip.x.rounded()), y = Int(tip.y.rounded())
        func u(_ v: Double) -> Int { Int((v * unit).rounded()) }
        return ((x - u(18))...(x + u(18)), (y - u(50))...(y - u(8)))
    }

    /// Mean absolute difference per channel (B, G, R) between a decoded frame and a Cairo surface.
    static func meanDifference(_ image: BGRAImage, _ surface: ImageSurface) -> Double {
        precondition(image.width == surface.width && image.height == surface.height)
        var total = 0
        let data = surface.data, stride = surface.stride
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                let q = data + y * stride + x * 4
                total += abs(Int(p.b) - Int(q[0])) + abs(Int(p.g) - Int(q[1])) + abs(Int(p.r) - Int(q[2]))
            }
        }
        return Double(total) / Double(image.width * image.height * 3)
    }

    /// `cost` of each pixel's differences in blue, green and red between two decoded frames of the
    /// same size, summed over the frame.
    static func sum(_ a: BGRAImage, _ b: BGRAImage, _ cost: (_ db: Int, _ dg: Int, _ dr: Int) -> Int) -> Int {
        precondition(a.width == b.width && a.height == b.height)
        var total = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                total += cost(Int(p.b) - Int(q.b), Int(p.g) - Int(q.g), Int(p.r) - Int(q.r))
            }
        }
        return total
    }

    /// Mean absolute difference per channel between two decoded frames of the same size.
    static func meanDifference(_ a: BGRAImage, _ b: BGRAImage) -> Double {
        Double(sum(a, b) { abs($0) + abs($1) + abs($2) }) / Double(a.width * a.height * 3)
    }

    // MARK: The maptrip executable

    /// The built `maptrip` beside the test bundle (the products folder), else under `.build` above
    /// this file.
    static func executable() throws -> URL {
        var candidates: [URL] = []
        let bundle = Bundle.main.bundleURL
        candidates.append(bundle.appendingPathComponent("maptrip"))
        candidates.append(bundle.deletingLastPathComponent().appendingPathComponent("maptrip"))
        if let argv0 = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: argv0).deletingLastPathComponent().appendingPathComponent("maptrip"))
        }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(dir.appendingPathComponent(".build/debug/maptrip"))
            dir = dir.deletingLastPathComponent()
        }
        for c in candidates {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: c.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: c.path) {
                return c.standardizedFileURL
            }
        }
        throw ExecutableNotFound(searched: candidates.map(\.path))
    }

    struct ExecutableNotFound: Error, CustomStringConvertible {
        var searched: [String]
        var description: String {
            "cannot find the built maptrip executable (run `swift build --build-tests` first); looked in "
                + searched.joined(separator: ", ")
        }
    }
}

/// A finished `maptrip` run.
struct CLIResult: CustomStringConvertible {
    var status: Int32
    var reason: Process.TerminationReason
    var stdout: String
    var stderr: String
    /// Standard output as bytes (a video written to `-`).
    var stdoutData = Data()

    /// Lines of stderr, without the final newline.
    var stderrLines: [Substring] {
        stderr.hasSuffix("\n") ? stderr.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
            : stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
    }

    var description: String {
        "exit \(status) (\(reason == .exit ? "exit" : "signal")), stdout: \(stdout.debugDescription), "
            + "stderr: \(stderr.debugDescription)"
    }
}

/// A `maptrip` process, its output going to files (no pipe to fill up and block it).
final class CLIProcess {
    let process = Process()
    private let outURL: URL
    private let errURL: URL
    private let scratch: URL

    /// `stderr`: where the process's standard error goes instead of a file (then `CLIResult.stderr`
    /// is empty).
    /// `prefix`: a command that runs maptrip (`setpriv ...`): maptrip's path follows it, then `arguments`.
    init(_ arguments: [String], in directory: URL, stderr: FileHandle? = nil, prefix: [String] = []) throws {
        scratch = try Trip.makeDirectory("cli-output")
        outURL = scratch.appendingPathComponent("stdout")
        errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        if let command = prefix.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = Array(prefix.dropFirst()) + [try Trip.executable().path] + arguments
        } else {
            process.executableURL = try Trip.executable()
            process.arguments = arguments
        }
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try stderr ?? FileHandle(forWritingTo: errURL)
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: scratch)
    }

    func start() throws { try process.run() }

    func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

    /// Waits for the process to end (killing it after `timeout` seconds) and collects its output.
    func wait(timeout: Double = 120) throws -> CLIResult {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            Issue.record("maptrip \(process.arguments ?? []) did not finish within \(timeout) s; killed")
        }
        process.waitUntilExit()
        return CLIResult(status: process.terminationStatus, reason: process.terminationReason,
                         stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                         stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "",
                         stdoutData: (try? Data(contentsOf: outURL)) ?? Data())
    }

    /// Runs `maptrip arguments` in `directory` to the end.
    static func run(_ arguments: [String], in directory: URL, timeout: Double = 120, prefix: [String] = []) throws -> CLIResult {
        let p = try CLIProcess(arguments, in: directory, prefix: prefix)
        try p.start()
        return try p.wait(timeout: timeout)
    }
}

/// A pseudo-terminal, to give a process a standard error that is a terminal: the process writes to
/// the terminal end (`terminal`), everything it writes is collected from the other end.
final class PseudoTerminal: @unchecked Sendable {
    let terminal: FileHandle
    private let controller: Int32
    private let lock = NSLock()
    private var collected = Data()
    private let finished = DispatchSemaphore(value: 0)

    struct Failure: Error, CustomStringConvertible {
        var operation: String
        var code: Int32
        var description: String { "\(operation): \(String(cString: strerror(code)))" }
    }

    init() throws {
        controller = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard controller >= 0 else { throw Failure(operation: "open /dev/ptmx", code: errno) }
        // Linux's TIOCSPTLCK (unlock) and TIOCGPTN (terminal number); Swift cannot import the macros.
        var unlock: Int32 = 0, number: UInt32 = 0
        guard ioctl(controller, UInt(0x4004_5431), &unlock) == 0, ioctl(controller, UInt(0x8004_5430), &number) == 0
        else {
            let code = errno
            close(controller)
            throw Failure(operation: "unlock the pseudo-terminal", code: code)
        }
        // Close-on-exec: only the process it is handed to (as fd 2, by dup2) keeps it open.
        let fd = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            close(controller)
            throw Failure(operation: "open /dev/pts/\(number)", code: code)
        }
        terminal = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(controller, &buffer, buffer.count)
                if n <= 0 { break }  // EIO once every terminal end is closed
                lock.withLock { collected.append(contentsOf: buffer[0..<n]) }
            }
            finished.signal()
        }
        thread.start()
    }

    /// Call once the process has started: its copy is the only one left open.
    func closeTerminal() { try? terminal.close() }

    /// What has been written so far, while the process still runs.
    func outputSoFar() -> String {
        lock.withLock { String(decoding: collected, as: UTF8.self) }
    }

    /// Everything written, once the process (the last holder of the terminal end) has exited.
    func output(timeout: Double = 10) -> String {
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            Issue.record("the pseudo-terminal did not close within \(timeout) s")
        }
        return lock.withLock { String(decoding: collected, as: UTF8.self) }
    }

    deinit { close(controller) }
}
