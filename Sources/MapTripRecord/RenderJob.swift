import Foundation
import MapTripCore
import MapTripRender
import MapTripTiles
import FFmpeg

/// maptrip's version, as the CLI and the tile User-Agent report it.
public let maptripVersion = MapTripVersion.string

extension VideoOutput.Settings {
    /// x264's presets, fastest first.
    public static let x264Presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow",
                                     "slower", "veryslow", "placebo"]
}

/// What a render needs from around it, found once at the edge (the CLI) and passed down.
public struct RenderEnvironment: Sendable {
    public var assets: URL
    public var contact: String?
    public var cacheDirectory: URL?
    public var strictTiles: Bool
    public var processEnvironment: [String: String]

    public init(assets: URL, contact: String? = nil, cacheDirectory: URL? = nil, strictTiles: Bool = false,
                processEnvironment: [String: String] = [:]) {
        self.assets = assets
        self.contact = contact
        self.cacheDirectory = cacheDirectory
        self.strictTiles = strictTiles
        self.processEnvironment = processEnvironment
    }
}

/// One `maptrip render`: scene file in, video file out, all or nothing.
public struct RenderJob {
    public var scene: URL
    public var output: URL
    public var encoding: VideoOutput.Settings
    public var environment: RenderEnvironment

    public init(scene: URL, output: URL, encoding: VideoOutput.Settings = .init(), environment: RenderEnvironment) {
        self.scene = scene
        self.output = output
        self.encoding = encoding
        self.environment = environment
    }

    /// Loads and checks the scene, builds its base map, records it into a temporary file beside the
    /// output and renames it onto the output only when every frame is in. On any error or
    /// cancellation the temporary file is removed and an existing output is left as it was.
    public func run(cancellation: Cancellation = Cancellation(),
                    progress: ((RenderProgress) -> Void)? = nil) throws -> RecordSummary {
        let loaded = try SceneLoader.load(contentsOf: scene)
        let baseMap = try BaseMaps.make(for: loaded, sceneDirectory: scene.deletingLastPathComponent(),
                                        environment: environment)
        let recorder = try Recorder(scene: loaded, baseMap: baseMap)
        let out = try VideoOutput(url: output, width: loaded.video.width, height: loaded.video.height,
                                  fps: loaded.video.fps, settings: encoding)
        do {
            let summary = try recorder.record(to: out, cancellation: cancellation, progress: progress)
            try out.finish()
            return summary
        } catch {
            out.cancel()
            throw error
        }
    }
}

/// Chooses a scene's base map: its `map` section's tiles, or the embedded shapefile map.
public enum BaseMaps {
    public static func make(for scene: Scene, sceneDirectory: URL, environment: RenderEnvironment) throws -> BaseMap {
        guard let source = scene.map else {
            return try ShapefileBaseMap(assets: environment.assets)
        }
        // Public tile services require an agent naming the tool and a contact: the flag's, else the scene's.
        let http = HTTPTileOptions(
            userAgent: HTTPTileClient.userAgent(contact: environment.contact ?? source.contact),
            cacheDirectory: environment.cacheDirectory
                ?? HTTPTileClient.defaultCacheDirectory(environment: environment.processEnvironment))
        return try TileBaseMap.make(source: source, http: http, strict: environment.strictTiles,
                                    sceneDirectory: sceneDirectory, highDensity: scene.video.scale >= 2)
    }
}

/// The encoder libraries' own log (FFmpeg writes to stderr, process-wide). The CLI sets it once:
/// errors only, unless asked to be verbose.
public enum LibraryLogging {
    public static func configure(verbose: Bool) {
        FFmpegLog.level = verbose ? FFmpegLog.info : FFmpegLog.error
    }
}
