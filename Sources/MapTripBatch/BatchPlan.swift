import FFmpeg
import Foundation
import MapTripScene
import MapTripOutput
import MapTripRecord
import MapTripSupport

/// One scene of a batch and where its clip and poster go.
public struct BatchItem: Sendable, Equatable {
    /// The scene file.
    public var scene: URL
    /// The scene's path as the batch shows it (relative to the scenes folder or manifest, or as given).
    public var name: String
    /// The clip, `clips/<name without .json>.<ext>`.
    public var output: URL
    /// The poster, `clips/<name without .json>.jpg`.
    public var poster: URL
}

/// Render options a batch applies to every scene (a manifest's `defaults`, overridden by the command line).
public struct BatchOptions: Sendable, Equatable {
    /// Scenes side by side when not told: measured by `maptrip-bench --batch` (README): on 2 cores,
    /// 4 jobs with one encoder thread each made the most clips per hour (+38% over one job with
    /// x264's own threading; 2 jobs +25%), for about 80 MB more per job.
    public static func defaultJobs(cores: Int) -> Int { max(1, 2 * cores) }
    /// Encoder threads per job when several run side by side (the jobs are the parallelism).
    public static let threadsPerJob = 1

    public var format: ContainerFormat?
    public var codec: VideoCodec?
    public var encoding: EncodingOptions
    public var width: Int?
    public var fps: Int?

    public init(format: ContainerFormat? = nil, codec: VideoCodec? = nil, encoding: EncodingOptions = EncodingOptions(),
                width: Int? = nil, fps: Int? = nil) {
        self.format = format
        self.codec = codec
        self.encoding = encoding
        self.width = width
        self.fps = fps
    }

    /// These options with `other`'s set values over them.
    public func overridden(by other: BatchOptions) -> BatchOptions {
        var o = self
        o.format = other.format ?? format
        o.codec = other.codec ?? codec
        o.encoding.crf = other.encoding.crf ?? encoding.crf
        o.encoding.bitrate = other.encoding.bitrate ?? encoding.bitrate
        o.encoding.preset = other.encoding.preset ?? encoding.preset
        o.encoding.gop = other.encoding.gop ?? encoding.gop
        o.encoding.pixelFormat = other.encoding.pixelFormat ?? encoding.pixelFormat
        o.encoding.threads = other.encoding.threads ?? encoding.threads
        o.width = other.width ?? width
        o.fps = other.fps ?? fps
        return o
    }

    /// Refuses what a batch cannot write: a clip is one file per scene (its poster, its metadata for
    /// the re-run's check beside it), and a PNG sequence is a folder of files.
    public func checkClipFormat() throws {
        if format == .png || codec == .png {
            throw BatchError("a batch writes one clip per scene, and a PNG sequence is a folder of files: pick mp4, "
                             + "webm, mov or gif, or render a scene's frames with maptrip render S.json -o S_%05d.png")
        }
    }

    /// The clips' extension: the format's first one (mp4 by default).
    public var fileExtension: String { format?.extensions.first ?? "mp4" }

    /// Every option that changes the clip's bytes, as one stable line (for the source hash).
    var fingerprint: String {
        [format?.extensions.first ?? "-", codec?.rawValue ?? "-", encoding.crf.map { "\($0)" } ?? "-",
         encoding.bitrate.map { "\($0)" } ?? "-", encoding.preset ?? "-", encoding.gop.map { "\($0)" } ?? "-",
         encoding.pixelFormat ?? "-", width.map { "\($0)" } ?? "-", fps.map { "\($0)" } ?? "-"]
            .joined(separator: "|")
    }
}

/// A batch's problem with its input (not one scene's): one line.
public struct BatchError: Error, CustomStringConvertible, LocalizedError, DiagnosticConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
    public var errorDescription: String? { description }
}

/// What a batch renders: the scenes found from the command line's arguments, and a manifest's defaults.
public struct BatchPlan: Sendable {
    public var items: [BatchItem]
    /// A manifest's `defaults` (empty otherwise).
    public var defaults: BatchOptions

    /// Finds the scenes: one folder (every `*.json` under it, recursively, sub-folders kept; hidden
    /// files and the output folder left out), one manifest (`{"scenes": [...], "defaults": {...}}`,
    /// paths relative to it), or a list of scene files. `fileExtension`: the clips' (from the options).
    public static func discover(_ arguments: [String], outputFolder: URL, fileExtension: String? = nil,
                                workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        throws -> BatchPlan {
        guard !arguments.isEmpty else { throw BatchError("no scenes: give a folder, scene files or a manifest") }
        let fm = FileManager.default
        let urls = arguments.map { URL(fileURLWithPath: $0, relativeTo: workingDirectory).standardizedFileURL }
        var entries: [(URL, String)] = []
        var defaults = BatchOptions()
        var isDirectory: ObjCBool = false
        if urls.count == 1, fm.fileExists(atPath: urls[0].path, isDirectory: &isDirectory), isDirectory.boolValue {
            entries = try folderScenes(urls[0], excluding: outputFolder.standardizedFileURL)
            if entries.isEmpty { throw BatchError("\(arguments[0]): no *.json scene files in this folder") }
        } else if urls.count == 1, let manifest = try manifestObject(urls[0], label: arguments[0]) {
            (entries, defaults) = try manifestScenes(manifest, at: urls[0], label: arguments[0])
        } else {
            for (url, argument) in zip(urls, arguments) {
                guard fm.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                    // Kept: reported as this scene's failure, the others go on.
                    entries.append((url, listName(argument, url)))
                    continue
                }
                if isDirectory.boolValue {
                    throw BatchError("\(argument) is a folder: give one folder alone, or scene files")
                }
                entries.append((url, listName(argument, url)))
            }
        }
        let ext = fileExtension ?? defaults.fileExtension
        var items: [BatchItem] = []
        var seen: [String: String] = [:]
        for (scene, name) in entries {
            let base = (name as NSString).deletingPathExtension
            if let other = seen[base] {
                throw BatchError("\(name) and \(other) would both be written to \(base).\(ext): rename one")
            }
            seen[base] = name
            items.append(BatchItem(scene: scene, name: name,
                                   output: outputFolder.appendingPathComponent(base + "." + ext).standardizedFileURL,
                                   poster: outputFolder.appendingPathComponent(base + ".jpg").standardizedFileURL))
        }
        return BatchPlan(items: items, defaults: defaults)
    }

    /// A listed file's name in the output folder: its path as given when relative and inside the
    /// working directory, else its file name.
    static func listName(_ argument: String, _ url: URL) -> String {
        let parts = argument.split(separator: "/")
        if argument.hasPrefix("/") || parts.contains("..") { return url.lastPathComponent }
        return parts.filter { $0 != "." }.joined(separator: "/")
    }

    static func folderScenes(_ folder: URL, excluding output: URL) throws -> [(URL, String)] {
        let fm = FileManager.default
        guard let walker = fm.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey],
                                         options: [.skipsHiddenFiles]) else {
            throw BatchError("\(folder.path): cannot read this folder")
        }
        let root = folder.resolvingSymlinksInPath().path
        let outputPath = output.resolvingSymlinksInPath().path
        var found: [(URL, String)] = []
        for case let url as URL in walker {
            let path = url.resolvingSymlinksInPath().path
            if path == outputPath {
                walker.skipDescendants()
                continue
            }
            guard url.pathExtension.lowercased() == "json",
                  (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  path.hasPrefix(root + "/") else { continue }
            // A batch manifest beside the scenes is not a scene.
            if (try? manifestObject(url, label: "")) != nil { continue }
            found.append((url.standardizedFileURL, String(path.dropFirst(root.count + 1))))
        }
        return found.sorted { $0.1 < $1.1 }
    }

    /// The file's JSON object when it is a batch manifest (has `scenes`), else nil (a scene).
    static func manifestObject(_ url: URL, label: String) throws -> [String: Any]? {
        guard let data = try? Data(contentsOf: url),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              object["scenes"] != nil else { return nil }
        return object
    }

    static func manifestScenes(_ object: [String: Any], at url: URL, label: String) throws
        -> ([(URL, String)], BatchOptions) {
        guard let scenes = object["scenes"] as? [String] else {
            throw BatchError("\(label): scenes: expected a list of scene file paths")
        }
        if scenes.isEmpty { throw BatchError("\(label): scenes: the list is empty") }
        let unknown = Set(object.keys).subtracting(["scenes", "defaults"])
        if let key = unknown.sorted().first {
            throw BatchError("\(label): unknown key '\(key)' (a manifest has 'scenes' and 'defaults')")
        }
        let folder = url.deletingLastPathComponent()
        let entries = scenes.map { path in
            let scene = URL(fileURLWithPath: path, relativeTo: folder).standardizedFileURL
            return (scene, listName(path, scene))
        }
        var defaults = BatchOptions()
        if let d = object["defaults"] {
            guard let d = d as? [String: Any] else { throw BatchError("\(label): defaults: expected an object") }
            defaults = try options(d, label: label)
        }
        return (entries, defaults)
    }

    /// A manifest's `defaults`: format, codec, crf, bitrate, preset, gop, pixFmt, width, fps.
    static func options(_ d: [String: Any], label: String) throws -> BatchOptions {
        var o = BatchOptions()
        func string(_ key: String) throws -> String? {
            guard let v = d[key] else { return nil }
            guard let s = v as? String else { throw BatchError("\(label): defaults.\(key): expected a string") }
            return s
        }
        func number(_ key: String) throws -> Double? {
            guard let v = d[key] else { return nil }
            guard let n = v as? NSNumber, !(v is Bool) else {
                throw BatchError("\(label): defaults.\(key): expected a number")
            }
            return n.doubleValue
        }
        let known: Set = ["format", "codec", "crf", "bitrate", "preset", "gop", "pixFmt", "width", "fps"]
        if let key = Set(d.keys).subtracting(known).sorted().first {
            throw BatchError("\(label): defaults: unknown key '\(key)' (known: \(known.sorted().joined(separator: ", ")))")
        }
        if let f = try string("format") {
            guard let format = ContainerFormat.named(f) else {
                throw BatchError("\(label): defaults.format: \(OutputError.unknownFormat(f))")
            }
            o.format = format
        }
        if let c = try string("codec") {
            guard let codec = VideoCodec.named(c) else {
                throw BatchError("\(label): defaults.codec: \(OutputError.unknownCodec(c))")
            }
            o.codec = codec
        }
        o.encoding.crf = try number("crf")
        o.encoding.bitrate = try number("bitrate").map { Int($0) }
        if let p = d["preset"] {
            if let n = p as? NSNumber, !(p is Bool) { o.encoding.preset = "\(n.intValue)" } else { o.encoding.preset = try string("preset") }
        }
        o.encoding.gop = try number("gop").map { Int($0) }
        o.encoding.pixelFormat = try string("pixFmt")
        o.width = try number("width").map { Int($0) }
        o.fps = try number("fps").map { Int($0) }
        return o
    }
}
