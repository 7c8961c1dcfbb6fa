import Foundation
import Testing
import MapTripScene
import MapTripSupport

/// The one diagnostic type: its one-line forms, and every error's conversion to it.
struct DiagnosticTests {
    @Test func describesEachPartThatIsKnown() {
        let full = Diagnostic(message: "latitude 95 is outside [-90, 90]", file: "trip.json", line: 4, column: 27,
                              path: "places[1].lat", hint: "are lat and lon swapped?")
        #expect(full.description == "trip.json:4:27: places[1].lat: latitude 95 is outside [-90, 90] (are lat and lon swapped?)")
        #expect(full.listed == full.description)
        var warning = full
        warning.severity = .warning
        #expect(warning.listed == "trip.json:4:27: warning: places[1].lat: latitude 95 is outside [-90, 90] (are lat and lon swapped?)")
        #expect(Diagnostic(message: "no such file", file: "a.mp4").description == "a.mp4: no such file")
        #expect(Diagnostic.error("bad", hint: "see 'maptrip render --help'").description == "bad (see 'maptrip render --help')")
        #expect(Diagnostic.warning("odd").description == "odd")
        #expect(Diagnostic.warning("odd").listed == "warning: odd")
    }

    @Test func sceneErrorsKeepTheirPositionPathAndHint() {
        let positioned = SceneError(file: "t.json", line: 3, column: 3, path: "dwel", message: "unknown key 'dwel'",
                                    hint: "did you mean 'dwell'?")
        let unread = SceneError(file: "gone.json", line: 0, column: 0, path: "", message: "no such file")
        #expect(positioned.diagnostic() == Diagnostic(message: "unknown key 'dwel'", file: "t.json", line: 3, column: 3,
                                                      path: "dwel", hint: "did you mean 'dwell'?"))
        #expect(unread.diagnostic(.warning) == Diagnostic(.warning, message: "no such file", file: "gone.json"))
        #expect(positioned.description == "t.json:3:3: dwel: unknown key 'dwel' (did you mean 'dwell'?)")
        #expect(unread.description == "gone.json: no such file")
        let both = SceneErrors([positioned, unread])
        #expect(Diagnostic.from(both) == [positioned.diagnostic(), unread.diagnostic()])
        #expect(Diagnostic.from(both).map(\.description) == both.errors.map(\.description))
    }

    struct Plain: Error, CustomStringConvertible {
        var description: String { "plain words" }
    }

    struct Localized: LocalizedError, CustomStringConvertible {
        var description: String { "not these" }
        var errorDescription: String? { "localized words" }
    }

    struct Adopted: Error, CustomStringConvertible, DiagnosticConvertible {
        var description: String { "adopted words" }
    }

    @Test func anyErrorConvertsByItsMessage() {
        #expect(Diagnostic.from(Plain()) == [.error("plain words")])
        #expect(Diagnostic.from(Localized()) == [.error("localized words")])
        #expect(Adopted().diagnostics == [.error("adopted words")])
        #expect(Diagnostic.from(Adopted()) == [.error("adopted words")])
    }
}
