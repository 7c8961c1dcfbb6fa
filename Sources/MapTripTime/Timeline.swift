import Foundation
import MapTripGeometry
import MapTripSupport
import MapTripScene

/// The part of the video that belongs to one place: the flight in, then the rest on the place.
public struct Slot: Equatable, Sendable {
    public let index: Int
    public let place: Place
    /// The frame where the slot's timer fires (and the flight in starts).
    public let startFrame: Int
    /// The first frame with the camera resting on the place (and its pin shown).
    public let arriveFrame: Int
    /// The first frame of the next slot (exclusive).
    public let endFrame: Int

    /// The camera resting on the place: the place's own (`Place.camera`), or that camera moved by
    /// less than half a pixel (`Camera.onPixelGrid`).
    public let camera: Camera

    public init(index: Int, place: Place, startFrame: Int, arriveFrame: Int, endFrame: Int, camera: Camera? = nil) {
        self.index = index
        self.place = place
        self.startFrame = startFrame
        self.arriveFrame = arriveFrame
        self.endFrame = endFrame
        self.camera = camera ?? place.camera
    }

    public var frameCount: Int { endFrame - startFrame }
    public var flightFrames: Int { arriveFrame - startFrame }
}

extension Place {
    /// The camera resting on this place: centred on it at its zoom.
    public var camera: Camera { Camera(center: position, zoom: zoom, bearing: bearing) }
}

/// A pin's value at one frame.
public struct PinValue: Equatable, Sendable {
    /// The place's index.
    public var place: Int
    /// How far its arrival animation has run: 0 to 1 (1: fully shown).
    public var appear: Double
    /// The camera is on this place.
    public var current: Bool
    /// How far its opening drop has run (`PinDrop`): 0 to 1 (1: landed, as every pin but the first
    /// place's in an opening is).
    public var drop: Double = 1
}

/// A leg's value at one frame: the leg that arrives at place `place`, drawn up to `progress`.
public struct LegValue: Equatable, Sendable {
    public var place: Int
    /// The fraction of the leg's line drawn: its tip is where the vehicle is.
    public var progress: Double
    /// The camera has moved on from the leg's place (the leg takes its travelled style).
    public var travelled: Bool
}

/// The vehicle's value at one frame: on leg `place`'s line at `progress`.
public struct VehicleValue: Equatable, Sendable {
    public var place: Int
    public var progress: Double
    public var position: LonLat
    /// Degrees clockwise from north.
    public var heading: Double
    /// 1 on its way; below 1 as it eases into the pin after arrival (`Arrival`).
    public var opacity: Double = 1
}

/// A card's value at one frame.
public struct CardValue: Equatable, Sendable {
    public var cue: Cue.Kind
    public var opacity: Double
    /// For a clip: the second of its file shown (nil for other cards).
    public var seconds: Double? = nil

    public init(cue: Cue.Kind, opacity: Double, seconds: Double? = nil) {
        self.cue = cue
        self.opacity = opacity
        self.seconds = seconds
    }
}

/// Something shown for a stretch of the video with a fade in and out: the title card, a place's
/// caption or photo, the end card. Times are frame numbers (fractional for fades).
public struct Cue: Equatable, Sendable {
    public enum Kind: Equatable, Hashable, Sendable {
        case title
        case caption(Int)
        case photo(Int)
        /// Place i's clip, on the card where a photo goes.
        case clip(Int)
        /// Photo k of the scene's `photos` (along a playback's track), on the card where a photo goes.
        case trackPhoto(Int)
        case end
    }

    public var kind: Kind
    /// First frame shown (fading in from here).
    public var start: Double
    /// First frame no longer shown (faded out by here).
    public var end: Double
    public var fadeIn: Double
    public var fadeOut: Double

    /// The opacity at frame n: ramping up over `fadeIn` frames from `start`, 1, then down over
    /// `fadeOut` frames to `end`; 0 outside.
    public func opacity(at n: Int) -> Double {
        let x = Double(n)
        guard x >= start, x < end else { return 0 }
        var o = 1.0
        if fadeIn > 0 { o = min(o, (x - start + 1) / fadeIn) }
        if fadeOut > 0 { o = min(o, (end - x) / fadeOut) }
        return min(max(o, 0), 1)
    }

    /// A cue over [start, end) whose fades take `fade` frames each, at most a third of it each.
    static func window(_ kind: Kind, start: Int, end: Int, fadeIn: Double, fadeOut: Double) -> Cue {
        let length = Double(end - start)
        return Cue(kind: kind, start: Double(start), end: Double(end),
                   fadeIn: min(fadeIn, length / 3), fadeOut: min(fadeOut, length / 3))
    }
}

/// Everything that decides what frame n looks like: the value of every track (the camera, each
/// pin, each leg's line, the vehicle, each card, the distance counter). Equal values draw identical
/// pictures, so the recorder draws a frame only when a value has changed: anything animated is
/// redrawn, anything still is drawn once.
public struct FrameValues: Equatable, Sendable {
    public var camera: Camera
    /// The index of the slot the frame belongs to.
    public var current: Int
    /// Pins of the places reached so far, in place order.
    public var pins: [PinValue]
    /// Legs begun so far (with a line to draw), in place order.
    public var legs: [LegValue]
    public var vehicle: VehicleValue?
    /// Cards showing (opacity > 0), in drawing order.
    public var cards: [CardValue]
    /// Kilometres travelled so far, when the scene counts them.
    public var distanceKm: Double?
    /// The counter's opacity: below 1 while it fades in over the opening and out before the closing.
    public var readoutOpacity: Double = 1
    /// A playback's movers (`Scene.tracks`), in track order, and its clock.
    public var movers: [MoverValue] = []
    public var clock: ClockValue?
    /// How far the picture has dipped to black across a playback's cut (`playback.skipIdle`): 0 away
    /// from a cut, rising over the last `PlaybackClock.cutFade` of video before it and falling over the
    /// first after (`PlaybackClock.cutOpacity`), so the jump ahead is a short fade, not a hard cut.
    public var cutDip = 0.0
    /// The readouts (`Scene.readouts`) at the frame's recorded time: a playback's, or on a place trip
    /// those of the track leg flown (held after it); and their panel's opacity.
    public var readouts: ReadoutValues?
    public var readoutPanelOpacity: Double = 1
    /// The presenter in its corner, while it shows.
    public var presenter: PresenterValue?

    public init(camera: Camera, current: Int, pins: [PinValue] = [], legs: [LegValue] = [],
                vehicle: VehicleValue? = nil, cards: [CardValue] = [], distanceKm: Double? = nil) {
        self.camera = camera
        self.current = current
        self.pins = pins
        self.legs = legs
        self.vehicle = vehicle
        self.cards = cards
        self.distanceKm = distanceKm
    }

    /// A frame with the pins of the first `reached` places fully shown, the camera in slot `current`
    /// (its pin the current one, if reached) and the title card at `titleOpacity`.
    public init(camera: Camera, reached: Int, current: Int, titleOpacity: Double) {
        self.init(camera: camera, current: current,
                  pins: (0..<reached).map { PinValue(place: $0, appear: 1, current: $0 == current) },
                  cards: titleOpacity > 0 ? [CardValue(cue: .title, opacity: titleOpacity)] : [])
    }

    /// How many places have pins.
    public var reached: Int { pins.count }

    /// The opacity of a card, 0 when it is not showing.
    public func opacity(of cue: Cue.Kind) -> Double { cards.first { $0.cue == cue }?.opacity ?? 0 }
}

/// The timer-driven animation on a virtual clock: frame n shows time n / fps. Place i holds the
/// screen for its dwell (slot i); at the start of each slot after the first, the camera flies from the
/// previous place to the new one, then rests there until the slot ends; an outro may follow the last
/// slot. Each track (camera, pins, legs, vehicle, cues, distance) is a pure function of the frame
/// number, evaluated into `FrameValues`. Deterministic and exact.
public struct Timeline: Sendable {
    /// Seconds over which the title fades out at the end of the first slot.
    public static let titleFade = 0.5
    /// Seconds a caption or photo takes to fade in or out.
    public static let cardFade = 0.4
    /// Seconds the end card takes to fade in.
    public static let endFade = 0.6
    /// Seconds of a pin's arrival animation.
    public static let pinPop = 0.35
    /// The share of a track leg's flight the camera takes to fly out to the whole track, and again to fly
    /// in to the place; the vehicle runs the track in between (`TrackFlight`).
    public static var trackFlyShare: Double { TrackFlight.flyShare }

    public let fps: Int
    public let frameCount: Int
    public var duration: Double { Double(frameCount) / Double(fps) }
    public let slots: [Slot]
    public let hasTitle: Bool
    /// The cards' cues, in drawing order.
    public let cues: [Cue]
    /// The line of the leg into place i (nil for place 0).
    public let routes: [RouteLine?]

    /// The flight into slot i (nil for slot 0 and for jumps).
    let flights: [Flight?]
    /// The flight into slot i when its leg follows a recording (nil otherwise, and for jumps).
    let trackFlights: [TrackFlight?]
    let routeDrawn: [Bool]
    let hasVehicle: [Bool]
    let countsDistance: Bool
    /// Kilometres before leg i (the sum of the legs before it).
    let distanceBefore: [Double]
    let popFrames: Double

    /// The projection the cameras fly over (straight in a plane, along great circles on the globe).
    public let projection: Projection

    /// The playback of the scene's recorded tracks, when it has them (`PlaybackTimeline.swift`).
    public let playback: PlaybackClock?
    /// The camera over a playback.
    let playbackCamera: Camera?
    /// The scene's directed camera (`Scene.camera`: following a mover, keyframes), over the trip's own.
    public private(set) var cameraTrack: CameraTrack?
    /// Each place's clip (nil: none), for the second its card shows.
    public private(set) var placeClips: [Clip?] = []
    /// When the presenter shows (nil: the scene has none).
    public private(set) var presenterTrack: PresenterTrack?
    /// A playback's readouts (`Scene.readouts`; nil: none), valued at each frame's recorded time.
    public private(set) var readouts: ReadoutSeries?
    /// The scene's privacy zones: readouts of a mover inside one are hidden.
    public private(set) var privacy: [PrivacyZone] = []

    /// The frames made (their size and rate), for the map's speed on screen (`screenSpeed`).
    public private(set) var format: FrameFormat?
    /// The opening shot (`Scene.opening`) and the closing one (`Scene.closing`), when made.
    private(set) var opening: Opening?
    private(set) var closing: Closing?
    /// Frames the vehicle takes to ease into the pin on arrival.
    private(set) var arrivalFrames = 1

    /// `format`: the frames made (nil: the scene's own, `Video.format`). `projection`: the scene's,
    /// resolved (a PROJ plane is made outside the pure modules); nil takes the scene's when it can be
    /// made here, Web Mercator's ground otherwise. A scene with `tracks` is a playback (`init(playback:)`).
    public init(scene: Scene, format: FrameFormat? = nil, projection: Projection? = nil) {
        let projection = projection ?? Projection(builtIn: scene.projection) ?? .webMercator
        let format = format ?? scene.video.format
        if scene.isPlayback {
            self.init(playback: scene, format: format, projection: projection)
        } else {
            self.init(flights: scene, format: format, projection: projection)
        }
        cameraTrack = CameraTrack(scene: scene, timeline: self, format: format)
        placeClips = scene.places.map(\.clip)
        readouts = ReadoutSeries(scene: scene)
        privacy = scene.privacy
        if let presenter = scene.presenter {
            presenterTrack = PresenterTrack(presenter, slots: scene.isPlayback ? [] : slots, frameCount: frameCount,
                                            fps: fps, fade: Self.cardFade * Double(fps))
        }
    }

    /// Place to place: each slot's flight in, then its rest.
    private init(flights scene: Scene, format: FrameFormat, projection: Projection) {
        self.projection = projection
        playback = nil
        playbackCamera = nil
        precondition(!scene.places.isEmpty, "a scene has at least one place")
        precondition(format.fps > 0, "fps must be positive")
        let fps = format.fps
        let grid = FrameGrid(dwells: scene.places.map(\.dwell) + (scene.outro > 0 ? [scene.outro] : []), fps: fps)
        var slots: [Slot] = []
        slots.reserveCapacity(scene.places.count)
        let focus = SafeFocus.offset(format: format, safeZone: scene.video.safeZone)
        for (i, place) in scene.places.enumerated() {
            let start = grid.boundaries[i], end = grid.boundaries[i + 1]
            // The flight ends by the slot's last frame at the latest, so every place is visited:
            // its pin shows and the camera rests on it, however short its dwell (the video ends
            // centred on the last place).
            var flightFrames = FrameGrid.frames(seconds: place.flight ?? scene.flight, fps: fps)
            // On a flat Web Mercator map the camera rests on the frame's pixel grid (within half a
            // pixel of the place): its picture is then a copy of the raster cache's tiles.
            // At the centre of a platform's safe area (`SafeFocus`).
            var camera = SafeFocus.camera(place.camera, offset: focus, format: format, projection: projection)
            if case .webMercator = projection {
                camera = camera.onPixelGrid(width: format.width, height: format.height, scale: format.scale)
            }
            if i > 0, place.autoFlight, place.track == nil {
                flightFrames = Self.autoFlightFrames(flightFrames, from: slots[i - 1].camera, to: camera,
                                                     rho: place.curve ?? Flight.defaultRho, dwell: place.dwell,
                                                     format: format, projection: projection)
            }
            let arrive = i == 0 ? start : min(max(start, end - 1), start + flightFrames)
            slots.append(Slot(index: i, place: place, startFrame: start, arriveFrame: arrive, endFrame: end, camera: camera))
        }

        let viewSize = Double(max(format.width, format.height)) / format.scale
        self.fps = fps
        self.frameCount = grid.frameCount
        self.slots = slots
        self.flights = slots.indices.map { i in
            guard i > 0, slots[i].flightFrames > 0 else { return nil }
            return Flight(from: slots[i - 1].camera, to: slots[i].camera, rho: slots[i].place.curve ?? Flight.defaultRho,
                          viewSize: viewSize, easing: Self.easing(slots[i].place), projection: projection)
        }
        let routes = Self.routes(for: scene)
        self.routes = routes
        trackFlights = slots.indices.map { i in
            guard i > 0, slots[i].flightFrames > 0, let leg = slots[i].place.track, let line = routes[i] else { return nil }
            return TrackFlight(line: line, pace: leg.pace, from: slots[i - 1].camera, to: slots[i].camera,
                               rho: slots[i].place.curve ?? Flight.defaultRho, viewWidth: Double(format.width) / format.scale,
                               viewHeight: Double(format.height) / format.scale, projection: projection,
                               room: scene.shownReadouts.isEmpty ? 0 : Timeline.readoutRoom)
        }
        routeDrawn = scene.places.indices.map { scene.route(into: $0).map { $0.path != .none } ?? false }
        hasVehicle = scene.places.indices.map { scene.vehicle(into: $0) != .none }
        countsDistance = scene.distance
        var before: [Double] = [0]
        for i in 1..<max(1, scene.places.count) { before.append(before[i - 1] + (routes[i]?.lengthKm ?? 0)) }
        distanceBefore = before
        popFrames = max(1, (Self.pinPop * Double(fps)).rounded())
        self.format = format
        arrivalFrames = Arrival.frames(fps: fps)
        let last = slots.count - 1
        var opening: Opening?, closing: Closing?
        if scene.opening {
            opening = Opening(camera: slots[0].camera, frames: slots[0].frameCount, fps: fps,
                              readoutFade: Self.cardFade * Double(fps))
        }
        if scene.closing {
            // The end card's time: the outro, or without one, when there is an end card, the second
            // half of the last place's rest.
            let outroStart = slots[last].endFrame
            let start = outroStart < grid.frameCount ? outroStart
                : scene.end != nil ? (slots[last].arriveFrame + grid.frameCount + 1) / 2 : grid.frameCount
            var points = scene.places.map(\.position)
            for line in routes.compactMap({ $0 }) {
                let step = max(1, line.points.count / 64)
                points += Swift.stride(from: 0, to: line.points.count, by: step).map { line.points[$0] } + [line.points[line.points.count - 1]]
            }
            closing = Closing(start: start, end: grid.frameCount, from: slots[last].camera, points: points,
                              area: Closing.area(format: format, endCard: scene.end != nil, safeZone: scene.video.safeZone), format: format,
                              projection: projection)
        }

        hasTitle = scene.title != nil
        let seconds = Double(fps)
        var cues: [Cue] = []
        if hasTitle {
            let firstEnd = Double(slots[0].endFrame)
            let fade = firstEnd >= 3 * Self.titleFade * seconds ? Self.titleFade * seconds : firstEnd / 3
            // An opening fades the title in (frame 0 is not the card at full opacity).
            let fadeIn = opening == nil ? 0 : min(Opening.titleFadeIn * seconds, firstEnd / 3)
            cues.append(Cue(kind: .title, start: 0, end: firstEnd, fadeIn: fadeIn, fadeOut: fade))
        }
        for slot in slots {
            // A rest lasts to the next slot, the last one to the end of the video (outro included), or
            // to the closing, which the last caption leaves before.
            var end = slot.index == last ? grid.frameCount : slot.endFrame
            if slot.index == last, let closing { end = closing.start }
            // The opening shot has no arrival to fade in from: without an opening its cards show from
            // the first frame; with one they fade in after the title.
            var start = slot.arriveFrame, fadeIn = Self.cardFade * seconds
            if slot.index == 0 {
                start = opening?.readoutStart ?? 0
                if opening == nil { fadeIn = 0 }
            }
            guard end > start else { continue }
            if slot.place.photo != nil || slot.place.clip != nil {
                cues.append(.window(slot.place.clip != nil ? .clip(slot.index) : .photo(slot.index), start: start, end: end,
                                    fadeIn: fadeIn, fadeOut: Self.cardFade * seconds))
            }
            if slot.place.caption != nil {
                cues.append(.window(.caption(slot.index), start: start, end: end, fadeIn: fadeIn,
                                    fadeOut: Self.cardFade * seconds))
            }
        }
        if scene.end != nil {
            let start = closing?.start ?? slots[last].arriveFrame
            cues.append(.window(.end, start: start, end: grid.frameCount, fadeIn: Self.endFade * seconds, fadeOut: 0))
        }
        self.cues = cues
        self.opening = opening
        self.closing = closing
    }

    /// The line of every leg (nil for place 0): the recording it follows, else the great circle unless
    /// the leg's route says straight. A leg drawn with no line still has one for its vehicle and distance.
    public static func routes(for scene: Scene) -> [RouteLine?] {
        scene.places.indices.map { i in
            guard let route = scene.route(into: i) else { return nil }
            if let track = scene.places[i].track { return RouteLine(track: track.geometry.points, times: track.geometry.times) }
            let from = scene.places[i - 1].position, to = scene.places[i].position
            return RouteLine(from: from, to: to, kind: route.path == .straight ? .straight : .geodesic)
        }
    }

    /// Time in seconds of frame n.
    public func time(ofFrame n: Int) -> Double { Double(n) / Double(fps) }

    /// The index of the slot that frame n belongs to (frames are clamped into the video).
    public func slotIndex(at frame: Int) -> Int {
        let n = clamp(frame)
        // The last slot starting at or before n (zero-length slots before it are skipped).
        var low = 0, high = slots.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if slots[mid].startFrame <= n { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// Every track's value at frame n (clamped into the video).
    public func values(at frame: Int) -> FrameValues {
        let n = clamp(frame)
        if let playback { return playbackValues(playback, at: n) }
        let i = slotIndex(at: n)
        let slot = slots[i]
        let arrived = n >= slot.arriveFrame
        var values = FrameValues(camera: cameraTrack?.camera(at: n) ?? camera(in: slot, at: n), current: i)

        let reached = i + (arrived ? 1 : 0)
        values.pins.reserveCapacity(reached)
        for j in 0..<reached {
            let appear = j == 0 ? 1 : min(1, Double(n - slots[j].arriveFrame + 1) / popFrames)
            var pin = PinValue(place: j, appear: appear, current: j == i)
            if j == 0, let opening { pin.drop = opening.pinDrop(at: n) }
            values.pins.append(pin)
        }

        // Legs 1...i: finished before this slot, or flying now.
        let progress = legProgress(in: slot, at: n)
        var km = 0.0
        if i > 0 {
            for j in 1...i {
                let p = j < i ? 1 : progress
                if routeDrawn[j], p > 0 { values.legs.append(LegValue(place: j, progress: p, travelled: j < i)) }
            }
            km = distanceBefore[i - 1] + (routes[i]?.lengthKm ?? 0) * progress
            if hasVehicle[i], !arrived, progress > 0, let line = routes[i] {
                let at = line.point(at: progress)
                if let track = trackFlights[i] {
                    if track.running(at: legTime(in: slot, at: n)) {
                        let heading = line.smoothedHeading(at: progress, windowKm: line.headingWindowKm)
                        values.vehicle = VehicleValue(place: i, progress: progress, position: at.position, heading: heading)
                    }
                } else {
                    values.vehicle = VehicleValue(place: i, progress: progress, position: at.position, heading: at.heading)
                }
            } else if hasVehicle[i], arrived, n - slot.arriveFrame < arrivalFrames, trackFlights[i] == nil,
                      slot.flightFrames > 0, let line = routes[i] {
                // Easing into the pin: on it, fading and shrinking, for a few frames after arrival.
                let at = line.point(at: 1)
                values.vehicle = VehicleValue(place: i, progress: 1, position: at.position, heading: at.heading,
                                              opacity: Arrival.opacity(n - slot.arriveFrame, frames: arrivalFrames))
            }
        }
        if countsDistance {
            values.distanceKm = km
            values.readoutOpacity = readoutOpacity(at: n)
        }

        if let readouts { trackLegReadouts(readouts, in: slot, at: n, into: &values) }
        values.cards = cardValues(at: n)
        values.presenter = presenterTrack?.value(at: n)
        return values
    }

    /// A place trip's readouts at frame n (`ReadoutSeries.legs`): while a track leg is flown, the
    /// recording's values where its vehicle is (by distance, or by the recorded time with the recorded
    /// pace); after it, through its rest and the legs that do not follow a track, its last fix's.
    /// Hidden before the first track leg begins, then fading in over `cardFade`; out before the closing.
    private func trackLegReadouts(_ series: ReadoutSeries, in slot: Slot, at n: Int, into values: inout FrameValues) {
        // The last track leg begun by frame n.
        guard let k = series.legs.lastIndex(where: { slot.index > $0.place || (slot.index == $0.place && n >= slots[$0.place].startFrame) })
        else { return }
        let leg = series.legs[k]
        // Arrived: the last fix's values, at a standstill.
        var progress = 1.0, run: Double? = 1, moving = false
        if leg.place == slot.index, n < slot.arriveFrame, let flight = trackFlights[leg.place] {
            let u = legTime(in: slot, at: n)
            progress = flight.progress(at: u)
            run = flight.pace == .recorded && flight.line.times != nil ? flight.run(at: u) : nil
            moving = flight.running(at: u)
        }
        values.readouts = series.values(leg: k, progress: progress, run: run)
        // The vehicle stands while the camera flies out and in, and at the places: no speed.
        if !moving { values.readouts?.kmh = 0 }
        if !privacy.isEmpty, let line = trackFlights[leg.place]?.line {
            values.readouts?.hidden = PrivacyClipping.hides(line.point(at: progress).position, privacy)
        }
        let first = slots[series.legs[0].place].startFrame, fade = Self.cardFade * Double(fps)
        values.readoutPanelOpacity = min(1, Double(n - first + 1) / fade) * readoutOpacity(at: n)
    }

    public func camera(at frame: Int) -> Camera {
        let n = clamp(frame)
        if let cameraTrack { return cameraTrack.camera(at: n) }
        if let playbackCamera { return playbackCamera }
        return camera(in: slots[slotIndex(at: n)], at: n)
    }

    /// The title's opacity: 1 through slot 0, fading linearly to 0 over its last 0.5 s (or its last
    /// third, if it is shorter than 1.5 s); 0 afterwards, and always 0 without a title.
    public func titleOpacity(at frame: Int) -> Double {
        cues.first { $0.kind == .title }?.opacity(at: clamp(frame)) ?? 0
    }

    /// How far along its leg the flight into `slot` is at frame n: 0 before it starts, 1 once
    /// arrived, and in between the share of the ground the camera has covered.
    private func legProgress(in slot: Slot, at n: Int) -> Double {
        guard slot.index > 0 else { return 0 }
        if n >= slot.arriveFrame { return 1 }
        if let track = trackFlights[slot.index] { return track.progress(at: legTime(in: slot, at: n)) }
        guard let flight = flights[slot.index] else { return 1 }
        return flight.travelled(at: legTime(in: slot, at: n))
    }

    /// The fraction of the flight into `slot` gone at frame n (before it arrives).
    private func legTime(in slot: Slot, at n: Int) -> Double {
        Double(n - slot.startFrame) / Double(slot.flightFrames)
    }

    /// The counter's opacity at frame n: fading in over the opening, out before the closing.
    private func readoutOpacity(at n: Int) -> Double {
        var o = opening?.readoutOpacity(at: n) ?? 1
        if let closing {
            let fade = Self.cardFade * Double(fps)
            o = min(o, min(max(Double(closing.start - n) / fade, 0), 1))
        }
        return o
    }

    /// How far the map moves on screen from frame n to frame n + 1, in frame pixels (`ScreenSpeed`).
    public func screenSpeed(at frame: Int) -> Double {
        guard let format else { return 0 }
        return ScreenSpeed.pixels(from: camera(at: frame), to: camera(at: frame + 1), format: format, projection: projection)
    }

    /// The easing of automatic flights: symmetric, starting and ending at rest, its steepest slope 1.33
    /// times the average (CSS `ease`, that of flights given a time, peaks at 2.29): for the same time
    /// the map's fastest frame moves 42% less.
    public static let autoFlightEasing = CubicBezier(0.25, 0, 0.75, 1)

    /// How the flight into `place` eases: `autoFlightEasing` when its time is automatic, else CSS `ease`.
    static func easing(_ place: Place) -> CubicBezier {
        place.autoFlight && place.track == nil ? autoFlightEasing : .ease
    }

    /// The frames of an automatic flight (`Place.autoFlight`): its time from the distance (`frames`),
    /// lengthened where the map would move faster on screen than `ScreenSpeed`'s bound, up to the
    /// most an automatic flight may take of its slot (`AutoCamera.flightShare` of the dwell).
    static func autoFlightFrames(_ frames: Int, from: Camera, to: Camera, rho: Double, dwell: Double,
                                 format: FrameFormat, projection: Projection) -> Int {
        let most = FrameGrid.frames(seconds: AutoCamera.flightShare * dwell, fps: format.fps)
        guard frames < most else { return frames }
        let viewSize = Double(max(format.width, format.height)) / format.scale
        let flight = Flight(from: from, to: to, rho: rho, viewSize: viewSize, easing: autoFlightEasing, projection: projection)
        let needed = ScreenSpeed.frames(format: format, projection: projection, atMost: most) { flight.camera(at: $0) }
        return min(max(frames, needed), most)
    }

    private func camera(in slot: Slot, at n: Int) -> Camera {
        if slot.index == 0, let opening, n < opening.moveFrames { return opening.camera(at: n) }
        if slot.index == slots.count - 1, let closing, n >= closing.start { return closing.camera(at: n) }
        guard n < slot.arriveFrame else { return slot.camera }
        if let track = trackFlights[slot.index] { return track.camera(at: legTime(in: slot, at: n)) }
        guard let flight = flights[slot.index] else { return slot.camera }
        return flight.camera(at: legTime(in: slot, at: n))
    }

    private func clamp(_ frame: Int) -> Int {
        min(max(frame, 0), max(frameCount - 1, 0))
    }
}
