import Foundation
import MapTripSupport

/// Why an output cannot be written as asked: found before the first frame is drawn, one line with
/// what is wrong and how to fix it.
public enum OutputError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError, DiagnosticConvertible {
    /// The output is the scene file.
    case wouldOverwriteScene(String)
    /// The output is a file the scene names.
    case wouldOverwriteInput(output: String, input: String)
    case isDirectory(String)
    case cannotCreateFolder(String, reason: String)
    case unknownExtension(String)
    case noExtension(String)
    case codecNotInFormat(codec: String, format: String, allowed: [String])
    case unknownCodec(String)
    case unknownFormat(String)
    case optionDoesNotApply(String, codec: String, help: String)
    case invalidOption(String)
    case noAlpha(codec: String)
    case needsSeekableTarget(format: String, target: String)
    case notWritable(String, reason: String)

    public var description: String {
        switch self {
        case .wouldOverwriteScene(let output):
            return "output \(output) is the scene file; it would be overwritten (name the video, e.g. "
                + "\(((output as NSString).deletingPathExtension as NSString).lastPathComponent).mp4)"
        case .wouldOverwriteInput(let output, let input):
            return "output \(output) is the scene's input \(input); it would be overwritten (choose another output)"
        case .isDirectory(let path):
            return "output \(path) is a folder; name a file in it, e.g. \(Self.join(path, "trip.mp4"))"
        case .cannotCreateFolder(let path, let reason):
            return "cannot create the output's folder \(path): \(reason)"
        case .unknownExtension(let path):
            let ext = (path as NSString).pathExtension
            return "output \(path): maptrip does not write .\(ext) files; it writes \(Self.formatList)"
        case .noExtension(let path):
            return "output \(path) has no extension to choose a format by; add one or pass --format "
                + "(maptrip writes \(Self.formatList))"
        case .codecNotInFormat(let codec, let format, let allowed):
            return "--codec \(codec) cannot go in .\(format); .\(format) takes \(allowed.joined(separator: " or "))"
        case .unknownCodec(let name):
            return "unknown --codec '\(name)'; use one of \(VideoCodec.allCases.map(\.rawValue).joined(separator: ", "))"
        case .unknownFormat(let name):
            return "unknown --format '\(name)'; use one of "
                + ContainerFormat.allCases.map(\.rawValue).joined(separator: ", ")
        case .optionDoesNotApply(let option, let codec, let help):
            return "\(option) does not apply to \(codec). \(help)"
        case .invalidOption(let message):
            return message
        case .noAlpha(let codec):
            return "\(codec) cannot carry transparency; write .mov (ProRes 4444), .webm (VP9), .gif or a "
                + "PNG sequence (name_%05d.png)"
        case .needsSeekableTarget(let format, let target):
            return "\(target) cannot seek, and \(format) needs to; write a file, or stream .ts, .webm or "
                + "fragmented .mp4 (--format mp4)"
        case .notWritable(let path, let reason):
            return "cannot write \(path): \(reason)"
        }
    }

    public var errorDescription: String? { description }

    static let formatList = ".mp4 (H.264, HEVC), .webm (VP9, AV1), .mov (ProRes 4444, H.264), .gif and PNG "
        + "sequences (name_%05d.png)"

    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}
