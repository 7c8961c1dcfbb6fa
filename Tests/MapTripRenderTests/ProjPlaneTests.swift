import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import Testing
@testable import MapTripRender

// Proof tests for PROJ planes (issue #13): positions against cs2cs, through the zoom rule to frame
// pixels; the errors for unknown CRSs and places outside a CRS's area; the seam; a world map that
// does not smear.

/// A CRS and reference positions: (lon, lat) -> (x east, y north) metres, from cs2cs.
private struct Reference: Sendable, CustomTestStringConvertible {
    let definition: String
    let points: [(p: LonLat, x: Double, y: Double)]
    let zooms: [Double]
    var testDescription: String { definition }
}

/// Made with PROJ 9.1.1 (cs2cs prints EPSG:3035 as northing, easting: its axis order, swapped
/// below into x east, y north; EPSG:4326 input is lat lon):
///
///     printf '52.52 13.405\n48.8566 2.3522\n40.4168 -3.7038\n59.3293 18.0686\n' | cs2cs -d 6 EPSG:4326 EPSG:3035
///     printf '0 0\n135 -25\n-70 45\n179 80\n' | cs2cs -d 6 +proj=longlat +datum=WGS84 +to +proj=robin
///     printf '0 60\n90 75\n-120 50\n170 85\n' | cs2cs -d 6 +proj=longlat +datum=WGS84 +to +proj=laea +lat_0=90 +lon_0=0
///     printf '52.52 13.405\n48.2082 16.3738\n50.0755 14.4378\n45 15\n' | cs2cs -d 6 EPSG:4326 EPSG:32633
private let references: [Reference] = [
    Reference(definition: "EPSG:3035", points: [
        (LonLat(lon: 13.405, lat: 52.52), 4552036.450155, 3273268.273568),    // Berlin
        (LonLat(lon: 2.3522, lat: 48.8566), 3760771.864838, 2889484.801901),  // Paris
        (LonLat(lon: -3.7038, lat: 40.4168), 3159390.356283, 2029850.919796), // Madrid
        (LonLat(lon: 18.0686, lat: 59.3293), 4780155.728626, 4051490.130960), // Stockholm
    ], zooms: [3, 6, 10]),
    Reference(definition: "+proj=robin", points: [
        (LonLat(lon: 0, lat: 0), 0, 0),
        (LonLat(lon: 135, lat: -25), 12410006.745234, -2673797.966745),
        (LonLat(lon: -70, lat: 45), -5926910.831295, 4805073.646653),
        (LonLat(lon: 179, lat: 80), 10507025.477004, 8102470.441278),
    ], zooms: [1, 4, 8]),
    Reference(definition: "+proj=laea +lat_0=90 +lon_0=0", points: [
        (LonLat(lon: 0, lat: 60), 0, -3309819.551020),
        (LonLat(lon: 90, lat: 75), 1670250.013642, 0),
        (LonLat(lon: -120, lat: 50), -3785595.609098, 2185614.643956),
        (LonLat(lon: 170, lat: 85), 96944.028097, 549796.904067),
    ], zooms: [1, 4, 8]),
    Reference(definition: "EPSG:32633", points: [
        (LonLat(lon: 13.405, lat: 52.52), 391779.259253, 5820072.159211),    // Berlin
        (LonLat(lon: 16.3738, lat: 48.2082), 602065.207411, 5340353.594304),  // Vienna
        (LonLat(lon: 14.4378, lat: 50.0755), 459772.016297, 5547176.551333),  // Prague
        (LonLat(lon: 15, lat: 45), 500000, 4982950.400227),                   // on the central meridian
    ], zooms: [4, 8, 12]),
]

/// The zoom rule: metres of the projection plane per frame pixel at the frame's centre.
private func metresPerPixel(zoom: Double, scale: Double = 1) -> Double {
    40075016.686 / (256 * pow(2, zoom) * scale)
}

@Suite struct ProjPlaneTests {
    let width = 960, height = 540

    @Test(arguments: references)
    fileprivate func forwardMatchesCs2cs(_ reference: Reference) throws {
        let plane = try ProjPlane(reference.definition)
        // Plane metres, straight from PROJ.
        var xs = reference.points.map(\.p.lon), ys = reference.points.map(\.p.lat)
        plane.project(xs: &xs, ys: &ys)
        for (i, r) in reference.points.enumerated() {
            #expect(abs(xs[i] - r.x) < 1e-3 && abs(ys[i] - r.y) < 1e-3, "\(r.p): (\(xs[i]), \(ys[i])) vs (\(r.x), \(r.y))")
        }
        // Frame pixels, through the zoom rule, with the camera on each reference point in turn.
        for zoom in reference.zooms {
            for (scale, bearing) in [(1.0, 0.0), (2.0, 0.0), (1.0, 30.0)] {
                for center in reference.points {
                    let v = Viewport(camera: Camera(center: center.p, zoom: zoom, bearing: bearing), width: width,
                                     height: height, scale: scale, projection: .plane(plane))
                    let mpp = metresPerPixel(zoom: zoom, scale: scale)
                    let b = bearing * .pi / 180
                    for r in reference.points {
                        // Offset in map axes (x east, y south), turned by the bearing.
                        let dx = (r.x - center.x) / mpp, dy = -(r.y - center.y) / mpp
                        let want = (x: Double(width) / 2 + cos(b) * dx + sin(b) * dy,
                                    y: Double(height) / 2 - sin(b) * dx + cos(b) * dy)
                        let got = try #require(v.pixel(r.p))
                        #expect(abs(got.x - want.x) < 0.5 && abs(got.y - want.y) < 0.5,
                                "\(reference.definition) z\(zoom) x\(scale) b\(bearing) from \(center.p): \(r.p) at \(got), want \(want)")
                    }
                }
            }
        }
    }

    @Test(arguments: references)
    fileprivate func inverseUndoesForward(_ reference: Reference) throws {
        let plane = try ProjPlane(reference.definition)
        var probes = reference.points.map(\.p)
        // And a spread of positions around the references.
        for r in reference.points {
            for d in [-2.0, 0.7, 3.1] { probes.append(LonLat(lon: r.p.lon + d, lat: max(-89, min(89, r.p.lat - d / 2)))) }
        }
        var xs = probes.map(\.lon), ys = probes.map(\.lat)
        plane.project(xs: &xs, ys: &ys)
        for (i, p) in probes.enumerated() {
            let q = try #require(plane.unproject(x: xs[i], y: ys[i]))
            #expect(abs(q.lat - p.lat) < 1e-7 && abs(WebMercator.wrapLongitude(q.lon - p.lon)) < 1e-7, "\(p) -> \(q)")
        }
        // Through the view: location(atPixel:) undoes pixel(_:), to a thousandth of a pixel. (In
        // degrees, PROJ's own inverse decides: Robinson's is iterative, and at 80° N, 179° E a
        // change of 1e-12 in the plane moves its answer by 1e-5 degrees, a ten-thousandth of a pixel
        // at this zoom.)
        let v = Viewport(camera: Camera(center: reference.points[0].p, zoom: reference.zooms[1], bearing: 20),
                         width: width, height: height, projection: .plane(plane))
        for p in probes {
            let px = try #require(v.pixel(p))
            let q = try #require(v.location(atPixel: px.x, px.y))
            let back = try #require(v.pixel(q))
            #expect(abs(back.x - px.x) < 1e-3 && abs(back.y - px.y) < 1e-3, "\(p) -> \(q): \(px) -> \(back)")
            #expect(abs(q.lat - p.lat) < 1e-4 && abs(WebMercator.wrapLongitude(q.lon - p.lon)) < 1e-4, "\(p) -> \(q)")
        }
    }

    @Test(arguments: ["EPSG:99999999", "+proj=nonsense"])
    func unknownDefinitionsThrowWithPROJsMessage(_ definition: String) {
        do {
            _ = try ProjPlane(definition)
            Issue.record("\(definition) should not be accepted")
        } catch let error as ProjectionError {
            guard case .unknown(let d, let message) = error else {
                Issue.record("expected .unknown, got \(error)")
                return
            }
            #expect(d == definition)
            #expect(!message.isEmpty)
            #expect(error.description.contains(message), "\(error.description)")
            #expect(error.description.contains(definition))
        } catch {
            Issue.record("expected a ProjectionError, got \(error)")
        }
        // The same through a scene.
        let scene = Scene(places: [Place(name: "Berlin", position: LonLat(lon: 13.405, lat: 52.52))],
                          projection: .proj(definition))
        #expect(throws: ProjectionError.self) { _ = try Projection.make(for: scene) }
    }

    @Test func placeOutsideTheAreaOfUseIsNamed() throws {
        let tokyo = LonLat(lon: 139.69, lat: 35.69)
        let scene = Scene(places: [Place(name: "Berlin", position: LonLat(lon: 13.405, lat: 52.52)),
                                   Place(name: "Tokyo", position: tokyo)],
                          projection: .proj("EPSG:3035"))
        do {
            _ = try Projection.make(for: scene)
            Issue.record("Tokyo lies outside EPSG:3035's area")
        } catch let error as ProjectionError {
            guard case .outsideArea(let place, let index, let position, let crs, _) = error else {
                Issue.record("expected .outsideArea, got \(error)")
                return
            }
            #expect(place == "Tokyo" && index == 1 && position == tokyo && crs == "EPSG:3035")
            #expect(error.description.contains("Tokyo") && error.description.contains("EPSG:3035"))
        }
        // Europe alone is fine, and so is Tokyo on a world projection.
        let europe = Scene(places: [Place(name: "Berlin", position: LonLat(lon: 13.405, lat: 52.52)),
                                    Place(name: "Madrid", position: LonLat(lon: -3.7038, lat: 40.4168))],
                           projection: .proj("EPSG:3035"))
        #expect(try Projection.make(for: europe).spec == .proj("EPSG:3035"))
        let world = Scene(places: scene.places, projection: .proj("+proj=robin"))
        #expect(try Projection.make(for: world).spec == .proj("+proj=robin"))
    }

    /// `+proj=cart` (geocentric x, y, z) drew garbage: a CRS that puts no position on a map is refused,
    /// as a scene's render and the loader's check (validate) say, with what it is.
    @Test(arguments: ["+proj=cart", "+proj=geocent", "EPSG:4978"])
    func aCRSThatIsNoMapIsRefused(_ definition: String) {
        #expect(throws: ProjectionError.notAMap(definition: definition,
                                                kind: "a geocentric coordinate system (x, y, z in metres from the Earth's centre)")) {
            _ = try ProjPlane(definition)
        }
        guard case .notAMap(let kind, let hint) = ProjChecker().check(definition, places: [LonLat(lon: 10, lat: 50)]) else {
            Issue.record("the check passes \(definition)")
            return
        }
        #expect(kind.contains("geocentric") && hint.contains("+proj=robin"))
    }

    /// `+proj=ortho` centred away from the trip drew an empty sea: a place on the hidden side is an
    /// error naming it; the places it shows pass. The same for a near-sided perspective.
    @Test func placesOnTheHiddenSideAreNamed() throws {
        let seoul = Place(name: "Seoul", position: LonLat(lon: 126.978, lat: 37.5665))
        let quito = Place(name: "Quito", position: LonLat(lon: -78.47, lat: -0.18))
        for definition in ["+proj=ortho +lat_0=0 +lon_0=-60", "+proj=tpers +h=5500000 +lat_0=0 +lon_0=-60",
                           "+proj=nsper +h=3000000 +lat_0=0 +lon_0=-60"] {
            let scene = Scene(places: [quito, seoul], projection: .proj(definition))
            #expect(throws: ProjectionError.hidden(place: "Seoul", index: 1, position: seoul.position, crs: definition)) {
                _ = try Projection.make(for: scene)
            }
            #expect(ProjChecker().check(definition, places: [quito.position, seoul.position])
                        == .hidden([1], hint: ProjectionError.hiddenAdvice), "\(definition)")
            #expect(ProjChecker().check(definition, places: [quito.position]) == .fine, "\(definition)")
        }
    }

    @Test func seams() throws {
        let robin = try #require(try ProjPlane("+proj=robin").seam)
        #expect(abs(WebMercator.wrapLongitude(robin - 180)) < 1e-6, "\(robin)")
        let pacific = try #require(try ProjPlane("+proj=robin +lon_0=150").seam)
        #expect(abs(pacific - -30) < 1e-6, "\(pacific)")
        #expect(try ProjPlane("EPSG:3035").seam == nil)
        #expect(try ProjPlane("+proj=laea +lat_0=90 +lon_0=0").seam == nil)
        #expect(try ProjPlane("EPSG:32633").seam == nil)
    }
}

@Suite struct ProjPlaneRenderTests {
    let style = MapStyle.standard

    func isWater(_ s: ImageSurface, _ x: Int, _ y: Int) -> Bool {
        looks(s, (Double(x), Double(y)), like: style.water, tolerance: 10)
    }

    /// The longest run of pixels that are not water along the row through `lat`, inside the
    /// map's outline there; and the outline's width on that row.
    func longestLandRun(_ s: ImageSurface, _ v: Viewport, seam: Double, lat: Double) -> (run: Int, width: Int, row: Int) {
        let west = v.pixel(LonLat(lon: seam + 0.01, lat: lat))!, east = v.pixel(LonLat(lon: seam - 0.01, lat: lat))!
        let row = Int(((west.y + east.y) / 2).rounded(.down))
        let x0 = Int(west.x.rounded(.up)) + 1, x1 = Int(east.x.rounded(.down)) - 1
        var longest = 0, run = 0
        for x in x0...x1 {
            if isWater(s, x, row) { run = 0 } else { run += 1; longest = max(longest, run) }
        }
        return (longest, x1 - x0 + 1, row)
    }

    @Test(arguments: [1.0, 2.0])
    func pacificRobinsonDoesNotSmear(zoom: Double) throws {
        let plane = try ProjPlane("+proj=robin +lon_0=150")
        let seam = try #require(plane.seam)
        let map = try ShapefileBaseMap(assets: assets)
        let surface = try ImageSurface(width: 960, height: 540)
        let v = Viewport(camera: Camera(center: LonLat(lon: 150, lat: 0), zoom: zoom), width: 960, height: 540,
                         projection: .plane(plane))
        try surface.withContext { try map.draw(v, in: $0) }
        dump(surface, "robinson-150-z\(zoom)")

        // Rows near the top edge, through the middle of the Pacific, and in the Southern Ocean: land
        // (Greenland, Antarctica cut at 30W) never runs across the map as a band.
        for lat in [82.0, 75, 65, 20, 0, -20, -45, -60] {
            let (run, width, row) = longestLandRun(surface, v, seam: seam, lat: lat)
            #expect(width > 100)
            #expect(Double(run) <= 0.6 * Double(width), "a band of land \(run) of \(width) px wide at \(lat) (row \(row))")
        }
        // Near the bottom edge (south of the Ross Sea, which reaches 85.4S in this data), Antarctica
        // runs from edge to edge, on both sides of the seam.
        let (run, width, _) = longestLandRun(surface, v, seam: seam, lat: -86)
        #expect(Double(run) >= 0.9 * Double(width), "Antarctica \(run) of \(width)")
        // Known land and sea.
        #expect(looks(surface, v.pixel(LonLat(lon: 135, lat: -25))!, like: style.land))  // Australia
        #expect(looks(surface, v.pixel(LonLat(lon: 100, lat: 60))!, like: style.land))   // Siberia
        #expect(looks(surface, v.pixel(LonLat(lon: -100, lat: 40))!, like: style.land))  // Kansas
        #expect(looks(surface, v.pixel(LonLat(lon: 180, lat: 0))!, like: style.water))   // Pacific
        #expect(looks(surface, v.pixel(LonLat(lon: -150, lat: 20))!, like: style.water)) // Pacific
        #expect(looks(surface, v.pixel(LonLat(lon: 80, lat: -20))!, like: style.water))  // Indian Ocean
        // Greenland shows on both edges of the map, each piece land.
        #expect(looks(surface, v.pixel(LonLat(lon: -40, lat: 72))!, like: style.land))   // right edge
        #expect(looks(surface, v.pixel(LonLat(lon: -25, lat: 75))!, like: style.land))   // left edge
        // Outside the outline, the polar colour.
        #expect(looks(surface, (5, 5), like: style.polar))
    }

    /// A north-polar LAEA shows the whole Earth in a disc: Antarctica (which holds the projection's
    /// singular point, the South Pole) is an annulus at the rim, not a disc over everything, and
    /// beyond the rim there is no sea.
    @Test(arguments: ["+proj=laea +lat_0=90 +lon_0=0", "+proj=aeqd +lat_0=90 +lon_0=-40"])
    func azimuthalAroundTheSingularPoint(_ definition: String) throws {
        let plane = try ProjPlane(definition)
        #expect(plane.seam == nil)
        let rim = try #require(plane.rim)
        #expect(abs(rim.singular.lat - -90) < 0.5, "\(rim.singular)")
        let map = try ShapefileBaseMap(assets: assets)
        let surface = try ImageSurface(width: 960, height: 540)
        let v = Viewport(camera: Camera(center: LonLat(lon: 0, lat: 90), zoom: definition.contains("laea") ? 1.2 : 0.9), width: 960,
                         height: 540, projection: .plane(plane))
        try surface.withContext { try map.draw(v, in: $0) }
        dump(surface, definition.contains("laea") ? "laea-north-pole" : "aeqd-north-pole")
        #expect(looks(surface, v.pixel(LonLat(lon: 0, lat: 89))!, like: style.water))    // the Arctic Ocean
        #expect(looks(surface, v.pixel(LonLat(lon: -42, lat: 72))!, like: style.land))   // Greenland
        #expect(looks(surface, v.pixel(LonLat(lon: 100, lat: 60))!, like: style.land))   // Siberia
        #expect(looks(surface, v.pixel(LonLat(lon: 20, lat: 0))!, like: style.land))     // Congo
        #expect(looks(surface, v.pixel(LonLat(lon: -30, lat: 0))!, like: style.water))   // the Atlantic
        #expect(looks(surface, v.pixel(LonLat(lon: -150, lat: -20))!, like: style.water)) // the Pacific
        #expect(looks(surface, v.pixel(LonLat(lon: 0, lat: -60))!, like: style.water))   // the Southern Ocean
        #expect(looks(surface, (5, 5), like: style.polar))                                 // beyond the rim
        // Close to the rim: Antarctica is land, and past the rim (outwards from the North Pole) nothing.
        let edge = Viewport(camera: Camera(center: LonLat(lon: 45, lat: -75), zoom: 4), width: 320, height: 200,
                            projection: .plane(plane))
        let near = try ImageSurface(width: 320, height: 200)
        try near.withContext { try map.draw(edge, in: $0) }
        dump(near, definition.contains("laea") ? "laea-rim" : "aeqd-rim")
        #expect(looks(near, (160, 100), like: style.land))
        if definition.contains("laea") {
            let pole = try #require(edge.pixel(LonLat(lon: 0, lat: 90)))
            let dx = 160 - pole.x, dy = 100 - pole.y, d = hypot(dx, dy)
            #expect(looks(near, (160 + 40 * dx / d, 100 + 40 * dy / d), like: style.polar))
        }
    }
}
