import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Pango

/// The title card at the top of the opening shot (fading as the trip begins) and the end card over
/// the last place's rest (fading in), each a picture drawn once and faded as one (`TextCard.mark`).
public final class TitleOverlay: OverlayFastPaths {
    private let text = TextCache()
    /// The cards' pictures: the title and end cards at their phases (about half a megabyte each at 1080p).
    private let pictures = Sprites(limitBytes: 8 << 20)
    /// How much larger the title card is in a scene with an opening.
    static let openingScale = 1.4

    public init() {}

    /// The scene's title card (nil: no title). With an opening, a real title card (larger type,
    /// roomier), fading in over the establishing shot; without one, the small card of old.
    static func titleCard(_ scene: Scene, layout: FrameLayout, text: TextCache, in cr: Context? = nil) throws -> TextCard? {
        guard let title = scene.title, !title.isEmpty else { return nil }
        let k = scene.opening ? Self.openingScale : 1
        let style = TextStyle(family: scene.style.font, weight: "Bold", size: scene.style.card.size * k,
                              color: scene.style.card.color, haloWidth: 0)
        let l = try text.layout(title, style, scale: layout.unit, width: layout.textWidth * (k > 1 ? 0.8 : 0.9), in: cr)
        return TextCard([(l, style)], padX: layout.size(36 * k * k), padY: layout.size(22 * k), gap: layout.size(14),
                        radius: layout.size(14 * k))
    }

    /// The scene's end card (nil: none): its title and subtitle.
    static func endCard(_ scene: Scene, layout: FrameLayout, text: TextCache, in cr: Context? = nil) throws -> TextCard? {
        guard let end = scene.end else { return nil }
        let card = scene.style.card
        let titleStyle = TextStyle(family: scene.style.font, weight: "Bold", size: card.size * 1.15, color: card.color, haloWidth: 0)
        var lines = [(try text.layout(end.title, titleStyle, scale: layout.unit, width: layout.textWidth * 0.9, in: cr), titleStyle)]
        if let subtitle = end.subtitle, !subtitle.isEmpty {
            let subStyle = TextStyle(family: scene.style.font, weight: "Regular", size: card.size * 0.55, color: card.color, haloWidth: 0)
            lines.append((try text.layout(subtitle, subStyle, scale: layout.unit, width: layout.textWidth * 0.9, in: cr), subStyle))
        }
        return TextCard(lines, padX: layout.size(36), padY: layout.size(22), gap: layout.size(14), radius: layout.size(14))
    }

    /// The end card's top: below the frame's centre, where the camera holds the last place and its pin.
    static func endTop(_ card: TextCard, layout: FrameLayout) -> Double {
        min(layout.height * SafeArea.endCardTop, layout.safe.maxY - card.height)
    }

    /// The box the end card takes (nil: no end card).
    static func endBox(_ scene: Scene, layout: FrameLayout, text: TextCache) throws -> Box? {
        guard let card = try endCard(scene, layout: layout, text: text) else { return nil }
        let top = endTop(card, layout: layout)
        return Box(minX: layout.width / 2 - card.width / 2, minY: top, maxX: layout.width / 2 + card.width / 2, maxY: top + card.height)
    }

    /// The box the title card takes (nil: no title), centred under the top of the safe area.
    static func titleBox(_ scene: Scene, layout: FrameLayout, text: TextCache) throws -> Box? {
        guard let card = try titleCard(scene, layout: layout, text: text) else { return nil }
        return Box(minX: layout.width / 2 - card.width / 2, minY: layout.titleTop,
                   maxX: layout.width / 2 + card.width / 2, maxY: layout.titleTop + card.height)
    }

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        try marks(frame)?.forEach { $0.paint(in: cr) }
    }

    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        let layout = frame.layout, background = frame.scene.style.card.background
        var out: [Mark] = []
        for value in frame.values.cards where value.opacity > 0 {
            switch value.cue {
            case .title:
                guard let card = try Self.titleCard(frame.scene, layout: layout, text: text) else { continue }
                out.append(try card.mark(pictures: pictures, centerX: layout.width / 2, top: layout.titleTop,
                                         background: background, alpha: value.opacity, unit: layout.unit, text: text))
            case .end:
                guard let card = try Self.endCard(frame.scene, layout: layout, text: text) else { continue }
                out.append(try card.mark(pictures: pictures, centerX: layout.width / 2, top: Self.endTop(card, layout: layout),
                                         background: background, alpha: value.opacity, unit: layout.unit, text: text))
            default:
                continue
            }
        }
        return out
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

    /// What names the card's picture: its lines' text and styles, its shape, its background, the unit
    /// and where it falls within a pixel (64ths).
    struct Name: Hashable {
        var texts: [String], styles: [TextStyle], shape: [Double], background: Color, phase: [Int]
    }

    /// The card as a picture (`pictures`: drawn there once, its text at full opacity over its
    /// background) with its top edge at `top`, centred on `centerX`, faded as one by `alpha`: the
    /// same picture painted by preview and by a frame drawn into I420, where replaying a recorded
    /// card each frame was Cairo's paint of the whole card every frame. A card stays where it is
    /// while it shows, so its picture is drawn where it falls within a pixel, its edges where drawing
    /// it there puts them (a card fitted to the safe area stays inside it).
    func mark(pictures: Sprites, centerX: Double, top: Double, background: Color, alpha: Double, unit: Double,
              text: TextCache) throws -> Mark {
        let left = centerX - width / 2
        let x = left.rounded(.down), y = top.rounded(.down)
        let px = Int(((left - x) * 64).rounded()), py = Int(((top - y) * 64).rounded())
        let name = Name(texts: lines.map(\.0.text), styles: lines.map(\.1), shape: [padX, padY, gap, radius, unit, width, height],
                        background: background, phase: [px, py])
        let extent = Box(minX: 0, minY: 0, maxX: width + 1, maxY: height + 1)
        return try pictures.mark(name, x: x, y: y, extent: extent, alpha: alpha) { cr in
            draw(centerX: Double(px) / 64 + width / 2, top: Double(py) / 64, background: background, unit: unit,
                 text: text, in: cr)
        }
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
