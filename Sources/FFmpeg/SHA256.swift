import CFFmpeg
import Foundation

/// SHA-256 from libavutil (`av_sha`): a running digest over bytes, for content hashes.
/// Not thread-safe: one instance per thread.
public final class SHA256 {
    private let context: OpaquePointer

    public init() throws {
        guard let ctx = av_sha_alloc() else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "av_sha_alloc")
        }
        context = ctx
        av_sha_init(ctx, 256)
    }

    deinit {
        av_free(UnsafeMutableRawPointer(context))
    }

    public func update(_ data: Data) {
        data.withUnsafeBytes { raw in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return }
            av_sha_update(context, base, raw.count)
        }
    }

    public func update(_ text: String) { update(Data(text.utf8)) }

    /// The digest as 64 lowercase hexadecimal digits. The object is spent afterwards.
    public func finalHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        av_sha_final(context, &digest)
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    /// The SHA-256 of some bytes, in hexadecimal.
    public static func hex(_ data: Data) throws -> String {
        let h = try SHA256()
        h.update(data)
        return h.finalHex()
    }
}
