import Foundation
import MapTripSupport
import MapTripGeometry

/// A validated scene: what `maptrip render` records. Built by `SceneLoader` from a scene file; every
/// value here has passed validation, and every default has been filled in.
/// The scene grows by sections (`video`, `map`, later `route`, `captions`, `audio`, ...).
public struct Scene: Equatable, Sendable {
    public static let defaultDwell = 3.0
    public static let defaultFlight = 1.5

    public var title: String?
    /// Seconds each place holds the screen unless it says otherwise (> 0).
    public var dwell: Double
    /// Seconds of the flight at the start of each slot (capped by the slot).
    public var flight: Double
    public var video: Video
    public var places: [Place]
    /// The base map; nil means the embedded shapefile map.
    public var map: MapSource?
    /// What lies under the overlays: the map, or nothing (transparent video, to lay over footage).
    public var background: Background
    /// A sound track, if any.
    public var audio: SceneAudio?
    /// How the trip looks: map colours, fonts, pins, labels, cards, route defaults (theme + overrides).
    public var style: Style
    /// The line of each leg unless its place says otherwise (the style's route defaults + the scene's).
    public var route: RouteStyle
    /// What travels each leg unless its place says otherwise.
    public var vehicle: Vehicle
    /// The card over the last place's rest, if any.
    public var end: EndCard?
    /// Seconds added after the last place's slot (the camera rests on it; the end card stays).
    public var outro: Double
    /// A counter of kilometres travelled so far.
    public var distance: Bool
    /// The opening: the title card fades in over a slow zoom onto the first place, its pin drops in
    /// (`Opening`). On in scene files (`"opening": false` turns it off); off for scenes made in code.
    public var opening = false
    /// The closing: the camera pulls out to frame the whole trip under the end card, with captions and
    /// the counter gone first (`Closing`). On in scene files; off for scenes made in code.
    public var closing = false
    /// How the map is projected: Web Mercator (default), the globe, or a PROJ CRS (`map.projection`).
    public var projection: ProjectionSpec
    /// Degrees between graticule lines (nil: none) (`map.graticule`).
    public var graticule: Double?
    /// Whether the embedded map names the towns around the trip on close-ups (`map.towns`).
    public var towns = true
    /// Recordings played back by their own clock (`tracks`); when given, the playback is the trip and
    /// the places (if any) are stops pinned along it.
    public var tracks: [PlaybackTrack] = []
    /// How `tracks` are played back.
    public var playback = Playback()
    /// Photos placed along a track by their EXIF time or position (`photos`).
    public var photos: TrackPhotos?
    /// Earlier recordings drawn faintly under everything from the first frame (`backgroundTracks`).
    public var backgroundTracks: [BackgroundTrack] = []
    /// Circles inside which no route line, mover or vehicle is drawn (`privacy`).
    public var privacy: [PrivacyZone] = []
    /// How values are written: the readouts and the legend of a coloured route (`units`).
    public var units: Units = .metric
    /// How the camera is directed (`camera`): following a mover, or keyframes (nil: the trip's own).
    public var camera: SceneCamera?
    /// How the places' voices (`places[i].voice`) play: their level, the music's ducking, rests.
    public var voices = Voices()
    /// A video in a corner of the frame (`presenter`).
    public var presenter: Presenter?
    /// Live values of a playback's mover on a panel (`readouts`), in `units`.
    public var readouts: [ReadoutItem] = []
    /// The scale bar, north arrow and watermark (`scaleBar`, `northArrow`, `watermark`).
    public var furniture = Furniture()
    /// The track the readouts measure when the scene names it (`readouts.mover`; nil: the followed one).
    public var readoutMover: Int?

    /// Whether the scene plays recordings back (`tracks`) rather than flying from place to place.
    public var isPlayback: Bool { !tracks.isEmpty }

    public init(title: String? = nil, dwell: Double = Scene.defaultDwell, flight: Double = Scene.defaultFlight,
                video: Video = Video(), places: [Place], map: MapSource? = nil, background: Background = .map,
                audio: SceneAudio? = nil, style: Style = .standard, route: RouteStyle? = nil,
                vehicle: Vehicle = .none, end: EndCard? = nil, outro: Double = 0, distance: Bool = false,
                projection: ProjectionSpec = .webMercator, graticule: Double? = nil) {
        self.projection = projection
        self.graticule = graticule
        self.title = title
        self.dwell = dwell
        self.flight = flight
        self.video = video
        self.places = places
        self.map = map
        self.background = background
        self.audio = audio
        self.style = style
        self.route = route ?? style.route
        self.vehicle = vehicle
        self.end = end
        self.outro = outro
        self.distance = distance
    }

    /// The line of the leg that arrives at place i (nil for the first place, which no leg arrives at).
    public func route(into i: Int) -> RouteStyle? {
        guard i > 0, i < places.count else { return nil }
        return places[i].route ?? route
    }

    /// The vehicle of the leg that arrives at place i.
    public func vehicle(into i: Int) -> Vehicle {
        guard i > 0, i < places.count else { return .none }
        return places[i].vehicle ?? vehicle
    }
}

/// The card shown over the last place's rest: a closing title and an optional subtitle.
public struct EndCard: Equatable, Sendable {
    public var title: String
    public var subtitle: String?

    public init(title: String, subtitle: String? = nil) {
        self.title = title
        self.subtitle = subtitle
    }
}

/// How a leg's line is drawn: its path on the map and its stroke, and the stroke it keeps once
/// travelled.
public struct RouteStyle: Equatable, Sendable {
    public enum Path: String, Equatable, Sendable, CaseIterable {
        /// The great circle: the shortest way, as flights go.
        case geodesic
        /// A straight line on the map (a rhumb line).
        case straight
        /// No line (the vehicle, if any, still travels the great circle).
        case none
    }

    public var path: Path
    public var color: Color
    /// Width in layout units (pixels of a 1080-pixel-high frame).
    public var width: Double
    /// Dash and gap lengths in layout units; empty: solid.
    public var dash: [Double]
    public var outline: Color?
    /// The stroke of a leg already travelled (nil: as drawn).
    public var travelledColor: Color?
    /// A line that follows a recording coloured by a value along it (`colorBy`; nil: `color`).
    public var coloring: RouteColoring? = nil

    public init(path: Path = .geodesic, color: Color = Color(hex: "#e4572e")!, width: Double = 4, dash: [Double] = [],
                outline: Color? = Color(hex: "#ffffff")!, travelledColor: Color? = nil) {
        self.path = path
        self.color = color
        self.width = width
        self.dash = dash
        self.outline = outline
        self.travelledColor = travelledColor
    }
}

/// What travels a leg: nothing, one of the icons that ship with maptrip, or an image file (relative
/// paths are relative to the scene).
public enum Vehicle: Equatable, Sendable {
    case none
    case icon(BuiltInVehicle)
    case image(String)

    public init(_ value: String) {
        if value == "none" { self = .none }
        else if let v = BuiltInVehicle(rawValue: value) { self = .icon(v) }
        else { self = .image(value) }
    }
}

public enum BuiltInVehicle: String, Equatable, Sendable, CaseIterable {
    case plane, car, train, ship, bike, walk
}

public enum Background: String, Equatable, Sendable {
    case map
    case transparent
}

/// A scene's sound track: a file (relative paths are relative to the scene), started `offset` seconds
/// in, scaled by `volume`, faded out over the last `fadeOut` seconds, looped or followed by silence.
public struct SceneAudio: Equatable, Sendable {
    public static let defaultFadeOut = 1.5

    public var file: String
    public var volume: Double
    public var offset: Double
    public var fadeOut: Double
    public var loop: Bool

    public init(file: String, volume: Double = 1, offset: Double = 0, fadeOut: Double = SceneAudio.defaultFadeOut,
                loop: Bool = false) {
        self.file = file
        self.volume = volume
        self.offset = offset
        self.fadeOut = fadeOut
        self.loop = loop
    }
}

/// A place's voice: the file as the scene names it (relative to the scene) and its length in seconds,
/// read when the scene was loaded (0 when the scene was read without a `VoiceChecking` reader).
public struct PlaceVoice: Equatable, Sendable {
    public var file: String
    public var duration: Double

    public init(file: String, duration: Double = 0) {
        self.file = file
        self.duration = duration
    }
}

/// The scene's `voices` section: how loud the voices play, how far the music ducks under them and how
/// fast, and whether a rest too short for its voice is lengthened (else it is an error).
public struct Voices: Equatable, Sendable {
    public static let defaultDuckGain = -12.0
    public static let defaultAttack = 0.25
    public static let defaultRelease = 0.5

    /// Linear gain of every voice (1: the file's own level).
    public var volume: Double
    /// Decibels the music drops by under a voice (0: no ducking; negative).
    public var duckGain: Double
    /// Seconds before a voice over which the music goes down (linearly in dB).
    public var attack: Double
    /// Seconds after a voice over which the music comes back (linearly in dB).
    public var release: Double
    /// A rest shorter than its voice is lengthened to hold it (its dwell grows); false: an error.
    public var extendRests: Bool

    public init(volume: Double = 1, duckGain: Double = Voices.defaultDuckGain, attack: Double = Voices.defaultAttack,
                release: Double = Voices.defaultRelease, extendRests: Bool = false) {
        self.volume = volume
        self.duckGain = duckGain
        self.attack = attack
        self.release = release
        self.extendRests = extendRests
    }
}

public struct Video: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var fps: Int
    /// Pixel ratio: logical (web-map) pixels to frame pixels.
    public var scale: Double
    /// What the frame keeps clear of the platform's interface it will be shown under.
    public var safeZone: SafeZone

    public init(width: Int = 1920, height: Int = 1080, fps: Int = 30, scale: Double = 1, safeZone: SafeZone = .standard) {
        self.width = width
        self.height = height
        self.fps = fps
        self.scale = scale
        self.safeZone = safeZone
    }

    /// The scene's own frames, drawn in BGRA: what a render makes when its output asks for nothing
    /// else (`FrameFormat` resolved from an output otherwise).
    public var format: FrameFormat { FrameFormat(width: width, height: height, fps: fps, scale: scale) }
}

public struct Place: Equatable, Sendable {
    /// A region-scale zoom (about 10 degrees across a 1920 frame), for places made in code.
    public static let defaultZoom = 7.0

    public var name: String
    public var position: LonLat
    /// Seconds this place holds the screen (its slot), > 0.
    public var dwell: Double
    public var zoom: Double
    /// Seconds of the flight into this place (nil: the scene's).
    public var flight: Double?
    /// The flight's time was not set but made from the distance (`AutoCamera.flight`): the timeline
    /// may lengthen it, within the slot, to keep the map's speed on screen within its bound.
    public var autoFlight = false
    /// The flight's curve (van Wijk's rho: higher zooms out further; nil: 1.42).
    public var curve: Double?
    /// The line of the leg arriving here (nil: the scene's).
    public var route: RouteStyle?
    /// What travels the leg arriving here (nil: the scene's).
    public var vehicle: Vehicle?
    /// A lower-third text card while the camera rests here.
    public var caption: String?
    /// A photo card while the camera rests here: the file as the scene names it (relative to it).
    public var photo: String?
    /// A video played in the card instead of a photo while the camera rests here.
    public var clip: Clip?
    /// Degrees clockwise from north that point up while the camera rests here.
    public var bearing: Double
    /// The recording the leg arriving here follows (nil: the great circle or the straight line).
    public var track: TrackLeg?
    /// A voice played when the camera arrives here (the rest's first frame), over ducked music.
    public var voice: PlaceVoice?

    public init(name: String, position: LonLat, dwell: Double = Scene.defaultDwell,
                zoom: Double = Place.defaultZoom, flight: Double? = nil, curve: Double? = nil,
                route: RouteStyle? = nil, vehicle: Vehicle? = nil, caption: String? = nil, photo: String? = nil,
                bearing: Double = 0) {
        self.bearing = bearing
        self.name = name
        self.position = position
        self.dwell = dwell
        self.zoom = zoom
        self.flight = flight
        self.curve = curve
        self.route = route
        self.vehicle = vehicle
        self.caption = caption
        self.photo = photo
    }
}

/// A tiled base map (issue: map tiles). `tiles` is an XYZ URL template, a folder or an .mbtiles file.
public struct MapSource: Equatable, Sendable {
    public var tiles: String
    public var attribution: String?
    public var tileSize: Int
    public var minZoom: Int?
    public var maxZoom: Int?
    /// Subdomains for `{s}` in a URL template.
    public var subdomains: [String]
    /// Contact for the HTTP User-Agent (an e-mail or URL), required by public tile services' policies.
    public var contact: String?
    /// How vector tiles are drawn: a MapLibre GL style file (relative to the scene) or a theme's name;
    /// nil: the scene's theme.
    public var style: String?

    public init(tiles: String, attribution: String? = nil, tileSize: Int = 256, minZoom: Int? = nil,
                maxZoom: Int? = nil, subdomains: [String] = ["a", "b", "c"], contact: String? = nil) {
        self.tiles = tiles
        self.attribution = attribution
        self.tileSize = tileSize
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.subdomains = subdomains
        self.contact = contact
    }
}

/// A problem in a file maptrip reads (a scene, or a style it names): what is wrong, where
/// (file:line:column and JSON path), and how to fix it.
public struct SceneError: Error, Equatable, Sendable, CustomStringConvertible, DiagnosticConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    /// JSON path such as `places[1].lat` ("" for the document itself).
    public var path: String
    public var message: String
    /// A hint for fixing it, if there is a useful one.
    public var hint: String?

    public init(file: String, line: Int, column: Int, path: String, message: String, hint: String? = nil) {
        self.file = file
        self.line = line
        self.column = column
        // Paths, messages and hints quote the scene's keys and values: each is kept to an excerpt.
        self.path = Wording.excerpt(path, limit: 100)
        self.message = Wording.excerpt(message, limit: 1000)
        self.hint = hint.map { Wording.excerpt($0, limit: 1000) }
    }

    /// `trip.json:7:14: places[1].lat: latitude 95 is outside [-90, 90] (hint)`; without the line and
    /// column when there is no position (line 0: the file could not be read).
    public var description: String { diagnostic().description }

    /// The problem as a diagnostic: an error, or a warning (a legal but odd choice).
    public func diagnostic(_ severity: Diagnostic.Severity = .error) -> Diagnostic {
        Diagnostic(severity, message: message, file: file, line: line > 0 ? line : nil,
                   column: line > 0 ? column : nil, path: path.isEmpty ? nil : path, hint: hint)
    }

    public var diagnostics: [Diagnostic] { [diagnostic()] }
}

/// Common frame shapes by name (`"video": {"preset": "story"}`).
/// The part of a frame a platform's interface covers, which titles, captions, labels and the counter
/// keep clear of: `standard` keeps 5% in from each edge (10% at the top and 14% at the bottom of a tall
/// frame); the others are the platforms' published guidance for 1080x1920 (2026), rounded up, as
/// fractions of the frame; `social` keeps clear of all three.
public enum SafeZone: String, CaseIterable, Sendable {
    case standard, reels, shorts, tiktok, social

    /// The fractions of the frame's width (left, right) and height (top, bottom) kept clear.
    public var insets: (left: Double, top: Double, right: Double, bottom: Double) {
        switch self {
        // Instagram Reels: 14% at the top and 35% at the bottom (the caption, the sound and the
        // buttons), 6% at the sides.
        case .reels: (0.06, 0.14, 0.06, 0.35)
        // YouTube Shorts: the title and channel at the bottom, the buttons on the right.
        case .shorts: (0.06, 0.10, 0.16, 0.25)
        // TikTok: 150 px at the top, 440 px at the bottom, 120 px of buttons on the right, 64 px left.
        case .tiktok: (0.06, 0.08, 0.12, 0.23)
        case .social: (0.06, 0.14, 0.16, 0.35)
        case .standard: (0.05, 0.05, 0.05, 0.05)
        }
    }
}

public enum VideoPreset: String, CaseIterable, Sendable {
    case hd, fullhd, story, square, portrait, uhd = "4k"

    public var width: Int {
        switch self {
        case .hd: 1280
        case .fullhd: 1920
        case .story, .square, .portrait: 1080
        case .uhd: 3840
        }
    }

    public var height: Int {
        switch self {
        case .hd: 720
        case .fullhd: 1080
        case .story: 1920
        case .square: 1080
        case .portrait: 1350
        case .uhd: 2160
        }
    }

    /// The pixel ratio: 4K shows the view of 1080p, twice as sharp.
    public var scale: Double { self == .uhd ? 2 : 1 }
}
