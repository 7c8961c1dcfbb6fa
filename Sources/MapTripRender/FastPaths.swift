import Foundation
import MapTripSupport

/// The shortcuts a render may take to the same pictures. Every one of them must give the frames the
/// plain path gives (the conformance matrix in the tests renders every layer with each switched off
/// and on); a user who suspects one turns them off with `MAPTRIP_FAST_PATHS=off` and compares.
public struct FastPaths: Sendable, Equatable, CustomStringConvertible {
    /// Frames of a 4:2:0 output composited straight into the encoder's planes (the map from rasters or
    /// a held picture, the overlays blended over it) instead of drawn in BGRA and converted.
    public var planar = true
    /// Overlays of pictures drawn once (pins, labels, the credit) painted as marks in such frames,
    /// instead of recorded and replayed.
    public var marks = true
    /// Overlays of lines (the route, the graticule) drawn only in the cells they touch, or straight
    /// into the planes, in such frames, instead of recorded and replayed; and a playback's travelled
    /// lines kept from frame to frame of a camera at rest, each frame adding its new stretches
    /// (`KeptLines`), instead of drawn again from their frames.
    public var lines = true
    /// A frame equal to the one before it repeated, not drawn again; and the map of a camera at rest
    /// drawn once and copied under each of its frames.
    public var stills = true
    /// Flights of the embedded map composited from tiles drawn once (`RasterCache`).
    public var rasterCache = true
    /// The raster cache's tiles kept on disk between renders (`DrawnTileCache`).
    public var drawnTileCache = true
    /// The raster cache given room for every tile the trip shows (within `MapCaching.tileMemoryCap`),
    /// each drawn once per render, rather than room for about one frame's tiles, the rest drawn again
    /// whenever the trip comes back to them (a ride round a loop).
    public var keptTiles = true
    /// Work for coming frames (labels, tiles) done while the drawing waits for the encoder.
    public var drawAhead = true

    /// Every shortcut taken (the default).
    public static let all = FastPaths()
    /// None: every frame drawn whole from the vectors in BGRA, converted, and encoded.
    public static let none = FastPaths(planar: false, marks: false, lines: false, stills: false, rasterCache: false,
                                       drawnTileCache: false, keptTiles: false, drawAhead: false)

    /// The names `MAPTRIP_FAST_PATHS` takes, each with its switch.
    public static var names: [(name: String, path: WritableKeyPath<FastPaths, Bool>)] { [
        ("planar", \.planar), ("marks", \.marks), ("lines", \.lines), ("stills", \.stills),
        ("raster-cache", \.rasterCache), ("drawn-tile-cache", \.drawnTileCache), ("kept-tiles", \.keptTiles),
        ("draw-ahead", \.drawAhead),
    ] }

    /// The environment variable that switches them.
    public static let variable = "MAPTRIP_FAST_PATHS"

    /// The shortcuts `MAPTRIP_FAST_PATHS` leaves on: unset, empty or `on`, all; `off`, none; else a
    /// comma-separated list of those to turn off (`planar,marks`).
    public static func from(environment: [String: String]) throws -> FastPaths {
        guard let value = environment[variable]?.trimmingCharacters(in: .whitespaces).lowercased(),
              !value.isEmpty, value != "on" else { return .all }
        if value == "off" { return .none }
        var paths = FastPaths.all
        for word in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !word.isEmpty {
            guard let entry = names.first(where: { $0.name == word }) else {
                throw FastPathsError(value: String(word.prefix(40)))
            }
            paths[keyPath: entry.path] = false
        }
        return paths
    }

    /// The shortcuts turned off, as `MAPTRIP_FAST_PATHS` names them ("none" when all are on).
    public var description: String {
        let off = Self.names.filter { !self[keyPath: $0.path] }.map(\.name)
        return off.isEmpty ? "all on" : "off: " + off.joined(separator: ",")
    }
}

/// `MAPTRIP_FAST_PATHS` names no fast path.
public struct FastPathsError: Error, CustomStringConvertible, DiagnosticConvertible {
    public var value: String

    public var description: String {
        "\(FastPaths.variable): no fast path is called \"\(value)\"; use off, on, or a comma-separated list of "
            + FastPaths.names.map(\.name).joined(separator: ", ") + " to turn off"
    }
}
