import MapTripCore
import Testing

/// Polylines cut down to a box before stroking.
@Suite struct PolylineCullingTests {
    let box = Box(minX: 0, minY: 0, maxX: 100, maxY: 100)

    func runs(_ points: [(Double, Double)]) -> [[(x: Double, y: Double)]] {
        PolylineCulling.runs(points.map { (x: $0.0, y: $0.1) }, meeting: box)
    }

    func flat(_ r: [[(x: Double, y: Double)]]) -> [[[Double]]] { r.map { $0.map { [$0.x, $0.y] } } }

    @Test func aLineInsideIsKeptWhole() {
        #expect(flat(runs([(10, 10), (50, 50), (90, 20)])) == [[[10, 10], [50, 50], [90, 20]]])
    }

    @Test func aLineOutsideIsDropped() {
        #expect(runs([(-50, -50), (-10, 200), (300, 300)]).isEmpty)
        #expect(runs([(10, 10)]).isEmpty)
    }

    @Test func aLineThatLeavesAndComesBackIsTwoRunsCutOutsideTheBox() {
        // In, out far to the right and back: the segments wholly outside go.
        let r = runs([(50, 50), (150, 50), (400, 50), (500, 60), (150, 60), (50, 60)])
        #expect(flat(r) == [[[50, 50], [150, 50]], [[150, 60], [50, 60]]])
        // Every point where a run was cut lies outside the box.
        for run in r {
            for end in [run.first!, run.last!] where !(end.x == 50) {
                #expect(end.x > box.maxX || end.x < box.minX || end.y > box.maxY || end.y < box.minY)
            }
        }
    }

    @Test func aSegmentCrossingTheBoxIsKeptThoughNoPointIsInside() {
        #expect(flat(runs([(-500, 50), (500, 50)])) == [[[-500, 50], [500, 50]]])
    }

    @Test func aSegmentWhoseBoundsMeetTheBoxIsKept() {
        // Its bounding box meets the box though the segment passes beside a corner: kept (the test is
        // conservative, never drops what could be seen).
        #expect(runs([(-10, 120), (120, -10)]).count == 1)
    }
}
