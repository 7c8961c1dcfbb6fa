import Foundation
import MapTripSupport

/// A track file maptrip cannot read: which file, where in it (line:column for XML and JSON, the
/// record index for FIT), what is wrong and how to fix it.
public struct TrackError: Error, Equatable, Sendable, CustomStringConvertible, DiagnosticConvertible {
    public var file: String
    public var location: TrackLocation
    public var message: String
    public var hint: String?

    public init(file: String, location: TrackLocation = .none, message: String, hint: String? = nil) {
        self.file = file
        self.location = location
        // Messages quote the file's own text: each is kept to an excerpt.
        self.message = Wording.excerpt(message, limit: 1000)
        self.hint = hint.map { Wording.excerpt($0, limit: 1000) }
    }

    public var diagnostics: [Diagnostic] {
        [Diagnostic(.error, message: message, file: file, line: location.line,
                    column: location.line == nil ? nil : location.column, path: location.recordPath, hint: hint)]
    }

    public var description: String { diagnostics[0].description }
}

/// What a format's reader throws before it knows the file's name: the reader adds it.
struct TrackProblem: Error {
    var location: TrackLocation
    var message: String
    var hint: String?

    init(_ message: String, at location: TrackLocation = .none, hint: String? = nil) {
        self.location = location
        self.message = message
        self.hint = hint
    }

    func error(file: String) -> TrackError { TrackError(file: file, location: location, message: message, hint: hint) }
}
