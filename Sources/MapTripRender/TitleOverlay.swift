import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Pango

/// The title card at the top of the opening shot (fading as the trip begins) and the end card over
/// the last place's rest (fading in).
public final class TitleOverlay: Overlay {
    private let text = TextCache()
    /// How much larger the title card is in a scene with an opening.
    static let openingScale = 1.4

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        let layout = frame.layout, card = frame.scene.style.card
        for value in frame.values.cards {
            switch value.cue {
            case .title:
                guard let title = frame.scene.title, !title.isEmpty else { continue }
                // With an opening, a real title card (larger type, roomier), fading in over the
                // establishing shot; without one, the small card of old.
                let k = frame.scene.opening ? Self.openingScale : 1
                let style = TextStyle(family: frame.scene.style.font, weight: "Bold", size: card.size * k,
                                      color: card.color, haloWidth: 0)
                let l = try text.layout(title, style, scale: layout.unit, width: layout.textWidth * (k > 1 ? 0.8 : 0.9), in: cr)
                TextCard([(l, style)], padX: layout.size(36 * k * k), padY: layout.size(22 * k), gap: layout.size(14),
                         radius: layout.size(14 * k))
                    .draw(centerX: layout.width / 2, top: layout.titleTop, background: card.background,
                          alpha: value.opacity, unit: layout.unit, text: text, in: cr)
            case .end:
                guard let end = frame.scene.end else { continue }
                let titleStyle = TextStyle(family: frame.scene.style.font, weight: "Bold", size: card.size * 1.15,
                                           color: card.color, haloWidth: 0)
                var lines = [(try text.layout(end.title, titleStyle, scale: layout.unit, width: layout.textWidth * 0.9,
                                              in: cr), titleStyle)]
                if let subtitle = end.subtitle, !subtitle.isEmpty {
                    let subStyle = TextStyle(family: frame.scene.style.font, weight: "Regular", size: card.size * 0.55,
                                             color: card.color, haloWidth: 0)
                    lines.append((try text.layout(subtitle, subStyle, scale: layout.unit, width: layout.textWidth * 0.9,
                                                  in: cr), subStyle))
                }
                let endCard = TextCard(lines, padX: layout.size(36), padY: layout.size(22), gap: layout.size(14),
                                       radius: layout.size(14))
                // Below the frame's centre, where the camera holds the last place and its pin.
                endCard.draw(centerX: layout.width / 2, top: min(layout.height * SafeArea.endCardTop, layout.safe.maxY - endCard.height),
                             background: card.background, alpha: value.opacity, unit: layout.unit, text: text, in: cr)
            default:
                continue
            }
        }
    }

}

/// Lines of text centred on a rounded card, sized by their ink: the title, end, caption and counter
/// cards all look this way.
struct TextCard {
    let lines: [(Pango.Layout, TextStyle)]
    let padX: Double, padY: Double, gap: Double, radius: Double

    init(_ lines: [(Pango.Layout, TextStyle)], padX: Double, padY: Double, gap: Double = 0, radius: Double) {
        self.lines = lines
        self.padX = padX
        self.padY = padY
        self.gap = gap
        self.radius = radius
    }

    var width: Double { (lines.map { $0.0.inkRect.width }.max() ?? 0) + 2 * padX }
    var height: Double {
        lines.reduce(2 * padY) { $0 + $1.0.inkRect.height } + Double(max(0, lines.count - 1)) * gap
    }

    /// Draws the card with its top edge at `top`, centred on `centerX`; `alpha` fades card and text.
    func draw(centerX: Double, top: Double, background: Color, alpha: Double = 1, unit: Double, text: TextCache,
              in cr: Context) {
        cr.save()
        cr.roundedRectangle(centerX - width / 2, top, width, height, radius: radius)
        cr.setSource(background.withAlpha(background.alpha * alpha))
        cr.fill()
        var y = top + padY
        for (l, style) in lines {
            let ink = l.inkRect
            // A layout is centred in its own width; place its ink box centred on the card.
            text.draw(l, style, x: centerX - ink.width / 2 - ink.x, y: y - ink.y, scale: unit, alpha: alpha, in: cr)
            y += ink.height + gap
        }
        cr.restore()
    }
}
