import Foundation

/// Decodes a picture the scene names, for the damage its first bytes cannot show (a JPEG cut short,
/// a PNG whose data ends after its header): the loader asks, so `validate` and a render's start say
/// what is wrong where the scene names the file.
public protocol ImageChecking: Sendable {
    /// What is wrong with the picture at `url` and what to do about it, or nil when it decodes whole.
    func problem(with url: URL) -> (message: String, hint: String?)?
    /// What the video at `url` holds (its first picture decoded), or what is wrong with it; nil: videos
    /// are not checked here (the render opens them before its first frame).
    func video(at url: URL) -> VideoCheck?
}

extension ImageChecking {
    public func video(at url: URL) -> VideoCheck? { nil }
}

/// A video a scene names, as its check found it.
public enum VideoCheck: Equatable, Sendable {
    case facts(VideoFacts)
    case problem(message: String, hint: String?)
}

/// Reads a MapLibre GL style the scene names (`map.style`), so that `validate` and a render's start
/// say what is wrong with it where the scene names it: each message says where in the style file.
public protocol StyleChecking: Sendable {
    func problems(with url: URL) -> (errors: [(message: String, hint: String?)], warnings: [(message: String, hint: String?)])
}

/// The picture formats a scene may name (photos, vehicle images), told apart by their first bytes.
public enum ImageKind: String, Sendable {
    case png, jpeg, webp

    /// The kind whose signature `head` starts with (at least 12 bytes for WebP), or nil.
    public init?(magic head: Data) {
        let b = [UInt8](head.prefix(12))
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { self = .png }
        else if b.starts(with: [0xFF, 0xD8, 0xFF]) { self = .jpeg }
        else if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) { self = .webp }
        else { return nil }
    }
}
