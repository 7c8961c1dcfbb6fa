import Foundation

/// Where an area's label goes: its pole of inaccessibility, the point inside it farthest from its
/// outline (Mapbox's polylabel: cells searched best first, a cell dropped once no point in it can
/// beat the best found by more than `precision`). Rings in any order and direction, holes and
/// several outer rings included (inside: by the even-odd rule over all rings).
enum AreaLabels {
    /// The pole and its distance from the outline (0, and a corner of their box, for rings without
    /// area; nil without points).
    static func pole(_ rings: [[(x: Double, y: Double)]], precision: Double) -> (x: Double, y: Double, distance: Double)? {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for ring in rings {
            for p in ring {
                minX = min(minX, p.x); maxX = max(maxX, p.x)
                minY = min(minY, p.y); maxY = max(maxY, p.y)
            }
        }
        guard minX <= maxX, minY <= maxY else { return nil }
        let cellSize = min(maxX - minX, maxY - minY)
        guard cellSize > 0 else { return (minX, minY, 0) }
        struct Cell { var x, y, h, d, max: Double }
        func cell(_ x: Double, _ y: Double, _ h: Double) -> Cell {
            let d = signedDistance(x, y, rings)
            return Cell(x: x, y: y, h: h, d: d, max: d + h * 2.squareRoot())
        }
        // A max-heap of cells by the best distance they could hold.
        var heap: [Cell] = []
        func push(_ c: Cell) {
            heap.append(c)
            var i = heap.count - 1
            while i > 0, heap[(i - 1) / 2].max < heap[i].max { heap.swapAt(i, (i - 1) / 2); i = (i - 1) / 2 }
        }
        func pop() -> Cell {
            let top = heap[0]
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                var i = 0
                while true {
                    let l = 2 * i + 1, r = l + 1
                    var m = i
                    if l < heap.count, heap[l].max > heap[m].max { m = l }
                    if r < heap.count, heap[r].max > heap[m].max { m = r }
                    if m == i { break }
                    heap.swapAt(i, m)
                    i = m
                }
            }
            return top
        }
        let h = cellSize / 2
        var x = minX
        while x < maxX {
            var y = minY
            while y < maxY { push(cell(x + h, y + h, h)); y += cellSize }
            x += cellSize
        }
        // The centroid of the box is the first guess.
        var best = cell((minX + maxX) / 2, (minY + maxY) / 2, 0)
        var visited = 0
        while !heap.isEmpty, visited < 10_000 {
            let c = pop()
            visited += 1
            if c.d > best.d { best = c }
            if c.max - best.d <= precision { continue }
            let q = c.h / 2
            push(cell(c.x - q, c.y - q, q)); push(cell(c.x + q, c.y - q, q))
            push(cell(c.x - q, c.y + q, q)); push(cell(c.x + q, c.y + q, q))
        }
        return (best.x, best.y, max(best.d, 0))
    }

    /// A point's distance from the rings' outline: positive inside, negative outside.
    static func signedDistance(_ x: Double, _ y: Double, _ rings: [[(x: Double, y: Double)]]) -> Double {
        var inside = false
        var best = Double.infinity
        for ring in rings where ring.count > 1 {
            var j = ring.count - 1
            for i in ring.indices {
                let a = ring[i], b = ring[j]
                if (a.y > y) != (b.y > y), x < (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
                best = min(best, LineLabels.segmentDistance(x, y, a.x, a.y, b.x, b.y))
                j = i
            }
        }
        return inside ? best : -best
    }
}
