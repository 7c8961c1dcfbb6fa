import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import Pango

/// The distance travelled so far, counting up during flights, in the top-left of the safe area, in
/// the trip's own unit: metres for a walk of under a kilometre, tenths of a kilometre under ten,
/// whole kilometres beyond (chosen once for the whole trip, so the counter never changes unit).
public final class DistanceOverlay: OverlayFastPaths {
    private let text = TextCache()
    private let pictures = Sprites(limitBytes: 1 << 20)

    public init() {}

    /// How a trip's counter reads, chosen from its whole length.
    public enum Unit: Equatable, Sendable {
        /// `850 m`: metres, in steps of ten.
        case metres
        /// `2.4 km`: tenths of a kilometre.
        case tenths
        /// `1,234 km`: whole kilometres, grouped by thousands.
        case kilometres

        public init(tripKm: Double) {
            self = tripKm < 1 ? .metres : tripKm < 10 ? .tenths : .kilometres
        }
    }

    /// The counter's text for `km` travelled (counted down to its unit's step: it never runs ahead).
    public static func format(_ km: Double, unit: Unit = .kilometres) -> String {
        switch unit {
        case .metres: return "\(Int((km * 100).rounded(.down)) * 10) m"
        case .tenths:
            let tenths = Int((km * 10).rounded(.down))
            return "\(tenths / 10).\(tenths % 10) km"
        case .kilometres:
            return grouped(Int(km.rounded(.down))) + " km"
        }
    }

    /// A whole number with its thousands grouped by commas (`40,075`).
    static func grouped(_ n: Int) -> String {
        var digits = String(n), out = ""
        while digits.count > 3 {
            out = "," + digits.suffix(3) + out
            digits.removeLast(3)
        }
        return digits + out
    }

    /// Tabular figures: every digit as wide as the others.
    public static let fontFeatures = "tnum"

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        try marks(frame)?.forEach { $0.paint(in: cr) }
    }

    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        guard let km = frame.values.distanceKm, frame.values.readoutOpacity > 0 else { return [] }
        let unit = Unit(tripKm: frame.routes.reduce(0) { $0 + ($1?.lengthKm ?? 0) })
        let (x, y) = frame.layout.counterOrigin(clearOf: frame.presenterBox)
        let words = Self.format(km, unit: unit)
        let card = try ReadoutCard.card(words, text: text, frame: frame)
        return [try ReadoutCard.mark(card, text: text, pictures: pictures, frame: frame, left: x, top: y,
                                     alpha: frame.values.readoutOpacity)]
    }
}
