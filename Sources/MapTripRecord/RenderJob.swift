import Foundation
import Heap
import MapTripSupport
import MapTripGeometry
import MapTripGazetteer
import MapTripScene
import MapTripStyle
import MapTripTracks
import MapTripTime
import MapTripOutput
import MapTripRender
import MapTripTiles
import FFmpeg

/// maptrip's version, as the CLI and the tile User-Agent report it.
public let maptripVersion = MapTripVersion.string

/// What a render needs from around it, found once at the edge (the CLI) and passed down.
public struct RenderEnvironment: Sendable {
    public var assets: URL
    public var contact: String?
    public var cacheDirectory: URL?
    public var strictTiles: Bool
    /// Seconds for each tile request over HTTP, retries apart (nil: `HTTPTileOptions`' default).
    public var tileTimeout: Double?
    /// Where the files a scene names may be (batch renders; nil: anywhere).
    public var paths: PathPolicy?
    public var processEnvironment: [String: String]
    /// The embedded map's data, loaded once and shared by every render given this environment (a
    /// batch's); nil: each render loads its own.
    public var shapefiles: ShapefileStore?
    /// Where the embedded map's levels of detail are kept between renders (see `GeometryCache`;
    /// nil: each render builds its own from the shapefiles).
    public var geometryCache: GeometryCache?
    /// Where the embedded map's tiles, as the raster cache draws them, are kept between renders (see
    /// `DrawnTileCache`; nil: each render draws its own).
    public var drawnTiles: DrawnTileCache?
    /// The shortcuts renders take (see `FastPaths`; the CLI reads `MAPTRIP_FAST_PATHS`).
    public var fastPaths: FastPaths = .all
    /// What becomes of the scene's pictures once loaded, before the first frame (nil: nothing). The
    /// benchmark decodes the clips' pictures ahead with it, to measure the drawing apart from the
    /// decoding.
    public var preparedMedia: (@Sendable (SceneMedia, Scene, FrameFormat) throws -> SceneMedia)?

    public init(assets: URL, contact: String? = nil, cacheDirectory: URL? = nil, strictTiles: Bool = false,
                tileTimeout: Double? = nil, processEnvironment: [String: String] = [:],
                geometryCache: GeometryCache? = nil, drawnTiles: DrawnTileCache? = nil) {
        self.assets = assets
        self.geometryCache = geometryCache
        self.drawnTiles = drawnTiles
        self.contact = contact
        self.cacheDirectory = cacheDirectory
        self.strictTiles = strictTiles
        self.tileTimeout = tileTimeout
        self.processEnvironment = processEnvironment
    }
}

/// A still picture of the trip written beside (or instead of) the video.
public struct PosterRequest: Sendable {
    /// A `.jpg`/`.jpeg` or `.png` path.
    public var path: String
    /// Seconds into the trip (nil: the first place at rest, the frame before the first flight).
    public var time: Double?

    public init(path: String, time: Double? = nil) {
        self.path = path
        self.time = time
    }
}

/// One `maptrip render`: scene file in, output out, all or nothing.
public struct RenderJob {
    public var scene: URL
    /// Where and how to write (path or URL, format, codec, options). Its `inputs` are filled in from
    /// the scene: the output may never replace the scene or a file the scene names.
    public var output: OutputRequest
    public var environment: RenderEnvironment
    /// Overrides the scene's sound track (`--audio FILE`).
    public var audioFile: String?
    /// Forces a transparent background (`--transparent`).
    public var transparent: Bool
    public var poster: PosterRequest?
    /// Paced by the wall clock (frame n leaves at n/fps after the start): a live stream.
    public var live: Bool
    /// A quick draft for checking timing (`--draft`): half the width and height (unless a width is
    /// asked), the same view, the codec's fastest preset (unless one is asked).
    public var draft: Bool
    /// Extra metadata written into the file (over the title and encoder; e.g. a batch's `comment`
    /// recording what made the clip).
    public var metadata: [String: String] = [:]
    /// Only these frames of the trip (`--frames A:B`): a part that `maptrip concat` joins to the others.
    /// It starts with a keyframe and its timestamps continue from frame A; it has no sound.
    public var frames: FrameRange? = nil
    /// Only this stretch of the trip (`--from 0:04 --to 0:19`), as its own file: its timestamps start at
    /// 0 and it has the same stretch of the trip's sound. Not with `frames`.
    public var stretch: TimeStretch? = nil
    /// The clock a live render is paced by (tests give a virtual one).
    public var liveClock: PacingClock = WallClock()

    public init(scene: URL, output: OutputRequest, environment: RenderEnvironment, audioFile: String? = nil,
                transparent: Bool = false, poster: PosterRequest? = nil, live: Bool = false, draft: Bool = false) {
        self.scene = scene
        self.output = output
        self.environment = environment
        self.audioFile = audioFile
        self.transparent = transparent
        self.poster = poster
        self.live = live
        self.draft = draft
    }

    /// An MP4 render to a file, the default (for tests, batches and the benchmark).
    public init(scene: URL, output: URL, options: EncodingOptions = EncodingOptions(), environment: RenderEnvironment) {
        self.init(scene: scene, output: OutputRequest(path: output.path, options: options), environment: environment)
    }

    /// The default output beside a scene: `trip.json` -> `trip.mp4`.
    public static func defaultOutput(for scene: URL, extension ext: String = "mp4") -> URL {
        scene.deletingPathExtension().appendingPathExtension(ext)
    }

    /// Everything checked before drawing: the scene, its files, the output plan.
    public struct Prepared {
        /// The scene as loaded and checked (never changed to fit the output: see `format`).
        public var scene: Scene
        /// The frames drawn, as the output writes them: its size and rate, the same view.
        public var format: FrameFormat
        public var plan: OutputPlan
        public var audio: AudioSpec?
        public var poster: URL?
        /// Problems that do not stop the render.
        public var warnings: [String] = []
    }

    /// Loads and checks the scene and the output (the output is never the scene or a file it names,
    /// never a folder; the format, codec and options fit together; transparency only where it can be
    /// carried; the audio file exists and decodes). Nothing is drawn or written yet.
    public func prepare() throws -> Prepared {
        let read = try Self.loadScene(scene, transparent: transparent, environment: environment)
        let loaded = read.scene
        let sceneDirectory = scene.deletingLastPathComponent()
        var request = output
        request.transparent = request.transparent || loaded.background == .transparent
        request.scene = scene
        request.inputs += read.files

        var audio: AudioSpec?
        if let file = audioFile {
            audio = AudioSpec(file: URL(fileURLWithPath: file))
            request.inputs.append(URL(fileURLWithPath: file))
        } else if let a = loaded.audio {
            audio = AudioSpec(file: URL(fileURLWithPath: a.file, relativeTo: sceneDirectory).standardizedFileURL,
                              volume: a.volume, offset: a.offset, fadeOut: a.fadeOut, loop: a.loop)
        }
        // A sound track is opened by libavformat: never a FIFO or a device, which would block it.
        // (A missing one is the audio reader's to report.)
        if let file = audio?.file, case let kind = FileKind(path: file.path), kind != .missing, let reason = kind.notAFile {
            let named = audioFile.map { "--audio \($0)" } ?? "audio file \(file.lastPathComponent)"
            throw OutputError.invalidOption("\(named) is \(reason) (give an MP3, AAC, FLAC, WAV or Opus file)")
        }
        var plan = try OutputPlan.make(request)
        if draft { plan = plan.draft(of: loaded.video.format) }
        var posterURL: URL?
        if let poster {
            posterURL = URL(fileURLWithPath: poster.path, relativeTo: request.workingDirectory).standardizedFileURL
            try PosterWriter.check(posterURL!, inputs: [scene] + request.inputs)
        }
        // The picture as the output writes it: its size and rate, the same view.
        let format = try plan.frameFormat(for: loaded.video.format)
        var warnings = read.warnings
        if plan.format.audioCodecName == nil {
            if let dropped = audio {
                warnings.append("\(plan.format.summary) has no sound: \(dropped.file.lastPathComponent) is not written")
                audio = nil
            }
            if loaded.places.contains(where: { $0.voice != nil }) {
                warnings.append("\(plan.format.summary) has no sound: the places' voices are not written")
            }
        }
        return Prepared(scene: loaded, format: format, plan: plan, audio: audio, poster: posterURL, warnings: warnings)
    }

    /// A scene file as a render reads it (places by name looked up in the environment's gazetteer,
    /// a transparent background when forced), and the files it names.
    static func loadScene(_ url: URL, transparent: Bool, environment: RenderEnvironment) throws
        -> (scene: Scene, files: [URL], warnings: [String]) {
        var (loaded, warnings) = try SceneLoader.loadForRenderWithWarnings(contentsOf: url, resolver: environment.places,
                                                                           paths: environment.paths)
        if transparent { loaded.background = .transparent }
        return (loaded, files(named: loaded, sceneDirectory: url.deletingLastPathComponent()), warnings.map(\.description))
    }

    /// What the scene is drawn over, in frames of `format`: nothing for a transparent background,
    /// else its base map.
    static func baseMap(for scene: Scene, format: FrameFormat, sceneFile: URL,
                        environment: RenderEnvironment) throws -> BaseMap {
        scene.background == .transparent
            ? TransparentBaseMap()
            : try BaseMaps.make(for: scene, format: format, sceneDirectory: sceneFile.deletingLastPathComponent(),
                                environment: environment)
    }

    /// Files a scene reads (a local tile folder or MBTiles file, as its base map finds it: a template's
    /// folder, a `file://` URL, `~/`; its sound track).
    public static func files(named scene: Scene, sceneDirectory: URL) -> [URL] {
        var files: [URL] = []
        if let tiles = scene.map?.tiles, let local = try? TileSources.localTiles(tiles, sceneDirectory: sceneDirectory) {
            files.append(local.url)
        }
        if let audio = scene.audio {
            files.append(URL(fileURLWithPath: audio.file, relativeTo: sceneDirectory).standardizedFileURL)
        }
        for voice in scene.places.compactMap(\.voice) {
            files.append(URL(fileURLWithPath: voice.file, relativeTo: sceneDirectory).standardizedFileURL)
        }
        return files
    }

    /// Checks everything, builds the base map, records into the output (a temporary file renamed onto
    /// the target only when every frame is in) and writes the poster. On any error or cancellation the
    /// temporary file is removed and an existing output is left as it was.
    public func run(cancellation: Cancellation = Cancellation(),
                    progress: ((RenderProgress) -> Void)? = nil) throws -> RecordSummary {
        // Text's set-up beside the scene's loading, the map's and the encoder's opening (it is waited
        // for before the first frame is drawn, and before returning).
        let text = DispatchGroup()
        DispatchQueue.global().async(group: text) { TextSetup.warmUp() }
        defer { text.wait() }
        // Before the encoder allocates its pictures (see `Heap.avoidHugePages`, `Heap.fillNewBlocks`).
        Heap.avoidHugePages()
        Heap.fillNewBlocks()
        let prepared = try prepare()
        let scene = prepared.scene, format = prepared.format
        let plan = prepared.plan
        // A part that is not in the trip, or that concat could not join, is refused before the map is loaded.
        if let frames {
            guard !live, plan.format == .mp4 || plan.format == .mov, !plan.fragmented, case .file = plan.target else {
                throw OutputError.invalidOption("--frames \(frames) renders a part for maptrip concat: write it "
                                                + "to a .mp4 or .mov file")
            }
            try frames.check(frameCount: Timeline(scene: scene, format: format).frameCount)
        }
        var part = frames?.range
        if let stretch {
            guard frames == nil else { throw TimeStretchError.withFrames }
            if live { throw OutputError.invalidOption("--from and --to render a stretch of the trip to a file, not a live stream") }
            if case .stream = plan.target {
                throw OutputError.invalidOption("--from and --to render a stretch of the trip to a file, not a stream")
            }
            part = try stretch.frames(fps: format.fps, frameCount: Timeline(scene: scene, format: format).frameCount).range
        }
        var media = try SceneMedia.load(for: scene, format: format, sceneFile: self.scene, assets: environment.assets)
        if let prepare = environment.preparedMedia { media = try prepare(media, scene, format) }
        let baseMap = try Self.baseMap(for: scene, format: format, sceneFile: self.scene, environment: environment)
        let recorder = try Recorder(scene: scene, format: format, baseMap: baseMap, media: media,
                                    fastPaths: environment.fastPaths)
        // The overlays' preparation, beside the map's (the first frame waits for what it shows).
        recorder.prepareOverlays(frames: part, after: text)
        var warnings = prepared.warnings
        var sound: SoundMix? = nil
        if plan.format.audioCodecName != nil {
            sound = SoundMix.make(scene: scene, timeline: recorder.timeline,
                                  sceneDirectory: self.scene.deletingLastPathComponent(), music: prepared.audio)
        }
        if frames != nil, let dropped = sound, !dropped.isEmpty {
            let named = dropped.music?.file.lastPathComponent
                ?? (dropped.sounds.contains(where: \.ducksMusic) ? "the places' voices" : "the clips' and presenter's sound")
            warnings.append("--frames renders a part without sound: \(named) is not written")
            sound = nil
        }

        var palette: Frame?
        if plan.codec == .gif {
            text.wait()
            // Two passes over the same (deterministic) pictures: a palette made for the clip, then the clip.
            let pass = try GIFPalettePass(width: format.width, height: format.height, fps: format.fps,
                                          transparent: plan.transparent)
            _ = try recorder.record(to: pass, frames: part, cancellation: cancellation) {
                progress?(RenderProgress(frame: $0.frame / 2, frameCount: $0.frameCount, elapsed: $0.elapsed))
            }
            palette = try pass.finish()
        }

        try recorder.prepareBaseMap(frames: part)
        var metadata = ["encoder": "maptrip \(maptripVersion)"]
        if let title = scene.title { metadata["title"] = title }
        metadata.merge(self.metadata) { _, extra in extra }
        let duration = recorder.timeline.duration
        let out = try OpeningOutput(plan: plan, format: format) {
            try MediaOutput(plan: plan, width: format.width, height: format.height, fps: format.fps,
                            metadata: metadata, palette: palette, audio: sound, duration: duration,
                            audioStart: stretch == nil ? 0 : Double(part?.lowerBound ?? 0) / Double(format.fps),
                            audioEnd: stretch == nil ? nil : Double(part?.upperBound ?? 0) / Double(format.fps),
                            firstFrame: frames?.start ?? 0)
        }
        let sink: FrameSink = live ? PacedSink(out, fps: format.fps, clock: liveClock) : out
        var summary: RecordSummary
        text.wait()
        do {
            summary = try recorder.record(to: sink, frames: part, cancellation: cancellation) { p in
                guard palette != nil else { return progress?(p) ?? () }
                progress?(RenderProgress(frame: (p.frameCount + p.frame) / 2, frameCount: p.frameCount,
                                         elapsed: p.elapsed))
            }
            try out.finish()
        } catch let error as CancelledError where live && plan.format == .hls {
            // A live HLS stream ends cleanly: the playlist gets its end tag.
            try? out.finish()
            throw error
        } catch {
            out.cancel()
            throw error
        }
        summary.warnings = warnings + summary.warnings
        if let lateness = (sink as? PacedSink)?.report {
            summary.warnings.append(lateness)
        }
        if let url = prepared.poster {
            try PosterWriter.write(scene: scene, renderer: recorder.renderer, timeline: recorder.timeline,
                                   time: poster?.time, to: url)
        }
        return summary
    }
}

extension OutputPlan {
    /// This output as a draft (`RenderJob.draft`): half the width it would have (the height follows,
    /// the view is kept) unless a width was asked, and the codec's fastest preset unless one was
    /// asked (x264/x265 ultrafast, the highest VP9/AV1 speed).
    func draft(of scene: FrameFormat) -> OutputPlan {
        var plan = self
        if plan.width == nil {
            plan.width = max(16, Self.frameFormat(codec: codec, width: nil, fps: fps, scene: scene).width / 2)
        }
        if plan.options.preset == nil {
            let presets = profile.presets
            plan.options.preset = presets.contains("ultrafast")
                ? "ultrafast" : presets.compactMap { Int($0) }.max().map(String.init)
        }
        return plan
    }
}

extension SceneLoader {
    /// A scene file read with every check a render makes: its projection, pictures, style and tracks
    /// (the checks that need C libraries, which the scene module leaves to its callers).
    public static func loadForRender(contentsOf url: URL, resolver: ResolverSource? = nil,
                                     paths: PathPolicy? = nil) throws -> Scene {
        try loadForRenderWithWarnings(contentsOf: url, resolver: resolver, paths: paths).scene
    }

    /// As `loadForRender`, with the scene's warnings (what `validate` warns of), which a render
    /// reports without stopping.
    public static func loadForRenderWithWarnings(contentsOf url: URL, resolver: ResolverSource? = nil,
                                                 paths: PathPolicy? = nil) throws -> (scene: Scene, warnings: [SceneError]) {
        let report = check(contentsOf: url, resolver: resolver, projections: ProjChecker(), images: SceneImageCheck(),
                           styles: StyleFileCheck(fonts: StyleFonts.missing), tracks: TrackFileCheck(), paths: paths, voices: VoiceFileCheck())
        guard let scene = report.scene, report.errors.isEmpty else { throw SceneErrors(report.errors) }
        return (scene, report.warnings)
    }
}

/// Chooses a scene's base map: its `map` section's tiles, or the embedded shapefile map.
public enum BaseMaps {
    /// The towns datasource of the embedded map: the gazetteer's places, but those that are the trip's
    /// own (a place whose name holds the town's within 30 km, such as "Busan 부산" for Busan, or any
    /// within 2 km: its pin and label name it).
    public static func towns(_ gazetteer: Gazetteer, besides places: [Place]) throws -> TownsDatasource {
        let own = places.map { (key: NameKey.normalize($0.name), position: $0.position) }
        let towns = try gazetteer.towns().compactMap { g -> Town? in
            let position = LonLat(lon: g.lon, lat: g.lat)
            let key = NameKey.normalize(g.name)
            let isOwn = own.contains { p in
                let km = Geodesy.distanceKm(p.position, position)
                return km < 2 || (km < 30 && (p.key == key || (min(key.count, p.key.count) >= 3 && (p.key.contains(key) || key.contains(p.key)))))
            }
            return isOwn ? nil : Town(name: g.name, position: position, population: g.population)
        }
        return TownsDatasource(towns: towns)
    }

    public static func make(for scene: Scene, format: FrameFormat, sceneDirectory: URL,
                            environment: RenderEnvironment) throws -> BaseMap {
        guard let source = scene.map else {
            let fast = environment.fastPaths
            let map = try ShapefileBaseMap(assets: environment.assets, style: MapStyle(scene.style), store: environment.shapefiles,
                                           geometryCache: environment.geometryCache,
                                           caching: MapCaching(cachesRasters: fast.rasterCache, holdsStills: fast.stills,
                                                               drawnTiles: fast.drawnTileCache ? environment.drawnTiles : nil,
                                                               tileMemoryCap: fast.keptTiles ? MapCaching.defaultTileMemoryCap : 0))
            // (No place close enough for a town: the gazetteer is not read.)
            if scene.towns, scene.places.contains(where: { $0.zoom >= TownsLayer.shownFrom }) {
                do {
                    let gazetteer = try Gazetteer(assets: environment.assets)
                    map.towns = TownsLayer(datasource: try towns(gazetteer, besides: scene.places),
                                           style: TownsStyle(scene.style))
                } catch {
                    // Towns are context: the map is drawn without them.
                    map.warnings.append("the map names no towns: \(error)")
                }
            }
            // The relief and satellite looks: their world picture over the vector map, up to zoom 5.
            guard let picture = try WorldPicture.forTheme(scene.style.theme, assets: environment.assets) else { return map }
            return PictureBaseMap(picture: picture, over: map, style: scene.style)
        }
        // Public tile services require an agent naming the tool and a contact: the flag's, else the scene's.
        var http = HTTPTileOptions(
            userAgent: HTTPTileClient.userAgent(contact: environment.contact ?? source.contact),
            cacheDirectory: environment.cacheDirectory
                ?? HTTPTileClient.defaultCacheDirectory(environment: environment.processEnvironment))
        if let timeout = environment.tileTimeout { http.timeout = timeout }
        if environment.strictTiles { http.stopAtFirstFailure = true }
        let tiles = try TileSources.make(source, http: http, sceneDirectory: sceneDirectory, highDensity: format.scale >= 2)
        // Vector tiles (or a set of unknown format the scene gives a style for) are drawn with a style.
        if tiles.info.isVector || (tiles.info.format == nil && source.style != nil) {
            let fast = environment.fastPaths
            return try StyledMaps.make(tiles: tiles, map: source, scene: scene, sceneDirectory: sceneDirectory,
                                       assets: environment.assets, http: http,
                                       caching: MapCaching(cachesRasters: fast.rasterCache, holdsStills: fast.stills,
                                                           drawnTiles: fast.drawnTileCache ? environment.drawnTiles : nil,
                                                           tileMemoryCap: fast.keptTiles ? MapCaching.defaultTileMemoryCap : 0))
        }
        if let style = source.style {
            throw Diagnostic.error("map.style \"\(style)\" is for vector tiles, but map.tiles holds raster tiles"
                                   + (tiles.format.map { " (\($0.rawValue))" } ?? ""),
                                   hint: "remove map.style, or give vector tiles (MBTiles or PMTiles of MVT, a folder of .pbf)")
        }
        let map = TileBaseMap(source: tiles, attribution: source.attribution, strict: environment.strictTiles)
        // Reprojected tiles (globe, PROJ planes) show the style's colours beyond the tiles.
        map.polar = scene.style.polar
        map.space = scene.style.space
        map.atmosphere = scene.style.atmosphere
        return map
    }
}

/// The encoder libraries' own log (FFmpeg writes to stderr, process-wide). The CLI sets it once:
/// silent, unless asked to be verbose. maptrip reports every failure itself, in one line; FFmpeg's
/// own lines about the same failure ("[mp3 @ 0x...] Failed to read frame size") would only repeat
/// it less clearly.
public enum LibraryLogging {
    public static func configure(verbose: Bool) {
        FFmpegLog.level = verbose ? FFmpegLog.info : FFmpegLog.quiet
    }
}
