import Foundation

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

    public init(title: String? = nil, dwell: Double = Scene.defaultDwell, flight: Double = Scene.defaultFlight,
                video: Video = Video(), places: [Place], map: MapSource? = nil, background: Background = .map,
                audio: SceneAudio? = nil) {
        self.title = title
        self.dwell = dwell
        self.flight = flight
        self.video = video
        self.places = places
        self.map = map
        self.background = background
        self.audio = audio
    }
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

public struct Video: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var fps: Int
    /// Pixel ratio: logical (web-map) pixels to frame pixels.
    public var scale: Double

    public init(width: Int = 1920, height: Int = 1080, fps: Int = 30, scale: Double = 1) {
        self.width = width
        self.height = height
        self.fps = fps
        self.scale = scale
    }
}

public struct Place: Equatable, Sendable {
    /// The default zoom when a place gives none: region scale (about 10 degrees across a 1920 frame).
    public static let defaultZoom = 7.0

    public var name: String
    public var position: LonLat
    /// Seconds this place holds the screen (its slot), > 0.
    public var dwell: Double
    public var zoom: Double
    /// Seconds of the flight into this place (nil: the scene's).
    public var flight: Double?

    public init(name: String, position: LonLat, dwell: Double = Scene.defaultDwell,
                zoom: Double = Place.defaultZoom, flight: Double? = nil) {
        self.name = name
        self.position = position
        self.dwell = dwell
        self.zoom = zoom
        self.flight = flight
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

/// A scene-file problem: what is wrong, where (file:line:column and JSON path), and how to fix it.
public struct SceneError: Error, Equatable, Sendable, CustomStringConvertible {
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
        self.path = path
        self.message = message
        self.hint = hint
    }

    /// `trip.json:7:14: places[1].lat: latitude 95 is outside [-90, 90] (hint)`; without the line and
    /// column when there is no position (line 0: the file could not be read).
    public var description: String {
        var s = line > 0 ? "\(file):\(line):\(column): " : "\(file): "
        if !path.isEmpty { s += "\(path): " }
        s += message
        if let hint { s += " (\(hint))" }
        return s
    }
}
