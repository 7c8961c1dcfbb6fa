import Foundation
import MapTripGeometry
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

@Suite struct PolylineSimplificationTests {
    /// Distance from p to the segment ab.
    static func distance(_ p: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y, l2 = dx * dx + dy * dy
        let t = l2 == 0 ? 0 : max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2))
        return hypot(a.x + t * dx - p.x, a.y + t * dy - p.y)
    }

    /// Every point of `line` lies within `tolerance` of the part of `kept` between the kept points around it.
    static func within(_ line: [(x: Double, y: Double)], _ kept: [(x: Double, y: Double)], _ tolerance: Double) -> Bool {
        var k = 0
        for p in line {
            if k + 1 < kept.count, p == kept[k + 1] { k += 1; continue }
            if p == kept[k] { continue }
            if distance(p, kept[k], kept[k + 1]) > tolerance + 1e-12 { return false }
        }
        return true
    }

    @Test func aGentleCurveKeepsFewPointsAllWithinTheTolerance() {
        // An arc of a 20000-px circle across a 2000-px frame, a point every 2 px (a route's steps at
        // a middle zoom): the sagitta is 25 px, so a straight chord will not do.
        let r = 20_000.0
        let line = (0...1000).map { i -> (x: Double, y: Double) in
            let a = (Double(i) * 2 - 1000) / r
            return (x: r * sin(a) + 1000, y: r - r * cos(a))
        }
        let kept = PolylineSimplification.simplified(line, tolerance: 0.05)
        #expect(kept.first! == line.first! && kept.last! == line.last!)
        #expect(kept.count < 80, "\(kept.count) points kept of \(line.count)")
        #expect(kept.count > 10)
        #expect(Self.within(line, kept, 0.05))
        // The kept points are points of the line, in order.
        var i = 0
        for p in kept {
            while i < line.count && line[i] != p { i += 1 }
            #expect(i < line.count)
        }
    }

    @Test func turnsAndReversalsAreKept() {
        let corner: [(x: Double, y: Double)] = [(0, 0), (10, 0), (20, 0), (20, 10), (20, 20)]
        #expect(PolylineSimplification.simplified(corner, tolerance: 0.05).map { [$0.x, $0.y] }
                == [[0, 0], [20, 0], [20, 20]])
        // Out and back along one line: the far end stays (it is off the chord's segment, not its line).
        let back: [(x: Double, y: Double)] = [(0, 0), (5, 0), (10, 0), (5, 0.01), (2, 0)]
        #expect(PolylineSimplification.simplified(back, tolerance: 0.05).map { [$0.x, $0.y] }
                == [[0, 0], [10, 0], [2, 0]])
        // Two points, one point, none: as they are.
        #expect(PolylineSimplification.simplified([(1, 2), (3, 4)], tolerance: 1).count == 2)
        #expect(PolylineSimplification.simplified([(1, 2)], tolerance: 1).count == 1)
        #expect(PolylineSimplification.simplified([], tolerance: 1).isEmpty)
    }
}

/// A line projected once (`ProjectedLine`) comes out on every frame as its positions projected for
/// that frame: across the antimeridian, on the world's copies, at other zooms, on the globe.
@Suite struct ProjectedLineTests {
    func flat(_ lines: [[(x: Double, y: Double)]]) -> [[Double]] { lines.map { $0.flatMap { [$0.x, $0.y] } } }

    @Test func framesShowTheSameLinesAsFromThePositions() {
        // Tokyo to San Francisco (unwrapped longitudes, across the Pacific), and a line from -170 to
        // 190 degrees that crosses the antimeridian and meets it at a point.
        let pacific = RouteLine(from: LonLat(lon: 139.7, lat: 35.7), to: LonLat(lon: -122.4, lat: 37.8), kind: .geodesic).points
        let around = stride(from: -170.0, through: 190, by: 10).map { LonLat(lon: $0, lat: $0 / 10) }
        let cameras = [Camera(center: LonLat(lon: 180, lat: 20), zoom: 3), Camera(center: LonLat(lon: 0, lat: 0), zoom: 0.2),
                       Camera(center: LonLat(lon: -150, lat: 40), zoom: 5.3)]
        for points in [pacific, around] {
            let projected = ProjectedLine(points)
            #expect(projected.points == points)
            for camera in cameras {
                for projection in [Projection.webMercator, .globe] {
                    let v = Viewport(camera: camera, width: 800, height: 400, projection: projection)
                    let lines = v.lines(projected)
                    if case .webMercator = projection { #expect(!lines.isEmpty, "\(camera)") }
                    #expect(flat(lines) == flat(v.lines(points)), "\(camera), \(projection)")
                }
            }
        }
        #expect(Viewport(camera: cameras[0], width: 10, height: 10).lines(ProjectedLine([pacific[0]])).isEmpty)
    }
}
