import Foundation
import Testing
import TestBasics
import TestSupport
import MapTripGeometry
import MapTripScene
import MapTripTime

/// Recorded tracks played back by their own clock (`tracks`, `playback`): each mover where its
/// recording was at the frame's recorded time, idle stretches cut out exactly, the frame count on the
/// grid, a ghost race from a common start.
@Suite("Playback of recorded tracks")
struct PlaybackTests {
    static let start = LonLat(lon: 24.94, lat: 60.17)

    static func track(_ walk: TrackFixture, name: String, start: Date = TrackFixture.start) -> PlaybackTrack {
        PlaybackTrack(file: name + ".gpx", name: name, color: PlaybackTrack.palette[0],
                      geometry: TrackGeometry(points: walk.points, times: walk.times, start: start))
    }

    static func scene(_ tracks: [PlaybackTrack], _ playback: Playback, fps: Int = 30, outro: Double = 0) -> Scene {
        var s = Scene(video: Video(width: 1280, height: 720, fps: fps), places: [])
        s.tracks = tracks
        s.playback = playback
        s.outro = outro
        return s
    }

    @Test func eachFrameShowsTheRecordingAtItsRecordedTime() throws {
        let walk = TrackFixture.walk(seed: 5901, count: 300, start: Self.start)
        let times = try #require(walk.times)
        let speed = 7.0, fps = 25
        let t = Timeline(scene: Self.scene([Self.track(walk, name: "a")], Playback(speed: speed), fps: fps))
        for n in 0..<t.frameCount {
            let mover = try #require(t.values(at: n).movers.first)
            let seconds = min(Double(n) * speed / Double(fps), times[times.count - 1])
            #expect(Geodesy.distanceKm(mover.position, walk.point(atSeconds: seconds)) < 0.002, "frame \(n)")
        }
        // The recording's span over the speed on the frame grid, and one frame more for its last fix.
        #expect(t.frameCount == Int((times[times.count - 1] / speed * Double(fps)).rounded()) + 1)
        let last = try #require(t.values(at: t.frameCount - 1).movers.first)
        #expect(Geodesy.distanceKm(last.position, walk.points[walk.points.count - 1]) < 1e-6)
    }

    /// `playback.offset`: frame n shows the recording at offset + n / fps * speed seconds after its first
    /// fix (a negative offset holds the mover at its start first), to line up with one's own footage.
    @Test(arguments: [40.0, -20.0])
    func anOffsetShiftsTheRecordingUnderTheFrames(offset: Double) throws {
        let walk = TrackFixture.walk(seed: 5909, count: 200, start: Self.start)
        let times = try #require(walk.times)
        let speed = 4.0, fps = 30, duration = times[times.count - 1]
        let t = Timeline(scene: Self.scene([Self.track(walk, name: "a")], Playback(speed: speed, offset: offset), fps: fps))
        var waiting = 0
        for n in 0..<t.frameCount {
            let mover = try #require(t.values(at: n).movers.first)
            let seconds = min(max(offset + Double(n) * speed / Double(fps), 0), duration)
            #expect(Geodesy.distanceKm(mover.position, walk.point(atSeconds: seconds)) < 0.002, "frame \(n)")
            if mover.state == .waiting { waiting += 1 }
        }
        // The frames left of the recording after the offset, and the hold before it.
        #expect(t.frameCount == Int(((duration - offset) / speed * Double(fps)).rounded()) + 1)
        #expect(waiting == (offset < 0 ? Int((-offset / speed * Double(fps)).rounded()) : 0), "\(waiting) frames waiting")
    }

    @Test func theOutroAddsItsFramesAndHoldsStill() throws {
        let walk = TrackFixture.walk(seed: 5902, count: 120, start: Self.start)
        let bare = Timeline(scene: Self.scene([Self.track(walk, name: "a")], Playback(speed: 30)))
        let t = Timeline(scene: Self.scene([Self.track(walk, name: "a")], Playback(speed: 30), outro: 2))
        #expect(t.frameCount == bare.frameCount + 60)
        // Nothing moves after the end: every frame's values are the same (drawn once).
        let end = t.values(at: bare.frameCount - 1)
        #expect(end.movers.first?.state == .finished || end.movers.first?.vehicle.progress == 1)
        for n in bare.frameCount..<t.frameCount { #expect(t.values(at: n) == end, "frame \(n)") }
    }

    /// `frame(reaching:)` (where a photo along the track starts): the first frame whose recorded time is at
    /// or past t; for a time inside a cut, the first frame after it. Seeded random times, with and without
    /// a cut.
    @Test(arguments: [nil, 300.0])
    func theFrameReachingATimeIsTheFirstShowingIt(skipIdle: Double?) throws {
        let walk = TrackFixture.walk(seed: 5911, count: 200, start: Self.start).stopped(at: 90, idle: 1800)
        let t = Timeline(scene: Self.scene([Self.track(walk, name: "a")], Playback(speed: 13, skipIdle: skipIdle), fps: 24))
        let clock = try #require(t.playback)
        let t0 = TrackFixture.start.timeIntervalSince1970, span = try #require(walk.times?.last)
        var random = SplitMix64(seed: 5911)
        for _ in 0..<500 {
            let time = t0 + random.unit() * span
            let n = clock.frame(reaching: time)
            #expect(clock.time(atFrame: n) >= time - 1e-6, "\(time - t0): frame \(n) shows \(clock.time(atFrame: n) - t0)")
            if n > 0 { #expect(clock.time(atFrame: n - 1) < time, "\(time - t0): frame \(n - 1) already shows it") }
        }
        #expect(clock.frame(reaching: t0) == 0)
        #expect(clock.frame(reaching: t0 + span) == clock.frameCount - 1)
    }

    @Test func skipIdleCutsTheStopExactly() throws {
        let walk = TrackFixture.walk(seed: 5903, count: 200, start: Self.start)
        let k = 77, idle = 1800.0
        let stopped = walk.stopped(at: k, idle: idle)
        let times = try #require(stopped.times)
        let speed = 10.0, fps = 30
        let origin = TrackFixture.start.timeIntervalSince1970
        let t = Timeline(scene: Self.scene([Self.track(stopped, name: "a")], Playback(speed: speed, skipIdle: 300), fps: fps))
        let clock = try #require(t.playback)
        // The stop is the one cut: from the arrival at point k to the departure, on the recording's clock.
        #expect(clock.cuts == [(origin + times[k])...(origin + times[k + 1])])
        #expect(clock.stretches.count == 2)
        let moving = times[times.count - 1] - idle
        #expect(t.frameCount == Int((moving / speed * Double(fps)).rounded()) + 1)
        // Before the cut, frame n shows t0 + n * speed / fps; after it, the departure plus the frames since.
        let second = clock.stretches[1]
        for n in 0..<t.frameCount {
            let mover = try #require(t.values(at: n).movers.first)
            let seconds = n < second.frames.lowerBound
                ? Double(n) * speed / Double(fps)
                : min(times[k + 1] + Double(n - second.frames.lowerBound) * speed / Double(fps), times[times.count - 1])
            #expect(Geodesy.distanceKm(mover.position, stopped.point(atSeconds: seconds)) < 0.002, "frame \(n)")
        }
        // Without skipIdle the stop plays at the speed.
        let whole = Timeline(scene: Self.scene([Self.track(stopped, name: "a")], Playback(speed: speed), fps: fps))
        #expect(whole.playback?.cuts.isEmpty == true)
        #expect(whole.frameCount == Int((times[times.count - 1] / speed * Double(fps)).rounded()) + 1)
        // The clock dips across the cut and is full away from it.
        #expect(t.values(at: second.frames.lowerBound).clock.map { $0.opacity < 1 } == true)
        #expect(t.values(at: 0).clock?.opacity == 1)
    }

    @Test func aGhostRaceStartsEveryTrackTogether() throws {
        let a = TrackFixture.walk(seed: 5904, count: 150, start: Self.start)
        let b = TrackFixture.walk(seed: 5905, count: 180, start: LonLat(lon: 24.95, lat: 60.175), heading: 120)
        let laterDay = TrackFixture.start.addingTimeInterval(3 * 86_400 + 4321)
        let tracks = [Self.track(a, name: "a"), Self.track(b, name: "b", start: laterDay)]
        let speed = 12.0, fps = 30
        let race = Timeline(scene: Self.scene(tracks, Playback(speed: speed, start: .together), fps: fps))
        let first = race.values(at: 0).movers
        #expect(first.count == 2)
        #expect(Geodesy.distanceKm(first[0].position, a.points[0]) < 1e-6)
        #expect(Geodesy.distanceKm(first[1].position, b.points[0]) < 1e-6)
        // Each at its own recording's time since its own start.
        for n in stride(from: 0, to: race.frameCount, by: 7) {
            let movers = race.values(at: n).movers
            let seconds = Double(n) * speed / Double(fps)
            for (mover, walk) in zip(movers, [a, b]) {
                let expected = walk.point(atSeconds: min(seconds, walk.times?.last ?? 0))
                #expect(Geodesy.distanceKm(mover.position, expected) < 0.002, "frame \(n), track \(mover.track)")
            }
        }
        // The longer recording sets the length.
        let longest = max(a.times?.last ?? 0, b.times?.last ?? 0)
        #expect(race.frameCount == Int((longest / speed * Double(fps)).rounded()) + 1)

        // By their recorded times, b waits at its first point for days.
        let recorded = Timeline(scene: Self.scene(tracks, Playback(speed: speed), fps: fps))
        let early = recorded.values(at: 0).movers
        #expect(early[1].state == .waiting)
        #expect(Geodesy.distanceKm(early[1].position, b.points[0]) < 1e-6)
    }

    @Test func stillFramesKeepTheirValues() throws {
        // A stop of ten minutes not cut: the mover holds still; the HH:mm clock turns once a minute, so
        // the frames within a minute of the stop are equal (the recorder draws them once).
        let walk = TrackFixture.walk(seed: 5906, count: 100, start: Self.start).stopped(at: 40, idle: 600)
        let times = try #require(walk.times)
        let speed = 60.0, fps = 10
        let t = Timeline(scene: Self.scene([Self.track(walk, name: "a")], Playback(speed: speed), fps: fps))
        let stopFrames = (0..<t.frameCount).filter { n in
            let s = Double(n) * speed / Double(fps)
            return s > times[40] + 1 && s < times[41] - 1
        }
        #expect(stopFrames.count > 50)
        var equalPairs = 0
        for (a, b) in zip(stopFrames, stopFrames.dropFirst()) {
            let va = t.values(at: a), vb = t.values(at: b)
            #expect(va.movers == vb.movers, "frames \(a), \(b)")
            if va == vb { equalPairs += 1 }
        }
        #expect(equalPairs >= stopFrames.count - 12)
    }

    @Test func theClockReadsTheRecordedTime() {
        let noon = 1_714_564_800.0  // 2024-05-01 12:00:00 UTC
        #expect(PlaybackClock.clockText(noon + 3723.9, format: .seconds, since: false) == "13:02:03 UTC")
        #expect(PlaybackClock.clockText(noon + 3723.9, format: .minutes, since: false) == "13:02 UTC")
        #expect(PlaybackClock.clockText(3723.9, format: .seconds, since: true) == "01:02:03")
    }

    @Test func theClockReadsInTheScenesZoneElseTheRecordingsElseUTC() throws {
        // 2024-05-01 09:30 UTC: summer in Helsinki (UTC+3), 12:30 there.
        let walk = TrackFixture.walk(seed: 5907, count: 40, start: Self.start)
        var stated = Self.track(walk, name: "a")
        stated.geometry.utcOffset = 7200
        let plain = Self.track(walk, name: "b")
        func clock(_ tracks: [PlaybackTrack], _ zone: ClockZone?, start: Playback.Start = .recorded, follow: Int? = nil) throws -> String {
            var scene = Self.scene(tracks, Playback(clock: .minutes, start: start, timeZone: zone), fps: 10)
            if let follow { scene.camera = SceneCamera(follow: follow, intro: 0) }
            let t = Timeline(scene: scene)
            let clock = try #require(t.playback)
            return clock.clockText(try #require(t.values(at: 0).clock))
        }
        let utc = PlaybackClock.clockText(TrackFixture.start.timeIntervalSince1970, format: .minutes, since: false)
        #expect(utc.hasSuffix(" UTC"))
        let hour = Int(utc.prefix(2))!, minute = utc.dropFirst(2).prefix(3)
        func at(_ h: Int, _ label: String) -> String { String(format: "%02d", (hour + h + 24) % 24) + minute + " " + label }
        #expect(try clock([plain], nil) == utc)
        #expect(try clock([plain], .offset(7200)) == at(2, "UTC+2"))
        #expect(try clock([plain], .offset(-10_800)) == at(-3, "UTC-3"))
        #expect(ClockZone.label(-12_600) == "UTC-3:30" && ClockZone.label(19_800) == "UTC+5:30")
        // The IANA zone follows daylight saving time: the walk starts on 1 May.
        #expect(try clock([plain], ClockZone("Europe/Helsinki")) == at(3, "UTC+3"))
        // The scene's zone wins over a file's; without one, a file's stated offset; a ghost race counts
        // from its start.
        #expect(try clock([plain, stated], ClockZone("Europe/Helsinki")) == at(3, "UTC+3"))
        #expect(try clock([stated, plain], .offset(-10_800), follow: 0) == at(-3, "UTC-3"))
        #expect(try clock([plain, stated], nil) == at(2, "UTC+2"))
        // Files that disagree: the followed track's offset, else the first stated.
        var india = Self.track(walk, name: "c")
        india.geometry.utcOffset = 19_800
        let halfPast = { (h: Int) in
            let m = (Int(minute.dropFirst())! + 30) % 60, carry = (Int(minute.dropFirst())! + 30) / 60
            return String(format: "%02d:%02d", (hour + h + carry) % 24, m) + " UTC+5:30"
        }
        #expect(try clock([plain, stated, india], nil, follow: 2) == halfPast(5))
        #expect(try clock([plain, stated, india], nil, follow: 0) == at(2, "UTC+2"))
        #expect(try clock([plain, india, stated], nil) == halfPast(5))
        #expect(try clock([stated], nil, start: .together) == "00:00")
        #expect(ClockZone("Europe/Helsinki")?.offset(at: 1_704_110_400) == 7200)  // 1 January 2024
        for bad in ["Mars/Olympus", "+2", "+25:00", "02:00", "", "+02:0"] { #expect(ClockZone(bad) == nil, "\(bad)") }
        #expect(ClockZone("+0530") == .offset(19_800))
        #expect(ClockZone("UTC") == .offset(0))
    }
}
