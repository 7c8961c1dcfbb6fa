import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import Pango

/// The map's furniture (`Scene.furniture`): a scale bar, a north arrow and a watermark, each in its
/// box of the layout (`FrameLayout.furniture`). Pictures drawn once and painted as marks (the scale
/// bar once per length it takes, the arrow once per angle), so frames drawn into I420 paint them as
/// cheaply as pins.
public final class FurnitureOverlay: OverlayFastPaths {
    private let text = TextCache()
    private let pictures = Sprites(limitBytes: 4 << 20)

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        try marks(frame)?.forEach { $0.paint(in: cr) }
    }

    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        let furniture = frame.scene.furniture
        guard !furniture.isEmpty else { return [] }
        let boxes = frame.furnitureBoxes
        // A piece the title card (wide in a tall frame) would cover gives way while it shows.
        let title = frame.values.cards.first { if case .title = $0.cue { true } else { false } }
        let titleBox = title.flatMap { _ in try? TitleOverlay.titleBox(frame.scene, layout: frame.layout, text: text) }
        func shown(_ box: Box) -> Double {
            guard let title, let titleBox, titleBox.overlaps(box) else { return 1 }
            return 1 - title.opacity
        }
        var marks: [Mark] = []
        if let mark = furniture.watermark, let box = boxes.watermark, let picture = frame.media.watermark, mark.opacity * shown(box) > 0 {
            marks.append(try pictures.mark(WatermarkKey(), x: box.minX, y: box.minY,
                                           extent: Box(minX: 0, minY: 0, maxX: Double(picture.width), maxY: Double(picture.height)),
                                           alpha: mark.opacity * shown(box)) { cr in
                cr.setSource(picture, x: 0, y: 0)
                cr.paint()
            })
        }
        if let bar = furniture.scaleBar, let box = boxes.scaleBar {
            marks += try scaleBarMarks(bar, box: box, frame).compactMap { m in
                var m = m
                m.alpha *= shown(box)
                return m.alpha > 0 ? m : nil
            }
        }
        if let arrow = furniture.northArrow, let box = boxes.northArrow {
            let angle = NorthArrowAngle.degrees(frame.viewport)
            let alpha = (arrow.auto ? NorthArrowAngle.autoOpacity(angle) : 1) * shown(box)
            if alpha > 0 {
                marks.append(try northArrowMark(angle: angle, box: box, alpha: alpha, frame))
            }
        }
        return marks
    }

    // MARK: Scale bar

    /// The bar's thickness and its halo, in layout units.
    public static let barThickness = 7.0, barHalo = 2.0
    /// The bar's text, in layout units.
    static let labelSize = 22.0

    /// Where the bar is measured in its box: the left end of its longest length (`FrameLayout.scaleBarLength`)
    /// and its row's middle. In a left corner bars start there; in a right corner they end where
    /// the longest one ends, growing leftward.
    public static func barOrigin(_ box: Box, corner: Furniture.Corner, layout: FrameLayout) -> (x: Double, y: Double) {
        let pad = layout.size(8), y = box.maxY - layout.size(10 + barThickness / 2)
        let left = corner == .topLeft || corner == .bottomLeft
        return (left ? box.minX + pad : box.maxX - pad - layout.size(FrameLayout.scaleBarLength), y)
    }

    func scaleBarMarks(_ bar: Furniture.ScaleBar, box: Box, _ frame: FrameContext) throws -> [Mark] {
        let layout = frame.layout
        let origin = Self.barOrigin(box, corner: bar.corner, layout: layout)
        let longest = layout.size(FrameLayout.scaleBarLength)
        let left = bar.corner == .topLeft || bar.corner == .bottomLeft
        let measure = ScaleBarMeasure.bars(frame.viewport, x: origin.x, y: origin.y, maxLength: longest, units: bar.units)
        guard measure.opacity > 0 else { return [] }
        let (inkColor, halo) = Self.inks(frame.scene.style)
        var style = TextStyle(family: frame.scene.style.font, weight: "Bold", size: Self.labelSize, color: inkColor, haloWidth: 3)
        style.halo = halo
        return try measure.bars.compactMap { step -> Mark? in
            let alpha = step.alpha * measure.opacity
            guard alpha > 0.002 else { return nil }
            // Lengths in 1/16 pixel: a picture per length the bar takes while the camera zooms.
            let length = (step.length * 16).rounded() / 16
            let l = try text.layout(step.step.label, style, scale: layout.unit)
            let ink = l.inkRect
            let t = layout.size(Self.barThickness), h = layout.size(Self.barHalo)
            let labelBottom = -t / 2 - h - layout.size(4)
            // The label over the bar's outer end: its left in a left corner, its right in a right one.
            let labelX = left ? 0 : length - ink.width
            let extent = Box(minX: min(0, labelX) - h - layout.size(4), minY: labelBottom - ink.height - layout.size(6),
                             maxX: max(length, ink.width) + h + layout.size(4), maxY: t / 2 + h + 1)
            let key = BarKey(label: step.step.label, length: length, unit: layout.unit, font: style.family, left: left)
            let x = left ? origin.x : origin.x + longest - length
            return try pictures.mark(key, x: x, y: origin.y, extent: extent, alpha: alpha) { cr in
                cr.rectangle(-h, -t / 2 - h, length + 2 * h, t + 2 * h)
                cr.setSource(halo)
                cr.fill()
                cr.rectangle(0, -t / 2, length, t)
                cr.setSource(inkColor)
                cr.fill()
                text.draw(l, style, x: labelX - ink.x, y: labelBottom - ink.y - ink.height, scale: layout.unit, in: cr)
            }
        }
    }

    private struct BarKey: Hashable { var label: String, length: Double, unit: Double, font: String, left: Bool }
    private struct WatermarkKey: Hashable {}
    private struct ArrowKey: Hashable { var angle: Double, unit: Double }

    // MARK: North arrow

    /// The arrow's north half's colour (its tip).
    public static let northColor = Color(hex: "#d62828")!

    /// The furniture's ink and halo: the theme's labels' (dark ink in a white halo on light maps, light
    /// ink in a dark one on dark maps), the ink opaque and the halo at most 90% opaque.
    public static func inks(_ style: Style) -> (ink: Color, halo: Color) {
        (style.label.color.withAlpha(1), style.label.halo.withAlpha(min(0.9, max(style.label.halo.alpha, 0.75))))
    }

    func northArrowMark(angle: Double, box: Box, alpha: Double, _ frame: FrameContext) throws -> Mark {
        let layout = frame.layout
        let r = (box.maxX - box.minX) / 2
        let cx = (box.minX + box.maxX) / 2, cy = (box.minY + box.maxY) / 2
        // Angles in tenths of a degree: a picture per tenth the map turns through.
        let a = (angle * 10).rounded() / 10
        let (ink, halo) = Self.inks(frame.scene.style)
        let style = TextStyle(family: frame.scene.style.font, weight: "Bold", size: 17, color: ink, haloWidth: 0)
        let l = try text.layout("N", style, scale: layout.unit)
        let glyph = l.inkRect
        return try pictures.mark(ArrowKey(angle: a, unit: layout.unit), x: cx, y: cy,
                                 extent: Box(minX: -r, minY: -r, maxX: r, maxY: r), alpha: alpha) { cr in
            cr.arc(x: 0, y: 0, radius: r - 1)
            cr.setSource(halo)
            cr.fill()
            cr.rotate(a * .pi / 180)
            let tip = r * 0.5, half = r * 0.2
            // The north half: from the centre to the tip.
            cr.move(to: 0, -tip)
            cr.line(to: half, 0)
            cr.line(to: -half, 0)
            cr.closePath()
            cr.setSource(Self.northColor)
            cr.fill()
            cr.move(to: 0, tip)
            cr.line(to: half, 0)
            cr.line(to: -half, 0)
            cr.closePath()
            cr.setSource(ink)
            cr.fill()
            // "N" beyond the tip, upright along the arrow.
            let y = -r * 0.76
            text.draw(l, style, x: -glyph.x - glyph.width / 2, y: y - glyph.y - glyph.height / 2, scale: layout.unit, in: cr)
        }
    }
}

/// Where true north points on a frame: the angle, clockwise from straight up, from the frame's centre
/// toward a point a little north of the position there, through the view's own projection (the
/// bearing on a flat map; on the globe and LAEA, the meridian through the centre).
public enum NorthArrowAngle {
    public static func degrees(_ v: Viewport) -> Double {
        let cx = Double(v.width) / 2, cy = Double(v.height) / 2
        let fallback = -v.camera.bearing
        guard let p = v.location(atPixel: cx, cy), let a = v.pixel(p) else { return normalized(fallback) }
        let step = 0.01
        let north = p.lat + step <= 90 - 1e-9
        let q = LonLat(lon: p.lon, lat: north ? p.lat + step : p.lat - step)
        guard let b = v.pixel(q) else { return normalized(fallback) }
        var dx = b.x - a.x, dy = b.y - a.y
        if !north { dx = -dx; dy = -dy }
        guard dx * dx + dy * dy > 1e-18 else { return normalized(fallback) }
        return normalized(atan2(dx, -dy) * 180 / .pi)
    }

    /// An angle in (-180, 180].
    static func normalized(_ a: Double) -> Double {
        var x = a.truncatingRemainder(dividingBy: 360)
        if x > 180 { x -= 360 }
        if x <= -180 { x += 360 }
        return x
    }

    /// `"auto"`: hidden while north is up (within half a degree), fully shown from 3 degrees.
    public static func autoOpacity(_ angle: Double) -> Double {
        let t = min(max((abs(angle) - 0.5) / 2.5, 0), 1)
        return t * t * (3 - 2 * t)
    }
}

/// The scale bar's measure: the ground length across a row of the frame, read through the view's own
/// projection (two pixels unprojected, the great-circle distance between them), and the round
/// lengths it shows.
public enum ScaleBarMeasure {
    public struct Step: Equatable, Sendable {
        public var metres: Double
        public var label: String
    }

    public struct Bar: Equatable, Sendable {
        public var step: Step
        /// Its length in pixels.
        public var length: Double
        public var alpha: Double
    }

    /// Where a view spans more than this many km across, the bar fades out (gone at `hiddenKm`).
    public static let fadeKm = 1500.0, hiddenKm = 2500.0
    static let foot = 0.3048, mile = 1609.344

    /// The round lengths a bar takes, shortest first: 1, 2 and 5 times powers of ten of metres
    /// (kilometres from 1,000 m) or of feet (up to 2,000 ft), then of miles.
    public static func steps(_ units: Furniture.ScaleBar.Units) -> [Step] {
        var out: [Step] = []
        func grouped(_ x: Double) -> String { DistanceOverlay.grouped(Int(x.rounded())) }
        for e in 0...7 {
            for m in [1.0, 2, 5] {
                let x = m * pow(10, Double(e))
                switch units {
                case .metric:
                    out.append(Step(metres: x, label: x < 1000 ? "\(grouped(x)) m" : "\(grouped(x / 1000)) km"))
                case .imperial:
                    if x <= 2000 { out.append(Step(metres: x * foot, label: "\(grouped(x)) ft")) }
                    if x <= 100_000 { out.append(Step(metres: x * mile, label: "\(grouped(x)) mi")) }
                }
            }
        }
        return out.sorted { $0.metres < $1.metres }
    }

    /// Metres per pixel along the frame's row `y` from `x` to `x + span` (nil: off the map there).
    public static func metresPerPixel(_ v: Viewport, x: Double, y: Double, span: Double) -> Double? {
        guard span > 0, let a = v.location(atPixel: x, y), let b = v.location(atPixel: x + span, y) else { return nil }
        let m = Geodesy.distanceKm(a, b) * 1000 / span
        return m.isFinite && m > 0 ? m : nil
    }

    /// The bars drawn from (x, y) at most about `maxLength` pixels long: the longest round length that
    /// fits, crossfading to the next one over the last fifth (in zoom) before it fits, so that a
    /// zooming camera changes the bar's length smoothly and its label by a crossfade; and the
    /// opacity of them all, faded out where the view is too wide for one scale.
    public static func bars(_ v: Viewport, x: Double, y: Double, maxLength: Double,
                            units: Furniture.ScaleBar.Units) -> (bars: [Bar], opacity: Double) {
        guard let m = metresPerPixel(v, x: x, y: y, span: maxLength) else { return ([], 0) }
        let spanKm = m * Double(v.width) / 1000
        let t = min(max((spanKm - fadeKm) / (hiddenKm - fadeKm), 0), 1)
        let opacity = 1 - t * t * (3 - 2 * t)
        let all = steps(units), d = maxLength * m
        guard let i0 = all.lastIndex(where: { $0.metres <= d }) else {
            return ([Bar(step: all[0], length: all[0].metres / m, alpha: 1)], opacity)
        }
        let s0 = all[i0]
        guard i0 + 1 < all.count else { return ([Bar(step: s0, length: s0.metres / m, alpha: 1)], opacity) }
        let s1 = all[i0 + 1]
        let f = log(d / s0.metres) / log(s1.metres / s0.metres)
        let u = min(max((f - 0.8) / 0.2, 0), 1)
        let fade = u * u * (3 - 2 * u)
        return ([Bar(step: s0, length: s0.metres / m, alpha: 1 - fade), Bar(step: s1, length: s1.metres / m, alpha: fade)]
            .filter { $0.alpha > 0 }, opacity)
    }
}
