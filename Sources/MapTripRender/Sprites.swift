import Cairo
import MapTripGeometry

/// Overlay marks (a place's label on its halo, a pin) drawn once and painted wherever they go: a mark
/// is the same picture frame after frame, only moved, and stroking a label's halo (the outline of
/// every glyph) costs far more than painting its picture.
///
/// A mark is drawn with its anchor on the nearest half pixel (up to four pictures per mark), and
/// the picture painted at whole pixels: the anchor lands within a quarter pixel of where it is (Cairo
/// already puts each glyph on a whole pixel). A mark painted with an opacity fades as one picture.
/// Least recently used pictures go first, within `limitBytes`.
public final class Sprites {
    /// A picture: its name (boxed once, when drawn) and phase (half-pixel offsets of the anchor: x + 2 y).
    private struct Entry {
        var name: AnyHashable, phase: Int
        var surface: ImageSurface, x0: Int, y0: Int, tick: UInt64
    }

    /// The pictures by their name's hash and phase (a bucket holds the rare names that share one):
    /// a frame looks up each of its marks, and boxing a name as `AnyHashable` for every look-up
    /// copied and allocated a styled map's label names (their texts and style) hundreds of times a frame.
    private var pictures: [Int: [Entry]] = [:]
    private var tick: UInt64 = 0
    public private(set) var bytes = 0
    /// Pictures drawn so far (one evicted and drawn again counts again).
    public private(set) var drawn = 0
    public let limitBytes: Int

    public init(limitBytes: Int = 2 << 20) { self.limitBytes = limitBytes }

    /// The mark `name` (the same name: the same picture; any hashable value, so that a frame names its
    /// marks without formatting strings) placed with its anchor at (x, y), at `alpha`. `extent`: a box
    /// around the anchor holding everything `draw` draws; `draw` draws the mark with its anchor at the
    /// origin. The picture has a transparent margin of a pixel or more on every side.
    public func mark<Name: Hashable>(_ name: Name, x: Double, y: Double, extent: Box, alpha: Double = 1,
                                     draw: (Context) throws -> Void) throws -> Mark {
        let hx = (x * 2).rounded(), hy = (y * 2).rounded()
        let ix = Int((hx / 2).rounded(.down)), iy = Int((hy / 2).rounded(.down))
        let fx = hx / 2 - Double(ix), fy = hy / 2 - Double(iy)
        let phase = (fx > 0 ? 1 : 0) + (fy > 0 ? 2 : 0)
        let bucket = name.hashValue &* 4 &+ phase
        tick &+= 1
        // (The bucket's array touched in place: a copy of it held across the tick's update would be copied.)
        if let b = pictures.index(forKey: bucket),
           let i = pictures.values[b].firstIndex(where: { $0.phase == phase && ($0.name.base as? Name) == name }) {
            pictures.values[b][i].tick = tick
            let p = pictures.values[b][i]
            return Mark(picture: p.surface, x: ix + p.x0, y: iy + p.y0, alpha: alpha)
        }
        let x0 = Int(extent.minX.rounded(.down)) - 1, y0 = Int(extent.minY.rounded(.down)) - 1
        let x1 = Int(extent.maxX.rounded(.up)) + 2, y1 = Int(extent.maxY.rounded(.up)) + 2
        let surface = try ImageSurface(width: max(1, x1 - x0), height: max(1, y1 - y0))
        try surface.withContext { sc in
            sc.translate(Double(-x0) + fx, Double(-y0) + fy)
            try draw(sc)
        }
        surface.flush()
        drawn += 1
        let size = surface.byteCount
        while bytes + size > limitBytes, let oldest = oldest() {
            bytes -= pictures[oldest.bucket]![oldest.index].surface.byteCount
            pictures[oldest.bucket]!.remove(at: oldest.index)
            if pictures[oldest.bucket]!.isEmpty { pictures[oldest.bucket] = nil }
        }
        pictures[bucket, default: []].append(Entry(name: AnyHashable(name), phase: phase, surface: surface, x0: x0, y0: y0, tick: tick))
        bytes += size
        return Mark(picture: surface, x: ix + x0, y: iy + y0, alpha: alpha)
    }

    /// The least recently used picture.
    private func oldest() -> (bucket: Int, index: Int)? {
        var best: (bucket: Int, index: Int, tick: UInt64)?
        for (bucket, entries) in pictures {
            for (i, e) in entries.enumerated() where best == nil || e.tick < best!.tick { best = (bucket, i, e.tick) }
        }
        return best.map { ($0.bucket, $0.index) }
    }
}

/// A picture placed on the frame at whole pixels (its top-left at (x, y)), painted at `alpha`: an
/// overlay's label, pin or credit as `Sprites` keeps it.
public struct Mark {
    public var picture: ImageSurface
    public var x: Int, y: Int
    public var alpha: Double

    /// The frame's pixels it covers (before clipping to the frame).
    public var rect: InkCells.Rect { InkCells.Rect(x: x, y: y, width: picture.width, height: picture.height) }
    /// The same pixels as a box.
    var box: Box { Box(minX: Double(x), minY: Double(y), maxX: Double(x + picture.width), maxY: Double(y + picture.height)) }

    /// Paints it on `cr`, whose origin is the frame's: by maptrip's own OVER (`PixelTarget.paint`, the
    /// same bytes as Cairo's) where the context allows, as a frame drawn into I420 paints it; else by Cairo.
    public func paint(in cr: Context) {
        guard alpha > 0 else { return }
        if let target = PixelTarget(cr), target.paint([self], alpha: alpha) { return }
        cr.save()
        cr.setSource(picture, x: Double(x), y: Double(y))
        if alpha >= 1 { cr.paint() } else { cr.paint(alpha: alpha) }
        cr.restore()
    }
}
