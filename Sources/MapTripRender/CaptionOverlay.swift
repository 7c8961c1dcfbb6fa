import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import Pango

/// A lower-third card with a place's caption while the camera rests there.
public final class CaptionOverlay: OverlayFastPaths {
    private let text = TextCache()
    /// The cards' pictures (`TextCard.mark`): a caption or two at their phases.
    private let pictures = Sprites(limitBytes: 8 << 20)

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        try marks(frame)?.forEach { $0.paint(in: cr) }
    }

    /// Each caption shown, as a picture faded as one (`TextCard.mark`).
    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        let layout = frame.layout, card = frame.scene.style.caption
        var out: [Mark] = []
        for value in frame.values.cards where value.opacity > 0 {
            guard case .caption(let i) = value.cue, let caption = frame.scene.places[i].caption, !caption.isEmpty else {
                continue
            }
            var style = TextStyle(family: frame.scene.style.font, weight: "Semi-Bold", size: card.size,
                                  color: card.color, haloWidth: 0)
            let padX = layout.size(28), padY = layout.size(16)
            let place = layout.captionPlacement(clearOf: frame.cornerBoxes)
            let wrap = place.width - 2 * padX, tallest = layout.safe.maxY - layout.safe.minY - 2 * padY
            var l = try text.layout(caption, style, scale: layout.unit, width: wrap)
            // Pango wraps at word boundaries only: a word longer than a line (a long compound, a long
            // name) runs past the card's sides and out of the frame, and a very long caption grows
            // above the safe area. Such a caption's text is made smaller until the card fits.
            for _ in 0..<4 {
                let ink = l.inkRect
                // (Ink may overhang a wrapped line's logical width by a hair; that is no overflow.)
                guard ink.width > wrap + layout.size(2) || ink.height > tallest else { break }
                style.size *= min(wrap / ink.width, tallest / ink.height, 1) * 0.97
                l = try text.layout(caption, style, scale: layout.unit, width: wrap)
            }
            let captionCard = TextCard([(l, style)], padX: padX, padY: padY, radius: layout.size(12))
            out.append(try captionCard.mark(pictures: pictures, centerX: layout.width / 2, top: place.bottom - captionCard.height,
                                            background: card.background, alpha: value.opacity, unit: layout.unit, text: text))
        }
        return out
    }
}
