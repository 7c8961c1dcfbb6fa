import Cairo
import Foundation
import MapTripCore
import Pango

/// Everything an overlay needs to draw one frame.
public struct FrameContext {
    public var scene: Scene
    public var state: FrameState
    public var viewport: Viewport
    public var baseMap: BaseMap
}

/// Something drawn over the base map (pins, labels, captions, title cards...). The renderer draws
/// its overlays in order; new ones join the list without touching the others.
public protocol Overlay: AnyObject {
    func draw(_ frame: FrameContext, in cr: Context) throws
}

/// Text styling shared by overlays: Pango font descriptions in logical pixels.
public struct TextStyle: Sendable {
    public var family: String
    public var weight: String
    /// Size in logical pixels (multiplied by the frame's pixel ratio).
    public var size: Double
    public var color: Color
    public var halo: Color
    /// Halo width in logical pixels (0: none).
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

/// Lays out text once per (text, style) and keeps the layouts for the frames that follow: a
/// trip's labels are the same every frame, only their positions move.
final class TextCache {
    private var layouts: [String: Layout] = [:]
    private var fonts: [String: FontDescription] = [:]

    func layout(_ text: String, _ style: TextStyle, scale: Double, width: Double? = nil, in cr: Context) throws -> Layout {
        let key = "\(style.family)|\(style.weight)|\(style.size * scale)|\(width ?? -1)|\(text)"
        if let l = layouts[key] { return l }
        let fontKey = "\(style.family)|\(style.weight)|\(style.size * scale)"
        let font: FontDescription
        if let f = fonts[fontKey] { font = f } else {
            font = try style.font(scale: scale)
            fonts[fontKey] = font
        }
        let l = try Layout(context: cr)
        l.setFont(font)
        if let width {
            l.setWidth(width)
            l.setAlignment(.center)
        }
        l.text = text
        layouts[key] = l
        return l
    }

    /// Draws a layout with its top-left at (x, y): halo first, then the text.
    func draw(_ l: Layout, _ style: TextStyle, x: Double, y: Double, scale: Double, alpha: Double = 1, in cr: Context) {
        cr.save()
        cr.newPath()
        cr.move(to: x, y)
        if style.haloWidth > 0 {
            l.appendPath(in: cr)
            cr.setSource(style.halo.withAlpha(style.halo.alpha * alpha))
            cr.setLineWidth(style.haloWidth * scale)
            cr.setLineJoin(.round)
            cr.stroke()
            cr.move(to: x, y)
        }
        cr.setSource(style.color.withAlpha(style.color.alpha * alpha))
        l.show(in: cr)
        cr.restore()
    }
}

/// A pin on every place reached so far, with its name; the place the camera is on stands out.
public final class PlacesOverlay: Overlay {
    public var pin = Color(hex: "#d9412b")!
    public var currentPin = Color(hex: "#c0262d")!
    public var label = TextStyle(size: 22, color: Color(hex: "#2b2b2b")!)
    public var currentLabel = TextStyle(weight: "Bold", size: 28, color: Color(hex: "#1c1c1c")!)
    private let text = TextCache()

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        let s = frame.viewport.scale
        let reached = min(frame.state.reached, frame.scene.places.count)
        guard reached > 0 else { return }
        let current = frame.state.current < reached ? frame.state.current : -1
        var occupied: [Box] = []
        // The current place first so its label wins any collision, then the most recent ones.
        let order = ([current] + (0..<reached).reversed().filter { $0 != current }).filter { $0 >= 0 }
        var pins: [(x: Double, y: Double, current: Bool)] = []
        for i in order {
            let p = frame.viewport.pixel(frame.scene.places[i].position)
            pins.append((p.x, p.y, i == current))
        }
        // Pins under labels: draw older pins first, the current one last.
        for p in pins.reversed() where onFrame(p.x, p.y, frame.viewport, margin: 60 * s) {
            drawPin(x: p.x, y: p.y, size: (p.current ? 1.3 : 1.0) * s, color: p.current ? currentPin : pin, in: cr)
        }
        for (k, i) in order.enumerated() {
            let p = pins[k]
            guard onFrame(p.x, p.y, frame.viewport, margin: 400 * s) else { continue }
            let style = p.current ? currentLabel : label
            let l = try text.layout(frame.scene.places[i].name, style, scale: s, in: cr)
            let (w, h) = l.size
            let gap = 14 * s * (p.current ? 1.3 : 1.0)
            // Right of the pin, else left, else above, else below; skip when all collide.
            let candidates = [
                (p.x + gap, p.y - h * 0.75),
                (p.x - gap - w, p.y - h * 0.75),
                (p.x - w / 2, p.y - 44 * s - h),
                (p.x - w / 2, p.y + 6 * s),
            ]
            for (x, y) in candidates {
                let box = Box(minX: x, minY: y, maxX: x + w, maxY: y + h)
                let inside = box.minX >= 0 && box.maxX <= Double(frame.viewport.width)
                    && box.minY >= 0 && box.maxY <= Double(frame.viewport.height)
                if (inside || p.current) && !occupied.contains(where: { $0.intersects(box) }) {
                    text.draw(l, style, x: x, y: y, scale: s, in: cr)
                    occupied.append(box)
                    break
                }
            }
        }
    }

    private func onFrame(_ x: Double, _ y: Double, _ v: Viewport, margin: Double) -> Bool {
        x > -margin && y > -margin && x < Double(v.width) + margin && y < Double(v.height) + margin
    }

    /// A map pin with its tip at (x, y): a drop shape with a white rim and a soft shadow.
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

/// The scene's title on a card at the top of the opening shot, fading as the trip begins.
public final class TitleOverlay: Overlay {
    public var style = TextStyle(weight: "Bold", size: 54, color: Color(red: 1, green: 1, blue: 1), haloWidth: 0)
    public var card = Color(red: 0.09, green: 0.13, blue: 0.2, alpha: 0.72)
    private let text = TextCache()

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        guard let title = frame.scene.title, !title.isEmpty, frame.state.titleOpacity > 0 else { return }
        let s = frame.viewport.scale, alpha = frame.state.titleOpacity
        let maxWidth = Double(frame.viewport.width) * 0.8
        let l = try text.layout(title, style, scale: s, width: maxWidth, in: cr)
        let ink = l.inkRect
        let padX = 36 * s, padY = 22 * s
        let cardW = ink.width + 2 * padX, cardH = ink.height + 2 * padY
        let cx = Double(frame.viewport.width) / 2, top = Double(frame.viewport.height) * 0.09
        let cardX = cx - cardW / 2
        cr.save()
        cr.roundedRectangle(cardX, top, cardW, cardH, radius: 14 * s)
        cr.setSource(card.withAlpha(card.alpha * alpha))
        cr.fill()
        // The layout is centred in its own width; place its ink box inside the card's padding.
        let x = cardX + padX - ink.x, y = top + padY - ink.y
        text.draw(l, style, x: x, y: y, scale: s, alpha: alpha, in: cr)
        cr.restore()
    }
}

/// The base map's credit (or its missing-credit warning) in the bottom-right corner.
public final class AttributionOverlay: Overlay {
    public var style = TextStyle(weight: "Regular", size: 13, color: Color(hex: "#333333")!, haloWidth: 0)
    public var warningStyle = TextStyle(weight: "Bold", size: 14, color: Color(hex: "#b3261e")!, haloWidth: 0)
    private let text = TextCache()

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        let warning = frame.baseMap.attributionWarning
        guard let line = warning ?? frame.baseMap.attribution, !line.isEmpty else { return }
        let s = frame.viewport.scale
        let st = warning == nil ? style : warningStyle
        let l = try text.layout(line, st, scale: s, in: cr)
        let (w, h) = l.size
        let pad = 6 * s
        let x = Double(frame.viewport.width) - w - 2 * pad, y = Double(frame.viewport.height) - h - 2 * pad
        cr.save()
        cr.rectangle(x - pad, y - pad / 2, w + 2 * pad, h + pad)
        cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 0.7))
        cr.fill()
        text.draw(l, st, x: x, y: y, scale: s, in: cr)
        cr.restore()
    }
}
