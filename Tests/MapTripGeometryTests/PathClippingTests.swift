import Foundation
import MapTripGeometry
import Testing

/// Winding number of a closed polygon around a point (nonzero = filled with the winding rule).
func winding(_ xs: ArraySlice<Double>, _ ys: ArraySlice<Double>, _ px: Double, _ py: Double) -> Int {
    var w = 0
    let x = Array(xs), y = Array(ys), n = x.count
    for i in 0..<n {
        let j = (i + 1) % n
        if y[i] <= py {
            if y[j] > py && (x[j] - x[i]) * (py - y[i]) - (px - x[i]) * (y[j] - y[i]) > 0 { w += 1 }
        } else if y[j] <= py && (x[j] - x[i]) * (py - y[i]) - (px - x[i]) * (y[j] - y[i]) < 0 { w -= 1 }
    }
    return w
}

func filled(_ path: PixelPath, _ px: Double, _ py: Double) -> Bool {
    var total = 0
    for k in 0..<path.subpathCount {
        let r = path.range(k)
        total += winding(path.xs[r], path.ys[r], px, py)
    }
    return total != 0
}

/// A star-shaped ring of many vertices, like a long coastline: radius varies with angle.
func wigglyRing(cx: Double, cy: Double, r: Double, n: Int) -> ([Double], [Double]) {
    var xs: [Double] = [], ys: [Double] = []
    for i in 0...n {
        let a = Double(i % n) / Double(n) * 2 * .pi
        let rr = r * (1 + 0.3 * sin(7 * a) + 0.05 * sin(53 * a))
        xs.append(cx + rr * cos(a))
        ys.append(cy + rr * sin(a))
    }
    return (xs, ys)
}

@Suite struct PathClippingTests {
    let identity = PixelTransform(scale: 1, offsetX: 0, offsetY: 0)

    @Test func clippedFillMatchesTheOriginalInsideTheFrame() {
        // A big ring of 5000 vertices mostly outside a 200x100 frame: chunks beyond an edge are
        // collapsed, the rest clipped; every point of the frame must keep its inside/outside state.
        let (xs, ys) = wigglyRing(cx: 150, cy: 60, r: 400, n: 5000)
        let g = IndexedGeometry(xs: xs, ys: ys, partStarts: [0], isPolygon: true)
        var clipper = PathClipper(tolerance: 0)
        var path = PixelPath()
        let frame = Box(minX: 0, minY: 0, maxX: 200, maxY: 100)
        clipper.append(g, transform: identity, clip: frame, to: &path)
        #expect(path.subpathCount == 1)
        #expect(path.xs.count < 2500)  // far fewer vertices than the ring
        #expect(path.xs.allSatisfy { $0 >= -1e-9 && $0 <= 200 + 1e-9 })
        #expect(path.ys.allSatisfy { $0 >= -1e-9 && $0 <= 100 + 1e-9 })
        for py in stride(from: 0.5, to: 100, by: 7) {
            for px in stride(from: 0.5, to: 200, by: 7) {
                let original = winding(xs[...], ys[...], px, py) != 0
                #expect(filled(path, px, py) == original, "at \(px),\(py)")
            }
        }
    }

    @Test func ringsOutsideAreCulledAndInsideKept() {
        let (ax, ay) = wigglyRing(cx: -500, cy: 50, r: 40, n: 100)   // off frame
        let (bx, by) = wigglyRing(cx: 100, cy: 50, r: 20, n: 100)    // inside
        let g = IndexedGeometry(xs: ax + bx, ys: ay + by, partStarts: [0, ax.count], isPolygon: true)
        var clipper = PathClipper(tolerance: 0)
        var path = PixelPath()
        clipper.append(g, transform: identity, clip: Box(minX: 0, minY: 0, maxX: 200, maxY: 100), to: &path)
        #expect(path.subpathCount == 1)
        #expect(path.xs.count == bx.count)
    }

    @Test func linesAreCutAtTheFrameAndKeepTheirCrossings() {
        // A horizontal line from far left to far right crossing the frame, with many vertices.
        let xs = stride(from: -1000.0, through: 1000, by: 1).map { $0 }
        let ys = Array(repeating: 50.0, count: xs.count)
        let g = IndexedGeometry(xs: xs, ys: ys, partStarts: [0], isPolygon: false)
        var clipper = PathClipper(tolerance: 0.5)
        var path = PixelPath()
        clipper.append(g, transform: identity, clip: Box(minX: 0, minY: 0, maxX: 200, maxY: 100), to: &path)
        #expect(path.subpathCount == 1)
        let r = path.range(0)
        #expect(path.xs[r.lowerBound] == 0 && path.xs[r.upperBound - 1] == 200)
        #expect(path.ys.allSatisfy { $0 == 50 })
    }

    @Test func thinningDropsSubpixelSteps() {
        let xs = stride(from: 0.0, through: 100, by: 0.1).map { $0 }
        let ys = xs.map { 10 + 0.01 * $0 }
        let g = IndexedGeometry(xs: xs, ys: ys, partStarts: [0], isPolygon: false)
        var clipper = PathClipper(tolerance: 0.5)
        var path = PixelPath()
        clipper.append(g, transform: identity, clip: Box(minX: -10, minY: -10, maxX: 210, maxY: 110), to: &path)
        #expect(path.xs.count <= 202)
        #expect(path.xs.count >= 100)
    }

    @Test func copiesCoverTheAntimeridian() {
        // A camera on 180 degrees sees two copies of the world side by side.
        let v = Viewport(camera: Camera(center: LonLat(lon: 180, lat: 0), zoom: 3), width: 800, height: 400)
        let copies = PixelTransform.copies(for: v)
        #expect(copies.count == 2)
        #expect(abs(copies[1].offsetX - copies[0].offsetX - v.worldSize) < 1e-9)
        // The point at 179 degrees and the one at -179 both land on the frame, 2 degrees apart.
        let west = WebMercator.project(LonLat(lon: 179, lat: 0)), east = WebMercator.project(LonLat(lon: -179, lat: 0))
        let wx = copies.map { west.x * $0.scale + $0.offsetX }.first { (0...800).contains($0) }
        let ex = copies.map { east.x * $0.scale + $0.offsetX }.first { (0...800).contains($0) }
        #expect(wx != nil && ex != nil)
        if let wx, let ex { #expect(abs((ex - wx) - v.worldSize * 2 / 360) < 1e-6) }
    }
}

@Suite struct SimplifyTests {
    @Test func douglasPeuckerStaysWithinTolerance() {
        let (xs, ys) = wigglyRing(cx: 0.5, cy: 0.5, r: 0.1, n: 20_000)
        let g = IndexedGeometry(xs: xs, ys: ys, partStarts: [0], isPolygon: true)
        let tol = 0.5 / (256 * pow(2, 5.0))  // half a pixel at zoom 5
        let s = g.simplified(tolerance: tol)
        #expect(s.vertexCount < g.vertexCount / 5)
        #expect(s.vertexCount > 50)
        // Every original vertex is within the tolerance of the simplified ring.
        let sx = (0..<s.vertexCount).map { s.x($0) }, sy = (0..<s.vertexCount).map { s.y($0) }
        for i in stride(from: 0, to: xs.count, by: 37) {
            var best = Double.infinity
            for j in 0..<(sx.count - 1) {
                let dx = sx[j + 1] - sx[j], dy = sy[j + 1] - sy[j]
                let len2 = dx * dx + dy * dy
                let t = len2 == 0 ? 0 : max(0, min(1, ((xs[i] - sx[j]) * dx + (ys[i] - sy[j]) * dy) / len2))
                let ex = xs[i] - sx[j] - t * dx, ey = ys[i] - sy[j] - t * dy
                best = min(best, (ex * ex + ey * ey).squareRoot())
            }
            #expect(best <= tol * 1.000001)
        }
        // Still closed.
        #expect(sx.first == sx.last && sy.first == sy.last)
    }

    @Test func tinyRingsVanishAndLinesKeepTheirEnds() {
        let (ix, iy) = wigglyRing(cx: 0.3, cy: 0.3, r: 1e-7, n: 50)  // an islet far below a pixel
        let (bx, by) = wigglyRing(cx: 0.6, cy: 0.6, r: 0.05, n: 500)
        let polys = IndexedGeometry(xs: ix + bx, ys: iy + by, partStarts: [0, ix.count], isPolygon: true)
        #expect(polys.simplified(tolerance: 1e-5).parts.count == 1)
        let line = IndexedGeometry(xs: [0, 0.1, 0.2, 0.3], ys: [0, 1e-9, -1e-9, 0], partStarts: [0], isPolygon: false)
        let s = line.simplified(tolerance: 1e-6)
        #expect(s.vertexCount == 2)
        #expect(abs(s.x(0)) < 1e-12 && abs(s.x(1) - 0.3) < 1e-12)
    }

    @Test func levelsFollowZoomAndPixelRatio() throws {
        #expect(DetailLevels.level(zoom: 5, scale: 1) == 5)
        #expect(DetailLevels.level(zoom: 5.2, scale: 1) == 6)
        #expect(DetailLevels.level(zoom: 5, scale: 2) == 6)
        let (xs, ys) = wigglyRing(cx: 0.5, cy: 0.5, r: 0.1, n: 20_000)
        let levels = DetailLevels(IndexedGeometry(xs: xs, ys: ys, partStarts: [0], isPolygon: true))
        let coarse = try levels.geometry(zoom: 2, scale: 1), fine = try levels.geometry(zoom: 9, scale: 1)
        #expect(coarse.vertexCount < fine.vertexCount)
        #expect(try levels.geometry(zoom: 15, scale: 1).vertexCount == levels.full().vertexCount)
    }
}

/// Vertices held in 32-bit fixed point, and the levels of detail letting the full geometry go.
@Suite struct CompactGeometryTests {
    @Test func fixedPointKeepsEveryVertexWithinASixteenthOfAPixelAtZoom20() {
        // A world-wide ring: the worst case for a fixed step.
        let (xs, ys) = wigglyRing(cx: 0.5, cy: 0.5, r: 0.49, n: 5_000)
        let g = IndexedGeometry(xs: xs, ys: ys, partStarts: [0], isPolygon: true)
        let pixelAtZoom20 = 1 / (256 * pow(2, 20.0))
        var worst = 0.0
        for i in xs.indices { worst = max(worst, abs(g.x(i) - xs[i]), abs(g.y(i) - ys[i])) }
        #expect(worst < pixelAtZoom20 / 16, "worst error \(worst)")
        #expect(g.vertexBytes == xs.count * 8)
        // Drawn through the folded transform, a vertex lands where the transform puts the original.
        let t = PixelTransform(scale: 256 * pow(2, 20.0), cos: cos(0.3), sin: sin(0.3), centerX: 0.5, centerY: 0.5,
                               frameX: 960, frameY: 540)
        let f = t.folding(g)
        for i in stride(from: 0, to: xs.count, by: 97) {
            #expect(abs(f.x(g.qx[i], g.qy[i]) - t.x(xs[i], ys[i])) < 1.0 / 16)
            #expect(abs(f.y(g.qx[i], g.qy[i]) - t.y(xs[i], ys[i])) < 1.0 / 16)
        }
    }

    @Test func verticesThatAreNotNumbersDoNotCrash() {
        let g = IndexedGeometry(xs: [0.1, .nan, 0.3, .infinity], ys: [0.1, 0.2, -.infinity, 0.4], partStarts: [0],
                                isPolygon: false)
        #expect(g.vertexCount == 4)
        #expect(g.box.minX >= 0.1 && g.box.maxX <= 0.3)
        let empty = IndexedGeometry(xs: [.nan], ys: [.nan], partStarts: [0], isPolygon: false)
        #expect(empty.x(0).isFinite)
    }

    @Test func releasedFullGeometryIsLoadedAgainOnlyForALevelNotBuilt() throws {
        let (xs, ys) = wigglyRing(cx: 0.5, cy: 0.5, r: 0.1, n: 20_000)
        let make = { IndexedGeometry(xs: xs, ys: ys, partStarts: [0], isPolygon: true) }
        final class Counter: @unchecked Sendable { var loads = 0 }
        let counter = Counter()
        let levels = DetailLevels(make()) { counter.loads += 1; return make() }
        let kept = DetailLevels(make())
        let five = try levels.geometry(zoom: 5, scale: 1)
        let before = levels.vertexBytes
        levels.releaseFull()
        #expect(levels.vertexBytes == five.vertexBytes)
        #expect(levels.vertexBytes < before / 10)
        #expect(try levels.geometry(zoom: 4.5, scale: 1).vertexCount == five.vertexCount)
        #expect(counter.loads == 0)
        let seven = try levels.geometry(zoom: 7, scale: 1)
        #expect(counter.loads == 1)
        #expect(seven.qx == (try kept.geometry(zoom: 7, scale: 1)).qx)
        #expect(try levels.geometry(zoom: 16, scale: 1).vertexCount == xs.count)
        #expect(counter.loads == 1)
        // Without a way to load it again, the full geometry stays.
        kept.releaseFull()
        #expect(try kept.full().vertexCount == xs.count)
    }
}
