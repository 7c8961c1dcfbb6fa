import Foundation
import Testing
@testable import MapTripGeometry
@testable import MapTripTime

// Proof tests for the projections (issue #13): the globe against PROJ's orthographic projection, the
// zoom and bearing rules, the globe's clipping at the limb, the seam cut, the great-circle flight,
// and Web Mercator unchanged.

/// The zoom rule: metres of the projection plane per frame pixel at the frame's centre.
private func metresPerPixel(zoom: Double, scale: Double = 1) -> Double {
    40075016.686 / (256 * pow(2, zoom) * scale)
}

/// A position on the unit sphere, computed here (not with Geodesy) so the tests stand apart.
private func unit(_ p: LonLat) -> (x: Double, y: Double, z: Double) {
    let lat = p.lat * .pi / 180, lon = p.lon * .pi / 180
    return (cos(lat) * cos(lon), cos(lat) * sin(lon), sin(lat))
}

private func dot(_ a: (x: Double, y: Double, z: Double), _ b: (x: Double, y: Double, z: Double)) -> Double {
    a.x * b.x + a.y * b.y + a.z * b.z
}

/// The nonzero-winding test of a point against every sub-path of a closed path (ray casting with
/// signed crossings, as a rasteriser fills with the winding rule).
private func windingNumber(_ path: PixelPath, _ px: Double, _ py: Double) -> Int {
    var total = 0
    for k in 0..<path.subpathCount {
        let r = path.range(k)
        let xs = Array(path.xs[r]), ys = Array(path.ys[r]), n = xs.count
        for i in 0..<n {
            let j = (i + 1) % n
            let side = (xs[j] - xs[i]) * (py - ys[i]) - (px - xs[i]) * (ys[j] - ys[i])
            if ys[i] <= py {
                if ys[j] > py && side > 0 { total += 1 }
            } else if ys[j] <= py && side < 0 {
                total -= 1
            }
        }
    }
    return total
}

/// A lon/lat rectangle as a ring sampled every `step` degrees along its edges, clockwise (north
/// edge eastwards first: the shapefile convention for an outer ring) or counter-clockwise, closed.
private func rectangle(west: Double, east: Double, south: Double, north: Double, step: Double = 0.5,
                       clockwise: Bool = true) -> [LonLat] {
    var ring: [LonLat] = []
    func edge(_ a: LonLat, _ b: LonLat) {
        let n = max(1, Int((max(abs(b.lon - a.lon), abs(b.lat - a.lat)) / step).rounded(.up)))
        for i in 0..<n {
            let t = Double(i) / Double(n)
            ring.append(LonLat(lon: a.lon + t * (b.lon - a.lon), lat: a.lat + t * (b.lat - a.lat)))
        }
    }
    let nw = LonLat(lon: west, lat: north), ne = LonLat(lon: east, lat: north)
    let se = LonLat(lon: east, lat: south), sw = LonLat(lon: west, lat: south)
    if clockwise {
        edge(nw, ne); edge(ne, se); edge(se, sw); edge(sw, nw)
    } else {
        edge(nw, sw); edge(sw, se); edge(se, ne); edge(ne, nw)
    }
    ring.append(nw)
    return ring
}

/// Rings in the unit Web Mercator world, on the sphere (as the base map builds them).
private func sphere(_ rings: [[LonLat]]) -> SphereGeometry {
    var xs: [Double] = [], ys: [Double] = [], starts: [Int] = []
    for ring in rings {
        starts.append(xs.count)
        for p in ring {
            let w = WebMercator.project(p)
            xs.append(w.x)
            ys.append(w.y)
        }
    }
    return SphereGeometry(IndexedGeometry(xs: xs, ys: ys, partStarts: starts, isPolygon: true))
}

/// What `appendGlobe` draws of `rings` in a 960x540 frame.
private func globePath(_ rings: [[LonLat]], _ v: Viewport) -> PixelPath {
    var clipper = PathClipper(tolerance: 0)
    var path = PixelPath()
    let clip = Box(minX: -6, minY: -6, maxX: Double(v.width) + 6, maxY: Double(v.height) + 6)
    clipper.appendGlobe(sphere(rings), viewport: v, clip: clip, to: &path)
    return path
}

@Suite struct GlobeProjectionTests {
    let width = 960, height = 540

    /// Reference positions and their orthographic coordinates from PROJ, on the sphere of radius
    /// 6378137 m (the one Web Mercator's equator is measured on). Made with PROJ 9.1.1:
    ///
    ///     printf '10 20\n30 40\n-20 50\n60 -10\n-5 70\n45 5\n' | cs2cs -f %.6f \
    ///       +proj=longlat +R=6378137 +to +proj=ortho +lat_0=30 +lon_0=20 +R=6378137
    ///     printf -- '-170 -30\n150 -35\n175 -60\n-160 -10\n170 -40\n' | cs2cs -f %.6f \
    ///       +proj=longlat +R=6378137 +to +proj=ortho +lat_0=-40 +lon_0=170 +R=6378137
    ///
    /// and for the far side (`*  * inf`: PROJ cannot show them):
    ///
    ///     printf -- '-160 -30\n-100 0\n' | cs2cs -f %.6f \
    ///       +proj=longlat +R=6378137 +to +proj=ortho +lat_0=30 +lon_0=20 +R=6378137
    static let references: [(center: LonLat, points: [(p: LonLat, x: Double, y: Double)])] = [
        (LonLat(lon: 20, lat: 30), [
            (LonLat(lon: 10, lat: 20), -1040758.316520, -1062024.589877),
            (LonLat(lon: 30, lat: 40), 848433.953151, 1144666.043286),
            (LonLat(lon: -20, lat: 50), -2635292.566520, 2661035.357289),
            (LonLat(lon: 60, lat: -10), 4037502.453151, -3365022.079621),
            (LonLat(lon: -5, lat: 70), -921921.169533, 4201979.937815),
            (LonLat(lon: 45, lat: 5), 2685259.915445, -2397863.276552),
        ]),
        (LonLat(lon: 170, lat: -40), [
            (LonLat(lon: -170, lat: -30), 1889192.269671, 893429.306685),
            (LonLat(lon: 150, lat: -35), -1786940.317216, 353358.025240),
            (LonLat(lon: 175, lat: -60), 277945.633791, -2189251.795368),
            (LonLat(lon: -160, lat: -10), 3140619.383687, 2648145.739120),
            (LonLat(lon: 170, lat: -40), 0, 0),
        ]),
    ]

    @Test(arguments: [1.0, 4.0, 9.0])
    func forwardMatchesPROJOrthographic(zoom: Double) {
        for reference in Self.references {
            let v = Viewport(camera: Camera(center: reference.center, zoom: zoom), width: width, height: height,
                             projection: .globe)
            let mpp = metresPerPixel(zoom: zoom)
            for (p, x, y) in reference.points {
                let want = (x: Double(width) / 2 + x / mpp, y: Double(height) / 2 - y / mpp)
                guard let got = v.pixel(p) else {
                    Issue.record("\(p) should show on the globe centred on \(reference.center)")
                    continue
                }
                #expect(abs(got.x - want.x) < 0.5 && abs(got.y - want.y) < 0.5,
                        "\(p) at z\(zoom): \(got) vs PROJ \(want)")
            }
        }
    }

    @Test(arguments: [1.0, 4.0, 9.0])
    func farSideShowsNothing(zoom: Double) {
        let v = Viewport(camera: Camera(center: LonLat(lon: 20, lat: 30), zoom: zoom), width: width, height: height,
                         projection: .globe)
        // PROJ: "*  * inf" for both.
        #expect(v.pixel(LonLat(lon: -160, lat: -30)) == nil)  // the antipode
        #expect(v.pixel(LonLat(lon: -100, lat: 0)) == nil)
    }

    @Test func visibleExactlyOnTheNearHemisphere() {
        for center in [LonLat(lon: 20, lat: 30), LonLat(lon: 170, lat: -40), LonLat(lon: -75, lat: 89)] {
            let v = Viewport(camera: Camera(center: center, zoom: 3, bearing: 25), width: width, height: height,
                             projection: .globe)
            let c = unit(center)
            for lat in stride(from: -85.0, through: 85, by: 5) {
                for lon in stride(from: -180.0, to: 180, by: 7) {
                    let p = LonLat(lon: lon, lat: lat)
                    let d = dot(unit(p), c)
                    if abs(d) < 1e-9 { continue }  // on the horizon itself
                    #expect((v.pixel(p) != nil) == (d > 0), "\(p) seen from \(center): cos \(d)")
                }
            }
        }
    }

    @Test(arguments: [0.0, 37.0, 90.0, 200.0])
    func inverseUndoesForward(bearing: Double) {
        for reference in Self.references {
            for zoom in [1.0, 4.0, 9.0] {
                let v = Viewport(camera: Camera(center: reference.center, zoom: zoom, bearing: bearing),
                                 width: width, height: height, scale: 2, projection: .globe)
                for (p, _, _) in reference.points {
                    let px = v.pixel(p)!
                    let q = v.location(atPixel: px.x, px.y)!
                    #expect(abs(q.lat - p.lat) < 1e-9 && abs(WebMercator.wrapLongitude(q.lon - p.lon)) < 1e-9,
                            "\(p) -> \(px) -> \(q)")
                }
            }
        }
    }

    @Test(arguments: [(0.0, 1.0), (2.5, 1.0), (4.0, 2.0)])
    func discRadiusFollowsTheZoomRule(zoom: Double, scale: Double) {
        let v = Viewport(camera: Camera(center: LonLat(lon: 0, lat: 0), zoom: zoom), width: width, height: height,
                         scale: scale, projection: .globe)
        let radius = 256 * pow(2, zoom) * scale / (2 * .pi)
        #expect(abs(v.globeRadius - radius) < 1e-9 * radius)
        // The Earth's radius in metres, over the metres per pixel of the zoom rule.
        #expect(abs(v.globeRadius - 6378137 / metresPerPixel(zoom: zoom, scale: scale)) < 1e-6)
        // The north pole lies on the limb seen from the equator.
        let pole = v.pixel(LonLat(lon: 0, lat: 90))!
        #expect(abs(hypot(pole.x - Double(width) / 2, pole.y - Double(height) / 2) - radius) < 1e-9)
        #expect(abs(pole.x - Double(width) / 2) < 1e-9 && pole.y < Double(height) / 2)
        // Every visible position lies on the disc.
        for lat in stride(from: -89.0, through: 89, by: 4) {
            for lon in stride(from: -89.0, through: 89, by: 4) {
                let q = v.pixel(LonLat(lon: lon, lat: lat))!
                #expect(hypot(q.x - Double(width) / 2, q.y - Double(height) / 2) <= radius + 1e-9)
            }
        }
    }

    @Test(arguments: [0.0, 33.0, 90.0, 180.0, 271.5])
    func placeAtRestIsAtTheFrameCentre(bearing: Double) {
        for projection in [Projection.globe, .webMercator] {
            for center in [LonLat(lon: 20, lat: 30), LonLat(lon: -179.9, lat: -45), LonLat(lon: 126.98, lat: 37.57)] {
                let v = Viewport(camera: Camera(center: center, zoom: 6, bearing: bearing), width: width,
                                 height: height, scale: 2, projection: projection)
                let p = v.pixel(center)!
                #expect(abs(p.x - Double(width) / 2) < 1e-9 && abs(p.y - Double(height) / 2) < 1e-9,
                        "\(projection) \(center): \(p)")
            }
        }
    }

    /// Bearing b turns the map so that direction b points up: a point due north of the centre shows
    /// at angle -b from straight up (clockwise angles), so at 90 north points left.
    @Test(arguments: [0.0, 30.0, 90.0, 180.0, 250.0])
    func bearingTurnsNorthToMinusB(bearing: Double) {
        for projection in [Projection.globe, .webMercator] {
            let center = LonLat(lon: 20, lat: 30)
            let v = Viewport(camera: Camera(center: center, zoom: 5, bearing: bearing), width: width,
                             height: height, projection: projection)
            let p = v.pixel(LonLat(lon: 20, lat: 31))!
            let dx = p.x - Double(width) / 2, dy = p.y - Double(height) / 2
            // Angle clockwise from up, in degrees.
            let angle = atan2(dx, -dy) * 180 / .pi
            let off = WebMercator.wrapLongitude(angle + bearing)
            #expect(abs(off) < 1e-9, "\(projection) bearing \(bearing): north at \(angle)")
            if bearing == 90 { #expect(dx < 0 && abs(dy) < 1e-9) }  // north goes left
            // A point due east lands at 90 - b.
            let e = v.pixel(LonLat(lon: 21, lat: 30))!
            let eastAngle = atan2(e.x - Double(width) / 2, -(e.y - Double(height) / 2)) * 180 / .pi
            // On the globe due east of a point at 30N is not quite "east" a degree away: the
            // parallel curves north of the great circle. Allow for it.
            #expect(abs(WebMercator.wrapLongitude(eastAngle - (90 - bearing))) < 0.3)
        }
    }
}

@Suite struct GlobeClippingProjectionTests {
    func viewport(_ center: LonLat, bearing: Double = 0) -> Viewport {
        Viewport(camera: Camera(center: center, zoom: 2, bearing: bearing), width: 960, height: 540,
                 projection: .globe)
    }

    /// A 90-by-60-degree ring whose eastern third lies beyond the horizon, seen from 0N 0E (the
    /// horizon runs along 90E there).
    @Test(arguments: [0.0, 40.0])
    func ringAcrossTheHorizonIsCutAtTheLimb(bearing: Double) {
        let v = viewport(LonLat(lon: 0, lat: 0), bearing: bearing)
        let ring = rectangle(west: 40, east: 130, south: -30, north: 30)
        let path = globePath([ring], v)
        let cx = Double(v.width) / 2, cy = Double(v.height) / 2, r = v.globeRadius
        #expect(path.subpathCount == 1)
        #expect(path.closed)
        var onLimb = 0
        for i in path.xs.indices {
            let d = hypot(path.xs[i] - cx, path.ys[i] - cy)
            #expect(d <= r + 1e-6, "vertex \(i) at \(d) beyond the disc of \(r)")
            if abs(d - r) < 1e-6 { onLimb += 1 }
        }
        #expect(onLimb >= 10, "the ring must follow the limb where it leaves the near side (\(onLimb))")
        // The ring leaves the near side exactly where its edges cross the horizon, at 90E 30N and
        // 90E 30S: seen from 0N 0E, those lie on the limb 30 degrees either side of 90E 0N. Beyond,
        // the limb follows the far side's azimuths: the 30th parallel bends away from the equator
        // there, out to atan2(sin 30, cos 30 sin 130) = 37.0 degrees at the ring's corner, 130E.
        let equator = v.pixel(LonLat(lon: 90, lat: 0))!
        let a0 = atan2(equator.y - cy, equator.x - cx)
        let limbAngles = path.xs.indices.filter { abs(hypot(path.xs[$0] - cx, path.ys[$0] - cy) - r) < 1e-6 }.map {
            abs(WebMercator.wrapLongitude((atan2(path.ys[$0] - cy, path.xs[$0] - cx) - a0) * 180 / .pi))
        }
        let corner = atan2(sin(30 * Double.pi / 180), cos(30 * Double.pi / 180) * sin(130 * Double.pi / 180)) * 180 / .pi
        #expect(limbAngles.allSatisfy { $0 <= corner + 1e-6 }, "\(limbAngles)")
        #expect(limbAngles.filter { abs($0 - 30) < 1e-6 }.count >= 2, "the two crossings on the limb")

        // Inside and outside, by hand.
        let inside = v.pixel(LonLat(lon: 60, lat: 0))!, nearLimb = v.pixel(LonLat(lon: 85, lat: 10))!
        let west = v.pixel(LonLat(lon: 20, lat: 0))!, north = v.pixel(LonLat(lon: 70, lat: 45))!
        #expect(windingNumber(path, inside.x, inside.y) != 0)
        #expect(windingNumber(path, nearLimb.x, nearLimb.y) != 0)
        #expect(windingNumber(path, west.x, west.y) == 0)
        #expect(windingNumber(path, north.x, north.y) == 0)

        // Everywhere on the disc (clear of the ring's edges and the limb), the fill says what the
        // sphere says.
        var checked = 0
        for py in stride(from: 2.5, to: Double(v.height), by: 6) {
            for px in stride(from: 2.5, to: Double(v.width), by: 6) {
                guard hypot(px - cx, py - cy) < r - 1, let p = v.location(atPixel: px, py) else { continue }
                let inLon = p.lon > 41 && p.lon < 129 && abs(p.lat) < 29
                let outLon = p.lon < 39 || p.lon > 131 || abs(p.lat) > 31
                if inLon { #expect(windingNumber(path, px, py) != 0, "\(p) should be filled") }
                if outLon { #expect(windingNumber(path, px, py) == 0, "\(p) should be empty") }
                checked += 1
            }
        }
        #expect(checked > 1000)
    }

    @Test func ringWhollyOnTheFarSideContributesNothing() {
        let v = viewport(LonLat(lon: 0, lat: 0))
        let ring = rectangle(west: 140, east: 160, south: 10, north: 30)
        #expect(globePath([ring], v).subpathCount == 0)
    }

    @Test func clockwiseRingAroundTheAntipodeDoesNotFillTheDisc() {
        // Around 0N 180E, opposite the camera: its inside is the patch around the antipode only.
        let v = viewport(LonLat(lon: 0, lat: 0))
        let ring = rectangle(west: 150, east: 210, south: -30, north: 30)
        let path = globePath([ring], v)
        let cx = Double(v.width) / 2, cy = Double(v.height) / 2, r = v.globeRadius
        for a in stride(from: 0.0, to: 2 * .pi, by: 0.3) {
            for f in [0.0, 0.3, 0.6, 0.9] {
                #expect(windingNumber(path, cx + f * r * cos(a), cy + f * r * sin(a)) == 0)
            }
        }
        // The same ring with its longitudes wrapped into [-180, 180) (as shapefiles have them).
        let wrapped = ring.map { LonLat(lon: WebMercator.wrapLongitude($0.lon), lat: $0.lat) }
        let path2 = globePath([wrapped], v)
        #expect(windingNumber(path2, cx, cy) == 0)
        #expect(windingNumber(path2, cx + 0.5 * r, cy - 0.5 * r) == 0)
    }

    @Test func counterClockwiseRingAroundTheAntipodeAddsNothingToTheNearSide() {
        // Wound the other way, the ring bounds the same small patch (as on a flat map, where a lone
        // counter-clockwise ring fills its own inside with the winding rule): the near side is empty.
        let v = viewport(LonLat(lon: 0, lat: 0))
        let ring = rectangle(west: 150, east: 210, south: -30, north: 30, clockwise: false)
        let path = globePath([ring], v)
        let cx = Double(v.width) / 2, cy = Double(v.height) / 2, r = v.globeRadius
        for a in stride(from: 0.0, to: 2 * .pi, by: 0.3) {
            for f in [0.0, 0.3, 0.6, 0.9] {
                #expect(windingNumber(path, cx + f * r * cos(a), cy + f * r * sin(a)) == 0)
            }
        }
    }

    /// A clockwise ring holding both the camera's centre and the antipode (a band of 5.8 sr, less than
    /// a hemisphere: a proper outer ring) winds 0 about the view axis; its picture must still fill
    /// the middle of the disc and leave the polar caps empty.
    @Test func ringHoldingTheCentreStaysFilledWhenItReachesRoundTheBack() {
        ringHoldingCentreAndAntipode()
    }

    func ringHoldingCentreAndAntipode() {
        // A band from 60W to 200E (260 degrees of longitude): it holds the camera's centre and wraps
        // past the horizon on both sides; the disc's middle is filled, the poles' caps are not.
        let v = viewport(LonLat(lon: 0, lat: 0))
        let ring = rectangle(west: -60, east: 200, south: -40, north: 40)
        let path = globePath([ring], v)
        let cx = Double(v.width) / 2, cy = Double(v.height) / 2
        #expect(windingNumber(path, cx, cy) != 0)
        for p in [LonLat(lon: 60, lat: 20), LonLat(lon: -50, lat: -30), LonLat(lon: 85, lat: 0)] {
            let q = v.pixel(p)!
            #expect(windingNumber(path, q.x, q.y) != 0, "\(p)")
        }
        for p in [LonLat(lon: 0, lat: 60), LonLat(lon: -80, lat: 0), LonLat(lon: 30, lat: -70)] {
            let q = v.pixel(p)!
            #expect(windingNumber(path, q.x, q.y) == 0, "\(p)")
        }
    }
}

extension GlobeClippingProjectionTests {
    /// A country with a hole (South Africa and Lesotho in Natural Earth): an outer ring clockwise,
    /// the hole counter-clockwise, filled together with the winding rule.
    func countryWithHole(_ v: Viewport) -> PixelPath {
        globePath([rectangle(west: -20, east: 20, south: -20, north: 20),
                   rectangle(west: -5, east: 5, south: -5, north: 5, clockwise: false)], v)
    }

    @Test(arguments: [LonLat(lon: 30, lat: 0), LonLat(lon: -10, lat: 12), LonLat(lon: 80, lat: -30)])
    func holeShowsWhenTheCameraIsBesideIt(center: LonLat) {
        let v = viewport(center)
        let path = countryWithHole(v)
        for (p, filled) in [(LonLat(lon: 0, lat: 0), false), (LonLat(lon: 10, lat: 0), true),
                            (LonLat(lon: -15, lat: 15), true), (LonLat(lon: 40, lat: 0), false),
                            (LonLat(lon: 0, lat: -40), false)] {
            guard let q = v.pixel(p) else { continue }
            #expect((windingNumber(path, q.x, q.y) != 0) == filled, "\(p) seen from \(center)")
        }
    }

    /// With the camera's centre inside a hole (a counter-clockwise ring: Lesotho in South Africa),
    /// the hole stays empty and the country around it filled.
    @Test func holeUnderTheCameraStaysEmpty() {
        let v = viewport(LonLat(lon: 0, lat: 0))
        let path = countryWithHole(v)
        for (p, filled) in [(LonLat(lon: 0, lat: 0), false), (LonLat(lon: 2, lat: 3), false),
                            (LonLat(lon: 10, lat: 0), true), (LonLat(lon: 40, lat: 0), false),
                            (LonLat(lon: 0, lat: -40), false)] {
            let q = v.pixel(p)!
            #expect((windingNumber(path, q.x, q.y) != 0) == filled, "\(p)")
        }
    }
}

@Suite struct SeamCutProjectionTests {
    /// Which side of the seam a longitude lies on: -1 west of it, +1 east, 0 on it.
    func side(_ lon: Double, seam: Double) -> Int {
        let d = WebMercator.wrapLongitude(lon - seam)
        return d == 0 ? 0 : (d < 0 ? -1 : 1)
    }

    func parts(_ g: SeamCut.Parts) -> [[LonLat]] {
        g.partStarts.indices.map { k in
            g.part(k).map { LonLat(lon: g.lons[$0], lat: g.lats[$0]) }
        }
    }

    /// Shoelace area in degrees squared, longitudes taken relative to `reference` (so a piece that
    /// sits against 180 does not straddle the wrap).
    func area(_ ring: [LonLat], reference: Double) -> Double {
        var s = 0.0
        for i in ring.indices {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            let ax = WebMercator.wrapLongitude(a.lon - reference), bx = WebMercator.wrapLongitude(b.lon - reference)
            s += ax * b.lat - bx * a.lat
        }
        return abs(s) / 2
    }

    func ring(_ points: [(Double, Double)]) -> SeamCut.Parts {
        SeamCut.Parts(lons: points.map(\.0), lats: points.map(\.1), partStarts: [0])
    }

    @Test func ringAcrossTheAntimeridianBecomesTwo() {
        let input = ring([(170, 10), (-170, 10), (-170, -10), (170, -10), (170, 10)])
        let out = parts(SeamCut.cut(input, seam: 180, polygons: true))
        #expect(out.count == 2)
        var sides: Set<Int> = []
        for piece in out {
            let s = Set(piece.map { side($0.lon, seam: 180) })
            #expect(s.count == 1 && !s.contains(0), "a piece on both sides or on the seam: \(piece)")
            sides.formUnion(s)
            #expect(piece.allSatisfy { abs($0.lon) >= 170 - 1e-9 && abs($0.lon) < 180 })
            // Half the 20x20 square each, closed along the seam.
            let reference = piece[0].lon > 0 ? 175.0 : -175.0
            #expect(abs(area(piece, reference: reference) - 200) < 1e-3, "\(piece)")
            #expect(piece.contains { abs(abs($0.lon) - 180) < 1e-6 })
        }
        #expect(sides == [-1, 1])
    }

    @Test func ringAcrossAnotherSeamSplits() {
        // +proj=robin +lon_0=150 cuts the world along 30W.
        let input = ring([(-40, 0), (-40, 20), (-20, 20), (-20, 0), (-40, 0)])
        let out = parts(SeamCut.cut(input, seam: -30, polygons: true))
        #expect(out.count == 2)
        var sides: Set<Int> = []
        for piece in out {
            let s = Set(piece.map { side($0.lon, seam: -30) })
            #expect(s.count == 1 && !s.contains(0), "\(piece)")
            sides.formUnion(s)
            #expect(abs(area(piece, reference: -30) - 200) < 1e-3, "\(piece)")
            #expect(piece.allSatisfy { $0.lon >= -40 - 1e-9 && $0.lon <= -20 + 1e-9 })
        }
        #expect(sides == [-1, 1])
        // The same ring cut at 180 is left alone.
        let whole = parts(SeamCut.cut(input, seam: 180, polygons: true))
        #expect(whole.count == 1)
        #expect(abs(area(whole[0], reference: 0) - 400) < 1e-9)
    }

    @Test func lineAcrossTheSeamSplitsInTwo() {
        for (seam, a, b) in [(-30.0, -40.0, -20.0), (180.0, 170.0, -170.0), (180.0, -175.0, 175.0)] {
            let line = SeamCut.Parts(lons: [a, b], lats: [0, 10], partStarts: [0])
            let out = parts(SeamCut.cut(line, seam: seam, polygons: false))
            #expect(out.count == 2, "seam \(seam): \(out)")
            for piece in out {
                let s = Set(piece.map { side($0.lon, seam: seam) })
                #expect(s.count == 1 && !s.contains(0), "\(piece)")
            }
            // Both pieces end at the crossing, half way (lat 5).
            #expect(out.allSatisfy { piece in piece.contains { abs($0.lat - 5) < 1e-9 } })
            #expect(out.first?.first == LonLat(lon: a, lat: 0) && out.last?.last == LonLat(lon: b, lat: 10))
        }
        // A line that does not cross stays whole.
        let line = SeamCut.Parts(lons: [10, 20, 30], lats: [0, 1, 2], partStarts: [0])
        #expect(SeamCut.cut(line, seam: -30, polygons: false) == line)
    }

    @Test func verticesNeverEndUpAcrossTheSeam() {
        // A wiggly ring crossing the seam many times, and rings around it: every output ring stays
        // on one side.
        for seam in [180.0, -30.0, 100.0] {
            var lons: [Double] = [], lats: [Double] = [], starts: [Int] = []
            for c in [seam - 3, seam, seam + 3] {
                starts.append(lons.count)
                for i in 0...200 {
                    let a = Double(i % 200) / 200 * 2 * .pi
                    let r = 8 * (1 + 0.4 * sin(9 * a))
                    lons.append(WebMercator.wrapLongitude(c + r * cos(a)))
                    lats.append(20 + r * sin(a))
                }
            }
            let out = parts(SeamCut.cut(SeamCut.Parts(lons: lons, lats: lats, partStarts: starts), seam: seam,
                                        polygons: true))
            #expect(out.count >= 6)
            for piece in out {
                let s = Set(piece.map { side($0.lon, seam: seam) })
                #expect(s.count == 1 && !s.contains(0), "seam \(seam): a piece on both sides")
                // Nothing reaches further than the input from the seam (no vertex jumps round the world).
                #expect(piece.allSatisfy { abs(WebMercator.wrapLongitude($0.lon - seam)) < 15 })
            }
        }
    }

    @Test func ringAroundThePoleIsClosedThroughIt() {
        // A ring along 70N all the way round: once cut, it is closed through the pole, on one side.
        var lons: [Double] = [], lats: [Double] = []
        for i in 0...36 {
            lons.append(WebMercator.wrapLongitude(-175 + Double(i) * 10))
            lats.append(70)
        }
        let out = parts(SeamCut.cut(SeamCut.Parts(lons: lons, lats: lats, partStarts: [0]), seam: 180, polygons: true))
        #expect(!out.isEmpty)
        for piece in out {
            #expect(piece.contains { $0.lat == 90 })
            #expect(piece.allSatisfy { abs($0.lon) < 180 })
        }
    }
}

@Suite struct GlobeFlightProjectionTests {
    @Test(arguments: [
        (LonLat(lon: 2.35, lat: 48.86), LonLat(lon: -74.0, lat: 40.71)),   // Paris - New York
        (LonLat(lon: 139.69, lat: 35.69), LonLat(lon: -122.42, lat: 37.77)),  // across the antimeridian
        (LonLat(lon: 151.2, lat: -33.87), LonLat(lon: -43.2, lat: -22.9)),  // Sydney - Rio, near the pole
    ])
    func centreFollowsTheGreatCircle(a: LonLat, b: LonLat) {
        let from = Camera(center: a, zoom: 4, bearing: 350), to = Camera(center: b, zoom: 6, bearing: 10)
        let flight = Flight(from: from, to: to, projection: .globe)
        #expect(flight.camera(at: 0) == from)
        #expect(flight.camera(at: 1) == to)
        let u = unit(a), v = unit(b)
        var n = (x: u.y * v.z - u.z * v.y, y: u.z * v.x - u.x * v.z, z: u.x * v.y - u.y * v.x)
        let length = dot(n, n).squareRoot()
        n = (n.x / length, n.y / length, n.z / length)
        var lastAngle = -1.0
        for i in 0...200 {
            let c = flight.camera(at: Double(i) / 200).center
            let w = unit(c)
            #expect(abs(dot(w, n)) < 1e-9, "frame \(i): \(c) off the great circle by \(dot(w, n))")
            // Moving forwards along the short arc from a to b.
            let angle = atan2(dot(n, (x: u.y * w.z - u.z * w.y, y: u.z * w.x - u.x * w.z, z: u.x * w.y - u.y * w.x)),
                              dot(u, w))
            #expect(angle >= lastAngle - 1e-12 && angle <= acos(dot(u, v)) + 1e-9)
            lastAngle = angle
        }
    }

    @Test func bearingTurnsTheShortWayThroughNorth() {
        let a = LonLat(lon: 2.35, lat: 48.86), b = LonLat(lon: 13.4, lat: 52.52)
        let up = Flight(from: Camera(center: a, zoom: 5, bearing: 350), to: Camera(center: b, zoom: 5, bearing: 10),
                        projection: .globe)
        let down = Flight(from: Camera(center: a, zoom: 5, bearing: 10), to: Camera(center: b, zoom: 5, bearing: 350),
                          projection: .globe)
        var lastUp = 350.0, lastDown = 10.0
        for i in 1...100 {
            let k = Double(i) / 100
            let bu = up.camera(alongPath: k).bearing, bd = down.camera(alongPath: k).bearing
            // Within the 20 degrees around north, never through 180.
            #expect(abs(WebMercator.wrapLongitude(bu)) <= 10 + 1e-9, "at \(k): \(bu)")
            #expect(abs(WebMercator.wrapLongitude(bd)) <= 10 + 1e-9, "at \(k): \(bd)")
            // +20 and -20 in all, steadily.
            let du = WebMercator.wrapLongitude(bu - lastUp), dd = WebMercator.wrapLongitude(bd - lastDown)
            #expect(du >= 0 && du <= 20.0 / 100 * 1.0000001 + 1e-9)
            #expect(dd <= 0 && dd >= -20.0 / 100 * 1.0000001 - 1e-9)
            lastUp = bu
            lastDown = bd
        }
        #expect(abs(WebMercator.wrapLongitude(up.camera(alongPath: 0.5).bearing)) < 1e-9)
        #expect(abs(WebMercator.wrapLongitude(down.camera(alongPath: 0.5).bearing)) < 1e-9)
        #expect(abs(WebMercator.wrapLongitude(up.camera(alongPath: 0.25).bearing - 355)) < 1e-9)
        #expect(abs(WebMercator.wrapLongitude(down.camera(alongPath: 0.25).bearing - 5)) < 1e-9)
    }
}

@Suite struct MercatorUnchangedProjectionTests {
    /// The viewport's one transform gives what the centred formula of the first renders gave, to a
    /// millionth of a pixel (the two round differently in the last bits: frames are byte for byte the
    /// same, `tools/same-frames.sh`).
    @Test func pixelIsTheOldFormula() {
        let points = [LonLat(lon: 0, lat: 0), LonLat(lon: 126.98, lat: 37.57), LonLat(lon: -179.5, lat: 66),
                      LonLat(lon: 179.5, lat: -45), LonLat(lon: -73.99, lat: 40.73), LonLat(lon: 10, lat: 89)]
        for center in [LonLat(lon: 127.5, lat: 36.5), LonLat(lon: 180, lat: 67), LonLat(lon: -170, lat: -10)] {
            for (zoom, scale) in [(1.0, 1.0), (4.5, 2.0), (12.0, 1.0)] {
                let (w, h) = (1920, 1080)
                let v = Viewport(camera: Camera(center: center, zoom: zoom), width: w, height: h, scale: scale)
                let c = WebMercator.project(center), s = 256 * pow(2, zoom) * scale
                #expect(v.center == c)
                #expect(v.worldSize == s)
                for p in points {
                    var q = WebMercator.project(p)
                    q.x -= (q.x - c.x).rounded()
                    let old = ((q.x - c.x) * s + Double(w) / 2, (q.y - c.y) * s + Double(h) / 2)
                    let new = v.pixel(p)!
                    #expect(abs(new.x - old.0) < 1e-6 && abs(new.y - old.1) < 1e-6, "\(p): \(new) vs \(old)")
                    // And back again.
                    let r = v.location(atPixel: new.x, new.y)!
                    #expect(abs(r.lat - WebMercator.clampLatitude(p.lat)) < 1e-7
                            && abs(WebMercator.wrapLongitude(r.lon - p.lon)) < 1e-7)
                }
                // The transforms for the copies of the world, as they were made.
                let ox = Double(w) / 2 - c.x * s, oy = Double(h) / 2 - c.y * s
                let b = v.worldBounds
                #expect(abs(b.minX - (c.x - Double(w) / 2 / s)) < 1e-12 && abs(b.maxY - (c.y + Double(h) / 2 / s)) < 1e-12)
                let first = Int(b.minX.rounded(.down)), last = Int(b.maxX.rounded(.down))
                let old = (first...last).map { PixelTransform(scale: s, offsetX: ox + Double($0) * s, offsetY: oy) }
                #expect(PixelTransform.copies(for: v) == old)
                #expect(v.transform == PixelTransform(scale: s, offsetX: ox, offsetY: oy))
            }
        }
    }

    @Test func unturnedTransformIsThePlainScale() {
        let cases: [(s: Double, cx: Double, cy: Double, fx: Double, fy: Double)] = [
            (256, 0.5, 0.5, 480, 270), (1_048_576, 0.8536, 0.3921, 960, 540), (3.25, -0.2, 1.7, 0, 0),
        ]
        for (s, cx, cy, fx, fy) in cases {
            let turned = PixelTransform(scale: s, cos: 1, sin: 0, centerX: cx, centerY: cy, frameX: fx, frameY: fy)
            let plain = PixelTransform(scale: s, offsetX: fx - cx * s, offsetY: fy - cy * s)
            #expect(turned.scale == plain.scale)
            #expect(turned.a == plain.a && turned.b == plain.b && turned.c == plain.c && turned.d == plain.d)
            #expect(turned.offsetX == plain.offsetX && turned.offsetY == plain.offsetY)
            #expect(turned == plain)
            #expect(!turned.isRotated)
        }
    }
}

@Suite struct PixelTransformInverseTests {
    /// `inverted` takes a frame pixel back to the plane point `plane(atPixel:)` gives, and composed
    /// with the transform gives the point back, for seeded turns, scales and offsets.
    @Test func theInverseTakesPixelsBackToThePlane() {
        var seed: UInt64 = 0x5EED
        func next() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(seed >> 11) / Double(1 << 53)
        }
        for _ in 0..<50 {
            let t = PixelTransform(scale: 10 + next() * 1000, cos: 1, sin: 0, centerX: next(), centerY: next(),
                                   frameX: next() * 1920, frameY: next() * 1080)
            let r = next() * 2 * .pi
            let turned = PixelTransform(scale: t.scale, cos: cos(r), sin: sin(r), centerX: next(), centerY: next(),
                                        frameX: next() * 1920, frameY: next() * 1080)
            for m in [t, turned] {
                let back = m.inverted
                let (px, py) = (next() * 1920, next() * 1080)
                let (u, v) = m.plane(atPixel: px, py)
                #expect(abs(back.x(px, py) - u) < 1e-12 && abs(back.y(px, py) - v) < 1e-12)
                #expect(abs(m.x(u, v) - px) < 1e-6 && abs(m.y(u, v) - py) < 1e-6)
            }
        }
    }
}
