import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime

/// A playback's travelled lines (`MoverOverlay`) drawn as two layers of the frame's size: every line's
/// casing as one coverage layer (opaque white, painted once at `MoverOverlay.casingAlpha`, so pieces that
/// overlap leave no seams), under every line's colour (the newest stretch on top). Both are made from
/// stretches in one canonical order, whichever path draws the frame, so the pictures are the same by
/// construction:
///
/// - a run is the frames of one camera at rest (the same viewport) up to this one; its first frame
///   draws each mover's whole line so far, and then every `every` frames (a checkpoint) each mover's
///   line from the last checkpoint on is added, in the movers' order;
/// - the frame itself adds each mover's stretch since the last checkpoint (the tail) over a copy of
///   the checkpoint's layers.
///
/// With fast paths on (`FastPaths.lines`) the checkpoint's layers are kept from frame to frame, so a
/// frame costs its tails, a copy and a paint, whatever the lines' length (a thousand 20-minute tracks
/// cost as much at the end as at the start); off, and in a preview (a renderer of one frame), they are
/// made again from the run's first frame. A mover whose line shrinks (a line that goes back) starts the
/// layers again at that checkpoint. Not drawn here (false: `MoverOverlay` strokes the lines whole, mover
/// by mover, casing then colour): a frame whose camera moves (its view shared with neither neighbour: a
/// follow camera), a frame without the trip's frames, and one where a line shrinks within the tail.
final class KeptLines {
    /// The frames between checkpoints: a preview of a run's last frame adds a run's thousands of
    /// frames in a thirtieth as many steps, and a frame's tails are at most this many frames long.
    static let every = 30

    /// What the kept layers were drawn for.
    private struct Key: Equatable {
        var viewport: Viewport
        var width: Double
        var tracks: Int
    }

    private var key: Key?
    /// The layers at the last checkpoint, and the frame's copy with its tails.
    private var kept: LinePair?, scratch: LinePair?
    /// The run the kept layers belong to (its first frame), the checkpoint they hold and each mover's
    /// line's end there (fraction of its track).
    private var run = 0, through: Int?
    private var progress: [Int: Double] = [:]
    /// The last frame drawn, what for, and its run's first frame.
    private var seen: (key: Key, start: Int, frame: Int)?

    /// Whether `draw` may draw `frame`'s lines as layers: a frame of the trip (not one drawn alone) whose
    /// camera shares its view with a neighbouring frame's.
    static func mayKeep(_ frame: FrameContext) -> Bool {
        guard let n = frame.number, frame.frameAt != nil, let count = frame.frameCount, let view = frame.viewportAt
        else { return false }
        return (n > 0 && view(n - 1) == frame.viewport) || (n + 1 < count && view(n + 1) == frame.viewport)
    }

    /// Draws the frame's travelled lines in `cr` (device pixels, the frame's); false, nothing drawn,
    /// where they are not drawn as layers (see above).
    func draw(_ frame: FrameContext, routes: [RouteLine], width: Double, in cr: Context) throws -> Bool {
        let viewport = frame.viewport
        let colors = frame.scene.tracks.map(\.color)
        func layers(_ pair: LinePair?) throws -> LinePair {
            if let pair, pair.width == viewport.width, pair.height == viewport.height { return pair }
            return try LinePair(width: viewport.width, height: viewport.height)
        }
        // Drawn alone (without the trip's frames), the lines are stroked mover by mover; so are a moving
        // camera's (its view shared with neither neighbour): the layers would cost it more than they give.
        guard Self.mayKeep(frame), let n = frame.number, let at = frame.frameAt, let view = frame.viewportAt
        else { return false }
        let key = Key(viewport: viewport, width: width, tracks: routes.count)
        let keeps = frame.fastPaths.lines
        // The run's first frame: the last drawn frame's where every frame since has the viewport (a
        // pure function of the cameras, remembered on either path).
        var start = n
        if let seen, seen.key == key, seen.frame <= n, seen.frame >= seen.start,
           (seen.frame + 1..<max(seen.frame + 1, n)).allSatisfy({ view($0) == viewport }) {
            start = seen.start
        } else {
            while start > 0, view(start - 1) == viewport { start -= 1 }
        }
        seen = (key, start, n)
        let checkpoint = start + Self.every * ((n - start) / Self.every)
        let kept = try layers(kept)
        self.kept = kept
        if !keeps || self.key != key || run != start || (through ?? start) > checkpoint {
            kept.clear()
            progress = [:]
            through = nil
            run = start
            self.key = key
        }
        var t = through.map { $0 + Self.every } ?? start
        while t <= checkpoint {
            let values = t == n ? frame.values : at(t).values
            if !kept.add(frame, values, routes: routes, colors: colors, width: width, progress: &progress) {
                // A line went back: the layers start again here.
                kept.clear()
                progress = [:]
                _ = kept.add(frame, values, routes: routes, colors: colors, width: width, progress: &progress)
            }
            through = t
            t += Self.every
        }
        if checkpoint == n {
            kept.paint(in: cr)
            return true
        }
        var tail = progress
        let scratch = try layers(scratch)
        self.scratch = scratch
        scratch.copy(kept)
        guard scratch.add(frame, frame.values, routes: routes, colors: colors, width: width, progress: &tail) else {
            return false
        }
        scratch.paint(in: cr)
        return true
    }
}

/// A rectangle of whole pixels, `x1` and `y1` past its last.
private struct PixelBox: Equatable {
    var x0, y0, x1, y1: Int

    func union(_ o: PixelBox?) -> PixelBox {
        guard let o else { return self }
        return PixelBox(x0: min(x0, o.x0), y0: min(y0, o.y0), x1: max(x1, o.x1), y1: max(y1, o.y1))
    }
}

/// The casing layer and the colour layer, and where they have ink.
private final class LinePair {
    let casing: ImageSurface, colors: ImageSurface
    private let casingContext: Context, colorsContext: Context
    /// Where either has ink (nil: nowhere).
    private(set) var box: PixelBox?
    var width: Int { casing.width }
    var height: Int { casing.height }

    init(width: Int, height: Int) throws {
        casing = try ImageSurface(width: width, height: height)
        colors = try ImageSurface(width: width, height: height)
        casingContext = try Context(surface: casing)
        colorsContext = try Context(surface: colors)
        for cr in [casingContext, colorsContext] {
            cr.setLineJoin(.round)
            cr.setLineCap(.round)
        }
    }

    /// Both layers transparent again.
    func clear() {
        guard let box else { return }
        for surface in [casing, colors] {
            surface.flush()
            let data = surface.data, stride = surface.stride
            for y in box.y0..<box.y1 {
                (data + y * stride + box.x0 * 4).update(repeating: 0, count: (box.x1 - box.x0) * 4)
            }
            surface.markDirty()
        }
        self.box = nil
    }

    /// Both layers made `other`'s (of the same size).
    func copy(_ other: LinePair) {
        guard let region = other.box.map({ $0.union(box) }) ?? box else { return }
        for (to, from) in [(casing, other.casing), (colors, other.colors)] {
            from.flush()
            to.flush()
            let stride = to.stride, bytes = (region.x1 - region.x0) * 4
            for y in region.y0..<region.y1 {
                (to.data + y * stride + region.x0 * 4).update(from: from.data + y * stride + region.x0 * 4, count: bytes)
            }
            to.markDirty()
        }
        box = other.box
    }

    /// Adds each mover's line from its end in `progress` to its position in `values`, in the movers'
    /// order (casings under every colour), and moves `progress` on; false, adding nothing, where a
    /// mover's line would shrink (or a mover in `progress` is gone).
    func add(_ frame: FrameContext, _ values: FrameValues, routes: [RouteLine], colors: [Color], width: Double,
             progress: inout [Int: Double]) -> Bool {
        let movers = values.movers.filter { $0.track < routes.count && $0.track < colors.count }
        let present = Set(movers.map(\.track))
        guard progress.keys.allSatisfy(present.contains),
              movers.allSatisfy({ $0.vehicle.progress >= (progress[$0.track] ?? 0) }) else { return false }
        var groups: [(lines: [[(x: Double, y: Double)]], color: Color)] = []
        var ink = Box.empty
        for mover in movers {
            let from = progress[mover.track] ?? 0, to = mover.vehicle.progress
            progress[mover.track] = to
            guard to > from else { continue }
            let lines = frame.visibleLines(routes[mover.track].part(from: from, to: to)).filter { $0.count > 1 }
            guard !lines.isEmpty else { continue }
            for line in lines {
                for p in line { ink.add(p.x, p.y) }
            }
            groups.append((lines, colors[mover.track]))
        }
        guard !groups.isEmpty else { return true }
        let casingWidth = width * MoverOverlay.casingWidth
        let white = Color(red: 1, green: 1, blue: 1)
        let all = groups.flatMap(\.lines)
        // maptrip's stroker where it can draw (as MoverOverlay's), else Cairo's.
        if PixelTarget(casingContext)?.stroke(all, passes: [(white, casingWidth)]) != true {
            MoverOverlay.stroke(all, white, casingWidth, in: casingContext)
        }
        if PixelTarget(colorsContext).map({ t in t.stroke(groups.map { t.group($0.lines, passes: [($0.color, width)]) }) }) != true {
            for group in groups { MoverOverlay.stroke(group.lines, group.color, width, in: colorsContext) }
        }
        let margin = casingWidth / 2 + 2
        let drawn = PixelBox(x0: max(0, Int((ink.minX - margin).rounded(.down))), y0: max(0, Int((ink.minY - margin).rounded(.down))),
                             x1: min(self.width, Int((ink.maxX + margin).rounded(.up))),
                             y1: min(self.height, Int((ink.maxY + margin).rounded(.up))))
        if drawn.x1 > drawn.x0, drawn.y1 > drawn.y0 { box = drawn.union(box) }
        return true
    }

    /// Paints the casing at `MoverOverlay.casingAlpha`, then the colours, where they have ink.
    func paint(in cr: Context) {
        guard let box else { return }
        cr.save()
        cr.newPath()
        cr.rectangle(Double(box.x0), Double(box.y0), Double(box.x1 - box.x0), Double(box.y1 - box.y0))
        cr.clip()
        cr.setSource(casing, x: 0, y: 0)
        cr.paint(alpha: MoverOverlay.casingAlpha)
        cr.setSource(colors, x: 0, y: 0)
        cr.paint()
        cr.restore()
    }
}
