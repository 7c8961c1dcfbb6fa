import CFFmpeg

/// Owns an AVDictionary of string options, the way FFmpeg's open functions take them. Those functions
/// replace the dictionary with the entries they did not use; `entries` then lists the leftovers.
final class OptionDictionary {
    var pointer: OpaquePointer?

    init(_ options: [String: String], for operation: String) throws {
        for key in options.keys.sorted() {
            let status = av_dict_set(&pointer, key, options[key], 0)
            if status < 0 {
                av_dict_free(&pointer)
                throw FFmpegError(code: status, operation: "\(operation): av_dict_set \(key)")
            }
        }
    }

    deinit { av_dict_free(&pointer) }

    var entries: [String: String] { MediaInfo.dictionary(pointer) }

    /// Throws when an open function left options unused (a typo, or an option the codec or format lacks).
    func throwIfUnused(_ operation: String) throws {
        let unused = entries
        guard !unused.isEmpty else { return }
        let list = unused.keys.sorted().map { "\($0)=\(unused[$0]!)" }.joined(separator: ", ")
        throw FFmpegError(code: FFmpegError.optionNotFound, operation: operation,
                          message: "option not recognised: \(list)")
    }
}
