import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Pango

/// Text styling shared by overlays: Pango font descriptions, sizes in layout units.
public struct TextStyle: Sendable, Hashable {
    public var family = "Noto Sans"
    public var weight = "Semi-Bold"
    /// Size in layout units (multiplied by the layout's unit).
    public var size: Double
    public var color: Color
    public var halo = Color(red: 1, green: 1, blue: 1, alpha: 0.92)
    /// Halo width in layout units (0: none).
    public var haloWidth: Double = 4
    /// OpenType features, as CSS's font-feature-settings says them ("tnum": tabular figures); empty: none.
    public var features = ""

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
    public static func warmUp() {
        let style = TextStyle(size: 16, color: Color(red: 0, green: 0, blue: 0, alpha: 1))
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
        var font: FontKey, width: Double?, text: String, features = ""
    }

    private var layouts: [LayoutKey: Layout] = [:]
    /// How many layouts are kept (for a cache of text that changes every frame, to start afresh).
    var layoutCount: Int { layouts.count }
    private var fonts: [FontKey: FontDescription] = [:]
    /// A context of an image surface, untransformed, as the frames' are: for laying out text to be
    /// drawn as a picture (a layout is made for a context's font options and transformation).
    private lazy var scratch: Result<Context, Error> = Result {
        try Context(surface: try ImageSurface(width: 1, height: 1))
    }

    /// `cr`: the context the layout will be drawn on (nil: the frames' kind, see `scratch`).
    func layout(_ text: String, _ style: TextStyle, scale: Double, width: Double? = nil, in cr: Context? = nil) throws -> Layout {
        let fontKey = FontKey(family: style.family, weight: style.weight, size: style.size * scale)
        let key = LayoutKey(font: fontKey, width: width, text: text, features: style.features)
        if let l = layouts[key] { return l }
        let font: FontDescription
        if let f = fonts[fontKey] { font = f } else {
            font = try style.font(scale: scale)
            fonts[fontKey] = font
        }
        let l = try Layout(context: cr ?? scratch.get())
        l.setFont(font)
        if !style.features.isEmpty { l.setFontFeatures(style.features) }
        if let width {
            l.setWidth(width)
            l.setWrapWordChar()
            l.setAlignment(.center)
        }
        l.text = text
        layouts[key] = l
        return l
    }

    /// Labels that move with the map, drawn once each (see `Sprites`), within `spriteLimit` bytes (a
    /// cache's own limit when made with one: a styled map's labels are many more than the trip's).
    private let sprites: Sprites
    static let spriteLimit = 2 << 20

    init(spriteLimit: Int = TextCache.spriteLimit) {
        sprites = Sprites(limitBytes: spriteLimit)
    }

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
