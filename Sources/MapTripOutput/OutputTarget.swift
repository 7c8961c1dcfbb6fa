import Foundation
import MapTripSupport

/// Where an output's bytes go.
public enum OutputTarget: Equatable, Sendable, CustomStringConvertible {
    /// A regular file, written to a hidden temporary file beside it and renamed onto it only when
    /// complete: an existing file is untouched until then, and a failed run leaves nothing.
    case file(URL)
    /// A folder of numbered images (`pattern` is a printf-style file name such as `out_%05d.png`),
    /// written into a hidden temporary folder and moved in when complete.
    case imageSequence(folder: URL, pattern: String)
    /// Written directly, never replaced: standard output (`pipe:1`), a FIFO or character device
    /// (`file:/path`), a socket (`unix:/path`) or a network URL.
    case stream(url: String, label: String)

    public var description: String {
        switch self {
        case .file(let url): url.path
        case .imageSequence(let folder, let pattern): folder.appendingPathComponent(pattern).path
        case .stream(_, let label): label
        }
    }

    /// True for targets that can seek back (files and image folders).
    public var canSeek: Bool {
        if case .stream = self { return false }
        return true
    }
}

/// What the user asked for: an output path or URL plus flags. `OutputPlan.make` checks it against the
/// file system and the codecs before anything is drawn.
public struct OutputRequest: Sendable {
    /// A file path, `name_%05d.png`, `-` (standard output), a device or FIFO, or a URL
    /// (`udp://`, `srt://`, `rtmp://`, `... .m3u8`).
    public var path: String
    public var format: ContainerFormat?
    public var codec: VideoCodec?
    public var options: EncodingOptions
    /// Pictures keep their alpha (no base map): only codecs that carry alpha are allowed.
    public var transparent: Bool
    /// Frames per second and width of the written video (nil: the scene's; GIFs default to 15 fps
    /// and at most 720 pixels wide). The view is kept: a smaller width shows the same map, smaller.
    public var fps: Int?
    public var width: Int?
    /// The scene file, which the output must never replace.
    public var scene: URL?
    /// Other files the output must never replace: every file the scene names.
    public var inputs: [URL]
    /// The directory relative paths are taken from.
    public var workingDirectory: URL

    public init(path: String, format: ContainerFormat? = nil, codec: VideoCodec? = nil,
                options: EncodingOptions = EncodingOptions(), transparent: Bool = false, fps: Int? = nil,
                width: Int? = nil, inputs: [URL] = [],
                workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) {
        self.path = path
        self.format = format
        self.codec = codec
        self.options = options
        self.transparent = transparent
        self.fps = fps
        self.width = width
        self.inputs = inputs
        self.workingDirectory = workingDirectory
    }
}

/// A checked output: where it goes, in which container and codec, with which settings. Made before
/// rendering, so every mistake in the request is found before the first frame is drawn.
public struct OutputPlan: Sendable {
    public var target: OutputTarget
    public var format: ContainerFormat
    public var profile: CodecProfile
    public var options: EncodingOptions
    public var transparent: Bool
    /// Write fragmented MP4/MOV (the target cannot seek back to write the index).
    public var fragmented: Bool
    public var fps: Int?
    public var width: Int?

    public var codec: VideoCodec { profile.codec }

    /// Checks a request: the target (never an input, never a folder, its folder creatable, devices
    /// and pipes written directly), the format (from `--format`, else the extension), the codec (from
    /// `--codec`, else the format's default) and every option against the codec.
    public static func make(_ request: OutputRequest) throws -> OutputPlan {
        let (target, extensionFormat) = try resolveTarget(request)
        guard let format = request.format ?? extensionFormat ?? defaultStreamFormat(target) else {
            throw OutputError.noExtension(request.path)
        }
        // A file named .mp4 holding a GIF would mislead every program that opens it.
        if case .file(let url) = target, let asked = request.format, let named = extensionFormat, asked != named {
            throw OutputError.invalidOption("--format \(asked.rawValue) contradicts the output's extension .\(url.pathExtension); "
                                            + "name it \(url.deletingPathExtension().lastPathComponent).\(asked.rawValue) "
                                            + "or leave --format out")
        }
        if case .imageSequence = target, format != .png {
            throw OutputError.invalidOption("a numbered file name (%05d) is for PNG sequences; "
                                            + "name the output name_%05d.png")
        }
        if format == .png, case .file(let url) = target {
            throw OutputError.invalidOption(
                "a PNG sequence needs a numbered file name; write \(url.deletingPathExtension().lastPathComponent)_%05d.png")
        }
        if format == .png, case .stream = target {
            throw OutputError.invalidOption("a PNG sequence is a folder of files; it cannot go to a stream")
        }
        let codec = request.codec ?? format.defaultCodec
        guard format.codecs.contains(codec) else {
            throw OutputError.codecNotInFormat(codec: codec.rawValue, format: format.rawValue,
                                               allowed: format.codecs.map(\.rawValue))
        }
        let profile = CodecProfile.profile(for: codec)
        // Check the options now (a throw-away size), so a bad option fails before rendering.
        _ = try profile.settings(options: request.options, width: 64, height: 64, fps: request.fps ?? 30,
                                 transparent: request.transparent)
        if let fps = request.fps, !(1...240).contains(fps) {
            throw OutputError.invalidOption("--fps \(fps) is outside 1-240")
        }
        if let width = request.width, !(16...8192).contains(width) {
            throw OutputError.invalidOption("--width \(width) is outside 16-8192")
        }
        // The scene's rule for its own width, so both say the same: even sizes, for 4:2:0 chroma.
        if let width = request.width, width % 2 != 0 {
            throw OutputError.invalidOption("--width \(width) is odd; H.264 with 4:2:0 chroma needs even frame sizes "
                                            + "(use \([width - 1, width + 1].filter { (16...8192).contains($0) }.map(String.init).joined(separator: " or ")))")
        }
        let fragmented = format.needsSeeking && !target.canSeek
        return OutputPlan(target: target, format: format, profile: profile, options: request.options,
                          transparent: request.transparent, fragmented: fragmented, fps: request.fps,
                          width: request.width)
    }

    /// The frames a scene whose own are `scene` is drawn in for this output: the size and rate the
    /// video is written at (`--fps` and `--width`, the height following the scene's aspect ratio, even
    /// for 4:2:0 codecs; GIF's defaults: `geometry`), the pixel ratio scaled with the width (the same
    /// view), and I420 pixels where the output converts its pictures along the I420 path (the drawing
    /// may then write into its planes).
    public func frameFormat(for scene: FrameFormat) throws -> FrameFormat {
        var format = Self.frameFormat(codec: codec, width: width, fps: fps, scene: scene)
        let path = try MediaOutput.converterPath(plan: self, width: format.width, height: format.height, fps: format.fps)
        format.pixels = path == .i420 ? .i420 : .bgra
        return format
    }

    /// `geometry` as a frame format (BGRA pixels) for a codec and an asked width and rate (nil: the
    /// scene's), without a plan: what a render to that codec would draw.
    public static func frameFormat(codec: VideoCodec, width: Int?, fps: Int?, scene: FrameFormat) -> FrameFormat {
        let g = geometry(codec: codec, width: width, fps: fps, sceneWidth: scene.width, sceneHeight: scene.height,
                         sceneFPS: scene.fps)
        return FrameFormat(width: g.width, height: g.height, fps: g.fps, scale: scene.scale * g.scale)
    }

    /// `geometry` for a codec and an asked width and rate (nil: the scene's), without a plan: what a
    /// render to that codec would draw (a preview draws what an H.264 render encodes).
    public static func geometry(codec: VideoCodec, width askedWidth: Int?, fps askedFPS: Int?, sceneWidth: Int,
                                sceneHeight: Int, sceneFPS: Int) -> (width: Int, height: Int, fps: Int, scale: Double) {
        var width = askedWidth ?? sceneWidth
        var fps = askedFPS ?? sceneFPS
        if codec == .gif {
            if askedWidth == nil { width = min(sceneWidth, 720) }
            if askedFPS == nil { fps = min(sceneFPS, 15) }
        }
        let even = codec != .gif && codec != .png
        var height = Int((Double(width) * Double(sceneHeight) / Double(sceneWidth)).rounded())
        if even {
            width += width % 2
            height = Int((Double(height) / 2).rounded()) * 2
        }
        return (width, max(2, height), fps, Double(width) / Double(sceneWidth))
    }

    // MARK: Targets

    static func resolveTarget(_ request: OutputRequest) throws -> (OutputTarget, ContainerFormat?) {
        let path = request.path
        if path == "-" {
            return (.stream(url: "pipe:1", label: "standard output"), nil)
        }
        if let scheme = urlScheme(path) {
            let ext = (URL(string: path)?.path).map { ($0 as NSString).pathExtension } ?? ""
            let byScheme: ContainerFormat? = switch scheme {
            case "rtmp", "rtmps": .flv
            case "udp", "srt", "rtp", "tcp": .mpegts
            default: nil
            }
            guard byScheme != nil || ["http", "https", "file"].contains(scheme) else {
                throw OutputError.invalidOption("cannot write to \(scheme):// URLs; use udp://, srt://, rtmp:// "
                                                + "or a file path")
            }
            return (.stream(url: path, label: path), ContainerFormat.forExtension(ext) ?? byScheme)
        }

        let url = URL(fileURLWithPath: path, relativeTo: request.workingDirectory).standardizedFileURL
        let ext = url.pathExtension
        let extensionFormat = ContainerFormat.forExtension(ext)

        // Never the scene nor anything it reads.
        if let scene = request.scene, sameFile(url, scene) {
            throw OutputError.wouldOverwriteScene(path)
        }
        for input in request.inputs where sameFile(url, input) {
            throw OutputError.wouldOverwriteInput(output: path, input: input.relativePath)
        }

        var info = stat()
        if stat(url.path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                throw OutputError.isDirectory(path)
            case S_IFCHR, S_IFIFO:
                return (.stream(url: "file:" + url.path, label: path), extensionFormat)
            case S_IFSOCK:
                return (.stream(url: "unix:" + url.path, label: path), extensionFormat)
            case S_IFREG:
                break
            default:
                throw OutputError.notWritable(path, reason: "not a regular file, device, FIFO or socket")
            }
        }
        if path.hasSuffix("/") {
            throw OutputError.isDirectory(path)
        }

        let isPattern = OutputTarget.sequencePlaceholder(in: url.lastPathComponent) != nil
        guard extensionFormat != nil || ext.isEmpty else {
            if ext.lowercased() == "json" {
                throw OutputError.invalidOption("output \(path) is a .json file, like a scene; "
                                                + "name the video, e.g. \(url.deletingPathExtension().lastPathComponent).mp4")
            }
            throw OutputError.unknownExtension(path)
        }
        if ext.isEmpty && !isPattern {
            // A file with no extension would get no format; say so rather than guess.
            throw OutputError.noExtension(path)
        }
        let folder = url.deletingLastPathComponent()
        // Made when the output opens (and taken away again if the render fails); checked now.
        try checkFolder(folder, label: (path as NSString).deletingLastPathComponent)
        if extensionFormat == .hls {
            // A playlist and its segments, written as they come (a live stream, not one atomic file).
            return (.stream(url: url.path, label: path), .hls)
        }
        if isPattern {
            return (.imageSequence(folder: folder, pattern: url.lastPathComponent), extensionFormat)
        }
        return (.file(url), extensionFormat)
    }

    static func defaultStreamFormat(_ target: OutputTarget) -> ContainerFormat? {
        // A device such as /dev/null: the default container, fragmented.
        if case .stream(let url, _) = target, url.hasPrefix("file:") || url.hasPrefix("unix:") { return .mp4 }
        return nil
    }

    static func urlScheme(_ path: String) -> String? {
        guard let r = path.range(of: "://") else { return nil }
        let scheme = path[..<r.lowerBound].lowercased()
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" }) else { return nil }
        return scheme
    }

    /// The same file: the same inode when both exist, else the same absolute path.
    public static func sameFile(_ a: URL, _ b: URL) -> Bool {
        var sa = stat(), sb = stat()
        if stat(a.path, &sa) == 0, stat(b.path, &sb) == 0 {
            return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
        }
        return a.standardizedFileURL.resolvingSymlinksInPath().path == b.standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Throws when `folder` could not be made because a file is where one of its folders would be.
    public static func checkFolder(_ folder: URL, label: String) throws {
        var url = folder.standardizedFileURL
        while true {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
                if isDirectory.boolValue { return }
                throw OutputError.cannotCreateFolder(label.isEmpty ? folder.path : label, reason: "a file is in the way (choose an output path whose folders are folders)")
            }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { return }
            url = parent
        }
    }

    /// Makes `folder` and any folders above it that are missing. Returns the folders it made, deepest
    /// first (for `removeMadeFolders` should the output fail).
    @discardableResult
    public static func createFolder(_ folder: URL, label: String) throws -> [URL] {
        try checkFolder(folder, label: label)
        var missing: [URL] = []
        var url = folder.standardizedFileURL
        while !FileManager.default.fileExists(atPath: url.path), url.path != "/" {
            missing.append(url)
            url = url.deletingLastPathComponent()
        }
        // Made top down with mkdir(2), for its errno (Foundation's errors do not always carry one).
        for (i, url) in missing.enumerated().reversed() where mkdir(url.path, 0o777) != 0 && errno != EEXIST {
            let code = errno
            removeMadeFolders(Array(missing[(i + 1)...]))
            let hint = code == EACCES || code == EPERM ? " (this user may not make folders in \(url.deletingLastPathComponent().path): write elsewhere with -o)" : ""
            throw OutputError.cannotCreateFolder(label.isEmpty ? folder.path : label,
                                                 reason: String(cString: strerror(code)) + hint)
        }
        return missing
    }

    /// Removes folders `createFolder` made, deepest first, as long as they are empty.
    public static func removeMadeFolders(_ folders: [URL]) {
        for folder in folders where rmdir(folder.path) != 0 { return }
    }
}

extension OutputTarget {
    /// Where an image sequence's name holds its printf-style frame number (`%d`, `%05d`), if it does.
    /// Swift's regular expressions (not Foundation's: compiling one through ICU cost a render about
    /// 1.2 ms before its first frame).
    static func sequencePlaceholder(in name: String) -> Range<String.Index>? {
        name.firstMatch(of: /%0?[0-9]*d/)?.range
    }
}
