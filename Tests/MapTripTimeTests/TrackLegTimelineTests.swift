import Foundation
import Testing
import TestSupport
import MapTripGeometry
import MapTripScene
import MapTripTime

/// A leg that follows a recording, frame by frame: the vehicle where the track is at the expected
/// distance (or recorded time), inside the frame, turning smoothly; the camera without jumps.
@Suite("Track legs on the timeline")
struct TrackLegTimelineTests {
    static let start = LonLat(lon: 24.94, lat: 60.17)

    /// Two places, the second reached by `walk` over `flight` seconds of a `dwell`-second slot.
    static func scene(_ walk: TrackFixture, pace: TrackLeg.Pace, flight: Double = 8, dwell: Double = 10,
                      destination: LonLat? = nil, zoom: Double = 14) -> Scene {
        var arrival = Place(name: "End", position: destination ?? walk.points[walk.points.count - 1], dwell: dwell,
                            zoom: zoom, flight: flight)
        arrival.track = TrackLeg(file: "walk.gpx", pace: pace,
                                 geometry: TrackGeometry(points: walk.points, times: walk.times))
        var s = Scene(video: Video(width: 1280, height: 720, fps: 30),
                      places: [Place(name: "Start", position: start, dwell: 2, zoom: zoom), arrival])
        s.vehicle = .icon(.bike)
        s.distance = true
        return s
    }

    /// Fraction of the run (0...1) at frame n of the leg into slot 1, from the documented shares.
    static func run(_ t: Timeline, _ n: Int) -> Double {
        let slot = t.slots[1]
        let u = Double(n - slot.startFrame) / Double(slot.flightFrames)
        let share = Timeline.trackFlyShare
        return min(max((u - share) / (1 - 2 * share), 0), 1)
    }

    @Test func byDistanceTheVehicleIsWhereTheTrackIs() throws {
        let walk = TrackFixture.walk(seed: 101, count: 300, start: Self.start)
        let t = Timeline(scene: Self.scene(walk, pace: .distance))
        let slot = t.slots[1]
        var seen = 0
        for n in slot.startFrame..<slot.arriveFrame {
            guard let vehicle = t.values(at: n).vehicle else { continue }
            seen += 1
            let expected = walk.point(atKm: Self.run(t, n) * walk.lengthKm)
            #expect(Geodesy.distanceKm(vehicle.position, expected) < 0.002, "frame \(n)")
        }
        // Shown through the run (the middle share of the flight), not while the camera flies out or in.
        let runFrames = Double(slot.flightFrames) * (1 - 2 * Timeline.trackFlyShare)
        #expect(abs(Double(seen) - runFrames) <= 2, "\(seen) frames with a vehicle")
    }

    @Test func byRecordedTimeTheVehicleKeepsTheRecordingsClock() throws {
        let walk = TrackFixture.walk(seed: 202, count: 200, start: Self.start)
        let times = try #require(walk.times)
        let t = Timeline(scene: Self.scene(walk, pace: .recorded))
        let slot = t.slots[1]
        var differs = 0.0
        for n in slot.startFrame..<slot.arriveFrame {
            guard let vehicle = t.values(at: n).vehicle else { continue }
            let seconds = Self.run(t, n) * times[times.count - 1]
            #expect(Geodesy.distanceKm(vehicle.position, walk.point(atSeconds: seconds)) < 0.002, "frame \(n)")
            // The recorded clock is not the even pace (the walk pauses for a minute halfway).
            differs = max(differs, Geodesy.distanceKm(vehicle.position, walk.point(atKm: Self.run(t, n) * walk.lengthKm)))
        }
        #expect(differs > 0.1)
    }

    @Test func theDistanceCounterCountsTheTrack() {
        let walk = TrackFixture.walk(seed: 303, count: 150, start: Self.start)
        let t = Timeline(scene: Self.scene(walk, pace: .distance))
        let arrived = t.values(at: t.slots[1].arriveFrame)
        #expect(abs((arrived.distanceKm ?? 0) - walk.lengthKm) < 1e-9)
        // Far longer than the straight line between the places.
        #expect(walk.lengthKm > 1.5 * Geodesy.distanceKm(walk.points[0], walk.points[walk.points.count - 1]))
    }

    /// A track that wanders far from the line between its places (a loop out and back), zoomed in on
    /// both places: every frame with the vehicle has it well inside the frame, and no frame jumps.
    @Test(arguments: [TrackLeg.Pace.distance, .recorded])
    func theVehicleStaysInTheFrame(pace: TrackLeg.Pace) {
        let walk = TrackFixture.walk(seed: 404, count: 400, start: Self.start, stepKm: 0.1, turn: 4, heading: 0)
        let t = Timeline(scene: Self.scene(walk, pace: pace, destination: walk.points[0], zoom: 15))
        let slot = t.slots[1]
        var previous: Camera?
        var shown = 0
        for n in slot.startFrame...slot.arriveFrame {
            let values = t.values(at: n)
            let view = Viewport(camera: values.camera, width: 1280, height: 720)
            if let vehicle = values.vehicle {
                shown += 1
                let p = view.pixel(vehicle.position)
                #expect(p.map { $0.x > 64 && $0.x < 1216 && $0.y > 64 && $0.y < 656 } == true, "frame \(n): \(String(describing: p))")
            }
            if let previous {
                // No jumps: the zoom moves by less than a third of a level a frame, the centre by less than a
                // quarter of the frame.
                #expect(abs(values.camera.zoom - previous.zoom) < 0.35, "frame \(n)")
                let moved = Viewport(camera: previous, width: 1280, height: 720).pixel(values.camera.center)
                #expect(moved.map { hypot($0.x - 640, $0.y - 360) < 320 } == true, "frame \(n)")
            }
            previous = values.camera
        }
        #expect(shown > 100)
        // The track leaves the places' own views: without the overview it would leave the frame.
        let resting = Viewport(camera: t.slots[1].camera, width: 1280, height: 720)
        #expect(walk.points.contains { p in resting.pixel(p).map { $0.x < 0 || $0.x > 1280 || $0.y < 0 || $0.y > 720 } ?? true })
    }

    @Test func theHeadingFollowsTheTrackWithoutJitter() {
        // A walk due east with GPS noise of a few metres on every fix.
        var noisy = TrackFixture.walk(seed: 505, count: 300, start: Self.start, stepKm: 0.02, turn: 0, heading: 90)
        var rng = SplitMix64(seed: 506)
        noisy.points = noisy.points.map { p in
            LonLat(lon: p.lon + (rng.unit() - 0.5) * 8e-5, lat: p.lat + (rng.unit() - 0.5) * 4e-5)
        }
        let t = Timeline(scene: Self.scene(noisy, pace: .distance))
        var headings: [Double] = []
        var rawTurns = 0.0
        let line = t.routes[1]!
        for n in t.slots[1].startFrame..<t.slots[1].arriveFrame {
            guard let vehicle = t.values(at: n).vehicle else { continue }
            headings.append(vehicle.heading)
            #expect(abs(vehicle.heading - 90) < 20, "frame \(n): \(vehicle.heading)")
            rawTurns = max(rawTurns, abs(line.point(at: vehicle.progress).heading - 90))
        }
        let turns = zip(headings, headings.dropFirst()).map { abs(($1 - $0 + 540).truncatingRemainder(dividingBy: 360) - 180) }
        #expect((turns.max() ?? 0) < 5, "\(turns.max() ?? 0) degrees between frames")
        // The fixes themselves point every which way.
        #expect(rawTurns > 15)
    }

    @Test func planListsTheTrackLeg() {
        let walk = TrackFixture.walk(seed: 606, count: 120, start: Self.start)
        let plan = Plan(scene: Self.scene(walk, pace: .recorded))
        let km = String(format: "%.3f km", walk.lengthKm)
        #expect(plan.table(includeFrames: false).contains("leg into 2 follows track walk.gpx: \(km), 120 points, pace recorded"))
        #expect(plan.json(includeFrames: false).contains("\"track\":{\"file\":\"walk.gpx\""))
    }

    @Test func aTrackOverTheAntimeridianRunsOn() {
        let walk = TrackFixture.walk(seed: 707, count: 200, start: LonLat(lon: 179.95, lat: -17), stepKm: 0.1, turn: 3,
                                     heading: 90)
        #expect(walk.points.contains { $0.lon < 0 })
        let line = RouteLine(track: walk.points, times: walk.times)
        #expect(zip(line.points, line.points.dropFirst()).allSatisfy { abs($1.lon - $0.lon) < 1 })
        #expect(abs(line.lengthKm - walk.lengthKm) < 1e-9)
        for f in stride(from: 0.0, through: 1, by: 0.05) {
            #expect(Geodesy.distanceKm(line.point(at: f).position, walk.point(atKm: f * walk.lengthKm)) < 0.002)
        }
    }
}
