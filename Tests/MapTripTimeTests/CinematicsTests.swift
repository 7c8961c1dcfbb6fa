import Foundation
import Testing
import TestSupport
@testable import MapTripGeometry
@testable import MapTripScene
@testable import MapTripTime

/// The cinematic layer: the route and vehicle tracks, the distance counter, cues and the still-frame
/// rule on `FrameValues`, the automatic camera, the new scene keys (label placement and the frame
/// layout: LayoutTests)
/// and the ready themes.
@Suite("Cinematics")
struct CinematicsTests {
    // MARK: Fixtures

    enum Trip {
        static let tokyo = LonLat(lon: 139.6503, lat: 35.6762)
        static let honolulu = LonLat(lon: -157.8583, lat: 21.3069)
        static let sanFrancisco = LonLat(lon: -122.4194, lat: 37.7749)

        static func places(dwells: [Double] = [3, 3, 3]) -> [Place] {
            [Place(name: "Tokyo", position: tokyo, dwell: dwells[0], zoom: 5),
             Place(name: "Honolulu", position: honolulu, dwell: dwells[1], zoom: 6),
             Place(name: "San Francisco", position: sanFrancisco, dwell: dwells[2], zoom: 7)]
        }

        /// Tokyo -> Honolulu -> San Francisco, 3 s per place, 1.5 s flights, 30 fps.
        static func scene(vehicle: Vehicle = .icon(.plane), distance: Bool = false, route: RouteStyle? = nil) -> Scene {
            Scene(video: Video(fps: 30), places: places(), route: route, vehicle: vehicle, distance: distance)
        }
    }

    /// The same point, longitudes compared modulo 360.
    static func same(_ a: LonLat, _ b: LonLat, tolerance: Double = 1e-9) -> Bool {
        let dLon = (a.lon - b.lon).remainder(dividingBy: 360)
        return abs(dLon) <= tolerance && abs(a.lat - b.lat) <= tolerance
    }

    /// The smallest difference between two bearings, in degrees.
    static func angle(_ a: Double, _ b: Double) -> Double { abs((a - b).remainder(dividingBy: 360)) }

    /// Whether two boxes share interior (touching edges do not count).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    // MARK: 1. The route's tip is the vehicle

    /// The course of the rhumb line from a to b the short way round: atan2(dlon, dpsi), with psi the
    /// Mercator stretched latitude ln tan(pi/4 + lat/2).
    static func rhumbCourse(_ a: LonLat, _ b: LonLat) -> Double {
        func psi(_ lat: Double) -> Double { log(tan(.pi / 4 + lat * .pi / 360)) }
        let dLon = (b.lon - a.lon).remainder(dividingBy: 360) * .pi / 180
        let course = atan2(dLon, psi(b.lat) - psi(a.lat)) * 180 / .pi
        return course < 0 ? course + 360 : course
    }

    @Test(arguments: [RouteStyle.Path.geodesic, .straight])
    func routeTipIsTheVehicleAtEveryFrame(path: RouteStyle.Path) throws {
        var route = RouteStyle()
        route.path = path
        let s = Trip.scene(route: route)
        let t = Timeline(scene: s)
        #expect(t.slots.map(\.startFrame) == [0, 90, 180])
        #expect(t.slots.map(\.arriveFrame) == [0, 135, 225])
        #expect(t.routes[0] == nil)
        #expect(t.routes.dropFirst().allSatisfy { $0?.kind == (path == .straight ? .straight : .geodesic) })

        var previous: (slot: Int, progress: Double)?
        var flyingFrames = 0
        for n in 0..<t.frameCount {
            let v = t.values(at: n)
            let i = t.slotIndex(at: n)
            let slot = t.slots[i]
            #expect(v.current == i)

            // Legs: every earlier leg whole and travelled; this slot's once its flight has begun.
            let expectedLegs = i == 0 ? [] : (1...i).filter { j in j < i || n > t.slots[j].startFrame }
            #expect(v.legs.map(\.place) == expectedLegs, "frame \(n)")
            for leg in v.legs where leg.place < i {
                #expect(leg.progress == 1 && leg.travelled, "frame \(n): leg \(leg.place)")
            }

            let flying = i > 0 && n > slot.startFrame && n < slot.arriveFrame
            guard flying else {
                if i > 0, n == slot.startFrame, let vehicle = v.vehicle {
                    // The flight's first frame, nothing moved yet: a vehicle here waits on the place it leaves.
                    #expect(vehicle.progress == 0 && Self.same(vehicle.position, s.places[i - 1].position),
                            "frame \(n)")
                } else if i > 0, n >= slot.arriveFrame, n - slot.arriveFrame < Arrival.frames(fps: t.fps), let vehicle = v.vehicle {
                    // Just arrived: easing into the pin, on it, fading.
                    #expect(vehicle.progress == 1 && vehicle.opacity < 1 && Self.same(vehicle.position, s.places[i].position),
                            "frame \(n)")
                } else {
                    #expect(v.vehicle == nil, "frame \(n): no vehicle before the first flight or at rest")
                }
                if i > 0, n >= slot.arriveFrame {
                    let leg = try #require(v.legs.last)
                    #expect(leg.place == i && leg.progress == 1 && !leg.travelled, "frame \(n)")
                    let tip = try #require(t.routes[i]!.prefix(leg.progress).last)
                    #expect(Self.same(tip, s.places[i].position), "frame \(n): the whole leg ends on the place")
                }
                if i > 0, n == slot.startFrame {
                    // The timer has fired but nothing has moved yet: the leg has not begun.
                    #expect(!v.legs.contains { $0.place == i }, "frame \(n)")
                }
                continue
            }
            flyingFrames += 1
            let vehicle = try #require(v.vehicle, "frame \(n): the vehicle flies")
            #expect(vehicle.place == i)
            #expect(vehicle.progress > 0 && vehicle.progress < 1, "frame \(n): \(vehicle.progress)")
            let leg = try #require(v.legs.last)
            #expect(leg.place == i)
            #expect(!leg.travelled, "frame \(n): the leg being flown is not travelled yet")
            #expect(leg.progress == vehicle.progress, "frame \(n)")
            let line = try #require(t.routes[i])
            let tip = try #require(line.prefix(vehicle.progress).last)
            #expect(Self.same(tip, vehicle.position), "frame \(n): tip \(tip) vehicle \(vehicle.position)")
            #expect((-180...180).contains(vehicle.position.lon))
            // On a great circle, the heading anywhere is the initial bearing from there to the end; on a
            // rhumb line, the heading is the line's constant course.
            let heading = path == .straight
                ? Self.rhumbCourse(s.places[i - 1].position, s.places[i].position)
                : Geodesy.initialBearing(vehicle.position, s.places[i].position)
            #expect(Self.angle(vehicle.heading, heading) < 1e-6, "frame \(n): heading \(vehicle.heading), not \(heading)")
            if let previous, previous.slot == i {
                #expect(vehicle.progress > previous.progress, "frame \(n): progress moves forward")
            }
            previous = (i, vehicle.progress)
        }
        // Every frame of both flights after their first (where the camera is still on the place it leaves).
        #expect(flyingFrames == 2 * (45 - 1))
        // The leg into Honolulu crosses the antimeridian: the tip keeps unwrapped longitudes, the vehicle wraps.
        let mid = t.values(at: 130)
        let tip = try #require(t.routes[1]!.prefix(mid.vehicle!.progress).last)
        #expect(tip.lon > 180 && mid.vehicle!.position.lon < 0)
    }

    @Test func legsWithoutALineStillCarryTheVehicle() throws {
        var none = RouteStyle()
        none.path = .none
        let t = Timeline(scene: Trip.scene(distance: true, route: none))
        for n in 0..<t.frameCount {
            let v = t.values(at: n)
            #expect(v.legs.isEmpty, "frame \(n): no line is drawn")
        }
        let v = t.values(at: 120)
        let vehicle = try #require(v.vehicle)
        #expect(Self.same(t.routes[1]!.point(at: vehicle.progress).position, vehicle.position))
        #expect(try #require(v.distanceKm) > 0)
        #expect(Timeline(scene: Trip.scene(vehicle: .none)).values(at: 120).vehicle == nil)
    }

    // MARK: 2. The distance counter

    @Test func distanceCounter() throws {
        let s = Trip.scene(distance: true)
        let t = Timeline(scene: s)
        let legs = [0, Geodesy.distanceKm(Trip.tokyo, Trip.honolulu), Geodesy.distanceKm(Trip.honolulu, Trip.sanFrancisco)]
        let reached = [legs[0], legs[0] + legs[1], legs[0] + legs[1] + legs[2]]
        #expect(t.values(at: 0).distanceKm == 0)
        var last = 0.0
        for n in 0..<t.frameCount {
            let km = try #require(t.values(at: n).distanceKm, "frame \(n)")
            #expect(km >= last, "frame \(n): \(km) after \(last)")
            last = km
            let i = t.slotIndex(at: n), slot = t.slots[i]
            if n >= slot.arriveFrame {
                #expect(abs(km - reached[i]) <= 1e-6 * reached[i], "frame \(n): \(km) at rest on \(i), not \(reached[i])")
            } else {
                #expect(km >= reached[i - 1] && km < reached[i], "frame \(n): in flight to \(i)")
            }
        }
        #expect(abs(last - reached[2]) <= 1e-6 * reached[2])

        // Straight legs count rhumb-line kilometres.
        var straight = RouteStyle()
        straight.path = .straight
        let r = Timeline(scene: Trip.scene(distance: true, route: straight))
        let rhumb = Geodesy.rhumbDistanceKm(Trip.tokyo, Trip.honolulu) + Geodesy.rhumbDistanceKm(Trip.honolulu, Trip.sanFrancisco)
        let end = try #require(r.values(at: r.frameCount - 1).distanceKm)
        #expect(abs(end - rhumb) <= 1e-6 * rhumb, "\(end) vs \(rhumb)")
        #expect(rhumb > reached[2])  // the rhumb line is longer than the great circle

        let off = Timeline(scene: Trip.scene(distance: false))
        #expect((0..<off.frameCount).allSatisfy { off.values(at: $0).distanceKm == nil })
    }

    // MARK: 3. Cues and the frame rule

    static func cueScene() -> Scene {
        var places = Trip.places(dwells: [2.5, 3.1, 2.7])
        for i in places.indices { places[i].caption = "Caption \(i)" }
        places[1].photo = "honolulu.jpg"
        places[2].photo = "sf.jpg"
        return Scene(title: "Pacific", video: Video(fps: 30), places: places, vehicle: .icon(.plane),
                     end: EndCard(title: "Aloha", subtitle: "2025"), outro: 2)
    }

    @Test func frameCountIncludesTheOutro() {
        let s = Self.cueScene()
        let t = Timeline(scene: s)
        #expect(t.frameCount == Int((30 * (2.5 + 3.1 + 2.7 + 2)).rounded()))
        #expect(t.frameCount == 309)
        #expect(t.slots.last!.endFrame == Int((30 * (2.5 + 3.1 + 2.7)).rounded()))
        // The outro rests on the last place.
        #expect(t.slots.last!.camera.isWithinAPixel(of: s.places.last!.camera, scale: s.video.scale))
        for n in t.slots.last!.arriveFrame..<t.frameCount {
            #expect(t.camera(at: n) == t.slots.last!.camera, "frame \(n)")
            #expect(t.values(at: n).current == 2)
        }
        // No outro: the video ends with the last slot.
        var plain = s
        plain.outro = 0
        #expect(Timeline(scene: plain).frameCount == Int((30 * (2.5 + 3.1 + 2.7)).rounded()))
    }

    @Test func endCardRisesFromTheLastArrival() {
        let t = Timeline(scene: Self.cueScene())
        let arrive = t.slots.last!.arriveFrame
        var last = 0.0
        for n in 0..<t.frameCount {
            let o = t.values(at: n).opacity(of: .end)
            if n < arrive {
                #expect(o == 0, "frame \(n)")
            } else {
                #expect(o > 0 && o >= last, "frame \(n): \(o)")
            }
            last = o
        }
        let fade = Timeline.endFade * 30
        #expect(t.values(at: arrive).opacity(of: .end) < 1)
        #expect(t.values(at: arrive + Int(fade.rounded(.up)) - 2).opacity(of: .end) < 1)
        #expect(t.values(at: arrive + Int(fade.rounded(.up))).opacity(of: .end) == 1)
        #expect(t.values(at: t.frameCount - 1).opacity(of: .end) == 1)
        // Drawn last, over the captions and photos.
        #expect(t.values(at: t.frameCount - 1).cards.last?.cue == .end)
        // No end card in the scene, none in the video.
        var s = Self.cueScene()
        s.end = nil
        let u = Timeline(scene: s)
        #expect((0..<u.frameCount).allSatisfy { u.values(at: $0).opacity(of: .end) == 0 })
    }

    @Test(arguments: [false, true])
    func captionsAndPhotosShowOnlyAtRest(photo: Bool) {
        let s = Self.cueScene()
        let t = Timeline(scene: s)
        let last = s.places.count - 1
        for (i, place) in s.places.enumerated() {
            if photo, place.photo == nil {
                #expect((0..<t.frameCount).allSatisfy { t.values(at: $0).opacity(of: .photo(i)) == 0 })
                continue
            }
            let kind: Cue.Kind = photo ? .photo(i) : .caption(i)
            let a = t.slots[i].arriveFrame
            // The rest lasts to the next slot; the last place's to the end of the video (the outro).
            let e = i == last ? t.frameCount : t.slots[i].endFrame
            let fade = min(Timeline.cardFade * 30, Double(e - a) / 3)
            let fadeIn = i == 0 ? 0 : fade
            var previous = 0.0
            for n in 0..<t.frameCount {
                let o = t.values(at: n).opacity(of: kind)
                if n < a || n >= e {
                    #expect(o == 0, "\(kind) frame \(n): not resting on the place")
                } else if Double(n - a + 1) < fadeIn {
                    #expect(o > 0 && o < 1 && o > previous, "\(kind) frame \(n): fading in, \(o)")
                } else if Double(e - n) < fade {
                    #expect(o > 0 && o < 1, "\(kind) frame \(n): fading out, \(o)")
                    if Double(e - n + 1) < fade { #expect(o < previous, "\(kind) frame \(n)") }
                } else {
                    #expect(o == 1, "\(kind) frame \(n): fully shown, \(o)")
                }
                previous = o
            }
            if i > 0 {
                // Not during the flight in.
                #expect(t.values(at: t.slots[i].startFrame).opacity(of: kind) == 0)
                #expect(t.values(at: a - 1).opacity(of: kind) == 0)
                #expect(t.values(at: a).opacity(of: kind) > 0)
            }
        }
        // Place 1's caption has gone when the flight to place 2 starts.
        #expect(t.values(at: t.slots[1].endFrame).opacity(of: .caption(1)) == 0)
    }

    @Test func titleCueAsBefore() {
        let t = Timeline(scene: Self.cueScene())
        let end = t.slots[0].endFrame  // 75 frames; the fade is the last 0.5 s (15 frames)
        let fade = Timeline.titleFade * 30
        for n in 0..<t.frameCount {
            let o = t.values(at: n).opacity(of: .title)
            #expect(o == t.titleOpacity(at: n))
            if n >= end { #expect(o == 0, "frame \(n)") }
            else if Double(end - n) < fade { #expect(abs(o - Double(end - n) / fade) < 1e-12, "frame \(n)") }
            else { #expect(o == 1, "frame \(n)") }
        }
        // The title is drawn first, under the other cards.
        #expect(t.values(at: 0).cards.map(\.cue) == [.title, .caption(0)])
    }

    // MARK: 4. The still-frame rule

    struct StillCase: Sendable, CustomTestStringConvertible {
        var fps: Int
        var dwell: Double
        var testDescription: String { "\(fps) fps, \(dwell) s" }
    }

    /// Two places at the same spot and zoom, a jump between them, a caption on the second: the only
    /// things that move are the caption's fades and the second pin's pop.
    @Test(arguments: [StillCase(fps: 30, dwell: 3), StillCase(fps: 24, dwell: 3), StillCase(fps: 25, dwell: 2),
                      StillCase(fps: 30, dwell: 0.9), StillCase(fps: 60, dwell: 1.5)])
    func onlyFadesAreRedrawn(_ c: StillCase) {
        let here = LonLat(lon: 10, lat: 50)
        let s = Scene(video: Video(fps: c.fps), places: [
            Place(name: "A", position: here, dwell: 3, zoom: 8),
            Place(name: "B", position: here, dwell: c.dwell, zoom: 8, flight: 0, caption: "Still here"),
        ])
        let t = Timeline(scene: s)
        let a = t.slots[1].startFrame, e = t.frameCount
        #expect(t.slots[1].arriveFrame == a)
        let fade = min(Timeline.cardFade * Double(c.fps), Double(e - a) / 3)
        let pop = max(1, Int((Timeline.pinPop * Double(c.fps)).rounded()))
        let fadeFrames = Int(fade.rounded(.up))
        // Fade in (and the pop): from the arrival until both are whole. Fade out: every frame whose
        // opacity is below 1, that is within `fade` frames of the end.
        let expected = Set(a..<(a + max(fadeFrames, pop))).union((e - fadeFrames + 1)..<e)

        var changed = Set<Int>()
        var previous = t.values(at: 0)
        for n in 1..<e {
            let v = t.values(at: n)
            if v != previous { changed.insert(n) }
            previous = v
        }
        #expect(changed == expected, "changed \(changed.sorted())")
        #expect(changed.count == max(fadeFrames, pop) + fadeFrames - 1)
        // The stretch in between is one picture, drawn once.
        let still = t.values(at: a + max(fadeFrames, pop))
        for n in (a + max(fadeFrames, pop))...(e - fadeFrames) { #expect(t.values(at: n) == still, "frame \(n)") }
        #expect(still.opacity(of: .caption(1)) == 1)
        #expect(still.pins.map(\.appear) == [1, 1])
        // So the recorder draws the first frame plus one per change.
        #expect(1 + changed.count < e)
    }

    // MARK: 7. The automatic camera

    /// Metres per logical pixel at `zoom` and `latitude` in Web Mercator.
    static func metresPerPixel(zoom: Double, latitude: Double) -> Double {
        40_075_016.686 * cos(latitude * .pi / 180) / (256 * pow(2, zoom))
    }

    @Test func zoomShowsTheSpanAcrossTheShorterSide() {
        for video in [Video(width: 1920, height: 1080), Video(width: 1080, height: 1920), Video(width: 1080, height: 1080),
                      Video(width: 3840, height: 2160, scale: 2), Video(width: 3840, height: 2160)] {
            let side = Double(min(video.width, video.height)) / video.scale
            for latitude in [0.0, 21.3, 35.6762, -45, 60, 70] {
                for span in [20.0, 300, 2500] {
                    let z = AutoCamera.zoom(spanKm: span, latitude: latitude, video: video)
                    let shown = Self.metresPerPixel(zoom: z, latitude: latitude) * side / 1000
                    #expect(abs(shown - span) <= 1e-9 * span,
                            "\(video.width)x\(video.height) lat \(latitude): \(shown) km, not \(span)")
                }
            }
        }
        let wide = AutoCamera.zoom(spanKm: 300, latitude: 35, video: Video(width: 1920, height: 1080))
        #expect(AutoCamera.zoom(spanKm: 300, latitude: 35, video: Video(width: 1080, height: 1920)) == wide)
        #expect(AutoCamera.zoom(spanKm: 300, latitude: 35, video: Video(width: 3840, height: 2160, scale: 2)) == wide)
        // Twice the span is one zoom level out.
        #expect(abs(AutoCamera.zoom(spanKm: 600, latitude: 35, video: Video()) - (wide - 1)) < 1e-12)
        // Clamped to the zoom range.
        #expect(AutoCamera.zoom(spanKm: 0.0001, latitude: 0, video: Video()) == SceneFormat.zoomRange.upperBound)
        #expect(AutoCamera.zoom(spanKm: 1e9, latitude: 0, video: Video()) == SceneFormat.zoomRange.lowerBound)
        #expect(AutoCamera.zoom(spanKm: 100, latitude: 90, video: Video()).isFinite)
    }

    @Test func automaticSpanIsTwiceTheNearerNeighbour() {
        let kyoto = LonLat(lon: 135.7681, lat: 35.0116), osaka = LonLat(lon: 135.5023, lat: 34.6937)
        let d = Geodesy.distanceKm(Trip.tokyo, kyoto), e = Geodesy.distanceKm(kyoto, osaka)
        #expect(e > AutoCamera.spanRange.lowerBound / 2.2 && 2.2 * d < AutoCamera.spanRange.upperBound)
        let positions = [Trip.tokyo, kyoto, osaka]
        #expect(abs(AutoCamera.span(for: 0, positions: positions) - 2.2 * d) < 1e-9 * d)
        #expect(abs(AutoCamera.span(for: 1, positions: positions) - 2.2 * e) < 1e-9 * e)  // Osaka is nearer
        #expect(abs(AutoCamera.span(for: 2, positions: positions) - 2.2 * e) < 1e-9 * e)
        // Clamped: a hop across town shows a city, an ocean at most a subcontinent; alone, a region.
        let nextDoor = LonLat(lon: Trip.tokyo.lon + 0.01, lat: Trip.tokyo.lat)
        #expect(AutoCamera.span(for: 0, positions: [Trip.tokyo, nextDoor]) == AutoCamera.spanRange.lowerBound)
        #expect(AutoCamera.span(for: 0, positions: [Trip.tokyo, Trip.sanFrancisco]) == AutoCamera.spanRange.upperBound)
        #expect(AutoCamera.span(for: 0, positions: [Trip.tokyo]) == AutoCamera.loneSpanKm)
    }

    @Test func flightGrowsWithDistanceAndLeavesARest() {
        let distances = [0.0, 1, 5, 20, 50, 100, 300, 1000, 3000, 6000, 10_000, 20_000, 40_000]
        for dwell in [0.1, 0.5, 1, 1.2, 2, 3, 4, 5, 8, 20] {
            var previous = 0.0
            for d in distances {
                let f = AutoCamera.flight(distanceKm: d, dwell: dwell)
                #expect(f > 0, "dwell \(dwell), \(d) km")
                #expect(f <= 0.85 * dwell, "dwell \(dwell), \(d) km: \(f) s")
                #expect(f >= previous, "dwell \(dwell): \(f) s at \(d) km after \(previous)")
                previous = f
            }
        }
        let long = 100.0
        #expect(AutoCamera.flight(distanceKm: 100, dwell: long) < AutoCamera.flight(distanceKm: 1000, dwell: long))
        #expect(AutoCamera.flight(distanceKm: 1000, dwell: long) < AutoCamera.flight(distanceKm: 10_000, dwell: long))
        // About a second for a hop, about four across an ocean.
        #expect(abs(AutoCamera.flight(distanceKm: 5, dwell: long) - 1) <= 0.25)
        let pacific = AutoCamera.flight(distanceKm: Geodesy.distanceKm(Trip.tokyo, Trip.sanFrancisco), dwell: long)
        #expect(pacific >= 3 && pacific <= 5, "\(pacific)")
    }

    // MARK: 8. Loading the new keys

    @Test func decodesStyleRouteVehicleAndCamera() throws {
        let json = """
        { "style": { "theme": "dark", "sea": "#102030" },
          "route": { "path": "straight", "color": "#00ff00", "dash": [8, 4], "travelled": { "color": "#00ff0080" } },
          "vehicle": "car",
          "video": { "preset": "story" },
          "end": { "title": "Aloha" }, "outro": 1.5, "distance": true,
          "places": [
            { "name": "Tokyo", "lat": 35.6762, "lon": 139.6503, "span": 300, "caption": "Start", "curve": 0.9 },
            { "name": "Honolulu", "lat": 21.3069, "lon": -157.8583, "dwell": 4, "flight": "auto",
              "route": { "color": "#0000ff", "width": 6 } },
            { "name": "San Francisco", "lat": 37.7749, "lon": -122.4194, "zoom": 5, "vehicle": "ship",
              "flight": 2 }
          ] }
        """
        let scene = try SceneLoader.decode(Data(json.utf8), file: "pacific.json")
        var style = Style.dark
        style.sea = Color(hex: "#102030")!
        #expect(scene.style == style)
        #expect(scene.style.land == Style.dark.land)

        let route = RouteStyle(path: .straight, color: Color(hex: "#00ff00")!, width: Style.dark.route.width,
                               dash: [8, 4], outline: Style.dark.route.outline,
                               travelledColor: Color(hex: "#00ff0080")!)
        #expect(scene.route == route)
        var honolulu = route
        honolulu.color = Color(hex: "#0000ff")!
        honolulu.width = 6
        #expect(scene.places[1].route == honolulu)
        #expect(scene.places[2].route == nil)
        #expect(scene.route(into: 1) == honolulu)
        #expect(scene.route(into: 2) == route)
        #expect(scene.route(into: 0) == nil)
        #expect(Timeline.routes(for: scene).map { $0?.kind } == [nil, .straight, .straight])

        #expect(scene.vehicle == .icon(.car))
        #expect(scene.places[2].vehicle == .icon(.ship))
        #expect(scene.vehicle(into: 1) == .icon(.car))
        #expect(scene.vehicle(into: 2) == .icon(.ship))

        #expect(scene.video == Video(width: 1080, height: 1920, fps: 30, scale: 1))
        let p = scene.places
        #expect(p[1].flight == AutoCamera.flight(distanceKm: Geodesy.distanceKm(p[0].position, p[1].position), dwell: 4))
        #expect(p[2].flight == 2)
        #expect(p[0].zoom == AutoCamera.zoom(spanKm: 300, latitude: 35.6762, video: scene.video))
        #expect(p[0].zoom == AutoCamera.zoom(spanKm: 300, latitude: 35.6762, video: Video()))
        #expect(p[2].zoom == 5)
        // Honolulu gives neither: about twice the distance to its nearer neighbour across.
        let near = min(Geodesy.distanceKm(p[0].position, p[1].position), Geodesy.distanceKm(p[1].position, p[2].position))
        #expect(p[1].zoom == AutoCamera.zoom(spanKm: min(2.2 * near, AutoCamera.spanRange.upperBound),
                                             latitude: 21.3069, video: scene.video))
        #expect(p[0].caption == "Start" && p[1].caption == nil)
        #expect(p[0].curve == 0.9)
        #expect(scene.end == EndCard(title: "Aloha"))
        #expect(scene.outro == 1.5)
        #expect(scene.distance)
    }

    @Test func presetsAndOverrides() throws {
        func video(_ text: String) throws -> Video {
            try SceneLoader.decode(Data(#"{"video": \#(text), "places": [{"lat": 1, "lon": 2}]}"#.utf8), file: "v.json").video
        }
        #expect(try video(#"{"preset": "story"}"#) == Video(width: 1080, height: 1920))
        #expect(try video(#"{"preset": "square"}"#) == Video(width: 1080, height: 1080))
        #expect(try video(#"{"preset": "4k"}"#) == Video(width: 3840, height: 2160, scale: 2))
        #expect(try video(#"{"preset": "story", "fps": 60}"#) == Video(width: 1080, height: 1920, fps: 60))
        #expect(try video(#"{"preset": "story", "height": 1350}"#) == Video(width: 1080, height: 1350))
        // Without a route key the scene's route is the theme's.
        let plain = try SceneLoader.decode(Data(#"{"style": {"theme": "atlas"}, "places": [{"lat": 1, "lon": 2}]}"#.utf8),
                                           file: "a.json")
        #expect(plain.route == Style.atlas.route)
        #expect(plain.vehicle == .none)
        #expect(plain.end == nil && plain.outro == 0 && !plain.distance)
    }

    static let onePlace = #"{"lat": 1, "lon": 2}"#

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var json: String
        var path: String
        /// The text the error must point at (its first occurrence).
        var at: String
        var message: String
        var hint: String?

        init(_ json: String, path: String, at: String, message: String, hint: String? = nil) {
            self.json = json
            self.path = path
            self.at = at
            self.message = message
            self.hint = hint
        }

        var testDescription: String { "\(path): \(message)" }
    }

    static let errorCases: [ErrorCase] = [
        .init(##"{"route": {"color": "#zzz"}, "places": [\##(onePlace)]}"##, path: "route.color", at: ##""#zzz""##,
              message: "'#zzz' is not a colour"),
        .init(##"{"style": {"sea": "#zzz"}, "places": [\##(onePlace)]}"##, path: "style.sea", at: ##""#zzz""##,
              message: "'#zzz' is not a colour"),
        .init(##"{"places": [\##(onePlace), {"lat": 3, "lon": 4, "flight": "fast"}]}"##, path: "places[1].flight",
              at: ##""fast""##, message: "unknown flight 'fast'", hint: ##"give a number of seconds or "auto""##),
        .init(##"{"flight": "fast", "places": [\##(onePlace)]}"##, path: "flight", at: ##""fast""##,
              message: "unknown flight 'fast'"),
        .init(##"{"style": {"theme": "neon"}, "places": [\##(onePlace)]}"##, path: "style.theme", at: ##""neon""##,
              message: "unknown theme 'neon'", hint: ##"use "light", "dark" or "atlas""##),
        .init(##"{"places": [{"lat": 1, "lon": 2, "zoom": 5, "span": 300}]}"##, path: "places[0].span", at: "300",
              message: "give zoom or span, not both"),
        .init(##"{"outro": -1, "places": [\##(onePlace)]}"##, path: "outro", at: "-1",
              message: "outro must be 0 seconds or more"),
        .init(##"{"route": {"colr": "#ffffff"}, "places": [\##(onePlace)]}"##, path: "route.colr", at: ##""colr""##,
              message: "unknown key 'colr'", hint: "did you mean 'color'?"),
        .init(##"{"places": [\##(onePlace), {"lat": 3, "lon": 4, "route": {"dahs": [1, 2]}}]}"##,
              path: "places[1].route.dahs", at: ##""dahs""##, message: "unknown key 'dahs'", hint: "did you mean 'dash'?"),
        .init(##"{"route": {"travelled": {"colour": "#ffffff"}}, "places": [\##(onePlace)]}"##,
              path: "route.travelled.colour", at: ##""colour""##, message: "unknown key 'colour'",
              hint: "did you mean 'color'?"),
        .init(##"{"video": {"preset": "tiktok"}, "places": [\##(onePlace)]}"##, path: "video.preset",
              at: ##""tiktok""##, message: "unknown video preset 'tiktok'"),
        .init(##"{"route": {"path": "curvy"}, "places": [\##(onePlace)]}"##, path: "route.path", at: ##""curvy""##,
              message: "unknown route path 'curvy'"),
    ]

    @Test(arguments: errorCases)
    func rejectsBadCinematics(_ c: ErrorCase) throws {
        let error = try #require(decodeError(c.json, file: "bad.json"))
        let expected = try #require(position(of: c.at, in: c.json))
        #expect(error.file == "bad.json")
        #expect(error.path == c.path, "\(error)")
        #expect((error.line, error.column) == (expected.line, expected.column), "\(error)")
        #expect(error.message.contains(c.message), "\(error.message)")
        if let hint = c.hint { #expect(error.hint == hint) }
        #expect(error.description.hasPrefix("bad.json:\(expected.line):\(expected.column): \(c.path): "))
    }

    @Test func errorsPointAtTheLineInAMultiLineScene() throws {
        let json = """
        {
          "style": { "theme": "dark" },
          "route": {
            "color": "#zzz"
          },
          "places": [ { "lat": 1, "lon": 2 } ]
        }
        """
        let error = try #require(decodeError(json))
        #expect((error.line, error.column) == (4, 14))
        #expect(error.description.hasPrefix("trip.json:4:14: route.color: '#zzz' is not a colour"))
    }

    // MARK: 9. Themes

    @Test(arguments: Style.themes)
    func themeFilesMatchTheBuiltInThemes(name: String) throws {
        let style = try #require(Style.theme(name))
        #expect(style.theme == name)
        let url = Self.packageRoot.appendingPathComponent("Assets/themes/\(name).json")
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text == style.json(), "Assets/themes/\(name).json differs from Style.theme(\"\(name)\")!.json()")

        // The file's style object, plus one place, is a scene in that style.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(Array(object.keys) == ["style"])
        let body = text.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(body.hasSuffix("}"))
        let sceneText = String(body.dropLast()) + #", "places": [{"lat": 35.6762, "lon": 139.6503}]}"#
        let scene = try SceneLoader.decode(Data(sceneText.utf8), file: "\(name).json")
        #expect(scene.style == style)
        #expect(scene.route == style.route)
    }

    @Test func themesDiffer() {
        let styles = Style.themes.compactMap(Style.theme)
        #expect(styles.count == Style.themes.count)
        #expect(Set(styles.map(\.sea)).count == Style.themes.count)
        #expect(Style.theme("neon") == nil)
        #expect(Style.theme("light") == .standard)
        #expect(Scene(places: [Place(name: "x", position: LonLat(lon: 0, lat: 0))]).route == Style.standard.route)
    }
}
