import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Pango

/// The base map's credit (or its missing-credit warning) in the bottom-right corner: the same
/// picture every frame, drawn once.
public final class AttributionOverlay: OverlayFastPaths {
    /// The credit's text size in layout units, and a bound on its line's height in ems (Noto Sans sets
    /// 1.36): the layout keeps the bottom-right corner's pieces above the box they make (`creditTop`).
    public static let textSize = 17.0, lineHeight = 1.45
    public var style = TextStyle(weight: "Regular", size: AttributionOverlay.textSize, color: Color(hex: "#262626")!, haloWidth: 0)
    public var warningStyle = TextStyle(weight: "Bold", size: AttributionOverlay.textSize, color: Color(hex: "#b3261e")!, haloWidth: 0)
    /// The credit is never set smaller than this many pixels, whatever the frame's size (a 640 x 360
    /// draft's unit would make it 5 pixels tall).
    public static let minimumPixels = 12.0
    private let text = TextCache()
    private let pictures = Sprites(limitBytes: 1 << 20)

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        try marks(frame)?.forEach { $0.paint(in: cr) }
    }

    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        let warning = frame.baseMap.attributionWarning
        guard let line = warning ?? frame.baseMap.attribution, !line.isEmpty else { return [] }
        let st = warning == nil ? style : warningStyle
        let s = Self.scale(unit: frame.layout.unit, size: st.size)
        let l = try text.layout(line, st, scale: s)
        let placed = Self.box(size: l.size, layout: frame.layout)
        let pad = 6 * s
        // The box's top-left is the picture's anchor.
        let box = Box(minX: 0, minY: 0, maxX: placed.maxX - placed.minX, maxY: placed.maxY - placed.minY)
        let key = Key(line: line, warning: warning != nil, unit: s)
        return [try pictures.mark(key, x: placed.minX, y: placed.minY, extent: box) { cr in
            cr.rectangle(0, 0, box.maxX, box.maxY)
            cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 0.7))
            cr.fill()
            text.draw(l, st, x: pad, y: pad / 2, scale: s, in: cr)
        }]
    }

    /// The credit's box on the frame for text of `size` pixels.
    public static func box(size: (width: Double, height: Double), layout: FrameLayout) -> Box {
        let pad = 6 * scale(unit: layout.unit, size: textSize)
        let x = layout.creditRight - size.width - 3 * pad, y = layout.creditBottom - size.height - 2.5 * pad
        return Box(minX: x, minY: y, maxX: x + size.width + 2 * pad, maxY: y + size.height + pad)
    }

    /// The box `line` takes as the credit, laid out as drawn.
    public static func box(_ line: String, layout: FrameLayout) throws -> Box {
        let overlay = AttributionOverlay()
        let l = try overlay.text.layout(line, overlay.style, scale: scale(unit: layout.unit, size: textSize))
        return box(size: l.size, layout: layout)
    }

    /// The scale the credit is drawn at: the layout's unit, but never below `minimumPixels` of text.
    public static func scale(unit: Double, size: Double) -> Double { max(unit, minimumPixels / size) }

    private struct Key: Hashable { var line: String, warning: Bool, unit: Double }
}
