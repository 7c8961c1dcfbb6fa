import Foundation
import MapTripGeometry

/// Where things go in a frame, for every overlay: one unit of size, the safe area and the regions of
/// the cards. Sizes are in layout units, pixels of a frame whose shorter side is 1080, so a 9:16
/// phone frame, a square and a 4K frame all look designed, not stretched: text is as large relative
/// to the frame's shorter side, and stays inside the safe area (5% in from each edge; a tall frame
/// keeps more clear at the top and bottom, where phone apps put their buttons).
public struct FrameLayout: Equatable, Sendable {
    /// The shorter side, in layout units.
    public static let reference = 1080.0

    public let width: Double
    public let height: Double
    /// Frame pixels per layout unit.
    public let unit: Double
    /// The title-safe area: text and cards stay inside it.
    public let safe: Box

    public init(width: Int, height: Int) {
        let w = Double(width), h = Double(height)
        self.width = w
        self.height = h
        unit = min(w, h) / Self.reference
        safe = SafeArea.box(width: w, height: h)
    }

    public var frame: Box { Box(minX: 0, minY: 0, maxX: width, maxY: height) }
    public var isPortrait: Bool { height > width * 1.2 }

    /// A size in layout units, in frame pixels.
    @inline(__always) public func size(_ units: Double) -> Double { units * unit }

    /// The widest a line of card text may run.
    public var textWidth: Double { safe.maxX - safe.minX }

    /// The top centre of the title card.
    public var titleTop: Double { safe.minY + size(20) }

    /// The box a caption card sits in, centred on its bottom edge.
    public var captionBottom: Double { safe.maxY }

    /// Where a photo of this aspect (width / height) goes, clear of the frame's centre (where the
    /// camera holds the place, its pin and its label): in a landscape frame, the right part of the
    /// safe area, vertically centred above the caption; in a tall frame, above the centre, the full
    /// width of the safe area. The box holds the photo and its frame.
    public func photoBox(aspect: Double) -> Box {
        let a = aspect.isFinite && aspect > 0 ? aspect : 1
        let area: Box
        if isPortrait {
            area = Box(minX: safe.minX, minY: safe.minY + size(20), maxX: safe.maxX, maxY: height / 2 - size(110))
        } else {
            let left = width / 2 + size(150)
            area = Box(minX: left, minY: safe.minY + size(60), maxX: safe.maxX, maxY: safe.maxY - size(170))
        }
        var w = area.maxX - area.minX, h = w / a
        if h > area.maxY - area.minY {
            h = area.maxY - area.minY
            w = h * a
        }
        let cx = (area.minX + area.maxX) / 2, cy = (area.minY + area.maxY) / 2
        return Box(minX: cx - w / 2, minY: cy - h / 2, maxX: cx + w / 2, maxY: cy + h / 2)
    }

    /// The box the distance counter takes at most (its text is up to "40,075 km").
    public var counterBox: Box {
        Box(minX: safe.minX, minY: safe.minY, maxX: safe.minX + size(250), maxY: safe.minY + size(64))
    }

    /// The top-left corner of the distance counter.
    public var counterOrigin: (x: Double, y: Double) { (safe.minX, safe.minY) }
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

        /// The candidate boxes, in order of preference.
        func candidates() -> [Box] {
            let x = anchorX, w = width, h = height
            // Beside a pin, the label's middle sits level with the pin's head.
            let mid = anchorY - rise * 0.7
            let boxes = [
                (x + gap, mid - h / 2),                 // right
                (x - gap - w, mid - h / 2),             // left
                (x - w / 2, anchorY - rise - gap / 2 - h),  // above
                (x - w / 2, anchorY + gap / 2),         // below
                (x + gap * 0.7, anchorY - rise - h),    // upper right
                (x - gap * 0.7 - w, anchorY - rise - h),  // upper left
                (x + gap * 0.7, anchorY),               // lower right
                (x - gap * 0.7 - w, anchorY),           // lower left
            ]
            return boxes.map { Box(minX: $0.0, minY: $0.1, maxX: $0.0 + w, maxY: $0.1 + h) }
        }
    }

    /// The box each label takes (nil: hidden), in the order of `requests`. `bounds` is where labels
    /// must lie (the frame, inset); `obstacles` are boxes labels must not cover (cards, pins); `lines`
    /// are the routes, which a label keeps off where one of its positions can (else it takes the
    /// first position free of the rest: its halo keeps it legible over the line).
    public static func place(_ requests: [Request], within bounds: Box, avoiding obstacles: [Box] = [],
                             lines: LineObstacles? = nil, padding: Double = 0) -> [Box?] {
        var placed = [Box?](repeating: nil, count: requests.count)
        var occupied: [Box] = []
        let order = requests.indices.filter { requests[$0].always } + requests.indices.filter { !requests[$0].always }
        for k in order {
            let r = requests[k]
            let candidates = r.candidates()
            let free = candidates.filter { b in
                let p = b.padded(by: padding)
                return bounds.contains(b) && !occupied.contains { p.overlaps($0) } && !obstacles.contains { b.overlaps($0) }
            }
            var choice = free.first { !(lines?.meets($0) ?? false) } ?? free.first
            if choice == nil, r.always {
                // The current place's label always shows: the first candidate, kept inside the frame,
                // that is free of other labels, else the first one kept inside the frame. (Checked
                // after the move: a candidate free outside the frame may land on a label once moved in.)
                let inside = candidates.map { clamp($0, into: bounds) }
                choice = inside.first { c in !occupied.contains { c.padded(by: padding).overlaps($0) } } ?? inside[0]
            }
            if let choice {
                placed[k] = choice
                occupied.append(choice)
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
