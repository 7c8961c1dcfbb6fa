import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Pango

extension FrameLayout {
    /// A readout's cell on the panel (label over value and unit), the panel's padding and the
    /// elevation profile's height, in layout units.
    public static let readoutCell = (width: 190.0, height: 86.0)
    public static let readoutPad = 16.0
    public static let readoutProfile = 104.0
    /// Cells side by side on the panel, at most.
    public static let readoutColumns = 3

    /// The box the readout panel takes for `items` (nil: none): at the bottom right of the safe area,
    /// its values in rows of up to three cells, the profile (when asked for) across its bottom; above the
    /// presenter when it sits in the bottom-right corner (`clearOf`). The clock, the places' labels and
    /// the counter keep clear of it.
    public func readoutBox(_ items: [ReadoutItem], clearOf presenter: Box? = nil) -> Box? {
        let cells = items.filter { $0 != .profile }.count
        let profile = items.contains(.profile)
        guard cells > 0 || profile else { return nil }
        let columns = min(cells, Self.readoutColumns), rows = (cells + Self.readoutColumns - 1) / Self.readoutColumns
        let w = max(Double(columns) * Self.readoutCell.width, profile ? 2 * Self.readoutCell.width : 0) + 2 * Self.readoutPad
        let h = Double(rows) * Self.readoutCell.height + (profile ? Self.readoutProfile + (cells > 0 ? Self.readoutPad / 2 : 0) : 0)
            + 2 * Self.readoutPad
        var bottom = safe.maxY
        let box = { (bottom: Double) in
            Box(minX: (self.safe.maxX - self.size(w)).rounded(), minY: (bottom - self.size(h)).rounded(),
                maxX: self.safe.maxX.rounded(), maxY: bottom.rounded())
        }
        if let presenter, box(bottom).overlaps(presenter) { bottom = presenter.minY - size(20) }
        return box(bottom)
    }
}

/// A playback's readouts (`Scene.readouts`): the followed mover's values at the frame's recorded time on
/// a panel in the caption style (`FrameLayout.readoutBox`): each a small label over its value, in
/// tabular figures (the digits do not jitter as they change), and its unit; and the whole track's
/// elevation profile, the travelled part in the mover's colour, a mark where the mover is.
public final class ReadoutOverlay: Overlay {
    /// The labels and units (a few, kept), and the values (new ones every frame: started afresh once
    /// `valueLayouts` are kept, so that a long ride does not keep a layout of every value it showed).
    private let text = TextCache()
    private var values = TextCache()
    static let valueLayouts = 256
    var keptValueLayouts: Int { values.layoutCount }
    private var made: (tracks: [PlaybackTrack], readouts: [ReadoutItem], units: Units, series: ReadoutSeries?)?

    public init() {}

    /// The scene's readouts made ready (once per scene).
    func series(_ scene: Scene) -> ReadoutSeries? {
        if let made, made.tracks == scene.tracks, made.readouts == scene.readouts, made.units == scene.units { return made.series }
        let series = ReadoutSeries(scene: scene)
        made = (scene.tracks, scene.readouts, scene.units, series)
        return series
    }

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        guard let values = frame.values.readouts, let series = series(frame.scene),
              let box = frame.layout.readoutBox(series.items, clearOf: frame.presenterBox) else { return }
        // The panel gives way to the end card as it fades in over the outro.
        let alpha = 1 - frame.values.opacity(of: .end)
        guard alpha > 0 else { return }
        if alpha < 1 { cr.pushGroup() }
        if self.values.layoutCount > Self.valueLayouts { self.values = TextCache() }
        try Self.draw(values, series: series, scene: frame.scene, layout: frame.layout, box: box, text: text,
                      numbers: self.values, in: cr)
        if alpha < 1 {
            cr.popGroupToSource()
            cr.paint(alpha: alpha)
        }
    }

    /// The panel with `values` in `box`.
    static func draw(_ values: ReadoutValues, series: ReadoutSeries, scene: Scene, layout: FrameLayout, box: Box,
                     text: TextCache, numbers: TextCache, in cr: Context) throws {
        let card = scene.style.caption
        cr.save()
        defer { cr.restore() }
        cr.newPath()
        cr.roundedRectangle(box.minX, box.minY, box.maxX - box.minX, box.maxY - box.minY, radius: layout.size(12))
        cr.setSource(card.background)
        cr.fill()
        var label = TextStyle(family: scene.style.font, weight: "Semi-Bold", size: 15, color: card.color.withAlpha(card.color.alpha * 0.7),
                              haloWidth: 0)
        label.features = DistanceOverlay.fontFeatures
        var number = TextStyle(family: scene.style.font, weight: "Bold", size: 40, color: card.color, haloWidth: 0)
        number.features = DistanceOverlay.fontFeatures
        var unit = number
        unit.weight = "Semi-Bold"
        unit.size = 20
        let pad = layout.size(FrameLayout.readoutPad)
        let cellW = layout.size(FrameLayout.readoutCell.width), cellH = layout.size(FrameLayout.readoutCell.height)
        let cells = series.items.filter { $0 != .profile }
        for (k, item) in cells.enumerated() {
            let x = box.minX + pad + Double(k % FrameLayout.readoutColumns) * cellW
            let y = box.minY + pad + Double(k / FrameLayout.readoutColumns) * cellH
            let l = try text.layout(item.label, label, scale: layout.unit, in: cr)
            text.draw(l, label, x: x, y: y, scale: layout.unit, in: cr)
            guard let (value, unitText) = values.text(item, units: series.units) else { continue }
            // The value's and the unit's baselines on one line, under the label.
            let v = try numbers.layout(value, number, scale: layout.unit, in: cr)
            let baseline = y + layout.size(22) + Double(v.baseline)
            numbers.draw(v, number, x: x, y: baseline - Double(v.baseline), scale: layout.unit, in: cr)
            if !unitText.isEmpty {
                let u = try text.layout(unitText, unit, scale: layout.unit, in: cr)
                text.draw(u, unit, x: x + v.size.width + layout.size(6), y: baseline - Double(u.baseline), scale: layout.unit, in: cr)
            }
        }
        guard series.items.contains(.profile), series.profile.count > 1 else { return }
        let top = box.maxY - pad - layout.size(FrameLayout.readoutProfile)
        let area = Box(minX: box.minX + pad, minY: top, maxX: box.maxX - pad, maxY: box.maxY - pad)
        drawProfile(series, km: values.km, color: scene.tracks[series.track].color, ink: card.color, in: area, layout: layout, cr)
    }

    /// The elevation profile in `area`: the whole track faint, the part up to `km` in `color`, a
    /// vertical line and a dot where the mover is.
    static func drawProfile(_ series: ReadoutSeries, km: Double, color: Color, ink: Color, in area: Box,
                            layout: FrameLayout, _ cr: Context) {
        let profile = series.profile
        let lo = profile.map(\.metres).min() ?? 0, hi = profile.map(\.metres).max() ?? 0
        let span = max(hi - lo, 1), length = max(series.lengthKm, 1e-9)
        let inset = layout.size(6)
        func x(_ k: Double) -> Double { area.minX + (area.maxX - area.minX) * min(max(k / length, 0), 1) }
        func y(_ m: Double) -> Double { area.maxY - inset - (area.maxY - area.minY - 2 * inset) * (m - lo) / span }
        /// The profile's outline down to the area's bottom, from its start to `upTo` km.
        func shape(upTo end: Double) {
            cr.newPath()
            cr.move(to: x(0), area.maxY)
            var last = profile[0]
            for p in profile where p.km <= end {
                cr.line(to: x(p.km), y(p.metres))
                last = p
            }
            if end < length, let next = profile.first(where: { $0.km > end }), next.km > last.km {
                let m = last.metres + (next.metres - last.metres) * (end - last.km) / (next.km - last.km)
                cr.line(to: x(end), y(m))
            }
            cr.line(to: x(min(end, length)), area.maxY)
            cr.closePath()
        }
        shape(upTo: length)
        cr.setSource(ink.withAlpha(0.18))
        cr.fill()
        shape(upTo: km)
        cr.setSource(color.withAlpha(0.85))
        cr.fill()
        // You are here.
        let here = x(km), m = series.values(atKm: km)
        cr.newPath()
        cr.move(to: here, area.minY)
        cr.line(to: here, area.maxY)
        cr.setLineWidth(layout.size(2))
        cr.setSource(ink.withAlpha(0.8))
        cr.stroke()
        let r = layout.size(6)
        cr.newPath()
        cr.arc(x: here, y: y(m), radius: r + layout.size(2))
        cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 1))
        cr.fill()
        cr.arc(x: here, y: y(m), radius: r)
        cr.setSource(color)
        cr.fill()
    }
}

extension ReadoutSeries {
    /// The profile's height at `km` along the track (linear between its points).
    func values(atKm km: Double) -> Double {
        Self.interpolate(profile.map { ($0.km, $0.metres) }, at: km) ?? 0
    }
}

extension FrameContext {
    /// Where the readout panel sits on this frame (nil: none showing).
    public var readoutBox: Box? {
        guard values.readouts != nil else { return nil }
        return layout.readoutBox(scene.shownReadouts, clearOf: presenterBox)
    }

    /// The bottom of the clock's card (at the bottom left of the safe area), `width` wide: above the
    /// readout panel where it would meet it.
    func clockBottom(width: Double) -> Double {
        let bottom = layout.safe.maxY
        guard let panel = readoutBox, panel.minX < layout.safe.minX + width + layout.size(16) else { return bottom }
        return min(bottom, panel.minY - layout.size(16))
    }
}
