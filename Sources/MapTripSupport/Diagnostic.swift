import Foundation

/// One problem, as maptrip reports it: how bad (error or warning), what is wrong, where (a file, a
/// line and column in it, a JSON path) and how to fix it. Every module's errors convert to it
/// (`DiagnosticConvertible`, `Diagnostic.from`), and the command line prints nothing else.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable, Equatable {
        case error
        case warning
    }

    public var severity: Severity
    public var message: String
    /// The file the problem is in, or is about (a scene, an input, an output).
    public var file: String?
    /// Line and column in `file`, from 1; nil when the problem has no position in it.
    public var line: Int?
    public var column: Int?
    /// The JSON path of the value at fault, such as `places[1].lat`.
    public var path: String?
    /// How to fix it, when there is a useful hint.
    public var hint: String?

    public init(_ severity: Severity = .error, message: String, file: String? = nil, line: Int? = nil,
                column: Int? = nil, path: String? = nil, hint: String? = nil) {
        self.severity = severity
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.hint = hint
    }

    /// A problem known by its message alone.
    public static func error(_ message: String, hint: String? = nil) -> Diagnostic {
        Diagnostic(.error, message: message, hint: hint)
    }

    public static func warning(_ message: String, hint: String? = nil) -> Diagnostic {
        Diagnostic(.warning, message: message, hint: hint)
    }

    /// `file:line:column: `, `file: ` or nothing: where, as compilers say it.
    public var position: String {
        var s = file.map { "\($0):" } ?? ""
        if let line {
            s += "\(line):"
            if let column { s += "\(column):" }
        }
        return s.isEmpty ? "" : s + " "
    }

    /// `trip.json:7:14: places[1].lat: latitude 95 is outside [-90, 90] (are lat and lon swapped?)`:
    /// each part there when it is known, the severity left to who prints it.
    public var description: String { position + body }

    /// As a list of problems in files gives it (`maptrip validate`): the description, with
    /// `warning: ` after the position for a warning.
    public var listed: String { position + (severity == .warning ? "warning: " : "") + body }

    /// `path: message (hint)`.
    private var body: String {
        var s = path.map { $0.isEmpty ? "" : "\($0): " } ?? ""
        s += message
        if let hint { s += " (\(hint))" }
        return s
    }
}

/// An error that says what it is as diagnostics: one, or several (a scene file's every problem).
/// Any `Error` may adopt it with nothing more: the default is its message, as `Diagnostic.message(of:)`
/// reads it.
public protocol DiagnosticConvertible {
    var diagnostics: [Diagnostic] { get }
}

/// A problem with no structure of its own is thrown as its diagnostic.
extension Diagnostic: Error, DiagnosticConvertible {
    public var diagnostics: [Diagnostic] { [self] }
}

extension DiagnosticConvertible where Self: Error {
    public var diagnostics: [Diagnostic] { [.error(Diagnostic.message(of: self))] }
}

extension Diagnostic {
    /// What any error says: its own diagnostics when it has them, else one error with its message
    /// (the C libraries' wrappers say theirs in their own words).
    public static func from(_ error: any Error) -> [Diagnostic] {
        (error as? DiagnosticConvertible)?.diagnostics ?? [.error(message(of: error))]
    }

    /// An error's message: a `LocalizedError`'s description when it gives one, else its description.
    public static func message(of error: any Error) -> String {
        (error as? LocalizedError)?.errorDescription ?? "\(error)"
    }
}
