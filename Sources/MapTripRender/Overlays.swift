import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Pango

/// Everything an overlay needs to draw one frame: the scene, every track's value at this frame,
/// the viewport, the layout, the base map and the pictures the scene names.
public struct FrameContext {
    public var scene: Scene
    public var values: FrameValues
    public var viewport: Viewport
    public var layout: FrameLayout
    public var baseMap: BaseMap
    /// The line of the leg into place i (nil for place 0).
    public var routes: [RouteLine?]
    public var media: SceneMedia
}

/// A layer drawn over the base map (route, pins and labels, vehicle, cards, credit). It draws the
/// values of its tracks, placed by the frame's layout; the renderer draws its layers in order, and
/// new ones join the list without touching the others.
public protocol Overlay: AnyObject {
    func draw(_ frame: FrameContext, in cr: Context) throws
    /// For an overlay of long thin lines (a route, the graticule): the cells of the frame its ink may
    /// touch on `frame`, found without drawing; nil where it cannot tell (its ink is then recorded and
    /// its bounding box taken). A frame drawn into I420 draws such an overlay straight onto each band
    /// of rows, clipped to its cells there, and blends only those cells: a diagonal line's bounding
    /// box is most of the frame, its cells a few percent of it.
    func inkCells(_ frame: FrameContext) throws -> InkCells?
    /// Draws straight into an I420 picture the pixels `draw` gives on a transparent overlay blended
    /// over it, where the overlay can: the rectangles it drew in (nil: nothing drawn, it cannot). A
    /// frame asks only where nothing is drawn under the overlay yet.
    func drawPlanar(_ frame: FrameContext, into picture: PlanarPicture) throws -> [InkCells.Rect]?
    /// For an overlay of pictures drawn once (labels, pins, the credit): what it paints on `frame`, in
    /// order, as `draw` paints it; nil where it draws otherwise on this frame. A frame drawn into I420
    /// paints each such picture on the bands of rows it meets, and blends only their rectangles,
    /// without recording the overlay first.
    func marks(_ frame: FrameContext) throws -> [Mark]?
    /// What the overlay can make ahead of the frames that draw it (text laid out, pictures drawn once),
    /// in small steps, in the order the trip needs them: those the first frame drawn needs (its values
    /// `first`; nil: every step) made off the drawing thread while a render starts, the others by the
    /// drawing thread while it waits for the encoder (see `FrameRenderer.prepareOverlays`). An overlay
    /// with nothing to make ahead has no steps.
    func preparation(_ scene: Scene, layout: FrameLayout, first: FrameValues?) -> [PreparationStep]
}

/// A piece of an overlay's work made ahead of the frames that need it (see `Overlay.preparation`).
public struct PreparationStep {
    /// Whether the first frame drawn needs it.
    public var forFirstFrame: Bool
    public var make: () throws -> Void

    public init(forFirstFrame: Bool, make: @escaping () throws -> Void) {
        self.forFirstFrame = forFirstFrame
        self.make = make
    }
}

extension Overlay {
    public func inkCells(_ frame: FrameContext) throws -> InkCells? { nil }
    public func drawPlanar(_ frame: FrameContext, into picture: PlanarPicture) throws -> [InkCells.Rect]? { nil }
    public func marks(_ frame: FrameContext) throws -> [Mark]? { nil }
    public func preparation(_ scene: Scene, layout: FrameLayout, first: FrameValues?) -> [PreparationStep] { [] }
}

/// Text styling shared by overlays: Pango font descriptions, sizes in layout units.
public struct TextStyle: Sendable {
    public var family: String
    public var weight: String
    /// Size in layout units (multiplied by the layout's unit).
    public var size: Double
    public var color: Color
    public var halo: Color
    /// Halo width in layout units (0: none).
    public var haloWidth: Double

    public init(family: String = "Noto Sans", weight: String = "Semi-Bold", size: Double, color: Color,
                halo: Color = Color(red: 1, green: 1, blue: 1, alpha: 0.92), haloWidth: Double = 4) {
        self.family = family
        self.weight = weight
        self.size = size
        self.color = color
        self.halo = halo
        self.haloWidth = haloWidth
    }

    func font(scale: Double) throws -> FontDescription {
        let f = try FontDescription("\(family) \(weight)")
        f.setAbsoluteSize(size * scale)
        return f
    }
}

/// Text's one-time set-up: fontconfig reads its configuration and font caches, and the labels' font
/// is found and opened, the first time any text is laid out in the process (5-10 ms). `warmUp` does it
/// now, on the calling thread: a render starts it beside the map's loading and the encoder's opening,
/// and waits for it before drawing, so that the first frame's labels find it done.
public enum TextSetup {
    public static func warmUp(_ style: TextStyle = TextStyle(size: 16, color: Color(red: 0, green: 0, blue: 0, alpha: 1))) {
        guard let surface = try? ImageSurface(width: 8, height: 8), let font = try? style.font(scale: 1) else { return }
        _ = try? surface.withContext { cr in
            let layout = try Layout(context: cr)
            layout.setFont(font)
            layout.text = "Ag"
            _ = layout.inkRect
        }
    }
}

/// Lays out text once per (text, style) and keeps the layouts for the frames that follow: a
/// trip's labels are the same every frame, only their positions move.
final class TextCache {
    /// A font as a style asks for it at a scale.
    private struct FontKey: Hashable {
        var family: String, weight: String, size: Double
    }

    private struct LayoutKey: Hashable {
        var font: FontKey, width: Double?, text: String
    }

    private var layouts: [LayoutKey: Layout] = [:]
    private var fonts: [FontKey: FontDescription] = [:]
    /// A context of an image surface, untransformed, as the frames' are: for laying out text to be
    /// drawn as a picture (a layout is made for a context's font options and transformation).
    private lazy var scratch: Result<Context, Error> = Result {
        try Context(surface: try ImageSurface(width: 1, height: 1))
    }

    /// `cr`: the context the layout will be drawn on (nil: the frames' kind, see `scratch`).
    func layout(_ text: String, _ style: TextStyle, scale: Double, width: Double? = nil, in cr: Context? = nil) throws -> Layout {
        let fontKey = FontKey(family: style.family, weight: style.weight, size: style.size * scale)
        let key = LayoutKey(font: fontKey, width: width, text: text)
        if let l = layouts[key] { return l }
        let font: FontDescription
        if let f = fonts[fontKey] { font = f } else {
            font = try style.font(scale: scale)
            fonts[fontKey] = font
        }
        let l = try Layout(context: cr ?? scratch.get())
        l.setFont(font)
        if let width {
            l.setWidth(width)
            l.setWrapWordChar()
            l.setAlignment(.center)
        }
        l.text = text
        layouts[key] = l
        return l
    }

    /// Labels that move with the map, drawn once each (see `Sprites`), within `spriteLimit` bytes.
    private let sprites = Sprites(limitBytes: TextCache.spriteLimit)
    static let spriteLimit = 2 << 20
    /// The bytes of the labels' pictures kept, and how many were drawn.
    var spriteBytes: Int { sprites.bytes }
    var spritesDrawn: Int { sprites.drawn }

    /// What names a moving label's picture: the caller's key, and the sizes it is drawn at.
    private struct SpriteKey<Name: Hashable>: Hashable {
        var name: Name, size: Double, halo: Double
    }

    /// A picture of the label drawn once, placed as `draw` would draw it: for labels that move from
    /// frame to frame.
    func movingMark(_ l: Layout, _ style: TextStyle, key: some Hashable, x: Double, y: Double, scale: Double,
                    alpha: Double = 1) throws -> Mark {
        let (w, h) = l.size
        let ink = l.inkRect
        let halo = style.haloWidth * scale / 2 + 1
        let extent = Box(minX: min(0, ink.x) - halo, minY: min(0, ink.y) - halo,
                         maxX: max(w, ink.x + ink.width) + halo, maxY: max(h, ink.y + ink.height) + halo)
        return try sprites.mark(SpriteKey(name: key, size: style.size * scale, halo: style.haloWidth * scale), x: x, y: y,
                                extent: extent, alpha: alpha) { sc in
            draw(l, style, x: 0, y: 0, scale: scale, in: sc)
        }
    }

    /// Draws a layout with its top-left at (x, y): halo first, then the text.
    func draw(_ l: Layout, _ style: TextStyle, x: Double, y: Double, scale: Double, alpha: Double = 1, in cr: Context) {
        cr.save()
        cr.newPath()
        cr.move(to: x, y)
        if style.haloWidth > 0 {
            l.appendPath(in: cr)
            let halo = style.halo.withAlpha(style.halo.alpha * alpha), width = style.haloWidth * scale
            // The glyphs' outlines flattened and stroked by maptrip's stroker where it draws (round
            // joins: every point within half the width of an outline), else by Cairo. Cairo's stroke was
            // 43% of making the places' labels as a render starts, before its first frame (130 of 299
            // samples; the stroker's 28).
            if let target = PixelTarget(cr), let outlines = cr.flattenedPath(),
               target.stroke(outlines, passes: [(halo, width)]) {
                cr.newPath()
            } else {
                cr.setSource(halo)
                cr.setLineWidth(width)
                cr.setLineJoin(.round)
                cr.stroke()
            }
            cr.move(to: x, y)
        }
        cr.setSource(style.color.withAlpha(style.color.alpha * alpha))
        l.show(in: cr)
        cr.restore()
    }
}

/// A pin on every place reached so far, popping in as the camera arrives, with its name on a halo;
/// the place the camera is on stands out. Labels are placed by `LabelPlacer`: none overlaps another
/// or leaves the frame, and the current place's label always shows.
public final class PlacesOverlay: Overlay {
    private let text = TextCache()
    /// Settled pins, drawn once per size and colour.
    private let pinPictures = Sprites(limitBytes: 1 << 20)

    public init() {}

    /// What the overlay paints on a frame, in order: pictures drawn once, or a pin drawn as it is
    /// (popping in, it changes size every frame).
    private enum Item {
        case mark(Mark)
        case pin(x: Double, y: Double, size: Double, color: Color, alpha: Double)
    }

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        for item in try items(frame) {
            switch item {
            case .mark(let mark):
                mark.paint(in: cr)
            case .pin(let x, let y, let size, let color, let alpha) where alpha < 1:
                // The whole pin (shadow, body, dot) fades as one, its group bounded to the pin.
                cr.save()
                cr.rectangle(whole: Self.pinBox(x: x, y: y, size: size))
                cr.clip()
                cr.pushGroup()
                drawPin(x: x, y: y, size: size, color: color, in: cr)
                cr.popGroupToSource()
                cr.paint(alpha: alpha)
                cr.restore()
            case .pin(let x, let y, let size, let color, _):
                drawPin(x: x, y: y, size: size, color: color, in: cr)
            }
        }
    }

    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        var marks: [Mark] = []
        for item in try items(frame) {
            guard case .mark(let mark) = item else { return nil }
            marks.append(mark)
        }
        return marks
    }

    private func items(_ frame: FrameContext) throws -> [Item] {
        let pins = frame.values.pins
        guard !pins.isEmpty else { return [] }
        let layout = frame.layout, style = frame.scene.style
        let margin = layout.size(60)
        struct Shown { var place: Int; var x: Double; var y: Double; var size: Double; var pin: PinValue; var facing: Double }
        var shown: [Shown] = []
        for pin in pins {
            let position = frame.scene.places[pin.place].position
            guard let p = frame.viewport.pixel(position) else { continue }
            guard p.x > -margin, p.y > -margin, p.x < layout.width + margin, p.y < layout.height + margin else { continue }
            // On the globe, a place turning away towards the limb fades out.
            let facing = frame.viewport.facing(position)
            guard facing > 0 else { continue }
            let size = layout.unit * (pin.current ? 1.3 : 1.0) * Self.pop(pin.appear)
            shown.append(Shown(place: pin.place, x: p.x, y: p.y, size: size, pin: pin, facing: facing))
        }
        var items: [Item] = []
        // Older pins first, the current one last (on top).
        for p in shown.filter({ !$0.pin.current }) + shown.filter(\.pin.current) {
            let color = p.pin.current ? style.currentPin : style.pin
            if p.pin.appear >= 1 {
                // Settled (not popping in): the same picture every frame, faded as one on the globe.
                let r = 11 * p.size, rim = p.size + 1
                let extent = Box(minX: -r - rim, minY: -34 * p.size - rim, maxX: r + rim, maxY: 2.8 * p.size + rim)
                items.append(.mark(try pinPictures.mark(PinKey(size: p.size, color: color), x: p.x, y: p.y, extent: extent,
                                                        alpha: p.facing) { sc in
                    drawPin(x: 0, y: 0, size: p.size, color: color, in: sc)
                }))
            } else {
                items.append(.pin(x: p.x, y: p.y, size: p.size, color: color, alpha: p.facing))
            }
        }

        // Labels: the current place's first, then the most recent ones.
        let ordered = shown.filter(\.pin.current) + shown.filter { !$0.pin.current }.reversed()
        var requests: [LabelPlacer.Request] = []
        var layouts: [(Pango.Layout, TextStyle)] = []
        for p in ordered {
            let ts = Self.labelStyle(style, current: p.pin.current)
            let l = try text.layout(frame.scene.places[p.place].name, ts, scale: layout.unit)
            let (w, h) = l.size
            let k = p.pin.current ? 1.3 : 1.0
            requests.append(LabelPlacer.Request(anchorX: p.x, anchorY: p.y, width: w, height: h,
                                                gap: layout.size(14 * k), rise: layout.size(34 * k),
                                                always: p.pin.current))
            layouts.append((l, ts))
        }
        let inset = layout.size(8)
        let bounds = Box(minX: inset, minY: inset, maxX: layout.width - inset, maxY: layout.height - inset)
        // Labels keep clear of the cards that sit over the map (the title and end cards are brief and
        // centred; they fade over labels).
        var obstacles: [Box] = []
        if frame.values.distanceKm != nil { obstacles.append(layout.counterBox) }
        // ... and of other places' pins (a label's own positions are beside its pin).
        for p in shown {
            obstacles.append(Box(minX: p.x - 11 * p.size, minY: p.y - 34 * p.size, maxX: p.x + 11 * p.size, maxY: p.y))
        }
        for card in frame.values.cards {
            if case .photo(let i) = card.cue, let image = frame.media.photos[i] {
                obstacles.append(layout.photoBox(aspect: Double(image.width) / Double(image.height)))
            }
        }
        let boxes = LabelPlacer.place(requests, within: bounds, avoiding: obstacles,
                                      padding: layout.size(4))
        for (k, box) in boxes.enumerated() {
            guard let box else { continue }
            let (l, ts) = layouts[k]
            let place = ordered[k]
            items.append(.mark(try text.movingMark(l, ts, key: LabelKey(current: place.pin.current,
                                                                       name: frame.scene.places[place.place].name),
                                                   x: box.minX, y: box.minY, scale: layout.unit,
                                                   alpha: place.pin.appear * place.facing)))
        }
        return items
    }

    /// The labels' pictures drawn so far (for tests).
    var labelPicturesDrawn: Int { text.spritesDrawn }

    /// A place's label's text style: the current place's bolder.
    private static func labelStyle(_ style: Style, current: Bool) -> TextStyle {
        let label = current ? style.currentLabel : style.label
        return TextStyle(family: style.font, weight: current ? "Bold" : "Semi-Bold", size: label.size,
                         color: label.color, halo: label.halo, haloWidth: 4)
    }

    /// Every place's name laid out in both styles (shaping it finds and opens the fonts its script
    /// needs) and its label drawn at whole pixels, a label a step, in the order the trip reaches the
    /// places: the work a frame showing each label first would do. The first frame's labels are those
    /// of its pins (the current place's bolder).
    public func preparation(_ scene: Scene, layout: FrameLayout, first: FrameValues?) -> [PreparationStep] {
        scene.places.indices.flatMap { i in
            [true, false].map { current in
                PreparationStep(forFirstFrame: first?.pins.contains { $0.place == i && $0.current == current } ?? true) {
                    [self] in try prepareLabel(scene.places[i].name, current: current, scene: scene, layout: layout)
                }
            }
        }
    }

    private func prepareLabel(_ name: String, current: Bool, scene: Scene, layout: FrameLayout) throws {
        let ts = Self.labelStyle(scene.style, current: current)
        let l = try text.layout(name, ts, scale: layout.unit)
        // Within half the pictures' room: a long trip's labels are drawn as they come.
        guard text.spriteBytes < TextCache.spriteLimit / 2 else { return }
        _ = try text.movingMark(l, ts, key: LabelKey(current: current, name: name), x: 0, y: 0, scale: layout.unit)
    }

    /// A settled pin's picture: its size and colour.
    private struct PinKey: Hashable { var size: Double, color: Color }
    /// A label's picture: the current place's is bolder.
    private struct LabelKey: Hashable { var current: Bool, name: String }

    /// The pin's size through its arrival: grows past full size and settles back (ease-out-back).
    static func pop(_ t: Double) -> Double {
        guard t < 1 else { return 1 }
        let c1 = 1.70158, c3 = c1 + 1, u = t - 1
        return max(0, 1 + c3 * u * u * u + c1 * u * u)
    }

    /// A map pin with its tip at (x, y): a drop shape with a white rim and a soft shadow.
    /// A box holding all of `drawPin`'s ink (its shadow, its outline's width, antialiasing).
    static func pinBox(x: Double, y: Double, size: Double) -> Box {
        let half = 12 * size + 2
        return Box(minX: x - half, minY: y - 34 * size - size - 2, maxX: x + half, maxY: y + 2.8 * size + 2)
    }

    func drawPin(x: Double, y: Double, size: Double, color: Color, in cr: Context) {
        let r = 11 * size, h = 34 * size
        cr.save()
        // Shadow: a flattened ellipse at the tip.
        cr.save()
        cr.translate(x, y)
        cr.scale(1, 0.4)
        cr.arc(x: 0, y: 0, radius: 7 * size)
        cr.restore()
        cr.setSource(Color(red: 0, green: 0, blue: 0, alpha: 0.25))
        cr.fill()
        // Drop: a circle of radius r centred h - r above the tip, tangents down to the tip.
        let cy = y - h + r
        let d = h - r
        let a = asin(r / d)
        cr.newPath()
        cr.move(to: x, y)
        cr.arc(x: x, y: cy, radius: r, from: .pi / 2 + a, to: .pi / 2 - a + 2 * .pi)
        cr.closePath()
        cr.setSource(color)
        cr.fillPreserve()
        cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 1))
        cr.setLineWidth(2 * size)
        cr.setLineJoin(.round)
        cr.stroke()
        cr.arc(x: x, y: cy, radius: r * 0.42)
        cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 1))
        cr.fill()
        cr.restore()
    }
}

/// The title card at the top of the opening shot (fading as the trip begins) and the end card over
/// the last place's rest (fading in).
public final class TitleOverlay: Overlay {
    private let text = TextCache()

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        let layout = frame.layout, card = frame.scene.style.card
        for value in frame.values.cards {
            switch value.cue {
            case .title:
                guard let title = frame.scene.title, !title.isEmpty else { continue }
                let style = TextStyle(family: frame.scene.style.font, weight: "Bold", size: card.size,
                                      color: card.color, haloWidth: 0)
                let l = try text.layout(title, style, scale: layout.unit, width: layout.textWidth * 0.9, in: cr)
                TextCard([(l, style)], padX: layout.size(36), padY: layout.size(22), gap: layout.size(14),
                         radius: layout.size(14))
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
                endCard.draw(centerX: layout.width / 2, top: min(layout.height * 0.58, layout.safe.maxY - endCard.height),
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

/// The base map's credit (or its missing-credit warning) in the bottom-right corner: the same
/// picture every frame, drawn once.
public final class AttributionOverlay: Overlay {
    public var style = TextStyle(weight: "Regular", size: 13, color: Color(hex: "#333333")!, haloWidth: 0)
    public var warningStyle = TextStyle(weight: "Bold", size: 14, color: Color(hex: "#b3261e")!, haloWidth: 0)
    private let text = TextCache()
    private let pictures = Sprites(limitBytes: 1 << 20)

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        try marks(frame)?.forEach { $0.paint(in: cr) }
    }

    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        let warning = frame.baseMap.attributionWarning
        guard let line = warning ?? frame.baseMap.attribution, !line.isEmpty else { return [] }
        let s = frame.layout.unit
        let st = warning == nil ? style : warningStyle
        let l = try text.layout(line, st, scale: s)
        let (w, h) = l.size
        let pad = 6 * s
        // The box's top-left is the picture's anchor.
        let x = frame.layout.width - w - 3 * pad, y = frame.layout.height - h - 2.5 * pad
        let box = Box(minX: 0, minY: 0, maxX: w + 2 * pad, maxY: h + pad)
        let key = Key(line: line, warning: warning != nil, unit: s)
        return [try pictures.mark(key, x: x, y: y, extent: box) { cr in
            cr.rectangle(0, 0, box.maxX, box.maxY)
            cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 0.7))
            cr.fill()
            text.draw(l, st, x: pad, y: pad / 2, scale: s, in: cr)
        }]
    }

    private struct Key: Hashable { var line: String, warning: Bool, unit: Double }
}
