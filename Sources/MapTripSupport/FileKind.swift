import Foundation

/// What is at a path a scene or an option names, found without opening it: opening a FIFO for
/// reading blocks until a writer comes (and a signal cannot end a thread blocked in open), /dev/zero
/// never ends, a directory is no file. Every file maptrip reads whole is checked with this first.
public enum FileKind: Equatable, Sendable {
    case regular
    case missing
    case directory
    /// A FIFO, a socket or a device (Foundation tells a FIFO only as "unknown").
    case special

    /// The kind of what `path` names, symbolic links followed (stat(2) through FileManager).
    public init(path: String) {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let type = (try? FileManager.default.attributesOfItem(atPath: resolved))?[.type] as? FileAttributeType else {
            self = .missing
            return
        }
        switch type {
        case .typeRegular: self = .regular
        case .typeDirectory: self = .directory
        default: self = .special
        }
    }

    /// Why it is not a file to read, nil for a regular file.
    public var notAFile: String? {
        switch self {
        case .regular: nil
        case .missing: "no such file"
        case .directory: "a directory, not a file"
        case .special: "a special file (a FIFO, a socket or a device), not a regular file"
        }
    }
}
