/// Lines that boxes keep clear of: the trip's routes on a frame, which labels are placed beside,
/// never across. The lines' segments are kept in buckets of a grid over the frame, so a box asks
/// only the segments near it; a box meets the lines when a segment passes within `reach` of it (the
/// route's half width and a gap).
public struct LineObstacles: Sendable {
    /// A bucket's side in pixels.
    static let cell = 64.0
    private struct Segment: Sendable { var ax, ay, bx, by: Double }
    private var segments: [Segment] = []
    private var buckets: [Int: [Int32]] = [:]
    private let columns: Int, rows: Int
    public let reach: Double

    /// `lines` in frame pixels on a frame of `width` x `height`; parts outside the frame (grown by
    /// `reach`) are left out.
    public init(_ lines: [[(x: Double, y: Double)]], reach: Double, width: Double, height: Double) {
        self.reach = max(0, reach)
        columns = max(1, Int((width / Self.cell).rounded(.up)))
        rows = max(1, Int((height / Self.cell).rounded(.up)))
        let frame = Box(minX: -self.reach, minY: -self.reach, maxX: width + self.reach, maxY: height + self.reach)
        for line in lines where line.count >= 2 {
            for i in 1..<line.count {
                guard let (a, b) = InkCells.clip(line[i - 1], line[i], to: frame) else { continue }
                let index = Int32(segments.count)
                segments.append(Segment(ax: a.x, ay: a.y, bx: b.x, by: b.y))
                let grown = Box(minX: min(a.x, b.x), minY: min(a.y, b.y), maxX: max(a.x, b.x), maxY: max(a.y, b.y))
                    .padded(by: self.reach)
                forEachBucket(grown) { buckets[$0, default: []].append(index) }
            }
        }
    }

    /// Whether no line is kept.
    public var isEmpty: Bool { segments.isEmpty }

    /// Whether some line passes within `reach` of `box` (through it, or along it closer than that).
    public func meets(_ box: Box) -> Bool {
        guard !segments.isEmpty else { return false }
        let grown = box.padded(by: reach)
        var hit = false
        forEachBucket(grown) { key in
            guard !hit, let list = buckets[key] else { return }
            for i in list {
                let s = segments[Int(i)]
                if InkCells.clip((s.ax, s.ay), (s.bx, s.by), to: grown) != nil {
                    hit = true
                    return
                }
            }
        }
        return hit
    }

    private func forEachBucket(_ b: Box, _ body: (Int) -> Void) {
        /// The bucket a coordinate falls in, clamped to the grid (a non-finite one to its edge).
        func bucket(_ v: Double, _ n: Int) -> Int {
            guard v.isFinite else { return v > 0 ? n - 1 : 0 }
            return Int(min(max(v / Self.cell, 0), Double(n - 1)).rounded(.down))
        }
        guard b.maxX >= 0, b.maxY >= 0, b.minX < Double(columns) * Self.cell, b.minY < Double(rows) * Self.cell else { return }
        let c0 = bucket(b.minX, columns), c1 = bucket(b.maxX, columns)
        let r0 = bucket(b.minY, rows), r1 = bucket(b.maxY, rows)
        for r in r0...r1 { for c in c0...c1 { body(r * columns + c) } }
    }
}
