import Foundation
import MapTripGeometry
import Testing
import TestSupport

/// The cells of a frame that lines ink, found from their geometry.
@Suite struct InkCellsTests {
    let s = InkCells.size

    func cellOf(_ x: Double, _ y: Double, in cells: InkCells) -> Bool? {
        guard x >= 0, y >= 0, x < Double(cells.width), y < Double(cells.height) else { return nil }
        return cells.isMarked(column: Int(x) / s, row: Int(y) / s)
    }

    @Test func everyPixelWithinTheRadiusIsInAMarkedCell() {
        // Lines of every direction and length, some leaving the frame: each point of the line and each
        // point at the radius across it lies in a marked cell.
        var rng = SplitMix64(seed: 0x1AC_CE11)
        for _ in 0..<200 {
            var cells = InkCells(width: 1000, height: 562)
            let n = Int.random(in: 2...6, using: &rng)
            let line = (0..<n).map { _ in (x: Double.random(in: -300...1300, using: &rng), y: Double.random(in: -300...860, using: &rng)) }
            let radius = Double.random(in: 0.5...12, using: &rng)
            cells.mark(line, radius: radius)
            for i in 1..<n {
                let a = line[i - 1], b = line[i]
                let length = max(1e-9, hypot(b.x - a.x, b.y - a.y))
                let nx = -(b.y - a.y) / length, ny = (b.x - a.x) / length
                for k in 0...400 {
                    let t = Double(k) / 400
                    let x = a.x + (b.x - a.x) * t, y = a.y + (b.y - a.y) * t
                    for d in [-radius * 0.999, 0, radius * 0.999] {
                        if let m = cellOf(x + nx * d, y + ny * d, in: cells) { #expect(m, "(\(x + nx * d), \(y + ny * d)) of \(line)") }
                    }
                }
            }
        }
    }

    @Test func aDiagonalMarksAStripNotItsBoundingBox() {
        var cells = InkCells(width: 1920, height: 1080)
        cells.mark([(x: 0, y: 0), (x: 1920, y: 1080)], radius: 6)
        let marked = cells.runs(in: 0..<1080).reduce(0) { $0 + $1.width * $1.height }
        #expect(marked > 0)
        #expect(Double(marked) < 0.12 * 1920 * 1080)
    }

    @Test func runsCoverTheMarkedCellsOnceWithinTheBandAndTheFrame() {
        var cells = InkCells(width: 1000, height: 562)  // neither a multiple of the cell size
        cells.mark([(x: 10, y: 500), (x: 990, y: 40), (x: 995, y: 555)], radius: 4)
        let band = 100..<333
        let runs = cells.runs(in: band)
        var covered = Set<[Int]>()
        for r in runs {
            #expect(r.y >= band.lowerBound && r.y + r.height <= band.upperBound)
            #expect(r.x >= 0 && r.x + r.width <= 1000 && r.width > 0 && r.height > 0)
            for y in r.y..<(r.y + r.height) {
                for x in r.x..<(r.x + r.width) { #expect(covered.insert([x, y]).inserted) }
            }
        }
        for y in band {
            for x in 0..<1000 {
                #expect(covered.contains([x, y]) == cells.isMarked(column: x / s, row: y / s))
            }
        }
        #expect(cells.runs(in: 0..<562).last.map { $0.y + $0.height } == 562)
    }

    @Test func linesFarOutsideTheFrameMarkNothing() {
        var cells = InkCells(width: 640, height: 360)
        cells.mark([(x: -1e12, y: -5), (x: -1e9, y: 1e12), (x: 1e15, y: 1e15)], radius: 3)
        cells.mark([(x: .nan, y: 10), (x: 20, y: 20)], radius: 3)
        #expect(cells.isEmpty)
        #expect(cells.markedRows == nil)
        // ... but one crossing it from far away marks the cells along it.
        cells.mark([(x: -1e9, y: 180), (x: 1e9, y: 180)], radius: 3)
        #expect(cells.markedRows == 160..<192)
        #expect(cells.runs(in: 0..<360) == [InkCells.Rect(x: 0, y: 160, width: 640, height: 32)])
    }

    @Test func aPointMarksTheCellsAroundIt() {
        var cells = InkCells(width: 640, height: 360)
        cells.mark([(x: 64, y: 64)], radius: 2)
        #expect(cells.runs(in: 0..<360) == [InkCells.Rect(x: 32, y: 32, width: 64, height: 32),
                                             InkCells.Rect(x: 32, y: 64, width: 64, height: 32)])
    }
}
