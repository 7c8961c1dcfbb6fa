import FFmpeg
import Foundation

/// A recording's output: pictures in (Cairo's premultiplied BGRA), a file, image folder or stream out,
/// in the plan's container and codec, with an optional sound track and metadata.
///
/// Files are written to a hidden temporary file beside the target (`.name.maptrip-<pid>-<random>.tmp`,
/// a folder for image sequences) and moved onto the target only by `finish()`; `cancel()`, a failure
/// or dropping the output removes it and leaves any existing output as it was. Streams (stdout, pipes,
/// devices, network URLs) are written directly.
///
/// Not thread-safe: use it from one thread at a time.
public final class MediaOutput {
    public let plan: OutputPlan
    public let width: Int
    public let height: Int
    public let fps: Int
    /// Where the bytes go until `finish()` (the target itself for streams).
    public let writePath: String
    /// Frames sent so far (written and repeated).
    public private(set) var framesWritten = 0
    /// The first frame's timestamp, in frames (0; a part of a trip, `render --frames A:B`, starts at A
    /// so that parts join).
    public let firstFrame: Int

    private let muxer: Muxer
    /// The encoder; let go by `finish` once it has sent its last packet (nothing uses it after:
    /// `checkOpen`).
    private var encoder: Encoder!
    private let stream: Int
    private let converter: PixelConverter
    private let palette: FilterGraph?
    private let filtered: Frame?
    private let audio: AudioTrack?
    private var hasPicture = false
    /// The last picture converted ahead (`write(converted:)`), sent again by `repeatLast`.
    private var current: Frame?
    private var done = false
    private let temporary: URL?
    /// Folders made for the output, deepest first: removed again if it fails.
    private var madeFolders: [URL] = []

    /// Opens the target and the encoder. `palette`: a GIF's palette from a `GIFPalettePass` over the
    /// same pictures (required for GIF). `audio`: a sound track for containers that carry one, of a video
    /// of `duration` seconds; `audioStart`: where in it this output starts (a stretch, `render --from`).
    public init(plan: OutputPlan, width: Int, height: Int, fps: Int, metadata: [String: String] = [:],
                palette: Frame? = nil, audio: SoundMix? = nil, duration: Double = 0, audioStart: Double = 0,
                audioEnd: Double? = nil, firstFrame: Int = 0) throws {
        self.plan = plan
        self.firstFrame = firstFrame
        self.width = width
        self.height = height
        self.fps = fps
        let (settings, path) = try plan.profile.settings(options: plan.options, width: width, height: height,
                                                         fps: fps, transparent: plan.transparent)
        if plan.codec != .gif && plan.codec != .png, width % 2 != 0 || height % 2 != 0 {
            throw OutputError.invalidOption("\(plan.codec.rawValue) needs an even frame size, not \(width)x\(height)")
        }

        switch plan.target {
        case .file(let url):
            madeFolders = try OutputPlan.createFolder(url.deletingLastPathComponent(), label: url.deletingLastPathComponent().path)
            temporary = TemporaryFiles.name(beside: url)
            writePath = temporary!.path
        case .imageSequence(let folder, let pattern):
            madeFolders = try OutputPlan.createFolder(folder, label: folder.path)
            let dir = TemporaryFiles.name(beside: folder.appendingPathComponent("frames"))
            do {
                try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
            } catch {
                OutputPlan.removeMadeFolders(madeFolders)
                throw error
            }
            temporary = dir
            writePath = dir.appendingPathComponent(pattern).path
        case .stream(let url, _):
            // A playlist and its segments (HLS) go into a folder that may have to be made.
            if url.hasPrefix("/") {
                let folder = URL(fileURLWithPath: url).deletingLastPathComponent()
                madeFolders = try OutputPlan.createFolder(folder, label: folder.path)
            }
            temporary = nil
            writePath = url
        }

        do {
            if plan.codec == .gif {
                guard let palette else {
                    throw OutputError.invalidOption("a GIF needs its palette (GIFPalettePass) before it is written")
                }
                converter = try PixelConverter(path: .swscale(.bgra), width: width, height: height,
                                               straightAlpha: plan.transparent)
                let use = "[in0][in1]paletteuse=dither=sierra2_4a:diff_mode=rectangle:alpha_threshold=128[out]"
                let graph = try FilterGraph(use, inputs: [
                    .init(width: width, height: height, pixelFormat: .bgra, frameRate: fps),
                    .init(width: palette.width, height: palette.height, pixelFormat: palette.pixelFormat,
                          frameRate: fps),
                ])
                palette.pts = 0
                try graph.push(palette, input: 1)
                try graph.push(nil, input: 1)
                self.palette = graph
                filtered = try Frame()
            } else {
                converter = try PixelConverter(path: path, width: width, height: height,
                                               straightAlpha: plan.transparent)
                self.palette = nil
                filtered = nil
            }

            let (path, temporary) = (writePath, self.temporary)
            muxer = try Self.storing(plan.target, temporary) { try Muxer(path: path, format: plan.format.muxer) }
            encoder = try Encoder(video: settings, globalHeader: muxer.needsGlobalHeader)
            let hvc1 = plan.codec == .hevc && (plan.format == .mp4 || plan.format == .mov)
            stream = try muxer.addStream(from: encoder, codecTag: hvc1 ? "hvc1" : nil)
            if let audio, !audio.isEmpty, let codecName = plan.format.audioCodecName,
               let codec = AudioCodec(rawValue: codecName) {
                let track = try AudioTrack(mix: audio, codec: codec, duration: duration, start: audioStart,
                                           end: audioEnd, globalHeader: muxer.needsGlobalHeader)
                try track.addStream(to: muxer)
                self.audio = track
            } else {
                self.audio = nil
            }
            var metadata = metadata
            if let encoderTag = metadata["encoder"], metadata["comment"] == nil, plan.format != .mov {
                // MP4's and WebM's encoder fields always name libavformat: say it in the comment too.
                metadata["comment"] = encoderTag
            }
            for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { try muxer.setMetadata(key, value) }
            var muxerOptions = Self.muxerOptions(plan)
            if firstFrame > 0, plan.format == .mp4 || plan.format == .mov, !plan.fragmented {
                // A part starts after an empty edit of `firstFrame` frames: in the default movie time
                // scale (ms) it would be rounded, and the part's timestamps would not be exactly frames.
                muxerOptions["movie_timescale"] = "\(fps * 1000)"
            }
            try Self.storing(plan.target, temporary) { try muxer.writeHeader(options: muxerOptions) }
            // libavformat stamps its own name over `encoder` when the header is written; MP4 and MOV
            // write their metadata with the index, at the end, so ours can be put back now.
            if let encoderTag = metadata["encoder"], plan.format == .mp4 || plan.format == .mov {
                try muxer.setMetadata("encoder", encoderTag)
            }
        } catch {
            Self.remove(temporary)
            OutputPlan.removeMadeFolders(madeFolders)
            throw error
        }
    }

    /// A file output in the format its extension names (the default codec unless `codec` is given).
    public convenience init(file url: URL, width: Int, height: Int, fps: Int,
                            options: EncodingOptions = EncodingOptions(), codec: VideoCodec? = nil,
                            transparent: Bool = false) throws {
        let plan = try OutputPlan.make(OutputRequest(path: url.path, codec: codec, options: options,
                                                     transparent: transparent))
        try self.init(plan: plan, width: width, height: height, fps: fps)
    }

    /// The hidden temporary file or folder written until `finish()` (nil for streams).
    public var temporaryURL: URL? { temporary }

    deinit {
        if !done { cancel() }
    }

    /// The muxer options for a plan: MP4/MOV index at the front for files, fragmented for streams;
    /// numbered images from 0; HLS segments of 2 s, every one kept in the playlist.
    static func muxerOptions(_ plan: OutputPlan) -> [String: String] {
        switch plan.format {
        case .mp4, .mov:
            return plan.fragmented ? ["movflags": "+frag_keyframe+empty_moov+default_base_moof"]
                : ["movflags": "+faststart"]
        case .png:
            return ["start_number": "0"]
        case .hls:
            return ["hls_time": "2", "hls_list_size": "0", "hls_playlist_type": "event"]
        default:
            return [:]
        }
    }

    /// Converts one picture (`height` rows of `stride` bytes of premultiplied BGRA) and encodes it as
    /// the next frame.
    public func write(bgra: UnsafePointer<UInt8>, stride: Int) throws {
        try checkOpen("write")
        try converter.convert(bgra: bgra, stride: stride)
        current = nil
        hasPicture = true
        try storing { try sendCurrent() }
    }

    /// The pixel path of `makeConverters`' converters (nil: a GIF, which converts its pictures itself).
    public var converterPath: PixelPath? { palette == nil ? converter.path : nil }

    /// Converters for pictures converted away from this output's thread (the recorder converts each one
    /// on its drawing thread, right after drawing it): as many frames as fit in `budget` bytes, at least
    /// 2, along this output's pixel path, sharing one scratch picture (use them from one thread). Nil
    /// when the output converts its pictures itself (a GIF: its palette filter takes them as drawn).
    public func makeConverters(budget: Int) throws -> [PixelConverter]? {
        guard palette == nil else { return nil }
        return try Self.makeConverters(path: converter.path, width: width, height: height,
                                       transparent: plan.transparent, budget: budget)
    }

    /// The pixel path an output of `plan` at this size converts its pictures along (nil: a GIF, which
    /// converts them itself), known before it is opened.
    public static func converterPath(plan: OutputPlan, width: Int, height: Int, fps: Int) throws -> PixelPath? {
        guard plan.codec != .gif else { return nil }
        return try plan.profile.settings(options: plan.options, width: width, height: height, fps: fps,
                                         transparent: plan.transparent).1
    }

    /// `makeConverters` for an output converting along `path`, made before it is opened.
    public static func makeConverters(path: PixelPath, width: Int, height: Int, transparent: Bool,
                                      budget: Int) throws -> [PixelConverter] {
        let first = try PixelConverter(path: path, width: width, height: height, straightAlpha: transparent)
        let count = max(2, budget / max(1, first.frameBytes))
        return try [first] + (1..<count).map { _ in
            try PixelConverter(path: path, width: width, height: height, straightAlpha: transparent, scratchOf: first)
        }
    }

    /// Encodes a picture converted by one of `makeConverters`' converters as the next frame. The frame
    /// is sent again by `repeatLast` until the next picture: its converter must not convert another
    /// picture before then.
    public func write(converted frame: Frame) throws {
        try checkOpen("write")
        guard palette == nil else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "MediaOutput.write(converted:)",
                              message: "a GIF converts its pictures itself")
        }
        current = frame
        hasPicture = true
        try storing { try sendCurrent() }
    }

    /// Encodes the last picture again as the next frame (a still stretch: no drawing, no conversion).
    public func repeatLast() throws {
        try checkOpen("repeatLast")
        guard hasPicture else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "MediaOutput.repeatLast",
                              message: "no frame written yet")
        }
        try storing { try sendCurrent() }
    }

    private func sendCurrent() throws {
        let pts = Int64(firstFrame + framesWritten)
        if let palette, let filtered {
            converter.frame.pts = pts
            try palette.push(converter.frame)
            while try palette.pull(into: filtered) {
                try encoder.encode(filtered) { try muxer.write($0, stream: stream, timeBase: encoder.timeBase) }
            }
        } else {
            let frame = current ?? converter.frame
            frame.pts = pts
            try encoder.encode(frame) { try muxer.write($0, stream: stream, timeBase: encoder.timeBase) }
        }
        framesWritten += 1
        try audio?.write(upTo: Double(framesWritten) / Double(fps), to: muxer)
    }

    /// Flushes the encoders, completes the container and moves it onto the target (replacing an existing
    /// file; for image sequences, the files of the same name pattern). On failure the temporary output
    /// is removed and the target is left as it was.
    public func finish() throws {
        try checkOpen("finish")
        done = true
        do {
            if let palette, let filtered {
                try palette.push(nil)
                while try palette.pull(into: filtered) {
                    try encoder.encode(filtered) { try muxer.write($0, stream: stream, timeBase: encoder.timeBase) }
                }
            }
            try storing {
                try encoder.encode(nil) { try muxer.write($0, stream: stream, timeBase: encoder.timeBase) }
                try audio?.finish(to: muxer)
                try muxer.finish()
            }
            // x264 joins its threads and frees its pictures (3-4 ms at 1080p) while the file is
            // flushed to the disk (about 6 ms), rather than after the render has returned.
            try commit(meanwhile: { encoder = nil })
        } catch {
            Self.remove(temporary)
            OutputPlan.removeMadeFolders(madeFolders)
            throw error
        }
    }

    /// Abandons the output: removes the temporary file. The target is not touched. (A stream already
    /// received what was sent.)
    public func cancel() {
        done = true
        Self.remove(temporary)
        OutputPlan.removeMadeFolders(madeFolders)
    }

    /// Where the output goes, for messages: the file or folder asked for, or the stream.
    static func targetPath(_ target: OutputTarget) -> String {
        switch target {
        case .file(let url): url.path
        case .imageSequence(let folder, _): folder.path
        case .stream(let url, _): url
        }
    }

    /// Runs `body`, which writes to the output, saying a failed write of the storage as one line about
    /// the output asked for (not the temporary file) and what to do.
    static func storing<T>(_ target: OutputTarget, _ temporary: URL?, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as FFmpegError {
            if case .stream(let url, _) = target, url.contains("://") {
                // A stream has no disk behind it: what fails is the address or the network.
                throw OutputError.notWritable(url, reason: "\(error.message) (check the stream's address, such as "
                                              + "udp://127.0.0.1:1234, srt://host:port or rtmp://host/app/key, and that the receiver is reachable)")
            }
            guard let reason = TemporaryFiles.storageFailure(errno: -error.code, writing: temporary) else { throw error }
            throw OutputError.notWritable(targetPath(target), reason: reason)
        }
    }

    private func storing(_ body: () throws -> Void) throws {
        try Self.storing(plan.target, temporary, body)
    }

    private func checkOpen(_ operation: String) throws {
        guard !done else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "MediaOutput.\(operation)",
                              message: "the output is already finished or cancelled")
        }
    }

    /// Moves the finished output onto its target, running `meanwhile` on this thread as it goes.
    private func commit(meanwhile: () -> Void) throws {
        switch plan.target {
        case .file(let url):
            try TemporaryFiles.commit(temporary!, onto: url, meanwhile: meanwhile)
            return
        case .imageSequence(let folder, let pattern):
            let dir = temporary!
            let written = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            // Frames of an earlier, longer sequence of the same name would follow the new last frame
            // and look like part of it: they go.
            let matcher = Self.sequenceMatcher(pattern)
            let existing = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in existing where matcher(name) && !written.contains(name) {
                unlink(folder.appendingPathComponent(name).path)
            }
            for name in written.sorted() {
                try TemporaryFiles.rename(dir.appendingPathComponent(name), onto: folder.appendingPathComponent(name))
            }
            Self.remove(dir)
        case .stream:
            break
        }
        meanwhile()
    }

    /// A matcher for file names the printf-style pattern produces (`out_%05d.png` matches `out_00012.png`).
    static func sequenceMatcher(_ pattern: String) -> (String) -> Bool {
        guard let r = OutputTarget.sequencePlaceholder(in: pattern) else { return { $0 == pattern } }
        let prefix = String(pattern[..<r.lowerBound]), suffix = String(pattern[r.upperBound...])
        return { name in
            name.hasPrefix(prefix) && name.hasSuffix(suffix) && name.count > prefix.count + suffix.count
                && name.dropFirst(prefix.count).dropLast(suffix.count).allSatisfy(\.isNumber)
        }
    }

    /// Removes a temporary file or folder (nothing for nil).
    static func remove(_ url: URL?) {
        guard let url else { return }
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            try? FileManager.default.removeItem(at: url)
        } else {
            unlink(url.path)
        }
    }
}

/// The first pass of a GIF: every picture goes through libavfilter's `palettegen`, which keeps only
/// a colour histogram (constant memory); `finish()` gives the clip's 256-colour palette.
public final class GIFPalettePass {
    public let width: Int
    public let height: Int
    private let converter: PixelConverter
    private let graph: FilterGraph
    private var frames = 0

    public init(width: Int, height: Int, fps: Int, transparent: Bool) throws {
        self.width = width
        self.height = height
        converter = try PixelConverter(path: .swscale(.bgra), width: width, height: height,
                                       straightAlpha: transparent)
        let reserve = transparent ? 1 : 0
        graph = try FilterGraph("[in0]palettegen=stats_mode=full:reserve_transparent=\(reserve)[out]",
                                inputs: [.init(width: width, height: height, pixelFormat: .bgra, frameRate: fps)])
    }

    public func write(bgra: UnsafePointer<UInt8>, stride: Int) throws {
        let frame = try converter.convert(bgra: bgra, stride: stride)
        frame.pts = Int64(frames)
        frames += 1
        try graph.push(frame)
    }

    /// A repeated picture adds nothing to the histogram's shape worth a second look.
    public func repeatLast() throws { frames += 1 }

    /// The palette (a 16x16 picture of 256 colours).
    public func finish() throws -> Frame {
        try graph.push(nil)
        let palette = try Frame()
        guard try graph.pull(into: palette) else {
            throw FFmpegError(code: FFmpegError.invalidData, operation: "palettegen", message: "no palette was made")
        }
        return palette
    }
}
