import Foundation
import Testing
import TestBasics
@testable import MapTripRender

/// The distance counter's text: the trip's own unit, never ahead of the distance travelled.
@Suite("Distance counter")
struct DistanceCounterTests {
    /// The distance a counter's text says, in kilometres.
    static func kilometres(_ text: String) throws -> Double {
        let parts = text.split(separator: " ")
        try #require(parts.count == 2, "\(text)")
        let number = try #require(Double(parts[0].replacingOccurrences(of: ",", with: "")), "\(text)")
        return parts[1] == "m" ? number / 1000 : number
    }

    @Test("A walk counts metres, a day's ride tenths of a kilometre, a journey whole kilometres")
    func unitFromTheTrip() throws {
        #expect(DistanceOverlay.Unit(tripKm: 0.85) == .metres)
        #expect(DistanceOverlay.Unit(tripKm: 4.2) == .tenths)
        #expect(DistanceOverlay.Unit(tripKm: 12) == .kilometres)
        #expect(DistanceOverlay.format(0.8567, unit: .metres) == "850 m")
        #expect(DistanceOverlay.format(0, unit: .metres) == "0 m")
        #expect(DistanceOverlay.format(2.46, unit: .tenths) == "2.4 km")
        #expect(DistanceOverlay.format(1234.9) == "1,234 km")
    }

    @Test("The text is the distance counted down to its unit's step (2,000 seeded distances a unit)")
    func neverAhead() throws {
        var random = SplitMix64(seed: 58)
        for (unit, range, step) in [(DistanceOverlay.Unit.metres, 0.0..<1.0, 0.01), (.tenths, 0.0..<10.0, 0.1),
                                    (.kilometres, 0.0..<40_000.0, 1.0)] {
            for _ in 0..<2000 {
                let km = Double.random(in: range, using: &random)
                let shown = try Self.kilometres(DistanceOverlay.format(km, unit: unit))
                #expect(shown <= km + 1e-9 && shown > km - step - 1e-9, "\(unit) \(km) -> \(shown)")
            }
        }
    }
}
