import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Pango

/// The base map's credit (or its missing-credit warning) in the bottom-right corner: the same
/// picture every frame, drawn once.
public final class AttributionOverlay: OverlayFastPaths {
    public var style = TextStyle(weight: "Regular", size: 17, color: Color(hex: "#262626")!, haloWidth: 0)
    public var warningStyle = TextStyle(weight: "Bold", size: 17, color: Color(hex: "#b3261e")!, haloWidth: 0)
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
        let (w, h) = l.size
        let pad = 6 * s
        // The box's top-left is the picture's anchor.
        let x = frame.layout.creditRight - w - 3 * pad, y = frame.layout.creditBottom - h - 2.5 * pad
        let box = Box(minX: 0, minY: 0, maxX: w + 2 * pad, maxY: h + pad)
        let key = Key(line: line, warning: warning != nil, unit: s)
        return [try pictures.mark(key, x: x, y: y, extent: box) { cr in
            cr.rectangle(0, 0, box.maxX, box.maxY)
            cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 0.7))
            cr.fill()
            text.draw(l, st, x: pad, y: pad / 2, scale: s, in: cr)
        }]
    }

    /// The scale the credit is drawn at: the layout's unit, but never below `minimumPixels` of text.
    public static func scale(unit: Double, size: Double) -> Double { max(unit, minimumPixels / size) }

    private struct Key: Hashable { var line: String, warning: Bool, unit: Double }
}
