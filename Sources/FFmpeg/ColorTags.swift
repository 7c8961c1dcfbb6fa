import CFFmpeg

/// The colour description written into (and read from) a video stream: matrix, range, primaries, transfer.
/// The tags only describe the pixels; they must match the RGB->YUV converter that produced them.
public struct ColorTags: Hashable, Sendable, CustomStringConvertible {
    /// AVColorSpace: the YUV matrix.
    public var space: Int32
    /// AVColorRange: limited ("tv", MPEG) or full ("pc", JPEG).
    public var range: Int32
    /// AVColorPrimaries.
    public var primaries: Int32
    /// AVColorTransferCharacteristic.
    public var transfer: Int32

    /// What libyuv's ARGBToI420 produces: the BT.601 matrix (SMPTE 170M) in limited range, tagged with BT.709
    /// primaries and transfer (sRGB-like content on HD displays).
    public static let bt601Limited = ColorTags(
        space: Int32(AVCOL_SPC_SMPTE170M.rawValue), range: Int32(AVCOL_RANGE_MPEG.rawValue),
        primaries: Int32(AVCOL_PRI_BT709.rawValue), transfer: Int32(AVCOL_TRC_BT709.rawValue))

    /// BT.709 matrix, limited range.
    public static let bt709Limited = ColorTags(
        space: Int32(AVCOL_SPC_BT709.rawValue), range: Int32(AVCOL_RANGE_MPEG.rawValue),
        primaries: Int32(AVCOL_PRI_BT709.rawValue), transfer: Int32(AVCOL_TRC_BT709.rawValue))

    /// Nothing said.
    public static let unspecified = ColorTags(
        space: Int32(AVCOL_SPC_UNSPECIFIED.rawValue), range: Int32(AVCOL_RANGE_UNSPECIFIED.rawValue),
        primaries: Int32(AVCOL_PRI_UNSPECIFIED.rawValue), transfer: Int32(AVCOL_TRC_UNSPECIFIED.rawValue))

    /// FFmpeg's names, e.g. `smpte170m`, `tv`, `bt709`, `bt709`.
    public var spaceName: String { Self.name(av_color_space_name(AVColorSpace(UInt32(bitPattern: space)))) }
    public var rangeName: String { Self.name(av_color_range_name(AVColorRange(UInt32(bitPattern: range)))) }
    public var primariesName: String {
        Self.name(av_color_primaries_name(AVColorPrimaries(UInt32(bitPattern: primaries))))
    }
    public var transferName: String {
        Self.name(av_color_transfer_name(AVColorTransferCharacteristic(UInt32(bitPattern: transfer))))
    }

    public var description: String {
        "space=\(spaceName) range=\(rangeName) primaries=\(primariesName) transfer=\(transferName)"
    }

    private static func name(_ cString: UnsafePointer<CChar>?) -> String {
        cString.map { String(cString: $0) } ?? "unknown"
    }
}

extension ColorTags {
    init(frame: UnsafePointer<AVFrame>) {
        self.init(space: Int32(frame.pointee.colorspace.rawValue), range: Int32(frame.pointee.color_range.rawValue),
                  primaries: Int32(frame.pointee.color_primaries.rawValue),
                  transfer: Int32(frame.pointee.color_trc.rawValue))
    }

    init(parameters: UnsafePointer<AVCodecParameters>) {
        self.init(space: Int32(parameters.pointee.color_space.rawValue),
                  range: Int32(parameters.pointee.color_range.rawValue),
                  primaries: Int32(parameters.pointee.color_primaries.rawValue),
                  transfer: Int32(parameters.pointee.color_trc.rawValue))
    }

    func apply(to context: UnsafeMutablePointer<AVCodecContext>) {
        context.pointee.colorspace = AVColorSpace(UInt32(bitPattern: space))
        context.pointee.color_range = AVColorRange(UInt32(bitPattern: range))
        context.pointee.color_primaries = AVColorPrimaries(UInt32(bitPattern: primaries))
        context.pointee.color_trc = AVColorTransferCharacteristic(UInt32(bitPattern: transfer))
    }

    func apply(to frame: UnsafeMutablePointer<AVFrame>) {
        frame.pointee.colorspace = AVColorSpace(UInt32(bitPattern: space))
        frame.pointee.color_range = AVColorRange(UInt32(bitPattern: range))
        frame.pointee.color_primaries = AVColorPrimaries(UInt32(bitPattern: primaries))
        frame.pointee.color_trc = AVColorTransferCharacteristic(UInt32(bitPattern: transfer))
    }
}
