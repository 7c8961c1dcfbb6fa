import Foundation
import Testing
import TestSupport
import MapTripGeometry
import MapTripScene
import MapTripTime

/// The directed camera (`camera`): following a mover (its centre the mover's position, heading-up
/// smoothed against GPS noise, zoom by speed, intro and outro) and keyframes (exact at their frames).
@Suite("Directed camera")
struct CameraTrackTests {
    static let start = LonLat(lon: 24.94, lat: 60.17)

    /// Signed difference b - a of two bearings, in (-180, 180].
    static func turn(_ a: Double, _ b: Double) -> Double {
        var d = (b - a).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
        return d
    }

    /// A ride east, north, then west (`legKm` each) at `mps`, a fix every `every` seconds, each fix
    /// off by GPS noise of up to `noiseM` metres (seeded); the legs' compass directions.
    static func ride(seed: UInt64, legKm: Double = 2, mps: Double = 5, every: Double = 2,
                     noiseM: Double = 6) -> (TrackFixture, [Double]) {
        var rng = SplitMix64(seed: seed)
        let headings = [90.0, 0, 270]
        var points: [LonLat] = [], times: [Double] = []
        var here = start, t = 0.0
        let step = mps * every / 1000
        for h in headings {
            for _ in 0..<Int(legKm / step) {
                let dLat = step * cos(h * .pi / 180) / 111.195
                let dLon = step * sin(h * .pi / 180) / (111.195 * cos(here.lat * .pi / 180))
                here = LonLat(lon: here.lon + dLon, lat: here.lat + dLat)
                let nx = (rng.unit() * 2 - 1) * noiseM / 1000, ny = (rng.unit() * 2 - 1) * noiseM / 1000
                points.append(LonLat(lon: here.lon + nx / (111.195 * cos(here.lat * .pi / 180)), lat: here.lat + ny / 111.195))
                times.append(t)
                t += every
            }
        }
        return (TrackFixture(points: points, times: times), headings)
    }

    static func scene(_ walk: TrackFixture, camera: SceneCamera, speed: Double = 20, fps: Int = 30, outro: Double = 0) -> Scene {
        var s = PlaybackTests.scene([PlaybackTests.track(walk, name: "Anna")], Playback(speed: speed), fps: fps, outro: outro)
        s.camera = camera
        return s
    }

    @Test func theFollowingCameraIsCentredOnTheMoverAtEveryFrame() throws {
        let walk = TrackFixture.walk(seed: 5951, count: 200, start: Self.start, stepKm: 0.05)
        let t = Timeline(scene: Self.scene(walk, camera: SceneCamera(follow: 0, headingUp: true, intro: 1)))
        let clock = try #require(t.playback)
        let intro = 30
        #expect(t.frameCount == clock.frameCount)
        for n in intro..<t.frameCount {
            let values = t.values(at: n)
            #expect(values.camera.center == values.movers[0].position, "frame \(n)")
            #expect(values.camera.zoom == SceneCamera.defaultZoom)
        }
        // The intro starts on the whole route (north up) and reaches the mover by its end.
        let overview = Timeline(scene: PlaybackTests.scene([PlaybackTests.track(walk, name: "Anna")], Playback(speed: 20)))
        #expect(t.camera(at: 0) == overview.camera(at: 0))
        #expect(t.camera(at: intro / 2).zoom < SceneCamera.defaultZoom)
    }

    @Test func headingUpTurnsTheTravelledDirectionUpWithoutJitter() throws {
        let (ride, headings) = Self.ride(seed: 5952)
        let fps = 30, speed = 20.0
        let t = Timeline(scene: Self.scene(ride, camera: SceneCamera(follow: 0, headingUp: true, intro: 0), speed: speed, fps: fps))
        let clock = try #require(t.playback)
        let times = try #require(ride.times)
        let legSeconds = times[times.count - 1] / 3
        // Frame to frame, the map turns by at most a few degrees (a right-angle corner over seconds).
        var biggest = 0.0, rawBiggest = 0.0
        var previous = t.camera(at: 0).bearing
        for n in 1..<clock.frameCount {
            let b = t.camera(at: n).bearing
            biggest = max(biggest, abs(Self.turn(previous, b)))
            previous = b
        }
        #expect(biggest < 2.5, "largest turn between frames: \(biggest) degrees")
        // The unsmoothed direction (the line's own, over tens of metres) jitters by far more.
        let line = RouteLine(track: ride.points, times: ride.times)
        for n in 1..<clock.frameCount {
            let a = line.point(at: clock.progress(0, at: clock.time(atFrame: n - 1))).heading
            let b = line.point(at: clock.progress(0, at: clock.time(atFrame: n))).heading
            rawBiggest = max(rawBiggest, abs(Self.turn(a, b)))
        }
        #expect(rawBiggest > 20, "the noise in the fixture: \(rawBiggest)")
        // On the straight stretches (away from the corners by the smoothing's reach), the travelled
        // direction is up within a few degrees.
        let reach = 3 * FollowCamera.sigma * speed + 30  // recorded seconds
        var checked = 0, worst = 0.0
        for n in 0..<clock.frameCount {
            let seconds = clock.time(atFrame: n) - clock.offsets[0]
            let leg = min(Int(seconds / legSeconds), 2)
            let into = seconds - Double(leg) * legSeconds
            guard into > reach, into < legSeconds - reach else { continue }
            let b = t.camera(at: n).bearing
            #expect(abs(Self.turn(headings[leg], b)) < 3, "frame \(n), leg \(leg): bearing \(b)")
            worst = max(worst, abs(Self.turn(headings[leg], b)))
            checked += 1
        }
        #expect(checked > clock.frameCount / 3)
        print("heading-up on a noisy ride: largest turn between frames \(biggest) degrees smoothed, \(rawBiggest) raw; "
              + "on the straights at most \(worst) degrees off the travelled direction")
    }

    @Test func anyFrameOfTheFollowingCameraIsTheSameAlone() throws {
        let (ride, _) = Self.ride(seed: 5953, legKm: 1)
        let camera = SceneCamera(follow: 0, zoom: .speed, headingUp: true, intro: 2)
        let a = Timeline(scene: Self.scene(ride, camera: camera, outro: 2))
        let frames = Array(0..<a.frameCount)
        let forward = frames.map { a.camera(at: $0) }
        let b = Timeline(scene: Self.scene(ride, camera: camera, outro: 2))
        for n in frames.reversed() { #expect(b.camera(at: n) == forward[n], "frame \(n)") }
    }

    @Test func zoomBySpeedZoomsOutWhenFasterWithinBounds() throws {
        // A walk at 1.5 m/s, then a ride at 12 m/s, fixes every 2 s.
        var points = [Self.start], times = [0.0]
        for i in 1..<400 {
            let mps = i < 200 ? 1.5 : 12
            let p = points[i - 1]
            points.append(LonLat(lon: p.lon + mps * 2 / 1000 / (111.195 * cos(p.lat * .pi / 180)), lat: p.lat))
            times.append(Double(i) * 2)
        }
        let walk = TrackFixture(points: points, times: times)
        let t = Timeline(scene: Self.scene(walk, camera: SceneCamera(follow: 0, zoom: .speed, intro: 0), speed: 30))
        let clock = try #require(t.playback)
        func frame(atSeconds s: Double) -> Int { Int((s / 30 * 30).rounded()) }
        let slow = t.camera(at: frame(atSeconds: 150)).zoom, fast = t.camera(at: frame(atSeconds: 650)).zoom
        func zoom(_ v: Double) -> Double { FollowCamera.zoom(forSpeed: v, playbackSpeed: 30, latitude: Self.start.lat, viewShort: 720) }
        #expect(abs(slow - zoom(1.5)) < 0.05, "walking zoom \(slow)")
        #expect(abs(fast - zoom(12)) < 0.05, "riding zoom \(fast)")
        // Eight times the speed: three levels out, the mover crossing the frame as fast in the video.
        #expect(abs(slow - fast - 3) < 0.1)
        var previous = t.camera(at: 0).zoom
        for n in 0..<clock.frameCount {
            let z = t.camera(at: n).zoom
            #expect(FollowCamera.zoomRange.contains(z))
            #expect(abs(z - previous) < 0.05, "frame \(n): zoom \(previous) to \(z)")
            previous = z
        }
        #expect(FollowCamera.zoom(forSpeed: 0, playbackSpeed: 30, latitude: 60, viewShort: 720) == FollowCamera.zoomRange.upperBound)
        #expect(FollowCamera.zoom(forSpeed: 3000, playbackSpeed: 30, latitude: 60, viewShort: 720) == FollowCamera.zoomRange.lowerBound)
    }

    @Test func theOutroFliesOutToTheWholeRouteAndHolds() throws {
        let walk = TrackFixture.walk(seed: 5954, count: 120, start: Self.start, stepKm: 0.03)
        let t = Timeline(scene: Self.scene(walk, camera: SceneCamera(follow: 0, headingUp: true, intro: 0), outro: 3))
        let clock = try #require(t.playback)
        let overview = Timeline(scene: PlaybackTests.scene([PlaybackTests.track(walk, name: "Anna")], Playback(speed: 20)))
            .camera(at: 0)
        let last = clock.frameCount - 1
        #expect(t.camera(at: last).center == t.values(at: last).movers[0].position)
        // Two thirds of the outro's 90 frames fly out; the rest hold the whole route.
        for n in (last + 60)..<t.frameCount { #expect(t.camera(at: n) == overview, "frame \(n)") }
        #expect(t.camera(at: last + 30) != overview)
    }

    static let keyframes = [
        CameraKeyframe(t: 0, camera: Camera(center: LonLat(lon: 2.35, lat: 48.86), zoom: 5)),
        CameraKeyframe(t: 1.5, camera: Camera(center: LonLat(lon: 13.4, lat: 52.52), zoom: 7, bearing: 30), ease: .inOutCubic),
        CameraKeyframe(t: 4, camera: Camera(center: LonLat(lon: 139.7, lat: 35.7), zoom: 8, bearing: -20), ease: .fly),
        CameraKeyframe(t: 5.02, camera: Camera(center: LonLat(lon: -170, lat: 30), zoom: 4, bearing: 350), ease: .linear),
    ]

    @Test func keyframesAreExactAtTheirFramesOnAPlaceTrip() throws {
        var scene = Scene(video: Video(width: 1280, height: 720, fps: 25),
                          places: [Place(name: "A", position: LonLat(lon: 0, lat: 0), dwell: 3),
                                   Place(name: "B", position: LonLat(lon: 10, lat: 10), dwell: 4)])
        scene.camera = SceneCamera(keyframes: Self.keyframes)
        let t = Timeline(scene: scene)
        let frames = [0, 38, 100, 126]  // 1.5 s at 25 fps is 37.5: rounded half away from zero
        for (k, n) in zip(Self.keyframes, frames) {
            #expect(t.camera(at: n) == k.camera, "keyframe at \(k.t)")
            #expect(t.values(at: n).camera == k.camera)
        }
        // Held after the last keyframe; eased between (inOutCubic: halfway at the middle frame's share).
        for n in 127..<t.frameCount { #expect(t.camera(at: n) == Self.keyframes[3].camera) }
        let mid = t.camera(at: 19)
        #expect(mid.zoom > 5 && mid.zoom < 7)
        let u = 19.0 / 38
        #expect(abs(mid.zoom - (5 + 2 * CameraEase.inOutCubic(u))) < 1e-9)
        // The fly-to zooms out between Berlin and Tokyo, below both ends.
        #expect((39..<100).map { t.camera(at: $0).zoom }.min()! < 5)
        // The linear stretch turns the short way: from -20 to 350 is 10 degrees.
        for n in 100...126 {
            let b = t.camera(at: n).bearing
            #expect(abs(Self.turn(-20, b)) <= 10 + 1e-9)
        }
        // Across the antimeridian the short way: Tokyo to -170 never passes over Europe.
        for n in 100...126 { #expect(abs(t.camera(at: n).center.lon) > 100) }
    }

    @Test func keyframesDriveAPlaybackCamera() throws {
        let walk = TrackFixture.walk(seed: 5955, count: 200, start: Self.start, stepKm: 0.03)
        let first = CameraKeyframe(t: 0, camera: Camera(center: Self.start, zoom: 14))
        let second = CameraKeyframe(t: 2, camera: Camera(center: LonLat(lon: 24.95, lat: 60.18), zoom: 15, bearing: 45))
        let t = Timeline(scene: Self.scene(walk, camera: SceneCamera(keyframes: [first, second])))
        #expect(t.values(at: 0).camera == first.camera)
        #expect(t.values(at: 60).camera == second.camera)
        #expect(t.values(at: t.frameCount - 1).camera == second.camera)
        #expect(t.values(at: 30).camera != first.camera && t.values(at: 30).camera != second.camera)
    }

    /// A playback with no directed camera rests on the whole of what it draws: a ride that ends 2 km
    /// inside a privacy zone round home is framed by its visible part alone, centred outside the
    /// zone; the hidden stretch neither widens the frame nor moves its centre.
    @Test func thePlaybacksOwnCameraFramesOnlyWhatIsDrawn() throws {
        let (ride, _) = Self.ride(seed: 5953, legKm: 2, noiseM: 0)
        let home = PrivacyZone(center: ride.points[ride.points.count - 1], radius: 2_200)
        var hidden = PlaybackTests.scene([PlaybackTests.track(ride, name: "Anna")], Playback(speed: 20), fps: 10)
        hidden.privacy = [home]
        let visible = ride.points.filter { !home.contains($0) }
        #expect(visible.count > 50 && visible.count < ride.points.count - 50)
        let whole = Timeline(scene: PlaybackTests.scene([PlaybackTests.track(ride, name: "Anna")], Playback(speed: 20), fps: 10))
        let t = Timeline(scene: hidden)
        let camera = t.camera(at: 0)
        #expect((0..<t.frameCount).allSatisfy { t.camera(at: $0) == camera })
        // Every visible fix in the frame; the centre (which the whole ride's framing puts inside the
        // zone) clear of it.
        let format = hidden.video.format
        let view = Viewport(camera: camera, width: format.width, height: format.height, scale: format.scale)
        for p in visible {
            let q = try #require(view.pixel(p))
            #expect(q.x > 0 && q.x < Double(format.width) && q.y > 0 && q.y < Double(format.height), "\(p) at \(q)")
        }
        #expect(home.contains(whole.camera(at: 0).center))
        #expect(Geodesy.distanceKm(camera.center, home.center) * 1000 > home.radius)
    }
}
