import Foundation
import MapTripGeometry
import MapTripScene

/// Where things go in a frame, for every overlay: one unit of size, the safe area and the regions of
/// the cards. Sizes are in layout units, pixels of a landscape frame whose shorter side is 1080, so a
/// square and a 4K frame look designed, not stretched; a taller frame, watched on a phone held
/// upright, has larger text and pins (up to 1.4 times at 9:16: a phone shows a 9:16 frame no larger
/// than a 16:9 one, and its viewers expect text made for a phone). Text stays inside the safe area: 5%
/// in from each edge, a tall frame keeping more clear at the top and bottom, or a platform's zone
/// (`SafeZone`).
public struct FrameLayout: Equatable, Sendable {
    /// The shorter side, in layout units.
    public static let reference = 1080.0

    public let width: Double
    public let height: Double
    /// Frame pixels per layout unit.
    public let unit: Double
    /// The title-safe area: text and cards stay inside it.
    public let safe: Box
    /// The bottom-right corner the credit sits in: the frame's, or under a platform's interface the
    /// safe area's (the credit must show).
    public let creditRight: Double, creditBottom: Double
    /// The highest the credit's box reaches (`AttributionOverlay`): on small frames its text, never under
    /// 12 pixels, rises out of the frame's margin into the safe area.
    public var creditTop: Double {
        let s = AttributionOverlay.scale(unit: unit, size: AttributionOverlay.textSize)
        return creditBottom - (AttributionOverlay.lineHeight * AttributionOverlay.textSize + 2.5 * 6) * s
    }

    /// The box the scene's presenter sits in (`presenterBox`), nil without one.
    public let presenter: Box?

    /// `presenter`: the scene's, placed in its corner of the safe area.
    public init(width: Int, height: Int, safeZone: SafeZone = .standard, presenter: Presenter? = nil) {
        let w = Double(width), h = Double(height)
        self.width = w
        self.height = h
        unit = SafeArea.unit(width: w, height: h)
        safe = SafeArea.box(width: w, height: h, insets: safeZone.insets)
        (creditRight, creditBottom) = safeZone == .standard ? (w, h) : (safe.maxX, safe.maxY)
        let safe = self.safe
        self.presenter = presenter.map { Self.presenterBox($0, safe: safe, width: w, height: h) }
    }

    /// Where a presenter sits: in its corner of the safe area, `size` of the frame's shorter side high,
    /// as wide as its picture (a circle: square), at most half the safe area wide.
    static func presenterBox(_ p: Presenter, safe: Box, width: Double, height: Double) -> Box {
        let h = min(p.size * min(width, height), (safe.maxY - safe.minY) / 2)
        let w = min(p.shape == .circle ? h : h * p.aspect, (safe.maxX - safe.minX) / 2)
        let left = p.corner == .bottomLeft || p.corner == .topLeft
        let top = p.corner == .topLeft || p.corner == .topRight
        let x = left ? safe.minX : safe.maxX - w, y = top ? safe.minY : safe.maxY - h
        return Box(minX: x.rounded(), minY: y.rounded(), maxX: (x + w).rounded(), maxY: (y + h).rounded())
    }

    /// The white ring around the presenter's picture.
    public var presenterRing: Double { size(5) }

    /// The space left beside a box in a corner: `area` cut above or below it where they overlap.
    func areas(_ area: Box, clearOf box: Box?) -> [Box] {
        guard let box, area.overlaps(box) else { return [area] }
        let gap = size(20)
        var a = area
        if box.minY > (area.minY + area.maxY) / 2 {
            a.maxY = min(a.maxY, box.minY - gap)
        } else {
            // Top-left, the counter moves under it (`counterOrigin`): below both.
            let counter = counterBox(clearOf: box)
            a.minY = max(a.minY, box.maxY + gap, counter.minY > box.maxY && a.overlaps(counter) ? counter.maxY + gap : 0)
        }
        // Or beside it (a tall frame's full-width area, where the card may sit level with it).
        var b = area
        if box.minX > (area.minX + area.maxX) / 2 { b.maxX = min(b.maxX, box.minX - gap) } else { b.minX = max(b.minX, box.maxX + gap) }
        return [a, b].filter { $0.maxY > $0.minY && $0.maxX > $0.minX && !$0.overlaps(box) }
    }

    /// The space left of `area` clear of `box`: above or below it (as it sits in the area's lower or
    /// upper half), and beside it.
    static func cut(_ area: Box, clearOf box: Box, gap: Double) -> [Box] {
        guard area.overlaps(box) else { return [area] }
        var a = area, b = area
        if box.minY > (area.minY + area.maxY) / 2 { a.maxY = min(a.maxY, box.minY - gap) } else { a.minY = max(a.minY, box.maxY + gap) }
        if box.minX > (area.minX + area.maxX) / 2 { b.maxX = min(b.maxX, box.minX - gap) } else { b.minX = max(b.minX, box.maxX + gap) }
        return [a, b].filter { $0.maxY > $0.minY && $0.maxX > $0.minX && !$0.overlaps(box) }
    }

    public var frame: Box { Box(minX: 0, minY: 0, maxX: width, maxY: height) }
    public var isPortrait: Bool { height > width * 1.2 }

    /// A size in layout units, in frame pixels.
    @inline(__always) public func size(_ units: Double) -> Double { units * unit }

    /// The widest a line of card text may run.
    public var textWidth: Double { safe.maxX - safe.minX }

    /// The top centre of the title card.
    public var titleTop: Double { safe.minY + size(20) }

    /// The box a caption card sits in, centred on its bottom edge: above the credit where the credit
    /// sits in the safe area.
    public var captionBottom: Double { creditBottom < height ? safe.maxY - size(44) : safe.maxY }

    /// Where a photo of this aspect (width / height) goes, clear of the frame's centre (where the
    /// camera holds the place, its pin and its label): in a landscape frame, the right part of the
    /// safe area, vertically centred above the caption; in a tall frame, above the centre, the full
    /// width of the safe area. The box holds the photo and its frame.
    /// `clearOf`: the presenter's box, which the card keeps clear of.
    /// `and`: other boxes in corners (the furniture's), which it keeps clear of too.
    public func photoBox(aspect: Double, clearOf presenter: Box? = nil, and others: [Box] = []) -> Box {
        let a = aspect.isFinite && aspect > 0 ? aspect : 1
        let area: Box
        if isPortrait {
            area = Box(minX: safe.minX, minY: safe.minY + size(20), maxX: safe.maxX, maxY: height / 2 - size(110))
        } else {
            let left = width / 2 + size(150)
            area = Box(minX: left, minY: safe.minY + size(60), maxX: safe.maxX, maxY: safe.maxY - size(170))
        }
        /// The largest box of the aspect in an area, centred in it.
        func fit(_ area: Box) -> Box {
            var w = area.maxX - area.minX, h = w / a
            if h > area.maxY - area.minY {
                h = area.maxY - area.minY
                w = h * a
            }
            let cx = (area.minX + area.maxX) / 2, cy = (area.minY + area.maxY) / 2
            return Box(minX: cx - w / 2, minY: cy - h / 2, maxX: cx + w / 2, maxY: cy + h / 2)
        }
        // Clear of the presenter: the larger card of the spaces beside and above or below it.
        var spaces = areas(area, clearOf: presenter)
        if isPortrait, others.contains(where: { $0.overlaps(area) }) {
            // A tall frame's card pushed aside above the centre (under the title card) may fit
            // better below it, between the place and the caption.
            let below = Box(minX: safe.minX, minY: height / 2 + size(110), maxX: safe.maxX, maxY: captionBottom - size(160))
            spaces += areas(below, clearOf: presenter)
        }
        for box in others { spaces = spaces.flatMap { Self.cut($0, clearOf: box, gap: size(20)) } }
        let fits = spaces.map(fit)
        return fits.max { ($0.maxX - $0.minX) < ($1.maxX - $1.minX) } ?? fit(area)
    }

    /// The box the distance counter takes at most (its text is up to "40,075 km"): below the presenter
    /// when it sits in the top-left corner (`clearOf`).
    public func counterBox(clearOf presenter: Box? = nil) -> Box {
        let (x, y) = counterOrigin(clearOf: presenter)
        return Box(minX: x, minY: y, maxX: x + size(250), maxY: y + size(64))
    }

    public var counterBox: Box { counterBox() }

    /// The top-left corner of the distance counter.
    public func counterOrigin(clearOf presenter: Box? = nil) -> (x: Double, y: Double) {
        let box = Box(minX: safe.minX, minY: safe.minY, maxX: safe.minX + size(250), maxY: safe.minY + size(64))
        guard let presenter, box.overlaps(presenter) else { return (safe.minX, safe.minY) }
        return (safe.minX, presenter.maxY + size(16))
    }

    public var counterOrigin: (x: Double, y: Double) { counterOrigin() }

    /// How wide a caption card may be, centred: the safe area's width, or beside a presenter in a bottom
    /// corner (the card's band of rows meets it), as wide as keeps clear of it on both sides.
    public func captionWidth(clearOf presenter: Box? = nil) -> Double {
        guard let presenter, presenter.maxY > captionBottom - size(200) else { return textWidth }
        let half = min(width / 2 - presenter.maxX, presenter.minX - width / 2)
        // A presenter across the middle (it cannot be: at most half the safe area wide) leaves the width.
        return half > 0 ? max(size(200), 2 * (half - size(20))) : textWidth
    }
}

/// Places labels next to their anchors so that none overlaps another or leaves the frame: each label
/// tries the candidate positions around its anchor in order (right, left, above, below, then the
/// corners) and takes the first free one; a label with no free position is hidden, except the
/// ones marked `always` (the current place), which are placed first and win every collision.
public enum LabelPlacer {
    public struct Request: Equatable, Sendable {
        public var anchorX: Double
        public var anchorY: Double
        public var width: Double
        public var height: Double
        /// The gap between the anchor and the label.
        public var gap: Double
        /// How far the anchor's own mark (a pin) rises above it.
        public var rise: Double
        public var always: Bool

        public init(anchorX: Double, anchorY: Double, width: Double, height: Double, gap: Double, rise: Double,
                    always: Bool = false) {
            self.anchorX = anchorX
            self.anchorY = anchorY
            self.width = width
            self.height = height
            self.gap = gap
            self.rise = rise
            self.always = always
        }

        /// The box of a spot beside this anchor: its candidate, moved inside `bounds` if it says so.
        public func box(_ spot: Spot, within bounds: Box) -> Box {
            let b = candidates()[spot.candidate]
            return spot.clamped ? LabelPlacer.clamp(b, into: bounds) : b
        }

        /// The candidate boxes, in order of preference.
        func candidates() -> [Box] {
            let w = width, h = height
            // Beside a pin, the label's middle sits level with the pin's head.
            let mid = -rise * 0.7
            let offsets = [
                (gap, mid - h / 2),                 // right
                (-gap - w, mid - h / 2),            // left
                (-w / 2, -rise - gap / 2 - h),      // above
                (-w / 2, gap / 2),                  // below
                (gap * 0.7, -rise - h),             // upper right
                (-gap * 0.7 - w, -rise - h),        // upper left
                (gap * 0.7, 0),                     // lower right
                (-gap * 0.7 - w, 0),                // lower left
            ]
            // Offsets from the anchor in whole half pixels, the step pictures are placed at
            // (`Sprites`): a pin and its label, placed from the same anchor, round alike and move
            // together while the map glides.
            return offsets.map { dx, dy in
                let x = anchorX + (dx * 2).rounded() / 2, y = anchorY + (dy * 2).rounded() / 2
                return Box(minX: x, minY: y, maxX: x + w, maxY: y + h)
            }
        }
    }

    /// The box each label takes (nil: hidden), in the order of `requests`. `bounds` is where labels
    /// must lie (the frame, inset); `obstacles` are boxes labels must not cover (cards, pins); `lines`
    /// are the routes, which a label keeps off where one of its positions can (else it takes the
    /// first position free of the rest: its halo keeps it legible over the line).
    public static func place(_ requests: [Request], within bounds: Box, avoiding obstacles: [Box] = [],
                             lines: LineObstacles? = nil, padding: Double = 0) -> [Box?] {
        let spots = choose(requests, within: bounds, avoiding: obstacles, lines: lines, padding: padding)
        return requests.indices.map { k in spots[k].map { requests[k].box($0, within: bounds) } }
    }

    /// Where each label goes (nil: hidden), as `place` places it: its candidate, and whether that
    /// candidate is moved inside `bounds` (the current place's label, with no free position).
    public struct Spot: Hashable, Sendable {
        public var candidate: Int
        public var clamped: Bool
    }

    /// The spots `place` takes, in the order of `requests`.
    public static func choose(_ requests: [Request], within bounds: Box, avoiding obstacles: [Box] = [],
                              lines: LineObstacles? = nil, padding: Double = 0) -> [Spot?] {
        var placed = [Spot?](repeating: nil, count: requests.count)
        var occupied: [Box] = []
        let order = requests.indices.filter { requests[$0].always } + requests.indices.filter { !requests[$0].always }
        for k in order {
            let r = requests[k]
            let candidates = r.candidates()
            let free = candidates.enumerated().map { (index: $0.offset, box: $0.element) }.filter { c in
                let b = c.box, p = b.padded(by: padding)
                return bounds.contains(b) && !occupied.contains { p.overlaps($0) } && !obstacles.contains { b.overlaps($0) }
            }
            var choice = (free.first { !(lines?.meets($0.box) ?? false) } ?? free.first).map { Spot(candidate: $0.index, clamped: false) }
            if choice == nil, r.always {
                // The current place's label always shows: the first candidate, kept inside the frame,
                // that is free of other labels, else the first one kept inside the frame. (Checked
                // after the move: a candidate free outside the frame may land on a label once moved in.)
                let inside = candidates.map { clamp($0, into: bounds) }
                let i = inside.firstIndex { c in !occupied.contains { c.padded(by: padding).overlaps($0) } } ?? 0
                choice = Spot(candidate: i, clamped: true)
            }
            if let choice {
                placed[k] = choice
                occupied.append(r.box(choice, within: bounds))
            }
        }
        return placed
    }

    /// `b` moved (not resized) to lie inside `bounds` as far as it fits.
    static func clamp(_ b: Box, into bounds: Box) -> Box {
        let w = b.maxX - b.minX, h = b.maxY - b.minY
        let x = min(max(b.minX, bounds.minX), bounds.maxX - w)
        let y = min(max(b.minY, bounds.minY), bounds.maxY - h)
        return Box(minX: x, minY: y, maxX: x + w, maxY: y + h)
    }
}
