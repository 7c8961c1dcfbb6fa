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
    /// credit (`creditTop`), and above the presenter when it sits in the bottom-right corner (`clearOf`). The clock, the places' labels and
    /// the counter keep clear of it.
    public func readoutBox(_ items: [ReadoutItem], clearOf presenter: Box? = nil) -> Box? {
        let cells = items.filter { $0 != .profile }.count
        let profile = items.contains(.profile)
        guard cells > 0 || profile else { return nil }
        let columns = min(cells, Self.readoutColumns), rows = (cells + Self.readoutColumns - 1) / Self.readoutColumns
        let w = max(Double(columns) * Self.readoutCell.width, profile ? 2 * Self.readoutCell.width : 0) + 2 * Self.readoutPad
        let h = Double(rows) * Self.readoutCell.height + (profile ? Self.readoutProfile + (cells > 0 ? Self.readoutPad / 2 : 0) : 0)
            + 2 * Self.readoutPad
        // Above the credit where it rises into the safe area (small frames), a few units clear.
        var bottom = min(safe.maxY, creditTop - size(4))
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
    private var made: (tracks: [PlaybackTrack], places: [Place], readouts: [ReadoutItem], units: Units, series: ReadoutSeries?)?

    public init() {}

    /// The scene's readouts made ready (once per scene).
    func series(_ scene: Scene) -> ReadoutSeries? {
        if let made, made.tracks == scene.tracks, made.places == scene.places, made.readouts == scene.readouts, made.units == scene.units {
            return made.series
        }
        let series = ReadoutSeries(scene: scene)
        made = (scene.tracks, scene.places, scene.readouts, scene.units, series)
        return series
    }

    /// What does not change from frame to frame, drawn once: the panel with its labels and the faint
    /// whole profile, and the profile in the mover's colour (shown up to the mover).
    private var still: (key: StillKey, panel: ImageSurface, travelled: ImageSurface?)?
    private struct StillKey: Equatable {
        var box: Box, items: [ReadoutItem], unit: Double, track: Int
    }

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        guard let values = frame.values.readouts, let series = series(frame.scene),
              let box = frame.layout.readoutBox(series.items, clearOf: frame.presenterBox) else { return }
        // The panel gives way to the end card as it fades in over the outro (and on a place trip fades in
        // as the first track leg begins).
        let alpha = (1 - frame.values.opacity(of: .end)) * frame.values.readoutPanelOpacity
        guard alpha > 0 else { return }
        let key = StillKey(box: box, items: series.items, unit: frame.layout.unit, track: series.track)
        if still?.key != key { still = try Self.still(series, scene: frame.scene, layout: frame.layout, box: box, text: text).map { (key, $0.0, $0.1) } }
        guard let still else { return }
        if self.values.layoutCount > Self.valueLayouts { self.values = TextCache() }
        cr.save()
        defer { cr.restore() }
        if alpha < 1 { cr.pushGroup() }
        try Self.draw(values, series: series, scene: frame.scene, layout: frame.layout, box: box, still: (still.panel, still.travelled),
                      text: text, numbers: self.values, in: cr)
        if alpha < 1 {
            cr.popGroupToSource()
            cr.paint(alpha: alpha)
        }
    }

    /// The label and value styles, and where cell k's label sits.
    static func styles(_ scene: Scene) -> (label: TextStyle, number: TextStyle, unit: TextStyle) {
        let card = scene.style.caption
        var label = TextStyle(family: scene.style.font, weight: "Semi-Bold", size: 15, color: card.color.withAlpha(card.color.alpha * 0.7),
                              haloWidth: 0)
        label.features = DistanceOverlay.fontFeatures
        var number = TextStyle(family: scene.style.font, weight: "Bold", size: 40, color: card.color, haloWidth: 0)
        number.features = DistanceOverlay.fontFeatures
        var unit = number
        unit.weight = "Semi-Bold"
        unit.size = 20
        return (label, number, unit)
    }

    static func cellOrigin(_ k: Int, box: Box, layout: FrameLayout) -> (x: Double, y: Double) {
        let pad = layout.size(FrameLayout.readoutPad)
        return (box.minX + pad + Double(k % FrameLayout.readoutColumns) * layout.size(FrameLayout.readoutCell.width),
                box.minY + pad + Double(k / FrameLayout.readoutColumns) * layout.size(FrameLayout.readoutCell.height))
    }

    /// The profile's box in the panel.
    static func profileArea(box: Box, layout: FrameLayout) -> Box {
        let pad = layout.size(FrameLayout.readoutPad)
        return Box(minX: box.minX + pad, minY: box.maxY - pad - layout.size(FrameLayout.readoutProfile),
                   maxX: box.maxX - pad, maxY: box.maxY - pad)
    }

    /// The panel's still parts, in pictures the size of `box` (its top left at their origin): the card,
    /// its labels and the faint whole profile; and the whole profile in the mover's colour (nil without one).
    static func still(_ series: ReadoutSeries, scene: Scene, layout: FrameLayout, box: Box, text: TextCache) throws
        -> (ImageSurface, ImageSurface?)? {
        let w = Int((box.maxX - box.minX).rounded(.up)), h = Int((box.maxY - box.minY).rounded(.up))
        guard w > 0, h > 0 else { return nil }
        let card = scene.style.caption, (label, _, _) = styles(scene)
        let hasProfile = series.items.contains(.profile) && series.profile.count > 1
        let area = profileArea(box: box, layout: layout)
        let panel = try ImageSurface(width: w, height: h)
        try panel.withContext { cr in
            cr.translate(-box.minX, -box.minY)
            cr.newPath()
            cr.roundedRectangle(box.minX, box.minY, box.maxX - box.minX, box.maxY - box.minY, radius: layout.size(12))
            cr.setSource(card.background)
            cr.fill()
            for (k, item) in series.items.filter({ $0 != .profile }).enumerated() {
                let (x, y) = cellOrigin(k, box: box, layout: layout)
                let l = try text.layout(item.label, label, scale: layout.unit, in: cr)
                text.draw(l, label, x: x, y: y, scale: layout.unit, in: cr)
            }
            if hasProfile { profileShape(series, in: area, layout: layout, cr); cr.setSource(card.color.withAlpha(0.18)); cr.fill() }
        }
        guard hasProfile else { return (panel, nil) }
        let travelled = try ImageSurface(width: w, height: h)
        try travelled.withContext { cr in
            cr.translate(-box.minX, -box.minY)
            profileShape(series, in: area, layout: layout, cr)
            cr.setSource(series.color.withAlpha(0.85))
            cr.fill()
        }
        return (panel, travelled)
    }

    /// The panel with `values` in `box`: its still parts, the profile travelled up to the mover and the
    /// mark there, and the values with their units.
    static func draw(_ values: ReadoutValues, series: ReadoutSeries, scene: Scene, layout: FrameLayout, box: Box,
                     still: (panel: ImageSurface, travelled: ImageSurface?), text: TextCache, numbers: TextCache, in cr: Context) throws {
        let (_, number, unit) = styles(scene)
        cr.setSource(still.panel, x: box.minX, y: box.minY)
        cr.paint()
        for (k, item) in series.items.filter({ $0 != .profile }).enumerated() {
            guard let (value, unitText) = values.text(item, units: series.units) else { continue }
            let (x, y) = cellOrigin(k, box: box, layout: layout)
            // The value's and the unit's baselines on one line, under the label.
            let v = try numbers.layout(value, number, scale: layout.unit, in: cr)
            let baseline = y + layout.size(22) + Double(v.baseline)
            numbers.draw(v, number, x: x, y: baseline - Double(v.baseline), scale: layout.unit, in: cr)
            if !unitText.isEmpty {
                let u = try text.layout(unitText, unit, scale: layout.unit, in: cr)
                text.draw(u, unit, x: x + v.size.width + layout.size(6), y: baseline - Double(u.baseline), scale: layout.unit, in: cr)
            }
        }
        // Inside a privacy zone the profile shows no position.
        guard let travelled = still.travelled, !values.hidden else { return }
        let area = profileArea(box: box, layout: layout)
        let here = profileX(series, km: values.km, in: area)
        // The travelled part: the coloured profile up to the mover.
        cr.save()
        cr.newPath()
        cr.rectangle(area.minX, area.minY, here - area.minX, area.maxY - area.minY)
        cr.clip()
        cr.setSource(travelled, x: box.minX, y: box.minY)
        cr.paint()
        cr.restore()
        // You are here.
        let ink = scene.style.caption.color, color = series.color
        let y = profileY(series, metres: series.values(atKm: values.km), in: area, layout: layout)
        cr.newPath()
        cr.move(to: here, area.minY)
        cr.line(to: here, area.maxY)
        cr.setLineWidth(layout.size(2))
        cr.setSource(ink.withAlpha(0.8))
        cr.stroke()
        let r = layout.size(6)
        cr.newPath()
        cr.arc(x: here, y: y, radius: r + layout.size(2))
        cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 1))
        cr.fill()
        cr.arc(x: here, y: y, radius: r)
        cr.setSource(color)
        cr.fill()
    }

    /// Where `km` along the track is across the profile's area.
    static func profileX(_ series: ReadoutSeries, km: Double, in area: Box) -> Double {
        area.minX + (area.maxX - area.minX) * min(max(km / max(series.lengthKm, 1e-9), 0), 1)
    }

    /// Where `metres` is up the profile's area (the lowest and highest of the track near its bottom and top).
    static func profileY(_ series: ReadoutSeries, metres: Double, in area: Box, layout: FrameLayout) -> Double {
        let lo = series.profile.map(\.metres).min() ?? 0, hi = series.profile.map(\.metres).max() ?? 0
        let inset = layout.size(6)
        return area.maxY - inset - (area.maxY - area.minY - 2 * inset) * (metres - lo) / max(hi - lo, 1)
    }

    /// The whole profile's outline, closed along the area's bottom.
    static func profileShape(_ series: ReadoutSeries, in area: Box, layout: FrameLayout, _ cr: Context) {
        cr.newPath()
        cr.move(to: area.minX, area.maxY)
        for p in series.profile {
            cr.line(to: profileX(series, km: p.km, in: area), profileY(series, metres: p.metres, in: area, layout: layout))
        }
        cr.line(to: area.maxX, area.maxY)
        cr.closePath()
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
