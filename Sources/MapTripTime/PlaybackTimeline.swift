import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport

/// A scene with `tracks` on the timeline: the playback is the trip (`PlaybackClock`), then the outro.
/// The camera frames every track (and the places, pinned along it as stops) from the first frame to
/// the last; the title shows over the first seconds, the end card over the outro.
extension Timeline {
    /// The share of the frame's width and height kept clear around the tracks (clear of the title,
    /// the clock and the credit).
    public static let playbackMargin = 0.14
    /// The share of the tracks' height added below them when the frame shows readouts (their panel sits
    /// at the bottom of the frame).
    public static let readoutRoom = 0.45
    /// Seconds the title holds over a playback's start before it has faded.
    public static let playbackTitle = 3.0

    init(playback scene: Scene, format: FrameFormat, projection: Projection) {
        precondition(format.fps > 0, "fps must be positive")
        let clock = PlaybackClock(tracks: scene.tracks, playback: scene.playback, fps: format.fps,
                                  follow: scene.camera?.follow)
        let fps = format.fps
        self.projection = projection
        self.fps = fps
        playback = clock
        frameCount = clock.frameCount + FrameGrid.frames(seconds: scene.outro, fps: fps)
        slots = []
        flights = []
        trackFlights = []
        routes = scene.places.map { _ in nil }
        routeDrawn = scene.places.map { _ in false }
        hasVehicle = scene.places.map { _ in false }
        countsDistance = false
        distanceBefore = [0]
        popFrames = 1

        playbackCamera = Self.overview(scene, clock: clock, format: format, projection: projection)

        hasTitle = scene.title != nil
        var cues: [Cue] = []
        if hasTitle {
            let end = min(FrameGrid.frames(seconds: Self.playbackTitle, fps: fps), frameCount)
            cues.append(.window(.title, start: 0, end: end, fadeIn: 0, fadeOut: Self.titleFade * Double(fps)))
        }
        // Each photo along the track from the frame the mover passes it, for its hold; a photo the one
        // before still covers waits for it (none overlap).
        if let photos = scene.photos {
            let hold = max(1, FrameGrid.frames(seconds: photos.hold, fps: fps))
            var free = 0
            for (k, frame) in Self.photoFrames(photos, scene: scene, clock: clock).enumerated() {
                let start = max(frame, free)
                guard start < frameCount else { break }
                let end = min(start + hold, frameCount)
                cues.append(.window(.trackPhoto(k), start: start, end: end, fadeIn: Self.cardFade * Double(fps),
                                    fadeOut: Self.cardFade * Double(fps)))
                free = end
            }
        }
        if scene.end != nil, frameCount > clock.frameCount {
            cues.append(.window(.end, start: clock.frameCount, end: frameCount, fadeIn: Self.endFade * Double(fps), fadeOut: 0))
        }
        self.cues = cues
    }

    /// The camera over the whole playback: what is drawn of it (the routes outside the privacy zones)
    /// and its places framed, centred clear of every zone (`framing`), so that neither the frame's
    /// extent nor its centre tells where a hidden stretch goes.
    static func overview(_ scene: Scene, clock: PlaybackClock, format: FrameFormat, projection: Projection) -> Camera {
        let visible = scene.privacy.isEmpty ? [] : clock.lines.flatMap { PrivacyClipping.visible($0.points, outside: scene.privacy) }
        return framing(visible.isEmpty ? clock.lines : visible.map { RouteLine(track: $0) },
                       places: scene.places.map(\.position), readouts: !scene.shownReadouts.isEmpty, format: format,
                       projection: projection, clearOf: scene.privacy)
    }

    /// The playback's own camera: `lines` and `places` framed, north up, on the frame's pixel grid, the
    /// room for the readouts' panel (`readouts`) below them; centred outside `zones` (the box widened
    /// about a centre moved out of one).
    static func framing(_ lines: [RouteLine], places: [LonLat], readouts: Bool, format: FrameFormat,
                        projection: Projection, clearOf zones: [PrivacyZone] = []) -> Camera {
        // Every track and place framed, north up, on the frame's pixel grid on a flat map; each box on
        // the copy of the world nearest the first track's, so that tracks and places either side of the
        // antimeridian are framed across it, not across the whole world.
        let own = lines.map { $0.worldBounds() } + places.map { place in
            let w = WebMercator.project(place)
            return (minX: w.x, minY: w.y, maxX: w.x, maxY: w.y)
        }
        let middle = (own[0].minX + own[0].maxX) / 2
        let boxes = own.map { b in
            let shift = (middle - (b.minX + b.maxX) / 2).rounded()
            return (minX: b.minX + shift, minY: b.minY, maxX: b.maxX + shift, maxY: b.maxY)
        }
        var box = boxes.dropFirst().reduce(boxes[0]) {
            (min($0.minX, $1.minX), min($0.minY, $1.minY), max($0.maxX, $1.maxX), max($0.maxY, $1.maxY))
        }
        // The readouts' panel sits at the bottom of the frame: the tracks are framed above it.
        if readouts { box.maxY += (box.maxY - box.minY) * Self.readoutRoom }
        var camera = Camera.framing(box, margin: Self.playbackMargin, viewWidth: Double(format.width) / format.scale,
                                    viewHeight: Double(format.height) / format.scale)
        let clear = PrivacyClipping.outside(camera.center, zones)
        if clear != camera.center {
            var c = WebMercator.project(clear)
            c.x -= (c.x - (box.minX + box.maxX) / 2).rounded()
            let dx = max(c.x - box.minX, box.maxX - c.x), dy = max(c.y - box.minY, box.maxY - c.y)
            camera = Camera.framing((c.x - dx, c.y - dy, c.x + dx, c.y + dy), margin: Self.playbackMargin,
                                    viewWidth: Double(format.width) / format.scale, viewHeight: Double(format.height) / format.scale)
        }
        camera.zoom = min(max(camera.zoom, SceneFormat.zoomRange.lowerBound), SceneFormat.zoomRange.upperBound)
        if case .webMercator = projection {
            camera = camera.onPixelGrid(width: format.width, height: format.height, scale: format.scale)
        }
        return camera
    }

    /// The frame each of the scene's `photos` is passed by its mover (in the photos' order).
    static func photoFrames(_ photos: TrackPhotos, scene: Scene, clock: PlaybackClock) -> [Int] {
        let start = scene.tracks[photos.track].geometry.start?.timeIntervalSince1970 ?? 0
        return photos.photos.map { clock.frame(reaching: $0.time - start + clock.offsets[photos.track]) }
    }

    /// The frames each of the scene's `photos` shows its card over (nil: one the video ends before).
    public var trackPhotoWindows: [Int: Range<Int>] {
        var out: [Int: Range<Int>] = [:]
        for cue in cues {
            if case .trackPhoto(let k) = cue.kind { out[k] = Int(cue.start)..<Int(cue.end) }
        }
        return out
    }

    /// Frame n of a playback: the fixed camera, every place's pin, every mover, the clock and the cards.
    func playbackValues(_ clock: PlaybackClock, at n: Int) -> FrameValues {
        let (movers, readout) = clock.values(at: n)
        var values = FrameValues(camera: camera(at: n), current: 0,
                                 pins: routes.indices.map { PinValue(place: $0, appear: 1, current: false) })
        values.movers = movers
        values.clock = readout
        values.cutDip = 1 - clock.cutOpacity(at: n)
        if let readouts {
            values.readouts = readouts.values(atElapsed: clock.time(atFrame: n) - clock.offsets[readouts.track])
            values.readouts?.hidden = PrivacyClipping.hides(movers[readouts.track].position, privacy)
            // Waiting at its first fix, or past its last: standing still.
            let local = clock.time(atFrame: n) - clock.offsets[readouts.track]
            if local < 0 || local > clock.lines[readouts.track].times?.last ?? 0 { values.readouts?.kmh = 0 }
        }
        values.cards = cardValues(at: n)
        values.presenter = presenterTrack?.value(at: n)
        return values
    }
}
