import CFFmpeg

/// Owns a SwsContext (libswscale): converts a frame to another pixel format and/or size. The context is
/// rebuilt only when the input or output geometry changes (sws_getCachedContext).
/// YUV input is read with the matrix and range the frame is tagged with (BT.601 when untagged).
public final class Scaler {
    private var context: OpaquePointer?
    /// SWS_* flags.
    public let flags: Int32

    /// The default: bilinear, accurate rounding, full chroma interpolation (quality over speed).
    public static let accurateFlags = Int32(SWS_BILINEAR | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT)

    public init(flags: Int32 = Scaler.accurateFlags) {
        self.flags = flags
    }

    deinit { sws_freeContext(context) }

    /// Converts `source` into `destination`, whose buffers must be allocated (size and format are taken
    /// from it).
    public func scale(_ source: Frame, into destination: Frame) throws {
        let what = "sws_scale \(source.width)x\(source.height) \(source.pixelFormat.name) -> "
            + "\(destination.width)x\(destination.height) \(destination.pixelFormat.name)"
        guard source.width > 0, source.height > 0, source.data(plane: 0) != nil,
              destination.width > 0, destination.height > 0, destination.data(plane: 0) != nil else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what, message: "empty frame")
        }
        // yuvj* formats are yuv* in full range; naming them so keeps swscale from warning.
        var sourceFormat = source.pixelFormat
        var fullRange: Bool? = nil
        if let plain = Scaler.jpegFormats[sourceFormat] {
            sourceFormat = plain
            fullRange = true
        }
        let tags = source.colorTags
        if tags.range == Int32(AVCOL_RANGE_JPEG.rawValue) { fullRange = true }
        if tags.range == Int32(AVCOL_RANGE_MPEG.rawValue) { fullRange = false }

        guard let context = sws_getCachedContext(
            self.context, Int32(source.width), Int32(source.height), sourceFormat.av,
            Int32(destination.width), Int32(destination.height), destination.pixelFormat.av,
            flags, nil, nil, nil)
        else {
            self.context = nil
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what,
                              message: "conversion not supported")
        }
        self.context = context

        if !Self.isRGB(sourceFormat.av) {
            // YUV in: the source's matrix and range (the current details read back, then set).
            Self.updateDetails(context) { d in
                let space = tags.space == Int32(AVCOL_SPC_UNSPECIFIED.rawValue) ? SWS_CS_DEFAULT : tags.space
                d.invTable = sws_getCoefficients(space)
                d.srcRange = fullRange.map { $0 ? Int32(1) : 0 } ?? d.srcRange
            }
        } else if !Self.isRGB(destination.pixelFormat.av), destination.colorTags.space != Int32(AVCOL_SPC_UNSPECIFIED.rawValue) {
            // RGB into YUV: the destination's matrix, as its tags say (BT.709 for an HD frame).
            Self.updateDetails(context) { d in
                d.table = sws_getCoefficients(destination.colorTags.space)
                d.dstRange = destination.colorTags.range == Int32(AVCOL_RANGE_JPEG.rawValue) ? 1 : 0
            }
        }

        let status = sws_scale(context, maptrip_frame_const_data(source.pointer),
                               maptrip_frame_linesizes(source.pointer), 0, Int32(source.height),
                               maptrip_frame_data_array(destination.pointer),
                               maptrip_frame_linesizes(destination.pointer))
        try FFmpegError.check(status, what)
    }

    private static func isRGB(_ format: AVPixelFormat) -> Bool {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
        return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
    }

    /// sws_getColorspaceDetails' values: the matrices (source's inverse, destination's) and ranges.
    private struct Details {
        var invTable: UnsafePointer<Int32>, srcRange: Int32, table: UnsafePointer<Int32>, dstRange: Int32
        var brightness: Int32, contrast: Int32, saturation: Int32
    }

    /// Reads the context's colour details, lets `change` edit them, and sets them (nothing when they
    /// cannot be read).
    private static func updateDetails(_ context: OpaquePointer, _ change: (inout Details) -> Void) {
        var invTable: UnsafeMutablePointer<Int32>? = nil, table: UnsafeMutablePointer<Int32>? = nil
        var srcRange: Int32 = 0, dstRange: Int32 = 0, brightness: Int32 = 0, contrast: Int32 = 0, saturation: Int32 = 0
        guard sws_getColorspaceDetails(context, &invTable, &srcRange, &table, &dstRange, &brightness, &contrast,
                                       &saturation) >= 0, let invTable, let table else { return }
        var d = Details(invTable: UnsafePointer(invTable), srcRange: srcRange, table: UnsafePointer(table),
                        dstRange: dstRange, brightness: brightness, contrast: contrast, saturation: saturation)
        change(&d)
        _ = sws_setColorspaceDetails(context, d.invTable, d.srcRange, d.table, d.dstRange, d.brightness, d.contrast,
                                     d.saturation)
    }

    /// The frame converted to BGRA at its own size.
    public func bgraImage(from source: Frame) throws -> BGRAImage {
        if source.pixelFormat == .bgra { return try BGRAImage(bgraFrame: source) }
        let destination = try Frame(width: source.width, height: source.height, pixelFormat: .bgra)
        try scale(source, into: destination)
        return try BGRAImage(bgraFrame: destination)
    }

    private static let jpegFormats: [PixelFormat: PixelFormat] = [
        PixelFormat(AV_PIX_FMT_YUVJ420P): .yuv420p,
        PixelFormat(AV_PIX_FMT_YUVJ422P): .yuv422p,
        PixelFormat(AV_PIX_FMT_YUVJ444P): .yuv444p,
        PixelFormat(AV_PIX_FMT_YUVJ440P): PixelFormat(AV_PIX_FMT_YUV440P),
        PixelFormat(AV_PIX_FMT_YUVJ411P): PixelFormat(AV_PIX_FMT_YUV411P),
    ]
}
