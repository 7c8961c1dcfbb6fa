import CFFmpeg

/// Plays a video file by time: the picture shown at `seconds` into it is the frame whose timestamp
/// covers that time (the last frame at or before it; the first before the first, the last after the
/// end), scaled to a size and turned as the file's rotation tag says. Frames are decoded in order, two
/// at a time (the one shown and the next); it seeks only when asked for a time before the frame shown
/// or far past it, so a render that asks in order decodes each frame once and a 10-hour file costs
/// what the part shown costs. Memory stays bounded: two decoded frames and one picture.
/// Deterministic: the picture depends only on the time asked for. Not thread-safe.
public final class ClipPlayer {
    /// Seconds past the frame shown beyond which a request seeks rather than decodes its way there.
    public static let seekAhead = 3.0
    /// A clip is decoded on the drawing thread that asks for its pictures: a render's drawing already
    /// runs beside the encoder's threads, and a decoder's own frame threads cost more CPU and hold
    /// more frames for the same pictures (about 8% more CPU for a 1080p H.264 clip, measured).
    static let decoderThreads = 1
    /// Timestamps within this of a time count as at it (a 30 fps clip at a 30 fps trip's frame k/30).
    static let tolerance = 1e-4

    public let path: String
    public let info: VideoStreamInfo
    /// The size pictures come out at, as displayed (after the rotation).
    public let width: Int, height: Int
    /// Clockwise quarter turns the rotation tag asks for (0...3).
    public let quarterTurns: Int
    private var reader: VideoReader
    /// Bilinear without swscale's accurate rounding and full chroma: a 1080p frame scaled to a card
    /// each frame of a render took most of the decoding's CPU with them.
    private let scaler = Scaler(flags: Int32(SWS_BILINEAR))
    /// The frame shown last and the one after it (nil at the end of the file), with their times.
    private var shown: (frame: Frame, time: Double)?
    private var next: (frame: Frame, time: Double)?
    private var atEnd = false
    /// The picture of `shown`, once made.
    private var picture: BGRAImage?
    /// The frame pictures are scaled into, kept from one picture to the next (a frame's buffers each
    /// time were page faults and zeroing for every picture).
    private var scaled: Frame?
    /// How many frames have been decoded and how many seeks made (for tests and the bench).
    public private(set) var framesDecoded = 0
    public private(set) var seeks = 0

    /// Opens the file; pictures come out `width` x `height` (as displayed). Throws for a file without a
    /// video stream, and for a rotation tag that is not a quarter turn or mirrors the picture.
    public init(path: String, width: Int, height: Int) throws {
        self.path = path
        reader = try VideoReader(path: path, threads: Self.decoderThreads)
        info = reader.info
        guard let turns = Self.quarterTurns(info) else {
            throw FFmpegError(code: FFmpegError.invalidData, operation: "ClipPlayer \(path)",
                              message: Self.rotationProblem(info) ?? "odd rotation")
        }
        quarterTurns = turns
        self.width = max(1, width)
        self.height = max(1, height)
    }

    /// The quarter turns of a rotation tag (nil: not a quarter turn, or mirrored).
    public static func quarterTurns(_ info: VideoStreamInfo) -> Int? {
        guard !info.mirrored else { return nil }
        let turns = (info.rotation / 90).rounded()
        guard abs(info.rotation - turns * 90) < 0.5 else { return nil }
        return Int(turns) % 4
    }

    /// What is wrong with a rotation tag, or nil when it is a quarter turn.
    public static func rotationProblem(_ info: VideoStreamInfo) -> String? {
        if info.mirrored { return "has a rotation tag that mirrors the picture, which maptrip does not do" }
        if quarterTurns(info) == nil {
            return "has a rotation tag turning the picture \(Int(info.rotation.rounded())) degrees; only quarter turns (90, 180, 270) are played"
        }
        return nil
    }

    /// The displayed size of the stream (width and height swapped by a quarter or three-quarter turn).
    public static func displaySize(_ info: VideoStreamInfo) -> (width: Int, height: Int) {
        (quarterTurns(info) ?? 0) % 2 == 1 ? (info.height, info.width) : (info.width, info.height)
    }

    /// The picture at `seconds` into the clip.
    public func image(at seconds: Double) throws -> BGRAImage {
        let t = seconds.isFinite ? seconds : 0
        if shown == nil, t > Self.seekAhead {
            // The first picture asked for far into the file: straight there.
            try seek(to: t)
        } else if let current = shown, t + Self.tolerance < current.time {
            try seek(to: t)
        } else if let current = shown, !atEnd, t - current.time > Self.seekAhead,
                  next.map({ t - $0.time > Self.seekAhead }) ?? true {
            try seek(to: t)
        }
        if shown == nil {
            guard let first = try decode() else {
                throw FFmpegError(code: FFmpegError.invalidData, operation: "ClipPlayer \(path)",
                                  message: "no picture decoded")
            }
            shown = first
            picture = nil
            next = try decode()
        }
        while let upcoming = next, upcoming.time <= t + Self.tolerance {
            shown = upcoming
            picture = nil
            next = try decode()
        }
        if let picture { return picture }
        let made = try makePicture(shown!.frame)
        picture = made
        return made
    }

    /// Starts again from the last key frame at or before `t`; the file is opened again if it cannot seek.
    private func seek(to t: Double) throws {
        seeks += 1
        shown = nil
        next = nil
        picture = nil
        atEnd = false
        do {
            try reader.seek(to: t)
        } catch {
            reader = try VideoReader(path: path, threads: Self.decoderThreads)
        }
        // Frames before the time asked for are passed over (a seek lands on the key frame before it).
        guard var first = try decode() else { return }
        while let following = try decode() {
            if following.time > t + Self.tolerance {
                shown = first
                next = following
                return
            }
            first = following
        }
        shown = first
    }

    /// The next frame and its time (nil at the end of the file).
    private func decode() throws -> (frame: Frame, time: Double)? {
        guard !atEnd else { return nil }
        while let frame = try reader.nextFrame() {
            framesDecoded += 1
            // A frame without a timestamp follows the one before it by a frame's time.
            let rate = info.frameRate.isValid ? info.frameRate.doubleValue : 25
            let time = reader.seconds(of: frame) ?? ((next ?? shown).map { $0.time + 1 / rate } ?? 0)
            return (frame, time)
        }
        atEnd = true
        return nil
    }

    private func makePicture(_ frame: Frame) throws -> BGRAImage {
        let turned = quarterTurns % 2 == 1
        let destination = try scaled ?? Frame(width: turned ? height : width, height: turned ? width : height, pixelFormat: .bgra)
        scaled = destination
        try destination.makeWritable()
        try scaler.scale(frame, into: destination)
        var image = try BGRAImage(bgraFrame: destination)
        // swscale makes a picture without alpha opaque; a source with alpha is made so here.
        if frame.pixelFormat.hasAlpha { image.makeOpaque() }
        return quarterTurns == 0 ? image : image.turned(quarterTurns)
    }
}

extension BGRAImage {
    /// Sets every pixel's alpha to 255 (a video's pictures are opaque).
    mutating func makeOpaque() {
        let (width, height, stride) = (self.width, self.height, self.stride)
        pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                var i = y * stride + 3
                for _ in 0..<width {
                    p[i] = 255
                    i += 4
                }
            }
        }
    }

    /// The picture turned clockwise by `quarters` quarter turns, tightly packed.
    public func turned(_ quarters: Int) -> BGRAImage {
        let q = ((quarters % 4) + 4) % 4
        guard q != 0 else { return self }
        let w = q == 2 ? width : height, h = q == 2 ? height : width
        var out = BGRAImage(width: w, height: h)
        let source = pixels
        out.pixels.withUnsafeMutableBufferPointer { o in
            source.withUnsafeBufferPointer { s in
                for y in 0..<height {
                    for x in 0..<width {
                        // Clockwise: (x, y) goes to (h - 1 - y, x) for a quarter turn.
                        let (dx, dy): (Int, Int)
                        switch q {
                        case 1: (dx, dy) = (height - 1 - y, x)
                        case 2: (dx, dy) = (width - 1 - x, height - 1 - y)
                        default: (dx, dy) = (y, width - 1 - x)
                        }
                        let si = y * stride + x * 4, di = dy * w * 4 + dx * 4
                        o[di] = s[si]; o[di + 1] = s[si + 1]; o[di + 2] = s[si + 2]; o[di + 3] = s[si + 3]
                    }
                }
            }
        }
        return out
    }
}
