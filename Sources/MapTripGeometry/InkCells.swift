/// Where long thin lines ink a frame, finer than their bounding box: the cells of a grid over the
/// frame (`size` pixels square) that the lines, grown by a radius, pass through. A route across the
/// frame on a diagonal has a bounding box of most of the frame and inks a few percent of it; a frame
/// whose overlays are blended over the map (see `FrameRenderer.renderPlanar`) draws and blends only
/// these cells.
public struct InkCells: Equatable, Sendable {
    /// A cell's side in pixels (even, so that cells keep 4:2:0 chroma's 2x2 blocks whole).
    public static let size = 32
    public let width: Int, height: Int
    public let columns: Int, rows: Int
    private var marked: [Bool]

    /// No cell marked, on a frame of `width` x `height` pixels.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        columns = (self.width + Self.size - 1) / Self.size
        rows = (self.height + Self.size - 1) / Self.size
        marked = [Bool](repeating: false, count: columns * rows)
    }

    /// Whether no cell is marked.
    public var isEmpty: Bool { !marked.contains(true) }

    public func isMarked(column: Int, row: Int) -> Bool { marked[row * columns + column] }

    /// Marks every cell within `radius` of the polyline `line` (frame pixels): a stroke of half-width
    /// up to `radius`, round or butt caps and round joins, inks nothing outside them. A single point
    /// marks the cells around it (a round cap's dot).
    public mutating func mark(_ line: [(x: Double, y: Double)], radius: Double) {
        guard let first = line.first, columns > 0, rows > 0 else { return }
        // The frame grown by the radius: only the part of a segment inside it can ink the frame.
        let reach = Box(minX: -radius, minY: -radius, maxX: Double(width) + radius, maxY: Double(height) + radius)
        if line.count == 1 {
            markBox(first.x, first.y, first.x, first.y, radius: radius)
            return
        }
        for i in 1..<line.count {
            guard let (a, b) = Self.clip(line[i - 1], line[i], to: reach) else { continue }
            // In pieces no longer than a cell, each marking its bounding box grown by the radius: a
            // long diagonal marks a band of cells along itself, not its whole bounding box.
            let dx = b.x - a.x, dy = b.y - a.y
            let pieces = max(1, Int((max(abs(dx), abs(dy)) / Double(Self.size)).rounded(.up)))
            for k in 0..<pieces {
                let t0 = Double(k) / Double(pieces), t1 = Double(k + 1) / Double(pieces)
                markBox(a.x + dx * t0, a.y + dy * t0, a.x + dx * t1, a.y + dy * t1, radius: radius)
            }
        }
    }

    /// Marks the cells meeting the box of two points grown by `radius`.
    private mutating func markBox(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, radius: Double) {
        let s = Double(Self.size)
        let c0 = Int(((min(x0, x1) - radius) / s).rounded(.down)), c1 = Int(((max(x0, x1) + radius) / s).rounded(.down))
        let r0 = Int(((min(y0, y1) - radius) / s).rounded(.down)), r1 = Int(((max(y0, y1) + radius) / s).rounded(.down))
        guard c1 >= 0, r1 >= 0, c0 < columns, r0 < rows else { return }
        for r in max(0, r0)...min(rows - 1, r1) {
            for c in max(0, c0)...min(columns - 1, c1) { marked[r * columns + c] = true }
        }
    }

    /// The part of segment a-b inside `box` (Liang-Barsky), nil if none.
    static func clip(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double), to box: Box)
        -> ((x: Double, y: Double), (x: Double, y: Double))? {
        guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite else { return nil }
        var t0 = 0.0, t1 = 1.0
        let dx = b.x - a.x, dy = b.y - a.y
        for (p, q) in [(-dx, a.x - box.minX), (dx, box.maxX - a.x), (-dy, a.y - box.minY), (dy, box.maxY - a.y)] {
            if p == 0 {
                if q < 0 { return nil }
            } else {
                let t = q / p
                if p < 0 { t0 = max(t0, t) } else { t1 = min(t1, t) }
                if t0 > t1 { return nil }
            }
        }
        return ((a.x + t0 * dx, a.y + t0 * dy), (a.x + t1 * dx, a.y + t1 * dy))
    }

    /// A rectangle of frame pixels.
    public struct Rect: Equatable, Sendable {
        public var x: Int, y: Int, width: Int, height: Int
        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// The marked cells within the frame's rows `band`, as runs of cells along each row of cells, cut
    /// to the frame and to `band`: top to bottom, left to right, none overlapping.
    public func runs(in band: Range<Int>) -> [Rect] {
        let s = Self.size
        guard columns > 0, rows > 0 else { return [] }
        let first = max(0, band.lowerBound / s), last = min(rows - 1, (band.upperBound - 1) / s)
        guard first <= last else { return [] }
        var out: [Rect] = []
        for r in first...last {
            let y0 = max(r * s, band.lowerBound), y1 = min((r + 1) * s, band.upperBound, height)
            guard y1 > y0 else { continue }
            var c = 0
            while c < columns {
                guard marked[r * columns + c] else { c += 1; continue }
                let start = c
                while c < columns && marked[r * columns + c] { c += 1 }
                let x0 = start * s, x1 = min(c * s, width)
                out.append(Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0))
            }
        }
        return out
    }

    /// The rows of the frame holding marked cells (nil: none).
    public var markedRows: Range<Int>? {
        guard let top = (0..<rows).first(where: { r in (0..<columns).contains { marked[r * columns + $0] } }),
              let bottom = (0..<rows).last(where: { r in (0..<columns).contains { marked[r * columns + $0] } })
        else { return nil }
        return (top * Self.size)..<min((bottom + 1) * Self.size, height)
    }
}
