import CFFmpeg

/// Owns an AVFrame: a picture (or later, audio samples) plus its reference-counted buffers.
///
/// Reuse: an encoder may keep a reference to a frame's buffers after `send` returns (codec delay, frame
/// threading). Before writing new pixels into a frame that has been sent, call `makeWritable()`: it gives
/// the frame buffers of its own (copying only if they are still shared), so the encoder's reference keeps
/// the old picture. Sending the same, unchanged frame again with a new pts needs no such call.
public final class Frame {
    public let pointer: UnsafeMutablePointer<AVFrame>

    /// An empty frame (no buffers): for decoders to fill.
    public init() throws {
        guard let frame = av_frame_alloc() else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "av_frame_alloc")
        }
        pointer = frame
    }

    /// A picture of the given size and format with buffers allocated (av_frame_get_buffer).
    /// `align` 0 lets FFmpeg choose the alignment for the CPU.
    public convenience init(width: Int, height: Int, pixelFormat: PixelFormat, align: Int = 0) throws {
        try self.init()
        try allocateBuffers(width: width, height: height, pixelFormat: pixelFormat, align: align)
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    /// Drops the current buffers, then allocates new ones for a picture (av_frame_get_buffer).
    public func allocateBuffers(width: Int, height: Int, pixelFormat: PixelFormat, align: Int = 0) throws {
        let what = "av_frame_get_buffer \(width)x\(height) \(pixelFormat.name)"
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max), pixelFormat != .unknown else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what)
        }
        av_frame_unref(pointer)
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        pointer.pointee.format = pixelFormat.rawValue
        try FFmpegError.check(av_frame_get_buffer(pointer, Int32(align)), what)
    }

    /// A new Frame sharing this one's buffers (av_frame_ref): neither is writable until `makeWritable()`.
    public func makeReference() throws -> Frame {
        let other = try Frame()
        try FFmpegError.check(av_frame_ref(other.pointer, pointer), "av_frame_ref")
        return other
    }

    /// Drops the buffers and resets all fields (av_frame_unref).
    public func unref() { av_frame_unref(pointer) }

    public var width: Int { Int(pointer.pointee.width) }
    public var height: Int { Int(pointer.pointee.height) }
    public var pixelFormat: PixelFormat { PixelFormat(rawValue: pointer.pointee.format) }

    /// Bytes of the picture's planes, rows packed (av_image_get_buffer_size); 0 without a picture.
    public var pictureBytes: Int {
        guard width > 0, height > 0, pixelFormat != .unknown else { return 0 }
        return max(0, Int(av_image_get_buffer_size(AVPixelFormat(rawValue: pointer.pointee.format),
                                                   pointer.pointee.width, pointer.pointee.height, 1)))
    }

    /// Presentation timestamp in the time base of whoever consumes the frame; nil for AV_NOPTS_VALUE.
    public var pts: Int64? {
        get { pointer.pointee.pts == maptrip_av_nopts_value() ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? maptrip_av_nopts_value() }
    }

    /// The best-effort timestamp a decoder gives (nil when unknown).
    public var bestEffortTimestamp: Int64? {
        let value = pointer.pointee.best_effort_timestamp
        return value == maptrip_av_nopts_value() ? nil : value
    }

    public var colorTags: ColorTags {
        get { ColorTags(frame: pointer) }
        set { newValue.apply(to: pointer) }
    }

    public var isKeyFrame: Bool { pointer.pointee.key_frame != 0 }

    /// Plane `index` (0..<8); nil when the format has fewer planes or no buffers are allocated.
    public func data(plane index: Int) -> UnsafeMutablePointer<UInt8>? {
        maptrip_frame_data(pointer, Int32(index))
    }

    /// Bytes per row of plane `index` (may exceed the visible width; may be negative for flipped pictures).
    public func linesize(plane index: Int) -> Int {
        Int(maptrip_frame_linesize(pointer, Int32(index)))
    }

    /// True when the frame's buffers are not shared with anyone (av_frame_is_writable).
    public var isWritable: Bool { av_frame_is_writable(pointer) != 0 }

    /// Makes sure the buffers are the frame's own, copying the picture if another reference (an encoder)
    /// still holds them (av_frame_make_writable). Call before writing into a frame that was sent.
    public func makeWritable() throws {
        try FFmpegError.check(av_frame_make_writable(pointer), "av_frame_make_writable")
    }
}
