import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport

/// A directed camera (`Scene.camera`) in place of the trip's own: following a playback's mover, or
/// keyframes. Like every track of the timeline, a pure function of the frame number.
public enum CameraTrack: Sendable {
    case follow(FollowCamera)
    case keyframes(KeyframeCamera)

    /// The scene's directed camera on `timeline` (nil when the scene directs none).
    init?(scene: Scene, timeline: Timeline, format: FrameFormat) {
        guard let directed = scene.camera else { return nil }
        let width = Double(format.width) / format.scale, height = Double(format.height) / format.scale
        if let i = directed.follow, let clock = timeline.playback, i < clock.lines.count {
            // The intro starts from, and the outro ends on, what is drawn: the routes outside the privacy
            // zones (the playback's own camera, `Timeline.overview`).
            let overview = timeline.playbackCamera ?? Camera(center: clock.lines[i].points[0], zoom: SceneCamera.defaultZoom)
            self = .follow(FollowCamera(clock: clock, track: i, camera: directed, overview: overview,
                                        frameCount: timeline.frameCount, viewSize: max(width, height),
                                        viewShort: min(width, height), projection: timeline.projection,
                                        privacy: scene.privacy))
        } else if !directed.keyframes.isEmpty {
            self = .keyframes(KeyframeCamera(directed.keyframes, fps: timeline.fps, frameCount: timeline.frameCount,
                                             viewSize: max(width, height), projection: timeline.projection))
        } else {
            return nil
        }
    }

    public func camera(at n: Int) -> Camera {
        switch self {
        case .follow(let f): f.camera(at: n)
        case .keyframes(let k): k.camera(at: n)
        }
    }
}

/// The camera that follows mover `track` of a playback (`"camera": {"follow": "Anna"}`).
///
/// Its centre at frame n is the mover's position at the frame's recorded time, exactly. With
/// `headingUp` its bearing is the mover's direction of travel, smoothed twice so that GPS noise does
/// not turn the map: along the line, the bearing from the point `RouteLine.headingWindowKm` behind
/// to the point as far ahead (tens to hundreds of metres apart); then over the video, the mean of
/// those directions (as unit vectors) over the frames around n (every `stride`th) weighted by a
/// Gaussian of `sigma` seconds: time-symmetric, so the map turns as the mover does, neither before nor after, and
/// a turn of 180 degrees takes a few seconds however sharp the corner. `"zoom": "speed"` smooths the
/// zoom for the mover's speed (`zoom(forSpeed:playbackSpeed:latitude:viewShort:)`) the same way. Each frame's value depends on the frame
/// alone (its neighbours are evaluated, not remembered), so any frame renders alone and identically.
///
/// Intro and outro, within the playback's length: over the first `intro` seconds the camera flies in
/// (`Flight`) from the view of the whole route (the playback's own camera) to the moving mover; over
/// the first two thirds of the scene's outro it flies back out to it, and holds there. With privacy
/// zones the whole route is its visible pieces, and no centre of the flights lies inside a zone (`clear`).
///
/// Privacy zones (`Scene.privacy`): while the mover is inside one (`hidden`), the camera holds on the
/// point of the zone's edge where it went in, and over the stretch's last `privacyGlide` seconds glides
/// along the edge (eased) to the point where it comes out, so that it meets the mover there; its
/// bearing and speed zoom hold those of the frame before it went in. A stretch from the first frame
/// holds on the way out, one to the last on the way in. No frame centres on the zone.
public struct FollowCamera: Sendable {
    /// Seconds of video the camera takes at most to glide along a privacy zone's edge to where the
    /// mover comes out.
    public static let privacyGlide = 2.0

    /// Frames of the playback during which the mover is inside privacy zone `zone`, and where on its
    /// edge the mover went in and comes out (nil: inside from the first frame, or to the last).
    struct Hidden: Sendable {
        let frames: Range<Int>
        let zone: PrivacyZone
        let entry: LonLat?
        let exit: LonLat?
    }

    /// Seconds of video: the standard deviation of the smoothing over frames (the window is 3 each side).
    public static let sigma = 1.2
    /// Seconds of video the mover takes to cross half the frame's shorter side under `"zoom": "speed"`.
    public static let lookAhead = 4.0
    public static let zoomRange = 8.0...18.0
    /// Recorded seconds either side over which the speed is measured, at least.
    public static let speedWindow = 15.0

    public let clock: PlaybackClock
    public let track: Int
    public let zoom: SceneCamera.Zoom
    public let headingUp: Bool
    /// The whole route, north up: where the intro starts and the outro ends.
    public let overview: Camera
    let introFrames: Int
    /// The outro's flight out (frames from the playback's last frame), and the frames of the video.
    let outroFrames: Int
    let frameCount: Int
    let viewSize: Double
    let viewShort: Double
    let projection: Projection
    let line: RouteLine
    /// The Gaussian weights of the frames the smoothing looks at either side, every `stride`th frame
    /// (index 0: the frame itself; index k: `k * stride` frames away).
    let weights: [Double]
    let stride: Int
    /// The stretches inside privacy zones, in order.
    let hidden: [Hidden]
    let glideFrames: Int
    let zones: [PrivacyZone]
    /// Under `headingUp`, each playback frame's direction of travel (`heading(at:)`) as a unit vector
    /// (east, north), worked out once: a frame's bearing averages about a hundred of them, and a frame
    /// asks for the cameras of its neighbours too.
    let directions: [(x: Double, y: Double)]

    init(clock: PlaybackClock, track: Int, camera: SceneCamera, overview: Camera, frameCount: Int, viewSize: Double,
         viewShort: Double, projection: Projection, privacy: [PrivacyZone] = []) {
        self.clock = clock
        self.track = track
        zoom = camera.zoom
        headingUp = camera.headingUp
        self.overview = overview
        self.frameCount = frameCount
        self.viewSize = viewSize
        self.viewShort = viewShort
        self.projection = projection
        line = clock.lines[track]
        let fps = Double(clock.fps)
        introFrames = min(FrameGrid.frames(seconds: camera.intro, fps: clock.fps), clock.frameCount / 3)
        outroFrames = (2 * (frameCount - clock.frameCount)) / 3
        let sigmaFrames = Self.sigma * fps
        let reach = Int((3 * sigmaFrames).rounded(.up))
        // About 16 samples a standard deviation (every 2nd frame at 30 fps): half the work, as smooth
        // within a quarter of a degree a frame on the tests' noisy ride.
        stride = max(1, reach / 48)
        let stride = self.stride
        weights = (0...(reach / stride)).map { k in
            let d = Double(k * stride)
            return exp(-d * d / (2 * sigmaFrames * sigmaFrames))
        }
        glideFrames = max(1, FrameGrid.frames(seconds: Self.privacyGlide, fps: clock.fps))
        hidden = privacy.isEmpty ? [] : Self.hidden(clock: clock, track: track, zones: privacy)
        zones = privacy
        let line = line
        directions = !camera.headingUp ? [] : (0..<clock.frameCount).map { n in
            Self.direction(line, progress: Self.progress(clock, track, at: n))
        }
    }

    /// `c` with its centre moved out of the privacy zone it lies in, if any, to the point just outside the
    /// zone's edge nearest it (the intro's and outro's flights: a path across a zone slides round its edge).
    func clear(_ c: Camera) -> Camera {
        var c = c
        c.center = PrivacyClipping.outside(c.center, zones)
        return c
    }

    /// The stretches of the playback's frames where mover `track` is inside one of `zones`, each with
    /// the points of the zone's edge where it goes in and comes out (found by halving the line between
    /// the frames either side of the edge).
    static func hidden(clock: PlaybackClock, track: Int, zones: [PrivacyZone]) -> [Hidden] {
        let line = clock.lines[track]
        func progress(_ n: Int) -> Double { clock.progress(track, at: clock.time(atFrame: n)) }
        func zone(_ n: Int) -> Int? {
            let p = line.point(at: progress(n)).position
            return zones.firstIndex { $0.contains(p) }
        }
        /// The point of `z`'s edge between fractions `outside` and `inside` of the line.
        func edge(_ z: PrivacyZone, outside: Double, inside: Double) -> LonLat {
            var a = outside, b = inside
            for _ in 0..<40 {
                let mid = (a + b) / 2
                if z.contains(line.point(at: mid).position) { b = mid } else { a = mid }
            }
            return line.point(at: a).position
        }
        var out: [Hidden] = []
        var n = 0
        let count = clock.frameCount
        while n < count {
            guard let k = zone(n) else { n += 1; continue }
            var end = n + 1
            while end < count, zone(end) == k { end += 1 }
            let z = zones[k]
            let entry = n > 0 ? edge(z, outside: progress(n - 1), inside: progress(n)) : nil
            let exit = end < count ? edge(z, outside: progress(end), inside: progress(end - 1)) : nil
            out.append(Hidden(frames: n..<end, zone: z, entry: entry, exit: exit))
            n = end
        }
        return out
    }

    /// The hidden stretch frame n lies in, if any.
    func hiddenStretch(at n: Int) -> Hidden? {
        guard !hidden.isEmpty else { return nil }
        return hidden.first { $0.frames.contains(n) }
    }

    /// The frame whose bearing and speed a hidden frame holds: the last before the stretch (or the first
    /// after it, for a stretch from the first frame); n itself when not hidden.
    func shown(_ n: Int) -> Int {
        guard let h = hiddenStretch(at: n) else { return n }
        if h.entry != nil { return h.frames.lowerBound - 1 }
        return h.exit != nil ? h.frames.upperBound : n
    }

    /// The zoom under which a mover at `v` metres per second (recorded), played back at `playbackSpeed`,
    /// crosses half of a view `viewShort` logical pixels high (its shorter side) in `lookAhead` seconds
    /// of video at `latitude` (a Web Mercator pixel is 156 543 m × cos(latitude) / 2^zoom): a mover
    /// then moves across the frame at one speed, whatever its own and the playback's; within `zoomRange`.
    public static func zoom(forSpeed v: Double, playbackSpeed: Double, latitude: Double, viewShort: Double) -> Double {
        let ground = max(v, 0.01) * playbackSpeed * lookAhead
        let metresPerPixel = 2 * Double.pi * 6_378_137 / WebMercator.tileSize * cos(latitude * .pi / 180)
        let z = log2(metresPerPixel * viewShort / 2 / ground)
        return min(max(z.isFinite ? z : zoomRange.upperBound, zoomRange.lowerBound), zoomRange.upperBound)
    }

    /// The speed zoom of this camera for `v` metres per second.
    public func zoom(forSpeed v: Double) -> Double {
        Self.zoom(forSpeed: v, playbackSpeed: clock.speed, latitude: line.points[0].lat, viewShort: viewShort)
    }

    public func camera(at frame: Int) -> Camera {
        let last = clock.frameCount - 1
        if frame > last {
            let into = frame - last
            let end = following(at: last)
            guard outroFrames > 0 else { return end }
            return clear(flight(from: end, to: overview).camera(at: min(1, Double(into) / Double(outroFrames))))
        }
        let n = max(frame, 0)
        let here = following(at: n)
        guard n < introFrames else { return here }
        return clear(flight(from: overview, to: here).camera(at: Double(n) / Double(introFrames)))
    }

    func flight(from a: Camera, to b: Camera) -> Flight {
        Flight(from: a, to: b, rho: Flight.defaultRho, viewSize: viewSize, projection: projection)
    }

    /// The camera on the mover at frame n of the playback.
    public func following(at n: Int) -> Camera {
        let center = position(at: n)
        var bearing = 0.0, depth = SceneCamera.defaultZoom
        if case .fixed(let z) = zoom { depth = z }
        guard headingUp || zoom == .speed else { return Camera(center: center, zoom: depth) }
        // One pass over the frames around n: the directions of travel and the zooms, weighted.
        var x = 0.0, y = 0.0, z = 0.0, total = 0.0
        let last = clock.frameCount - 1
        for k in -(weights.count - 1)...(weights.count - 1) {
            let m = min(max(n + k * stride, 0), last)
            let w = weights[abs(k)]
            total += w
            let held = shown(m)
            if headingUp {
                let d = directions.indices.contains(held) ? directions[held] : Self.direction(line, progress: progress(at: held))
                x += w * d.x
                y += w * d.y
            }
            if zoom == .speed { z += w * zoom(forSpeed: speed(at: held)) }
        }
        if headingUp {
            let mean = atan2(x, y) * 180 / .pi
            bearing = hypot(x, y) > 1e-9 * total ? (mean < 0 ? mean + 360 : mean) : heading(at: shown(n))
        }
        if zoom == .speed { depth = z / total }
        return Camera(center: center, zoom: depth, bearing: bearing)
    }

    /// Where the camera centres at frame n: the mover's position (its recording at the frame's recorded
    /// time), or inside a privacy zone a point of its edge (`hidden`).
    public func position(at n: Int) -> LonLat {
        guard let h = hiddenStretch(at: n) else { return line.point(at: progress(at: n)).position }
        switch (h.entry, h.exit) {
        case let (entry?, exit?):
            // Held where it went in, then along the edge (the short way round) to where it comes out,
            // reaching it on the stretch's last frame.
            let glide = min(glideFrames, h.frames.count)
            let k = Double(n - (h.frames.upperBound - glide) + 1) / Double(glide)
            guard k > 0 else { return entry }
            let s = k >= 1 ? 1 : k * k * (3 - 2 * k)
            let a = h.zone.angle(of: entry)
            var turn = h.zone.angle(of: exit) - a
            if turn > .pi { turn -= 2 * .pi } else if turn < -.pi { turn += 2 * .pi }
            return s >= 1 ? exit : h.zone.rim(at: a + turn * s)
        case let (entry?, nil): return entry
        case let (nil, exit?): return exit
        case (nil, nil): return h.zone.rim(at: .pi / 2)
        }
    }

    /// The fraction of the mover's line covered at frame n.
    func progress(at n: Int) -> Double {
        Self.progress(clock, track, at: n)
    }

    static func progress(_ clock: PlaybackClock, _ track: Int, at n: Int) -> Double {
        clock.progress(track, at: clock.time(atFrame: n))
    }

    /// The direction of travel at frame n along the line (smoothed over distance only).
    public func heading(at n: Int) -> Double {
        Self.heading(line, progress: progress(at: n))
    }

    static func heading(_ line: RouteLine, progress: Double) -> Double {
        line.smoothedHeading(at: progress, windowKm: line.headingWindowKm)
    }

    /// The direction of travel as a unit vector (east, north): bearings averaged as vectors turn the
    /// short way round north.
    static func direction(_ line: RouteLine, progress: Double) -> (x: Double, y: Double) {
        let h = heading(line, progress: progress) * .pi / 180
        return (sin(h), cos(h))
    }

    /// Metres per second at frame n: the ground covered over `speedWindow` recorded seconds (or half a
    /// second of video, if longer) either side.
    public func speed(at n: Int) -> Double {
        let t = clock.time(atFrame: n)
        let w = max(Self.speedWindow, clock.speed / 2)
        let km = (clock.progress(track, at: t + w) - clock.progress(track, at: t - w)) * line.lengthKm
        return km * 1000 / (2 * w)
    }
}

/// The camera by keyframes (`"camera": {"keyframes": [...]}`): at keyframe i's frame (its `t` on the
/// frame grid) exactly its camera; between two, eased by the later one's `ease` (centre straight across
/// the Web Mercator world the short way, zoom and bearing the short way by the same share), or flown
/// (`fly`: the van Wijk and Nuij path of `Flight`); held before the first and after the last. A
/// keyframe beyond the video (a playback shortened by `skipIdle`, a lower rate at render) lands on
/// its last frame; of keyframes on one frame the later wins.
public struct KeyframeCamera: Sendable {
    public let frames: [Int]
    public let keyframes: [CameraKeyframe]
    let flights: [Flight?]

    init(_ keyframes: [CameraKeyframe], fps: Int, frameCount: Int, viewSize: Double, projection: Projection) {
        precondition(!keyframes.isEmpty, "keyframes are given")
        self.keyframes = keyframes
        frames = keyframes.map { min(FrameGrid.frames(seconds: $0.t, fps: fps), max(frameCount - 1, 0)) }
        flights = keyframes.indices.map { i in
            guard i > 0, keyframes[i].ease == .fly else { return nil }
            return Flight(from: keyframes[i - 1].camera, to: keyframes[i].camera, viewSize: viewSize, projection: projection)
        }
    }

    public func camera(at n: Int) -> Camera {
        // The last keyframe at or before n.
        guard let j = frames.lastIndex(where: { $0 <= n }) else { return keyframes[0].camera }
        guard j + 1 < frames.count else { return keyframes[j].camera }
        let a = frames[j], b = frames[j + 1]
        let u = Double(n - a) / Double(b - a)
        if let flight = flights[j + 1] { return flight.camera(at: u) }
        return Self.eased(keyframes[j].camera, keyframes[j + 1].camera, keyframes[j + 1].ease(u))
    }

    /// Share `e` of the way from `a` to `b`: exactly `a` at 0 and `b` at 1.
    static func eased(_ a: Camera, _ b: Camera, _ e: Double) -> Camera {
        guard e > 0 else { return a }
        guard e < 1 else { return b }
        let p = WebMercator.project(a.center)
        var q = WebMercator.project(b.center)
        if q.x - p.x > 0.5 { q.x -= 1 } else if q.x - p.x < -0.5 { q.x += 1 }
        var center = WebMercator.unproject(WorldPoint(x: p.x + (q.x - p.x) * e, y: p.y + (q.y - p.y) * e))
        center.lon = WebMercator.wrapLongitude(center.lon)
        let turn = (b.bearing - a.bearing + 540).truncatingRemainder(dividingBy: 360) - 180
        return Camera(center: center, zoom: a.zoom + (b.zoom - a.zoom) * e, bearing: a.bearing + turn * e)
    }
}
