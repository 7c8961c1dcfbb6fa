import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import Pango

/// Kilometres travelled so far, counting up during flights, in the top-left of the safe area.
public final class DistanceOverlay: Overlay {
    private let text = TextCache()

    public init() {}

    /// `1,234 km`: whole kilometres, grouped by thousands.
    public static func format(_ km: Double) -> String {
        let n = Int(km.rounded(.down))
        var digits = String(n), out = ""
        while digits.count > 3 {
            out = "," + digits.suffix(3) + out
            digits.removeLast(3)
        }
        return digits + out + " km"
    }

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        guard let km = frame.values.distanceKm else { return }
        let layout = frame.layout, card = frame.scene.style.caption
        let style = TextStyle(family: frame.scene.style.font + " Mono", weight: "Bold", size: card.size * 0.85,
                              color: card.color, haloWidth: 0)
        let l = try text.layout(Self.format(km), style, scale: layout.unit, in: cr)
        let counter = TextCard([(l, style)], padX: layout.size(20), padY: layout.size(12), radius: layout.size(10))
        let (x, y) = layout.counterOrigin
        counter.draw(centerX: x + counter.width / 2, top: y, background: card.background, unit: layout.unit, text: text,
                     in: cr)
    }
}
