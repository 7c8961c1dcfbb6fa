import Foundation
import MapTripSupport
import MapTripGeometry

/// Every problem a scene file has, in document order: what `render`, `plan` and `validate` report.
public struct SceneErrors: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError, DiagnosticConvertible {
    public var errors: [SceneError]

    public init(_ errors: [SceneError]) { self.errors = errors }

    /// One line per problem.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
    public var errorDescription: String? { description }
    public var first: SceneError? { errors.first }
    public var diagnostics: [Diagnostic] { errors.map { $0.diagnostic() } }
}

/// What checking a scene found: the scene (when there are no errors), its errors and its warnings
/// (legal but odd choices).
public struct SceneReport: Sendable {
    public var scene: Scene?
    public var errors: [SceneError]
    public var warnings: [SceneError]
}

/// Reads scene files in two phases: decode (every value checked against `SceneFormat`, every problem
/// collected), then resolve (places by name, through a `PlaceResolver`), giving the `Scene`.
public enum SceneLoader {
    public static let maxDuration = SceneFormat.maxDuration
    /// The largest scene file read (a day of 1-second places is 5 MB).
    public static let maxSceneBytes = 32 << 20
    public static let maxFrames = SceneFormat.maxFrames
    public static var sceneKeys: [String] { SceneFormat.scene.keys }
    public static var placeKeys: [String] { SceneFormat.place.keys }
    public static var videoKeys: [String] { SceneFormat.video.keys }
    public static var mapKeys: [String] { SceneFormat.map.keys }
    public static var audioKeys: [String] { SceneFormat.audio.keys }
    public static let videoSizeRange = SceneFormat.videoSizeRange
    public static let fpsRange = SceneFormat.fpsRange
    public static let maxScale = SceneFormat.maxScale
    public static let zoomRange = SceneFormat.zoomRange
    public static let tileZoomRange = SceneFormat.tileZoomRange
    /// A place dominates a lookup by name when it has this many times the next one's population.
    public static let dominance = 5

    /// Opens the gazetteer when a place needs it (not before: most scenes give coordinates).
    public typealias ResolverSource = @Sendable () throws -> PlaceResolver

    /// Loads, checks and resolves a scene file; throws `SceneErrors` listing every problem.
    /// `paths`: where the files the scene names may be (batch renders; nil: anywhere).
    public static func load(contentsOf url: URL, resolver: ResolverSource? = nil,
                            projections: ProjectionChecking? = nil, images: ImageChecking? = nil,
                            styles: StyleChecking? = nil, tracks: TrackChecking? = nil,
                            paths: PathPolicy? = nil, voices: VoiceChecking? = nil) throws -> Scene {
        let report = check(contentsOf: url, resolver: resolver, projections: projections, images: images, styles: styles,
                           tracks: tracks, paths: paths, voices: voices)
        guard let scene = report.scene, report.errors.isEmpty else { throw SceneErrors(report.errors) }
        return scene
    }

    /// Decodes and resolves scene text; throws `SceneErrors` listing every problem.
    public static func decode(_ data: Data, file: String, resolver: ResolverSource? = nil,
                              projections: ProjectionChecking? = nil) throws -> Scene {
        let report = check(data, file: file, resolver: resolver, projections: projections)
        guard let scene = report.scene, report.errors.isEmpty else { throw SceneErrors(report.errors) }
        return scene
    }

    /// Everything `validate` says of a file: errors, warnings, and the scene when there are no errors.
    public static func check(contentsOf url: URL, resolver: ResolverSource? = nil,
                             projections: ProjectionChecking? = nil, images: ImageChecking? = nil,
                             styles: StyleChecking? = nil, tracks: TrackChecking? = nil,
                             paths: PathPolicy? = nil, voices: VoiceChecking? = nil) -> SceneReport {
        let file = url.isFileURL ? url.relativePath : url.absoluteString
        func failure(_ message: String, hint: String? = nil) -> SceneReport {
            SceneReport(scene: nil, errors: [SceneError(file: file, line: 0, column: 0, path: "", message: message,
                                                        hint: hint)], warnings: [])
        }
        guard url.isFileURL else { return failure("cannot read the scene: only local files are supported") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            return failure("cannot read the scene: no such file",
                           hint: "check the name; a relative path starts in the folder maptrip runs in")
        }
        guard !isDirectory.boolValue else {
            return failure("cannot read the scene: it is a directory", hint: "pass the scene's .json file")
        }
        // Never opened when it is not a regular file: a FIFO would block, /dev/zero never end.
        if let reason = FileKind(path: url.path).notAFile {
            return failure("cannot read the scene: it is \(reason)", hint: "save the scene to a .json file and pass that")
        }
        // Read whole, then parsed into values several times its size: a 1 GB file took 2.1 GB.
        if let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue,
           size > maxSceneBytes {
            return failure("the scene is \(size / 1_048_576) MB, over the \(maxSceneBytes / 1_048_576) MB a scene file may be",
                           hint: "a scene lists places and settings; is this the right file?")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.isReadableFile(atPath: url.path)
                ? error.localizedDescription : "permission denied"
            return failure("cannot read the scene: \(reason)", hint: "let this user read the file")
        }
        return check(data, file: file, resolver: resolver, projections: projections, images: images, styles: styles,
                     tracks: tracks, paths: paths, voices: voices)
    }

    /// `projections`: checks a PROJ definition and the places against its area of use (nil: not checked
    /// here; rendering checks it again). `images`: decodes the pictures the scene names (nil: only
    /// their first bytes are checked here). `styles`: reads the MapLibre style `map.style` names (nil:
    /// only that the file is there). `tracks`: reads the recordings places' legs follow (nil: a scene
    /// with a track is an error, as its geometry is needed). `voices`: reads the places' voices and times
    /// the rests (nil: only that the files are there; the voices' lengths are 0 and not checked).
    public static func check(_ data: Data, file: String, resolver: ResolverSource? = nil,
                             projections: ProjectionChecking? = nil, images: ImageChecking? = nil,
                             styles: StyleChecking? = nil, tracks: TrackChecking? = nil,
                             paths: PathPolicy? = nil, voices: VoiceChecking? = nil) -> SceneReport {
        let root: JSONValue
        do {
            root = try JSONParser.parse(data, file: file)
        } catch let error as SceneError {
            return SceneReport(scene: nil, errors: [error], warnings: [])
        } catch {
            return SceneReport(scene: nil, errors: [SceneError(file: file, line: 0, column: 0, path: "",
                                                               message: "\(error)")], warnings: [])
        }
        var builder = SceneBuilder(file: file, resolver: resolver, projections: projections, images: images, styles: styles,
                                   tracks: tracks, paths: paths, voices: voices)
        let scene = builder.scene(from: root)
        let errors = builder.checker.errors.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
        return SceneReport(scene: errors.isEmpty ? scene : nil, errors: errors,
                           warnings: errors.isEmpty ? builder.warnings : [])
    }

    /// A "did you mean" suggestion for a misspelt key: a common synonym, or the allowed key within a
    /// small edit distance (ignoring case).
    public static func suggestion(for key: String, among allowed: [String]) -> String? {
        let synonyms = [
            "latitude": "lat", "longitude": "lon", "lng": "lon", "long": "lon",
            "label": "name", "title": "name", "name": "title", "caption": "title",
            "duration": "dwell", "framerate": "fps", "rate": "fps",
            "url": "tiles", "template": "tiles", "tileurl": "tiles",
            "place": "places", "stops": "places", "locations": "places",
            "music": "audio", "sound": "audio", "soundtrack": "audio", "countrycode": "country",
            "state": "region", "province": "region", "admin1": "region",
        ]
        let lower = key.lowercased()
        if let synonym = synonyms[lower], allowed.contains(synonym) { return synonym }
        return EditDistance.nearest(to: key, among: allowed)
    }
}

// MARK: - Building the scene

/// Phase one checks the document against the description; phase two turns what passed into a
/// `Scene`, resolving places by name and checking the rules that span several keys.
private struct SceneBuilder {
    var checker: SceneChecker
    let resolver: SceneLoader.ResolverSource?
    let projections: ProjectionChecking?
    let images: ImageChecking?
    let styles: StyleChecking?
    let tracks: TrackChecking?
    let paths: PathPolicy?
    let voices: VoiceChecking?
    var warnings: [SceneError] = []
    private var openedResolver: PlaceResolver?
    private var resolverFailed = false

    init(file: String, resolver: SceneLoader.ResolverSource?, projections: ProjectionChecking?,
         images: ImageChecking?, styles: StyleChecking?, tracks: TrackChecking?, paths: PathPolicy?,
         voices: VoiceChecking?) {
        checker = SceneChecker(file: file)
        self.voices = voices
        self.resolver = resolver
        self.projections = projections
        self.images = images
        self.styles = styles
        self.tracks = tracks
        self.paths = paths
    }

    mutating func scene(from root: JSONValue) -> Scene? {
        guard root.members != nil else {
            let hint = root.elements != nil ? "put the list under \"places\": { \"places\": [ ... ] }" : nil
            checker.fail(root, "", "a scene must be a JSON object, found \(root.typeDescription)", hint: hint)
            return nil
        }
        // Phase one: every key and value against the description, all problems collected.
        let checked = checker.checkObject(root, SceneFormat.scene, path: "")
        requirePlacesOrTracks(root)
        hintSwappedCoordinates(root)
        // Phase two: the places (by name too), even when other keys had problems, so that a name
        // that does not resolve is reported with the rest.
        let sceneDwell = checked?["dwell"]?.number ?? Scene.defaultDwell
        var places: [Place] = []
        if let list = checked?["places"]?.elements {
            for (i, element) in list.enumerated() {
                // A place whose own keys had problems is not looked up: its errors say enough.
                guard let element, element.isComplete else { continue }
                if let place = place(element, JSONPath.appending(index: i, to: "places"), number: i + 1,
                                     sceneDwell: sceneDwell) {
                    places.append(place)
                }
            }
        }
        var tracks: [PlaybackTrack] = []
        if let list = checked?["tracks"]?.elements {
            for (i, element) in list.enumerated() {
                guard let element, element.isComplete else { continue }
                if let track = playbackTrack(element, JSONPath.appending(index: i, to: "tracks"), number: i) {
                    tracks.append(track)
                }
            }
        }
        guard let checked, checker.errors.isEmpty else { return nil }

        var style = Style.standard
        if let c = checked["style"] { style = self.style(c) }
        var route = style.route
        if let c = checked["route"] { route = self.route(c, base: route) }
        var scene = Scene(places: places, style: style, route: route)
        scene.title = checked["title"]?.string
        scene.dwell = sceneDwell
        scene.flight = checked["flight"]?.number ?? Scene.defaultFlight
        if let video = checked["video"] { scene.video = self.video(video) }
        if let v = checked["vehicle"]?.string { scene.vehicle = Vehicle(v) }
        checkVehicle(scene.vehicle, checked["vehicle"], "vehicle")
        if let c = checked["end"], let title = c["title"]?.string {
            scene.end = EndCard(title: title, subtitle: c["subtitle"]?.string)
        }
        scene.outro = checked["outro"]?.number ?? 0
        scene.tracks = tracks
        if checked["places"] == nil { scene.places = Self.waypointStops(tracks, dwell: sceneDwell) }
        if let c = checked["playback"] {
            scene.playback = playback(c)
            checkOffset(scene, c)
            checkTimeZone(c)
        }
        scene.distance = checked["distance"]?.bool ?? false
        scene.opening = checked["opening"]?.bool ?? true
        scene.closing = checked["closing"]?.bool ?? true
        if let map = checked["map"] {
            if let tiles = map["tiles"] {
                scene.map = self.map(map)
                // A folder or an MBTiles file (file:// too); URLs are the tile client's to check.
                let text = tiles.string ?? ""
                let local = text.lowercased().hasPrefix("file://") ? URL(string: text)?.path : (text.contains("://") ? nil : text)
                if let local, confine(local, tiles.json, map.path(of: "tiles") ?? "map.tiles", what: "tiles") {
                    // Up to a template's {z}: the folder, or the .mbtiles file.
                    let path = local.components(separatedBy: "{z}")[0]
                    if (path as NSString).pathExtension.lowercased() == "mbtiles" {
                        checkFile(path, tiles.json, map.path(of: "tiles") ?? "map.tiles", what: "MBTiles file",
                                  orFolder: true)
                    }
                }
            }
            if let style = map["style"], let name = style.string, !Style.themes.contains(name) {
                checkStyle(name, style.json, map.path(of: "style") ?? "map.style")
            }
            if let p = map["projection"]?.string { scene.projection = ProjectionSpec(p) }
            scene.graticule = map["graticule"]?.number
            scene.towns = map["towns"]?.bool ?? true
            if case .proj(let definition) = scene.projection, let projections, let value = map["projection"] {
                checkProjection(definition, projections, value, places: checked["places"]?.elements ?? [], scene)
            }
        }
        // After the map: an automatic zoom stays within what the map can show, and depends on the projection.
        if let list = checked["places"]?.elements {
            placeDetails(&scene, list.compactMap { $0 }, sceneFlight: checked["flight"])
        }
        looks(&scene, checked)
        scene.background = checked["background"]?.string.flatMap(Background.init(rawValue:)) ?? .map
        if let audio = checked["audio"] {
            scene.audio = self.audio(audio)
            let file = audio["file"] ?? audio
            let path = audio["file"] == nil ? "audio" : audio.path(of: "file") ?? "audio.file"
            if confine(scene.audio!.file, file.json, path, what: "sound file") {
                checkFile(scene.audio!.file, file.json, path, what: "sound file")
            }
        }
        if let c = checked["voices"] { scene.voices = self.voices(c) }
        if let c = checked["presenter"] { scene.presenter = presenter(c, scene) }
        scene.furniture = furniture(checked)
        checkTotals(scene, checked)
        fitVoices(&scene, checked["places"]?.elements ?? [])
        if let c = checked["camera"], checker.errors.isEmpty { scene.camera = camera(c, scene) }
        if let c = checked["tracks"], checker.errors.isEmpty { warnZones(scene, c) }
        if let list = checked["readouts"] {
            readouts(list, &scene)
        } else if let units = checked["units"]?.json, !Self.colorsARoute(checked), scene.furniture.scaleBar == nil {
            warnings.append(SceneError(file: checker.file, line: units.position.line, column: units.position.column, path: "units",
                                       message: "units is ignored: they are the readouts', a coloured route's and the scale bar's, and the scene has none of them",
                                       hint: "add \"readouts\": [ \"speed\" ], or remove \"units\""))
        }
        if let c = checked["photos"], checker.errors.isEmpty { scene.photos = photos(c, scene) }
        if checker.errors.isEmpty { warn(scene, checked) }
        return scene
    }

    /// PROJ must know the definition as a map's CRS, and every place must lie in its area of use, on
    /// the side of the Earth it shows.
    mutating func checkProjection(_ definition: String, _ projections: ProjectionChecking, _ value: Checked,
                                  places list: [Checked?], _ scene: Scene) {
        /// Each place named, where the scene lists it: "'Name' (lat, lon) `what`".
        func failAtPlaces(_ indices: [Int], _ what: String, hint: String) {
            for i in indices where i < scene.places.count {
                let place = scene.places[i]
                let at = i < list.count ? list[i] : nil
                checker.fail(at?.json ?? value.json, JSONPath.appending(index: i, to: "places"),
                             "'\(place.name)' (\(String(format: "%.4f, %.4f", place.position.lat, place.position.lon))) \(what)",
                             hint: hint)
            }
        }
        switch projections.check(definition, places: scene.places.map(\.position)) {
        case .fine:
            return
        case .unknown(let message):
            checker.fail(value.json, "map.projection", "PROJ does not know '\(definition)': \(message)",
                         hint: "use \"globe\", an EPSG or ESRI code such as \"EPSG:3035\", or a PROJ string such as \"+proj=robin\"")
        case .outside(let indices, let area):
            failAtPlaces(indices, "lies outside \(definition)'s area of use, \(area)",
                         hint: "choose a projection that covers every place, such as \"globe\" or \"+proj=robin\"")
        case .notAMap(let kind, let hint):
            checker.fail(value.json, "map.projection", "'\(definition)' is \(kind), not a map projection", hint: hint)
        case .hidden(let indices, let hint):
            failAtPlaces(indices, "is on the side of the Earth \(definition) does not show", hint: hint)
        }
    }

    /// A latitude out of range next to a longitude that would fit as one: probably swapped.
    mutating func hintSwappedCoordinates(_ root: JSONValue) {
        guard let places = root["places"]?.elements else { return }
        for (i, place) in places.enumerated() {
            guard let lat = place["lat"]?.number?.value, let lon = place["lon"]?.number?.value,
                  !(-90...90).contains(lat), abs(lat) <= 180, abs(lon) <= 90 else { continue }
            checker.amend(path: JSONPath.appending(key: "lat", to: JSONPath.appending(index: i, to: "places")),
                          hint: "are lat and lon swapped?")
        }
    }

    /// A scene needs places, or tracks to play back (a misspelt "places" is reported once, as such).
    mutating func requirePlacesOrTracks(_ root: JSONValue) {
        guard root["places"] == nil, root["tracks"] == nil else { return }
        let keys = (root.members ?? []).map(\.key)
        guard !keys.contains(where: { SceneLoader.suggestion(for: $0, among: SceneLoader.sceneKeys) == "places" }) else { return }
        checker.fail(root, "", "missing required key 'places'",
                     hint: "add \"places\": [ { \"name\": \"Seoul\", \"lat\": 37.5665, \"lon\": 126.978 } ], "
                         + "or \"tracks\": [ { \"file\": \"ride.gpx\" } ] to play recordings back")
    }

    /// A playback's stops when the scene lists no places: the tracks' files' waypoints (GPX `wpt`), in
    /// track order, pinned and labelled as listed places are; one without a name takes its track's name
    /// and its number among the file's waypoints ("Anna 2").
    static func waypointStops(_ tracks: [PlaybackTrack], dwell: Double) -> [Place] {
        tracks.flatMap { track in
            track.geometry.waypoints.enumerated().map { k, waypoint in
                let name = waypoint.name.flatMap { $0.isEmpty ? nil : $0 } ?? "\(track.name) \(k + 1)"
                return Place(name: name, position: waypoint.position, dwell: dwell)
            }
        }
    }

    /// `tracks[i]`: its recording read (through `tracks`), which must have a time at every point.
    mutating func playbackTrack(_ c: Checked, _ path: String, number: Int) -> PlaybackTrack? {
        guard let fileValue = c["file"], let file = fileValue.string else { return nil }
        let filePath = c.path(of: "file") ?? JSONPath.appending(key: "file", to: path)
        guard let geometry = readTrack(file, fileValue.json, filePath) else { return nil }
        guard geometry.times != nil else {
            checker.fail(fileValue.json, filePath, "track '\(file)' has a point without a time, and playback needs times",
                         hint: "use a recording with a time at every point, or follow it as a place's leg "
                             + "(\"places\": [..., { \"track\": \"\(file)\" }])")
            return nil
        }
        let name = c["name"]?.string ?? ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        let palette = PlaybackTrack.palette
        let color = c["color"]?.string.flatMap(Color.init(hex:)) ?? palette[number % palette.count]
        let vehicle = c["vehicle"]?.string.map(Vehicle.init) ?? Vehicle.none
        checkVehicle(vehicle, c["vehicle"], c.path(of: "vehicle") ?? JSONPath.appending(key: "vehicle", to: path))
        return PlaybackTrack(file: file, name: name, color: color, vehicle: vehicle, geometry: geometry)
    }

    func playback(_ c: Checked) -> Playback {
        Playback(speed: c["speed"]?.number ?? Playback.defaultSpeed, skipIdle: c["skipIdle"]?.number,
                 clock: c["clock"]?.string.flatMap(Playback.Clock.init(rawValue:)) ?? .minutes,
                 start: c["start"]?.string.flatMap(Playback.Start.init(rawValue:)) ?? .recorded,
                 offset: c["offset"]?.number ?? 0, timeZone: c["timeZone"]?.string.flatMap(ClockZone.init))
    }

    /// Tracks whose files state different offsets from UTC, with no `playback.timeZone`: the clock shows
    /// one of them (`Playback.clockZone`), and a warning says which.
    mutating func warnZones(_ scene: Scene, _ c: Checked) {
        guard scene.playback.timeZone == nil, scene.playback.start != .together,
              case .offset(let shown)? = scene.playback.clockZone(tracks: scene.tracks, follow: scene.camera?.follow) else { return }
        let stated = scene.tracks.compactMap { t in t.geometry.utcOffset.map { (t, $0) } }
        guard Set(stated.map(\.1)).count > 1, let chosen = stated.first(where: { $0.1 == shown }) else { return }
        let list = stated.map { "'\($0.0.file)' \(ClockZone.label(Double($0.1)))" }
        warnings.append(SceneError(file: checker.file, line: c.json.position.line, column: c.json.position.column, path: "tracks",
                                   message: "the tracks' files state different time zones (\(list.joined(separator: ", "))): "
                                       + "the clock reads in \(ClockZone.label(Double(shown))), as '\(chosen.0.file)' does",
                                   hint: "set \"playback\": { \"timeZone\": \"Europe/Helsinki\" } (or an offset such as \"+02:00\") to choose"))
    }

    /// `playback.timeZone` names a zone.
    mutating func checkTimeZone(_ c: Checked) {
        guard let zone = c["timeZone"], let text = zone.string, ClockZone(text) == nil else { return }
        checker.fail(zone.json, c.path(of: "timeZone") ?? "playback.timeZone", "unknown time zone '\(text)'",
                     hint: "use a zone of the IANA database such as \"Europe/Helsinki\", or an offset from UTC such as \"+02:00\"")
    }

    /// `playback.offset` skips less than the whole recording.
    mutating func checkOffset(_ scene: Scene, _ c: Checked) {
        guard let offset = c["offset"], let seconds = offset.number, !scene.tracks.isEmpty else { return }
        let starts = scene.tracks.map { scene.playback.start == .together ? 0 : $0.geometry.start?.timeIntervalSince1970 ?? 0 }
        let first = starts.min() ?? 0
        let span = zip(starts, scene.tracks).map { $0 + $1.duration }.max().map { $0 - first } ?? 0
        if seconds >= span {
            checker.fail(offset.json, c.path(of: "offset") ?? "playback.offset",
                         "offset \(JSONText.number(seconds)) skips the whole recording: it lasts \(JSONText.number(span)) s",
                         hint: "give fewer seconds than that")
        }
    }

    /// `camera`: the mover followed found by its name, the keyframes in time order, each on its own
    /// frame within the trip, filled in from the one before.
    mutating func camera(_ c: Checked, _ scene: Scene) -> SceneCamera? {
        var camera = SceneCamera(headingUp: c["headingUp"]?.bool ?? false, intro: c["intro"]?.number ?? SceneCamera.defaultIntro)
        if let zoom = c["zoom"] { camera.zoom = zoom.string == "speed" ? .speed : .fixed(zoom.number ?? SceneCamera.defaultZoom) }
        func path(_ key: String) -> String { c.path(of: key) ?? "camera." + key }
        if let follow = c["follow"], let name = follow.string {
            if c["keyframes"] != nil {
                checker.fail(follow.json, path("follow"), "a camera follows a mover or keyframes, not both",
                             hint: "remove \"keyframes\", or remove \"follow\"")
                return nil
            }
            guard !scene.tracks.isEmpty else {
                checker.fail(follow.json, path("follow"), "follow needs a playback, and the scene has no tracks",
                             hint: "add \"tracks\": [ { \"file\": \"ride.gpx\", \"name\": \"\(name)\" } ]")
                return nil
            }
            let names = scene.tracks.map(\.name)
            guard let i = names.firstIndex(of: name) else {
                let hint = EditDistance.nearest(to: name, among: names).map { "did you mean '\($0)'?" }
                    ?? "the tracks are named " + Wording.alternatives(names.map { "'\($0)'" })
                checker.fail(follow.json, path("follow"), "no track is named '\(name)'", hint: hint)
                return nil
            }
            camera.follow = i
        } else {
            for key in ["headingUp", "zoom", "intro"] {
                guard let value = c[key] else { continue }
                checker.fail(value.json, path(key), "\(key) is for a camera that follows a mover, and this one follows none",
                             hint: "add \"follow\" with a track's name, or remove \"\(key)\"")
                return nil
            }
        }
        guard let list = c["keyframes"]?.elements else { return camera }
        let fps = scene.video.fps
        let lastFrame = tripFrames(scene) - 1
        var previous: (camera: Camera, t: Double, frame: Int)?
        let listPath = path("keyframes")
        for (i, element) in list.enumerated() {
            guard let k = element, let t = k["t"]?.number else { return nil }
            let at = JSONPath.appending(index: i, to: listPath)
            let tPath = k.path(of: "t") ?? JSONPath.appending(key: "t", to: at)
            let frame = FrameGrid.frames(seconds: t, fps: fps)
            if let previous, t <= previous.t {
                checker.fail(k["t"]!.json, tPath, "keyframes must be in time order: t \(JSONText.number(t)) is not after "
                             + "the keyframe before's \(JSONText.number(previous.t))", hint: "sort the keyframes by t")
                return nil
            }
            if let previous, frame == previous.frame {
                checker.fail(k["t"]!.json, tPath, "t \(JSONText.number(t)) falls on the same frame as the keyframe before "
                             + "(frame \(frame) at \(fps) fps)", hint: "move them at least 1/\(fps) s apart")
                return nil
            }
            if frame > lastFrame {
                checker.fail(k["t"]!.json, tPath, "t \(JSONText.number(t)) is beyond the trip's end: its last frame is at "
                             + String(format: "%.3f s", Double(max(lastFrame, 0)) / Double(fps)),
                             hint: "move the keyframe, or lengthen the trip with longer dwells or an outro")
                return nil
            }
            let lon = k["lon"]?.number, lat = k["lat"]?.number
            let center = lon.flatMap { lon in lat.map { LonLat(lon: lon, lat: $0) } } ?? previous?.camera.center
            guard let center, let zoom = k["zoom"]?.number ?? previous?.camera.zoom else {
                checker.fail(k.json, at, "the first keyframe needs lon, lat and zoom (later ones take what they leave out from the one before)",
                             hint: "add \"lon\": ..., \"lat\": ..., \"zoom\": ...")
                return nil
            }
            let view = Camera(center: center, zoom: zoom, bearing: k["bearing"]?.number ?? previous?.camera.bearing ?? 0)
            let ease = k["ease"]?.string.flatMap(CameraEase.init(rawValue:)) ?? .inOutCubic
            camera.keyframes.append(CameraKeyframe(t: t, camera: view, ease: ease))
            previous = (view, t, frame)
        }
        return camera
    }

    /// The frames of the trip at the scene's rate: the places' dwells and the outro, or the playback's
    /// span over its speed (uncut: at most that) and the outro.
    func tripFrames(_ scene: Scene) -> Int {
        let fps = scene.video.fps
        guard scene.isPlayback else {
            return FrameGrid(dwells: scene.places.map(\.dwell) + [scene.outro], fps: fps).frameCount
        }
        return Int((Self.playbackSpan(scene) / scene.playback.speed * Double(fps)).rounded()) + 1 + FrameGrid.frames(seconds: scene.outro, fps: fps)
    }

    /// Recorded seconds from the first fix of the playback's tracks to the last (on its clock).
    static func playbackSpan(_ scene: Scene) -> Double {
        let starts = scene.tracks.map { scene.playback.start == .together ? 0 : $0.geometry.start?.timeIntervalSince1970 ?? 0 }
        return (zip(starts, scene.tracks).map { $0 + $1.duration }.max() ?? 0) - (starts.min() ?? 0)
    }

    // MARK: Sections

    mutating func place(_ c: Checked, _ path: String, number: Int, sceneDwell: Double) -> Place? {
        let name = c["name"]?.string
        var place = Place(name: name ?? "Place \(number)", position: LonLat(lon: 0, lat: 0),
                          dwell: c["dwell"]?.number ?? sceneDwell, zoom: c["zoom"]?.number ?? Place.defaultZoom,
                          flight: c["flight"]?.number, bearing: c["bearing"]?.number ?? 0)
        if let value = c["track"], let file = value.string {
            let trackPath = c.path(of: "track") ?? JSONPath.appending(key: "track", to: path)
            guard number > 1 else {
                checker.fail(value.json, trackPath, "the first place has no leg arriving to follow a track",
                             hint: "put \"track\" on the place the recording leads to; the first place is where it starts")
                return nil
            }
            guard let geometry = readTrack(file, value.json, trackPath) else { return nil }
            let pace = c["pace"]?.string.flatMap(TrackLeg.Pace.init(rawValue:)) ?? .distance
            if pace == .recorded, geometry.times == nil, let paceValue = c["pace"] {
                checker.fail(paceValue.json, c.path(of: "pace") ?? "pace",
                             "pace \"recorded\" needs times, and track '\(file)' has a point without one",
                             hint: "use \"pace\": \"distance\", or a recording with a time at every point")
                return nil
            }
            place.track = TrackLeg(file: file, pace: pace, geometry: geometry)
            if c["lat"] == nil, c["lon"] == nil, let last = geometry.points.last {
                place.position = last
                return place
            }
        }
        switch (c["lat"]?.number, c["lon"]?.number) {
        case (let lat?, let lon?):
            place.position = LonLat(lon: lon, lat: lat)
            return place
        case (.some, nil):
            checker.fail(c.json, path, "lat is given without lon",
                         hint: "give both, or neither to look \(name.map { "'\($0)'" } ?? "the name") up")
            return nil
        case (nil, .some):
            checker.fail(c.json, path, "lon is given without lat",
                         hint: "give both, or neither to look \(name.map { "'\($0)'" } ?? "the name") up")
            return nil
        case (nil, nil):
            guard let name, let nameValue = c["name"]?.json else {
                checker.fail(c.json, path, "a place needs lat and lon, or a name to look up",
                             hint: "add \"lat\": ..., \"lon\": ..., or \"name\": \"Busan\"")
                return nil
            }
            guard let found = resolve(name, country: c["country"], region: c["region"], at: nameValue,
                                      place: path) else { return nil }
            place.position = found.position
            return place
        }
    }

    /// Looks a name up (`value` at the place's path `place`, whose "country" and "region" narrow it);
    /// records an error (ambiguous, unknown) and returns nil when it cannot decide.
    mutating func resolve(_ name: String, country: Checked?, region: Checked?, at value: JSONValue,
                          place: String) -> GazetteerPlace? {
        let path = JSONPath.appending(key: "name", to: place)
        guard let resolver = openResolver(at: value, path: path) else { return nil }
        let countryName = country?.string, regionName = region?.string
        do {
            let named = try resolver.matches(for: name, country: countryName)
            let matches = regionName.map { r in named.filter { $0.isIn(region: r) } } ?? named
            if matches.count == 1 || (matches.count > 1
                                      && matches[0].population >= SceneLoader.dominance * max(1, matches[1].population)) {
                return matches[0]
            }
            let within = countryName.map { " in \($0)" } ?? ""
            if matches.isEmpty, let regionName, !named.isEmpty {
                // The name is there, but not in that region: say where it is.
                let regions = Array(Set(named.compactMap { $0.regionLabel { "\"\($0)\"" } })).sorted()
                let hint = regions.isEmpty
                    ? "leave \"region\" out, or give \"lat\" and \"lon\""
                    : "'\(name)'\(within) is in " + Wording.alternatives(regions)
                checker.fail(region?.json ?? value, JSONPath.appending(key: "region", to: place),
                             "no place called '\(name)'\(within) in region '\(regionName)'", hint: hint)
                return nil
            }
            if matches.isEmpty {
                let suggestions = try resolver.suggestions(for: name, country: countryName, limit: 3)
                let hint = suggestions.isEmpty
                    ? "give \"lat\" and \"lon\" instead, or check the spelling"
                    : "did you mean " + suggestions.map { "'\($0)'" }.joined(separator: ", ") + "?"
                checker.fail(value, path, "no place called '\(name)'\(within) in the gazetteer", hint: hint)
                return nil
            }
            let countries = Set(matches.map(\.country))
            let regions = Set(matches.map { "\($0.country) \($0.regionKey ?? "")" })
            // Each candidate with the keys that would choose it.
            let shown = matches.prefix(5).map { p in
                let keys = ["\"country\": \"\(p.country)\""]
                    + (regions.count > 1 ? p.regionKey.map { ["\"region\": \"\($0)\""] } ?? [] : [])
                let at = p.regionName.map { "\(p.name), \($0), \(p.countryName)" } ?? "\(p.name), \(p.countryName)"
                return "\(at) (\(keys.joined(separator: ", "))), population \(p.population), "
                    + String(format: "%.4f, %.4f", p.lat, p.lon)
            }
            let more = matches.count > 5 ? "; and \(matches.count - 5) more" : ""
            let fix: String
            if countries.count > 1 {
                fix = "add \"country\": \"\(matches[0].country)\" (or another's code) to the place, or give \"lat\" and \"lon\""
            } else if regions.count > 1, let key = matches[0].regionKey {
                fix = "add \"region\": \"\(key)\" (or another's) to the place, or give \"lat\" and \"lon\""
            } else {
                fix = "give \"lat\" and \"lon\" to choose one"
            }
            checker.fail(value, path, "'\(name)' could be \(matches.count) places: " + shown.joined(separator: "; ") + more,
                         hint: fix)
            return nil
        } catch {
            checker.fail(value, path, "cannot look '\(name)' up: \(error)")
            return nil
        }
    }

    mutating func openResolver(at value: JSONValue, path: String) -> PlaceResolver? {
        if let openedResolver { return openedResolver }
        if resolverFailed { return nil }
        guard let resolver else {
            resolverFailed = true
            checker.fail(value, path, "places by name need the gazetteer, which is not available here",
                         hint: "give \"lat\" and \"lon\"")
            return nil
        }
        do {
            openedResolver = try resolver()
            return openedResolver
        } catch {
            resolverFailed = true
            checker.fail(value, path, "cannot open the gazetteer to look places up: \(error)",
                         hint: "give \"lat\" and \"lon\", or pass --assets")
            return nil
        }
    }

    func video(_ c: Checked) -> Video {
        var video = Video()
        if let name = c["preset"]?.string, let preset = VideoPreset(rawValue: name) {
            video.width = preset.width
            video.height = preset.height
            video.scale = preset.scale
        }
        if let w = c["width"]?.integer { video.width = w }
        if let h = c["height"]?.integer { video.height = h }
        if let fps = c["fps"]?.integer { video.fps = fps }
        if let scale = c["scale"]?.number { video.scale = scale }
        if let zone = c["safeZone"]?.string, let safeZone = SafeZone(rawValue: zone) { video.safeZone = safeZone }
        return video
    }

    mutating func map(_ c: Checked) -> MapSource {
        var map = MapSource(tiles: c["tiles"]?.string ?? "")
        map.attribution = c["attribution"]?.string
        map.style = c["style"]?.string
        map.contact = c["contact"]?.string
        if let size = c["tileSize"]?.integer { map.tileSize = size }
        map.minZoom = c["minZoom"]?.integer
        map.maxZoom = c["maxZoom"]?.integer
        if let subdomains = c["subdomains"]?.elements { map.subdomains = subdomains.compactMap { $0?.string } }
        if let minZoom = map.minZoom, let maxZoom = map.maxZoom, minZoom > maxZoom, let v = c["minZoom"] {
            checker.fail(v.json, c.path(of: "minZoom") ?? "map.minZoom", "minZoom \(minZoom) is greater than maxZoom \(maxZoom)")
        }
        return map
    }

    func audio(_ c: Checked) -> SceneAudio {
        if let file = c.string { return SceneAudio(file: file) }
        var audio = SceneAudio(file: c["file"]?.string ?? "")
        if let v = c["volume"]?.number { audio.volume = v }
        if let v = c["offset"]?.number { audio.offset = v }
        if let v = c["fadeOut"]?.number { audio.fadeOut = v }
        if let v = c["loop"]?.bool { audio.loop = v }
        return audio
    }

    func voices(_ c: Checked) -> Voices {
        var voices = Voices()
        if let v = c["volume"]?.number { voices.volume = v }
        if let v = c["extendRests"]?.bool { voices.extendRests = v }
        if let d = c["duck"] {
            if let v = d["gain"]?.number { voices.duckGain = v }
            if let v = d["attack"]?.number { voices.attack = v }
            if let v = d["release"]?.number { voices.release = v }
        }
        return voices
    }

    /// A place's voice (relative to the scene's folder): there, a regular file, and a sound `voices`
    /// reads, whose length it gives (0 without a reader).
    mutating func readVoice(_ name: String, _ value: JSONValue, _ path: String) -> PlaceVoice? {
        let hint = "give a sound file (M4A, MP3, WAV, FLAC, Opus...) relative to the scene's folder"
        // A scene that is not a file on disk (text decoded in code) has no folder to find its voices in.
        guard FileManager.default.fileExists(atPath: URL(fileURLWithPath: checker.file).path) else {
            return confine(name, value, path, what: "voice") ? PlaceVoice(file: name) : nil
        }
        guard let url = regularFile(name, value, path, what: "voice", hint: hint) else { return nil }
        guard let voices else { return PlaceVoice(file: name) }
        let found = voices.read(url)
        report(found.errors, [], value, path)
        guard found.errors.isEmpty, let duration = found.duration else { return nil }
        return PlaceVoice(file: name, duration: duration)
    }

    /// Every voice within its place's rest: a rest too short is lengthened (`voices.extendRests`: the
    /// place's dwell grows, on a 0.05 s grid, until the timeline's rest holds the voice), else reported
    /// where the scene names the voice. The rests come from `voices`, the timeline's; without it nothing
    /// is checked.
    mutating func fitVoices(_ scene: inout Scene, _ list: [Checked?]) {
        guard let voices, checker.errors.isEmpty, list.count == scene.places.count,
              scene.places.contains(where: { $0.voice != nil }) else { return }
        if scene.isPlayback {
            for (i, c) in list.enumerated() where scene.places[i].voice != nil {
                guard let v = c?["voice"] else { continue }
                checker.fail(v.json, c?.path(of: "voice") ?? "voice", "a voice plays when the camera arrives at a place, "
                             + "and a playback's stops have no arrival", hint: "remove \"voice\", or make a trip from place to place")
            }
            return
        }
        var rests = voices.rests(of: scene)
        func overrun(_ i: Int) -> Double {
            guard let voice = scene.places[i].voice, i < rests.count else { return 0 }
            return voice.duration - rests[i]
        }
        if scene.voices.extendRests {
            // A longer dwell may lengthen an automatic flight too (within its share of the slot): again.
            for _ in 0..<8 {
                let short = scene.places.indices.filter { overrun($0) > 1e-9 }
                if short.isEmpty { break }
                for i in short {
                    scene.places[i].dwell = ((scene.places[i].dwell + overrun(i)) * 20 - 1e-6).rounded(.up) / 20
                }
                rests = voices.rests(of: scene)
            }
        }
        for (i, c) in list.enumerated() where overrun(i) > 1e-9 {
            guard let v = c?["voice"], let voice = scene.places[i].voice else { continue }
            let place = scene.places[i]
            let needed = ((place.dwell + overrun(i)) * 20 - 1e-6).rounded(.up) / 20
            checker.fail(v.json, c?.path(of: "voice") ?? "voice",
                         "voice '\(voice.file)' lasts \(String(format: "%.2f", voice.duration)) s, longer than "
                             + "\(place.name)'s rest of \(String(format: "%.2f", rests[i])) s (it would be cut)",
                         hint: "give \(place.name) a dwell of at least \(JSONText.number(needed)), or set \"voices\": { \"extendRests\": true }")
        }
    }

    // MARK: Looks and cinematics

    func style(_ c: Checked) -> Style {
        var style = c["theme"]?.string.flatMap(Style.theme) ?? .standard
        func color(_ key: String, _ target: inout Color) { if let v = c[key]?.string.flatMap(Color.init(hex:)) { target = v } }
        color("sea", &style.sea)
        color("land", &style.land)
        color("lakes", &style.lakes)
        color("pin", &style.pin)
        color("currentPin", &style.currentPin)
        color("space", &style.space)
        color("atmosphere", &style.atmosphere)
        color("polar", &style.polar)
        if let f = c["font"]?.string { style.font = f }
        func stroke(_ key: String, _ target: inout Style.Stroke) {
            guard let s = c[key] else { return }
            if let v = s["color"]?.string.flatMap(Color.init(hex:)) { target.color = v }
            if let v = s["width"]?.number { target.width = v }
            if let v = s["dash"]?.elements { target.dash = v.compactMap { $0?.number } }
        }
        stroke("borders", &style.borders)
        stroke("provinces", &style.provinces)
        stroke("graticule", &style.graticule)
        func label(_ key: String, _ target: inout Style.Label) {
            guard let s = c[key] else { return }
            if let v = s["color"]?.string.flatMap(Color.init(hex:)) { target.color = v }
            if let v = s["halo"]?.string.flatMap(Color.init(hex:)) { target.halo = v }
            if let v = s["size"]?.number { target.size = v }
        }
        label("label", &style.label)
        label("currentLabel", &style.currentLabel)
        func card(_ key: String, _ target: inout Style.Card) {
            guard let s = c[key] else { return }
            if let v = s["color"]?.string.flatMap(Color.init(hex:)) { target.color = v }
            if let v = s["background"]?.string.flatMap(Color.init(hex:)) { target.background = v }
            if let v = s["size"]?.number { target.size = v }
        }
        card("caption", &style.caption)
        card("card", &style.card)
        if let r = c["route"] { style.route = route(r, base: style.route) }
        return style
    }

    /// A route object's keys over `base`.
    func route(_ c: Checked, base: RouteStyle) -> RouteStyle {
        var r = base
        if let v = c["path"]?.string.flatMap(RouteStyle.Path.init(rawValue:)) { r.path = v }
        if let v = c["color"]?.string.flatMap(Color.init(hex:)) { r.color = v }
        if let v = c["width"]?.number { r.width = v }
        if let v = c["dash"]?.elements { r.dash = v.compactMap { $0?.number } }
        if let v = c["outline"]?.string.flatMap(Color.init(hex:)) { r.outline = v.alpha > 0 ? v : nil }
        if let v = c["travelled"]?["color"]?.string.flatMap(Color.init(hex:)) { r.travelledColor = v }
        if let by = c["colorBy"]?.string.flatMap(RouteColoring.Quantity.init(rawValue:)) {
            r.coloring = RouteColoring(by: by, palette: c["palette"]?.string.flatMap(RoutePalette.init(rawValue:)),
                                       range: Self.range(c["range"]))
        }
        return r
    }

    /// A route's `range` when it is [min, max] with min below max (else nil: `looks` reports it).
    static func range(_ c: Checked?) -> ClosedRange<Double>? {
        guard let items = c?.elements, items.count == 2, let lo = items[0]?.number, let hi = items[1]?.number,
              lo < hi else { return nil }
        return lo...hi
    }

    /// Route colours, background tracks, privacy zones and units (`RouteColoring`): a route's `range`
    /// must be [min, max]; a recording coloured by a value must hold it; background files are read as
    /// track files are.
    mutating func looks(_ scene: inout Scene, _ checked: Checked) {
        scene.units = checked["units"]?.string.flatMap(Units.init(rawValue:)) ?? .metric
        var routes: [(Checked, String)] = []
        if let r = checked["route"] { routes.append((r, checked.path(of: "route") ?? "route")) }
        if let r = checked["style"]?["route"] { routes.append((r, checked["style"]?.path(of: "route") ?? "style.route")) }
        for (i, place) in (checked["places"]?.elements ?? []).enumerated() {
            if let r = place?["route"] {
                routes.append((r, place?.path(of: "route") ?? JSONPath.appending(key: "route", to: JSONPath.appending(index: i, to: "places"))))
            }
        }
        for (r, path) in routes {
            if let range = r["range"], Self.range(range) == nil {
                checker.fail(range.json, r.path(of: "range") ?? JSONPath.appending(key: "range", to: path),
                             "range must be two numbers, the lower first, such as [0, 40]",
                             hint: "the values at the palette's ends, in the scene's units")
            }
            if r["colorBy"] == nil, let key = ["palette", "range"].first(where: { r[$0] != nil }), let v = r[key] {
                warnings.append(SceneError(file: checker.file, line: v.json.position.line, column: v.json.position.column,
                                           path: r.path(of: key) ?? path, message: "\(key) is ignored: the route has no colorBy",
                                           hint: "add \"colorBy\": \"speed\", \"elevation\" or \"gradient\""))
            }
        }
        // A colour by value where no line follows a recording says so.
        if scene.tracks.isEmpty, !scene.places.contains(where: { $0.track != nil }),
           let (r, path) = routes.first(where: { $0.0["colorBy"] != nil }), let v = r["colorBy"] {
            warnings.append(SceneError(file: checker.file, line: v.json.position.line, column: v.json.position.column,
                                       path: r.path(of: "colorBy") ?? path,
                                       message: "colorBy is ignored: no line follows a recording",
                                       hint: "add \"tracks\", or \"track\" on a place"))
        }
        // A coloured line needs its value in the recording.
        if let coloring = scene.route.coloring {
            for (i, track) in scene.tracks.enumerated() {
                guard let lacking = coloring.missing(in: track.geometry) else { continue }
                let c = checked["tracks"]?.elements?[i]
                checker.fail(c?["file"]?.json ?? checked.json, c?.path(of: "file") ?? JSONPath.appending(index: i, to: "tracks"),
                             "track '\(track.file)' has no \(lacking), and the route is coloured by \(coloring.by.rawValue)",
                             hint: "use a recording with \(lacking), or another \"colorBy\"")
            }
        }
        for (i, place) in scene.places.enumerated() {
            guard let track = place.track, let coloring = scene.route(into: i)?.coloring,
                  let lacking = coloring.missing(in: track.geometry) else { continue }
            let c = checked["places"]?.elements?[i]
            checker.fail(c?["track"]?.json ?? checked.json,
                         c?.path(of: "track") ?? JSONPath.appending(key: "track", to: JSONPath.appending(index: i, to: "places")),
                         "track '\(track.file)' has no \(lacking), and its route is coloured by \(coloring.by.rawValue)",
                         hint: "use a recording with \(lacking), or another \"colorBy\"")
        }
        for (i, item) in (checked["backgroundTracks"]?.elements ?? []).enumerated() {
            guard let item, let file = item.string else { continue }
            if let geometry = readTrack(file, item.json, JSONPath.appending(index: i, to: "backgroundTracks")) {
                scene.backgroundTracks.append(BackgroundTrack(file: file, geometry: geometry))
            }
        }
        for item in checked["privacy"]?.elements ?? [] {
            guard let item, let lat = item["lat"]?.number, let lon = item["lon"]?.number,
                  let radius = item["radius"]?.number else { continue }
            scene.privacy.append(PrivacyZone(center: LonLat(lon: lon, lat: lat), radius: radius))
        }
    }

    /// What places say beyond where they are: zoom (given, from a span, or automatic), flight
    /// (given or automatic), curve, route, vehicle, caption and photo.
    mutating func placeDetails(_ scene: inout Scene, _ list: [Checked], sceneFlight: Checked?) {
        guard list.count == scene.places.count else { return }
        let positions = scene.places.map(\.position)
        // A flight without a set time (the place's or the scene's) takes its time from the distance.
        let sceneAuto = sceneFlight == nil || sceneFlight?.string == "auto"
        for (i, c) in list.enumerated() {
            var place = scene.places[i]
            if c["zoom"]?.number == nil {
                let span = c["span"]?.number ?? AutoCamera.span(for: i, positions: positions)
                // Web Mercator stretches the map by 1 / cos(latitude); other projections keep the
                // ground's scale near the centre.
                let latitude = scene.projection == .webMercator ? place.position.lat : 0
                place.zoom = AutoCamera.zoom(spanKm: span, latitude: latitude, video: scene.video)
                if c["span"] == nil, scene.projection == .webMercator {
                    place.zoom = AutoCamera.upright(place.zoom, for: i, positions: positions, video: scene.video)
                }
                // An automatic zoom stays within what the map can show.
                let deepest = scene.map?.maxZoom.map(Double.init) ?? (scene.map == nil ? Self.embeddedMapAutomaticZoom : nil)
                if c["span"] == nil, let deepest { place.zoom = min(place.zoom, deepest) }
            } else if c["span"] != nil, let v = c["span"] {
                checker.fail(v.json, c.path(of: "span") ?? "span", "give zoom or span, not both",
                             hint: "span sets the zoom from the kilometres across the frame; remove one")
            }
            let flight = c["flight"]
            if i > 0, flight?.string == "auto" || (flight == nil && sceneAuto) {
                let km = place.track?.geometry.lengthKm ?? Geodesy.distanceKm(positions[i - 1], place.position)
                place.flight = AutoCamera.flight(distanceKm: km, dwell: place.dwell)
                place.autoFlight = true
            }
            place.curve = c["curve"]?.number
            if let r = c["route"] { place.route = route(r, base: scene.route) }
            if let v = c["vehicle"]?.string { place.vehicle = Vehicle(v) }
            place.caption = c["caption"]?.string
            place.photo = c["photo"]?.string
            if let v = c["photo"] { checkImage(place.photo!, v.json, c.path(of: "photo") ?? "photo", what: "photo") }
            if let v = c["voice"], let file = v.string { place.voice = readVoice(file, v.json, c.path(of: "voice") ?? "voice") }
            place.clip = clip(c, hasPhoto: place.photo != nil)
            checkVehicle(place.vehicle, c["vehicle"], c.path(of: "vehicle") ?? "vehicle")
            scene.places[i] = place
        }
    }

    /// A place's `clip` and the keys that go with it (`from`, `muted`, `volume`), the file checked.
    mutating func clip(_ c: Checked, hasPhoto: Bool) -> Clip? {
        guard let value = c["clip"], let file = value.string else {
            for key in ["from", "muted", "volume"] {
                guard let v = c[key] else { continue }
                checker.fail(v.json, c.path(of: key) ?? key, "\(key) is for a clip, and this place has none",
                             hint: "add \"clip\": \"harbour.mp4\", or remove \"\(key)\"")
            }
            return nil
        }
        let path = c.path(of: "clip") ?? "clip"
        if hasPhoto {
            checker.fail(value.json, path, "a place's card shows a photo or a clip, not both",
                         hint: "remove \"photo\", or remove \"clip\"")
            return nil
        }
        var clip = Clip(file: file, from: c["from"]?.number ?? 0, muted: c["muted"]?.bool ?? true,
                        volume: c["volume"]?.number ?? 1)
        if let facts = checkVideo(file, value.json, path, what: "clip") {
            clip.width = facts.width
            clip.height = facts.height
            clip.duration = facts.duration
            clip.hasSound = facts.hasSound
            // Its sound asked for where there is none: said, not silently left out.
            if !clip.muted, !facts.hasSound, let muted = c["muted"] {
                checker.fail(muted.json, c.path(of: "muted") ?? "muted", "clip '\(file)' has no sound to play",
                             hint: "give a clip with a sound track, or remove \"muted\": false")
            }
            if let d = facts.duration, clip.from >= d, let from = c["from"] {
                checker.fail(from.json, c.path(of: "from") ?? "from",
                             "from \(JSONText.number(clip.from)) s is past the clip's end (it lasts \(String(format: "%.3f", d)) s)",
                             hint: "start the clip earlier")
            }
        }
        return clip
    }

    /// `scaleBar`, `northArrow`, `watermark`: their keys, the watermark's file checked (an SVG found;
    /// a picture decoded as a photo is).
    mutating func furniture(_ checked: Checked) -> Furniture {
        var furniture = Furniture()
        func corner(_ c: Checked?) -> Furniture.Corner? { c?["corner"]?.string.flatMap(Furniture.Corner.init(rawValue:)) }
        if let c = checked["scaleBar"], c.bool != false {
            var bar = Furniture.ScaleBar()
            // The scene's units unless the bar names its own.
            if let v = checked["units"]?.string.flatMap(Furniture.ScaleBar.Units.init(rawValue:)) { bar.units = v }
            if let v = corner(c) { bar.corner = v }
            if let v = c["units"]?.string.flatMap(Furniture.ScaleBar.Units.init(rawValue:)) { bar.units = v }
            furniture.scaleBar = bar
        }
        if let c = checked["northArrow"], c.bool != false {
            var arrow = Furniture.NorthArrow()
            if let v = corner(c) { arrow.corner = v }
            arrow.auto = c.string == "auto" || c["auto"]?.bool == true
            furniture.northArrow = arrow
        }
        if let c = checked["watermark"], case let fileValue = c["file"] ?? c, let file = fileValue.string {
            var mark = Furniture.Watermark(file: file)
            if let v = corner(c) { mark.corner = v }
            if let v = c["size"]?.number { mark.size = v }
            if let v = c["opacity"]?.number { mark.opacity = v }
            let path = c["file"] == nil ? "watermark" : c.path(of: "file") ?? "watermark.file"
            if (file as NSString).pathExtension.lowercased() == "svg" {
                if confine(file, fileValue.json, path, what: "watermark") {
                    let sceneURL = URL(fileURLWithPath: checker.file)
                    let url = URL(fileURLWithPath: file, relativeTo: sceneURL.deletingLastPathComponent())
                    if FileManager.default.fileExists(atPath: sceneURL.path), FileKind(path: url.path) == .missing {
                        checker.fail(fileValue.json, path, "watermark '\(file)' not found",
                                     hint: "paths are relative to the scene's folder (\(sceneURL.deletingLastPathComponent().relativePath))")
                    } else {
                        let errors = checker.errors.count
                        checkFile(file, fileValue.json, path, what: "watermark")
                        // An SVG that does not parse, said where the scene names it (the render would stop on it).
                        if checker.errors.count == errors, FileKind(path: url.path) == .regular,
                           let problem = images?.problem(with: url) {
                            checker.fail(fileValue.json, path, "watermark '\(file)' cannot be used: \(problem.message)", hint: problem.hint)
                        }
                    }
                }
            } else {
                checkImage(file, fileValue.json, path, what: "watermark")
            }
            furniture.watermark = mark
        }
        return furniture
    }

    /// `presenter`: its keys, the places it shows at found by name, the file checked.
    mutating func presenter(_ c: Checked, _ scene: Scene) -> Presenter? {
        guard let fileValue = c["file"], let file = fileValue.string else { return nil }
        var presenter = Presenter(file: file)
        if let v = c["corner"]?.string.flatMap(Presenter.Corner.init(rawValue:)) { presenter.corner = v }
        if let v = c["size"]?.number { presenter.size = v }
        if let v = c["shape"]?.string.flatMap(Presenter.Shape.init(rawValue:)) { presenter.shape = v }
        presenter.from = c["from"]?.number ?? 0
        presenter.volume = c["volume"]?.number ?? 1
        if let list = c["places"]?.elements {
            let names = scene.places.map(\.name)
            var indices: [Int] = []
            let listPath = c.path(of: "places") ?? "presenter.places"
            for (k, element) in list.enumerated() {
                guard let element, let name = element.string else { continue }
                guard let i = names.firstIndex(of: name) else {
                    let hint = EditDistance.nearest(to: name, among: names).map { "did you mean '\($0)'?" }
                        ?? "the places are named " + Wording.alternatives(names.map { "'\($0)'" })
                    checker.fail(element.json, JSONPath.appending(index: k, to: listPath), "no place is named '\(name)'", hint: hint)
                    continue
                }
                if !indices.contains(i) { indices.append(i) }
            }
            presenter.places = indices.sorted()
        }
        let path = c.path(of: "file") ?? "presenter.file"
        if let facts = checkVideo(file, fileValue.json, path, what: "presenter video") {
            presenter.width = facts.width
            presenter.height = facts.height
            presenter.duration = facts.duration
            presenter.hasSound = facts.hasSound
            if !facts.hasSound, let volume = c["volume"], (volume.number ?? 0) > 0 {
                checker.fail(volume.json, c.path(of: "volume") ?? "presenter.volume", "presenter video '\(file)' has no sound to play",
                             hint: "give a video with a sound track, or remove \"volume\"")
            }
        }
        return presenter
    }

    /// A video the scene names must exist, not be a picture, and (through `images`, when given) open
    /// with a video stream whose first picture decodes and whose rotation tag is a quarter turn. Checked
    /// only when the scene is a file on disk.
    mutating func checkVideo(_ name: String, _ value: JSONValue, _ path: String, what: String) -> VideoFacts? {
        guard FileManager.default.fileExists(atPath: checker.file) else { return nil }
        let hint = "give a video file libavformat reads, such as MP4, MOV, WebM or MKV, relative to the scene's folder"
        guard let url = regularFile(name, value, path, what: what, hint: hint) else { return nil }
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            checker.fail(value, path, "cannot read \(what) '\(name)'", hint: "check its permissions")
            return nil
        }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        try? handle.close()
        if let kind = ImageKind(magic: head) {
            checker.fail(value, path, "\(what) '\(name)' is a \(kind.rawValue.uppercased()) picture, not a video",
                         hint: what == "clip" ? "show a still picture with \"photo\"" : "give a video file")
            return nil
        }
        switch images?.video(at: url) {
        case .facts(let facts)?:
            return facts
        case .problem(let message, let hint)?:
            checker.fail(value, path, "\(what) '\(name)' \(message)", hint: hint)
            return nil
        case nil:
            return nil
        }
    }

    /// A picture the scene names must exist and be a PNG, JPEG or WebP (by its first bytes; the
    /// renderer decodes it fully before the first frame). Checked only when the scene is a file on
    /// disk (relative paths are relative to it).
    mutating func checkImage(_ name: String, _ value: JSONValue, _ path: String, what: String,
                             notFoundHint: String? = nil) {
        guard confine(name, value, path, what: what) else { return }
        let sceneURL = URL(fileURLWithPath: checker.file)
        guard FileManager.default.fileExists(atPath: sceneURL.path) else { return }
        let url = URL(fileURLWithPath: name, relativeTo: sceneURL.deletingLastPathComponent())
        switch FileKind(path: url.path) {
        case .regular:
            break
        case .missing:
            checker.fail(value, path, "\(what) '\(name)' not found",
                         hint: notFoundHint ?? "paths are relative to the scene's folder (\(sceneURL.deletingLastPathComponent().relativePath))")
            return
        case let kind:
            // Not opened: a FIFO would block the check until a writer came.
            checker.fail(value, path, "\(what) '\(name)' is \(kind.notAFile!)", hint: "name a PNG, JPEG or WebP file")
            return
        }
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            checker.fail(value, path, "cannot read \(what) '\(name)'", hint: "check its permissions")
            return
        }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        try? handle.close()
        if ImageKind(magic: head) == nil {
            checker.fail(value, path, "\(what) '\(name)' is not a PNG, JPEG or WebP image",
                         hint: "convert it to PNG, JPEG or WebP")
        } else if let problem = images?.problem(with: url) {
            checker.fail(value, path, "\(what) '\(name)' cannot be decoded: \(problem.message)", hint: problem.hint)
        }
    }

    /// A MapLibre style file `map.style` names (relative to the scene's folder): there, a regular file,
    /// and a style that reads (its errors and warnings, each with its place in the style file).
    mutating func checkStyle(_ name: String, _ value: JSONValue, _ path: String) {
        let hint = "give a MapLibre GL style JSON file (relative to the scene's folder) or a theme: "
            + Style.themes.joined(separator: ", ")
        guard let url = regularFile(name, value, path, what: "style file", hint: hint), let styles else { return }
        let found = styles.problems(with: url)
        report(found.errors, found.warnings, value, path)
    }

    /// The recording `places[i].track` names (relative to the scene's folder), read by `tracks`: its
    /// errors and warnings are reported where the scene names it, each saying where in the track file.
    mutating func readTrack(_ name: String, _ value: JSONValue, _ path: String) -> TrackGeometry? {
        let hint = "give a GPX, TCX, FIT, KML, KMZ or GeoJSON file, relative to the scene's folder"
        guard let url = regularFile(name, value, path, what: "track file", hint: hint) else { return nil }
        guard let tracks else {
            checker.fail(value, path, "track file '\(name)' cannot be read here", hint: "use maptrip validate, plan or render")
            return nil
        }
        let found = tracks.read(url)
        report(found.errors, found.warnings, value, path)
        return found.errors.isEmpty ? found.track : nil
    }

    /// A file the scene names (`~` expanded, relative to its folder): inside what a batch may read,
    /// there, and a regular file; nil (reported at `path`) otherwise.
    mutating func regularFile(_ name: String, _ value: JSONValue, _ path: String, what: String, hint: String) -> URL? {
        guard confine(name, value, path, what: what) else { return nil }
        let sceneURL = URL(fileURLWithPath: checker.file)
        let url = URL(fileURLWithPath: (name as NSString).expandingTildeInPath, relativeTo: sceneURL.deletingLastPathComponent())
        switch FileKind(path: url.path) {
        case .regular:
            return url
        case .missing:
            checker.fail(value, path, "\(what) '\(name)' not found", hint: hint)
        case let kind:
            checker.fail(value, path, "\(what) '\(name)' is \(kind.notAFile!)", hint: hint)
        }
        return nil
    }

    /// What a reader of a file the scene names found: errors, and warnings passed on, at `path`.
    mutating func report(_ errors: [(message: String, hint: String?)], _ found: [(message: String, hint: String?)],
                         _ value: JSONValue, _ path: String) {
        for e in errors { checker.fail(value, path, e.message, hint: e.hint) }
        for w in found {
            warnings.append(SceneError(file: checker.file, line: value.position.line, column: value.position.column,
                                       path: path, message: w.message, hint: w.hint))
        }
    }

    /// A file the scene names (relative to its folder), where it exists, must be a regular file, found
    /// without opening it (a FIFO would block the check); `orFolder`: a folder will do too (a folder of
    /// tiles named `.mbtiles`). A missing one is the render's to report, as it reads it. Checked only
    /// when the scene is a file on disk.
    mutating func checkFile(_ name: String, _ value: JSONValue, _ path: String, what: String, orFolder: Bool = false) {
        let sceneURL = URL(fileURLWithPath: checker.file)
        guard FileManager.default.fileExists(atPath: sceneURL.path) else { return }
        let kind = FileKind(path: URL(fileURLWithPath: name, relativeTo: sceneURL.deletingLastPathComponent()).path)
        if kind != .missing, let reason = kind.notAFile, !(orFolder && kind == .directory) {
            checker.fail(value, path, "\(what) '\(name)' is \(reason)", hint: "name a regular file")
        }
    }

    /// A vehicle that is not built in is an image file the scene names: checked as a photo is (inside the
    /// scene's folder for a batch, there, and a picture), the scene's own as each place's.
    mutating func checkVehicle(_ vehicle: Vehicle?, _ node: Checked?, _ path: String) {
        guard case .image(let file)? = vehicle, let node else { return }
        let named = BuiltInVehicle.allCases.map(\.rawValue).joined(separator: ", ")
        checkImage(file, node.json, path, what: "vehicle image",
                   notFoundHint: (file as NSString).pathExtension.isEmpty
                       ? "a vehicle is one of \(named), none, or a PNG, JPEG or WebP file beside the scene" : nil)
    }

    /// With a `PathPolicy` (batch renders), a file the scene names must be inside the scene's folder or
    /// an allowed one. Returns whether it is (or there is no policy).
    @discardableResult
    mutating func confine(_ name: String, _ value: JSONValue, _ path: String, what: String) -> Bool {
        guard let paths else { return true }
        let folder = URL(fileURLWithPath: checker.file).deletingLastPathComponent()
        if paths.permits(name, sceneFolder: folder) { return true }
        checker.fail(value, path, "\(what) '\(name)' is outside the scene's folder",
                     hint: "a batch reads only files inside each scene's folder: move it there, or allow its folder "
                         + "with --allow-paths DIR")
        return false
    }

    /// Rejects scenes whose length is absurd (or too short for a single frame).
    mutating func checkTotals(_ scene: Scene, _ root: Checked) {
        if let tracksValue = root["tracks"]?.json {
            // At most the recordings' whole span over the speed (cut stretches only shorten it).
            let total = Self.playbackSpan(scene) / scene.playback.speed + scene.outro
            if total > SceneLoader.maxDuration || total * Double(scene.video.fps) > Double(SceneLoader.maxFrames) {
                checker.fail(root["playback"]?["speed"]?.json ?? tracksValue, root["playback"] == nil ? "tracks" : "playback.speed",
                             "the playback would last \(Self.clock(total)), over the 24-hour or \(SceneLoader.maxFrames)-frame limit",
                             hint: "raise playback.speed (recorded seconds per second of video)")
            }
        }
        guard let placesValue = root["places"]?.json else { return }
        let total = scene.places.reduce(0) { $0 + $1.dwell } + scene.outro
        guard total <= SceneLoader.maxDuration else {
            checker.fail(placesValue, "places", "the places' dwells add up to \(Self.clock(total)), over the 24-hour limit")
            return
        }
        let frames = FrameGrid(dwells: scene.places.map(\.dwell) + [scene.outro], fps: scene.video.fps).frameCount
        let fps = root["video"]?["fps"]
        if frames > SceneLoader.maxFrames {
            checker.fail(fps?.json ?? placesValue, fps == nil ? "places" : "video.fps",
                         "the video would have \(frames) frames, over the limit of \(SceneLoader.maxFrames)",
                         hint: "lower the frame rate or shorten the dwells")
        } else if frames < 1 {
            checker.fail(placesValue, "places", "the video would be shorter than one frame", hint: "lengthen the dwells")
        }
    }

    /// Legal but odd choices, for `validate`.
    mutating func warn(_ scene: Scene, _ root: Checked) {
        func warning(_ value: JSONValue, _ path: String, _ message: String, hint: String? = nil) {
            warnings.append(SceneError(file: checker.file, line: value.position.line, column: value.position.column,
                                       path: path, message: message, hint: hint))
        }
        let frame = 1 / Double(scene.video.fps)
        let deepest = scene.map?.maxZoom.map(Double.init) ?? (scene.map == nil ? Self.embeddedMapDeepestZoom : nil)
        let placeValues = root["places"]?.elements ?? []
        for (i, place) in scene.places.enumerated() where i < placeValues.count {
            guard let c = placeValues[i] else { continue }
            let path = JSONPath.appending(index: i, to: "places")
            if place.dwell < frame {
                let at = c["dwell"]?.json ?? root["dwell"]?.json ?? c.json
                warning(at, JSONPath.appending(key: "dwell", to: path),
                        String(format: "dwell %@ s is under one frame (%.3f s at %d fps): the place may not show",
                               JSONText.number(place.dwell), frame, scene.video.fps),
                        hint: "lengthen it, or raise video.fps")
            }
            let flight = place.flight ?? scene.flight
            if i > 0, flight > place.dwell {
                let at = c["flight"]?.json ?? root["flight"]?.json ?? c.json
                warning(at, JSONPath.appending(key: "flight", to: path),
                        "the flight of \(JSONText.number(flight)) s is longer than the place's slot of "
                            + "\(JSONText.number(place.dwell)) s: it is cut to the slot and the place never rests",
                        hint: "shorten the flight or lengthen the dwell")
            }
            // A playback (`tracks`) draws its places as labelled stops, without cards.
            if scene.isPlayback, let value = c["clip"]?.json ?? c["photo"]?.json {
                let key = c["clip"] != nil ? "clip" : "photo"
                warning(value, JSONPath.appending(key: key, to: path),
                        "\(key) is not shown: a playback of tracks has no place cards",
                        hint: "remove \"\(key)\", or give the trip as places without \"tracks\"")
            }
            if c["track"] == nil, let value = c["pace"]?.json {
                warning(value, JSONPath.appending(key: "pace", to: path), "pace is ignored: this place's leg follows no track",
                        hint: "add \"track\": \"ride.gpx\", or remove \"pace\"")
            }
            // "country" and "region" only narrow a lookup by name: beside coordinates they do nothing.
            if c["lat"] != nil, c["lon"] != nil {
                for key in ["country", "region"] {
                    guard let value = c[key]?.json else { continue }
                    warning(value, JSONPath.appending(key: key, to: path),
                            "\(key) is ignored: it narrows a lookup by name, and this place gives lat and lon",
                            hint: "remove \"\(key)\", or remove \"lat\" and \"lon\" to look the name up")
                }
            }
            if let deepest, place.zoom > deepest {
                let at = c["zoom"]?.json ?? c.json
                let source = scene.map == nil ? "the embedded map's data" : "the tile source's maxZoom"
                warning(at, JSONPath.appending(key: "zoom", to: path),
                        "\(place.name): zoom \(JSONText.number((place.zoom * 100).rounded() / 100)) is deeper than \(source) (\(JSONText.number(deepest))): "
                            + "the map will look coarse",
                        hint: scene.map == nil ? "zoom \(JSONText.number(deepest)) or less, or give \"map\": {\"tiles\": ...} (vector tiles: street level)"
                            : "zoom \(JSONText.number(deepest)) or less")
            }
        }
        if let map = scene.map, (map.attribution ?? "").trimmingCharacters(in: .whitespaces).isEmpty,
           let value = root["map"]?.json {
            warning(value, "map", "the tile map has no attribution: most tile licences require a credit",
                    hint: "add \"attribution\": \"© ...\" as the provider asks")
        }
    }

    /// Natural Earth's 1:10m coast holds to about zoom 7 (an automatic zoom goes no deeper); one level
    /// more still reads, with the towns; deeper, coasts turn into blobs and straight segments, and a
    /// scene asking for it is warned.
    static let embeddedMapAutomaticZoom = 7.0
    static let embeddedMapDeepestZoom = 8.0

    static func clock(_ seconds: Double) -> String {
        // Beyond any clock (dwells of 1e300 s add up past Int, or to infinity): in seconds.
        guard seconds < 1e9 else { return seconds.isFinite ? String(format: "%.3g s", seconds) : "more than 1.8e308 s" }
        let s = Int(seconds.rounded())
        return String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
    }
}

extension SceneError: LocalizedError {
    /// The same text as `description`, so `error.localizedDescription` reads well too.
    public var errorDescription: String? { description }
}

/// `readouts` (Readouts.swift).
extension SceneBuilder {
    /// Whether a route of the scene is coloured by a value (`colorBy` in `route`, `style.route` or a place's).
    static func colorsARoute(_ checked: Checked) -> Bool {
        checked["route"]?["colorBy"] != nil || checked["style"]?["route"]?["colorBy"] != nil
            || (checked["places"]?.elements ?? []).contains { $0?["route"]?["colorBy"] != nil }
    }

    /// `readouts` (their `units` are read with the route's, in `looks`): for a playback, or a place trip with legs that follow recordings; an item
    /// whose data the measured track lacks (no altitudes, no heart rate; on a place trip, every track leg)
    /// is a warning at its place in the list, and is not drawn.
    /// The long form (`{"mover": "Ben", "items": [...]}`) names the playback track they measure.
    mutating func readouts(_ given: Checked, _ scene: inout Scene) {
        let list = given["items"] ?? given
        let listPath = given["items"] == nil ? "readouts" : given.path(of: "items") ?? "readouts.items"
        let items = (list.elements ?? []).map { $0?.string.flatMap(ReadoutItem.init(rawValue:)) }
        guard scene.isPlayback || !scene.trackLegs.isEmpty else {
            checker.fail(given.json, "readouts", "readouts measure a recorded track, and the scene has no tracks and no track legs",
                         hint: "add \"tracks\": [ { \"file\": \"ride.gpx\" } ] or \"track\" on a place, or remove \"readouts\"")
            return
        }
        if let mover = given["mover"], let name = mover.string {
            let path = given.path(of: "mover") ?? "readouts.mover"
            guard scene.isPlayback else {
                checker.fail(mover.json, path, "mover names a playback's track, and the scene has no tracks",
                             hint: "remove \"mover\": a place trip's readouts measure its track legs")
                return
            }
            let names = scene.tracks.map(\.name)
            guard let i = names.firstIndex(of: name) else {
                let hint = EditDistance.nearest(to: name, among: names).map { "did you mean '\($0)'?" }
                    ?? "the tracks are named " + Wording.alternatives(names.map { "'\($0)'" })
                checker.fail(mover.json, path, "no track is named '\(name)'", hint: hint)
                return
            }
            scene.readoutMover = i
        }
        let geometries = scene.readoutGeometries
        let file = scene.isPlayback ? "track '\(scene.tracks[scene.readoutTrack].file)'" : "no track leg"
        for (k, item) in items.enumerated() {
            guard let item, let value = list.elements?[k]?.json else { continue }
            func warn(_ message: String, hint: String) {
                warnings.append(SceneError(file: checker.file, line: value.position.line, column: value.position.column,
                                           path: JSONPath.appending(index: k, to: listPath), message: message, hint: hint))
            }
            if scene.readouts.contains(item) {
                warn("\(item.rawValue) is listed twice: it is shown once", hint: "remove this one")
                continue
            }
            scene.readouts.append(item)
            if !geometries.contains(where: { item.isRecorded(in: $0) }) {
                let what = item == .profile ? "altitudes" : item.label.lowercased()
                warn("\(item.rawValue) is not shown: \(file) has \(scene.isPlayback ? "no " : "")\(what)",
                     hint: "use a recording that has them, or remove \"\(item.rawValue)\"")
            }
        }
    }
}

// MARK: - Photos along a track

extension SceneBuilder {
    /// `photos`: every JPEG of the folder (sorted by name) read by `tracks` (its EXIF) and placed on the
    /// photos' track, by its time (EXIF time, on UTC unless OffsetTimeOriginal says otherwise, else plus
    /// `timeOffset` when the photo states no offset of its own) or its GPS position (the nearest fix). A
    /// missing folder, one without a JPEG, or a photo whose EXIF libexif refuses is an error; a photo
    /// without EXIF (or with neither time nor position), without the time or the position it is placed
    /// by, outside the recording's span or farther than `TrackPhotos.farMetres` from the track, a warning
    /// naming the file, and the photo left out.
    mutating func photos(_ given: Checked, _ scene: Scene) -> TrackPhotos? {
        let folderValue = given["folder"] ?? given
        guard let folder = folderValue.string else { return nil }
        let folderPath = given["folder"] == nil ? "photos" : given.path(of: "folder") ?? "photos.folder"
        guard scene.isPlayback else {
            checker.fail(given.json, "photos", "photos are placed along a recording, and the scene has no tracks",
                         hint: "add \"tracks\": [ { \"file\": \"ride.gpx\" } ], or remove \"photos\"")
            return nil
        }
        var photos = TrackPhotos(folder: folder)
        if let v = given["by"]?.string.flatMap(TrackPhotos.Placing.init(rawValue:)) { photos.placing = v }
        if let v = given["timeOffset"]?.number { photos.timeOffset = v }
        let cameras = given["cameras"]?.elements ?? []
        photos.cameras = cameras.compactMap { c in
            guard let model = c?["model"]?.string, let offset = c?["timeOffset"]?.number else { return nil }
            return TrackPhotos.Camera(model: model, timeOffset: offset)
        }
        if let v = given["hold"]?.number { photos.hold = v }
        photos.track = scene.camera?.follow ?? 0
        if let mover = given["mover"], let name = mover.string {
            let names = scene.tracks.map(\.name)
            guard let i = names.firstIndex(of: name) else {
                let hint = EditDistance.nearest(to: name, among: names).map { "did you mean '\($0)'?" }
                    ?? "the tracks are named " + Wording.alternatives(names.map { "'\($0)'" })
                checker.fail(mover.json, given.path(of: "mover") ?? "photos.mover", "no track is named '\(name)'", hint: hint)
                return nil
            }
            photos.track = i
        }
        let track = scene.tracks[photos.track]
        guard confine(folder, folderValue.json, folderPath, what: "photos folder") else { return nil }
        let sceneURL = URL(fileURLWithPath: checker.file)
        let url = URL(fileURLWithPath: (folder as NSString).expandingTildeInPath, relativeTo: sceneURL.deletingLastPathComponent())
        let folderHint = "give a folder of JPEG photos, relative to the scene's folder"
        switch FileKind(path: url.path) {
        case .directory:
            break
        case .missing:
            checker.fail(folderValue.json, folderPath, "photos folder '\(folder)' not found", hint: folderHint)
            return nil
        case let kind:
            checker.fail(folderValue.json, folderPath, "photos folder '\(folder)' is \(kind.notAFile ?? "not a folder")", hint: folderHint)
            return nil
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
            .filter { ["jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) && !$0.hasPrefix(".") }
            .sorted()
        guard !names.isEmpty else {
            checker.fail(folderValue.json, folderPath, "photos folder '\(folder)' holds no JPEG photo (.jpg, .jpeg)",
                         hint: "put the trip's photos there, or name the folder that has them")
            return nil
        }
        guard let tracks else {
            checker.fail(folderValue.json, folderPath, "photos in '\(folder)' cannot be read here", hint: "use maptrip validate, plan or render")
            return nil
        }
        func warn(_ message: String, hint: String) {
            warnings.append(SceneError(file: checker.file, line: folderValue.json.position.line, column: folderValue.json.position.column,
                                       path: folderPath, message: message, hint: hint))
        }
        let span = track.geometry.start.map { start in
            let t0 = start.timeIntervalSince1970
            return t0...(t0 + track.duration)
        }
        // The cameras the photos name (EXIF Model), for a correction that matches none of them.
        var models: [String] = []
        defer {
            for (k, camera) in photos.cameras.enumerated() where !models.contains(where: camera.matches) {
                let value = cameras[k]?["model"]
                warnings.append(SceneError(
                    file: checker.file, line: value?.json.position.line ?? folderValue.json.position.line,
                    column: value?.json.position.column ?? folderValue.json.position.column,
                    path: value.flatMap { _ in given.path(of: "cameras") }.map { "\($0)[\(k)].model" } ?? folderPath,
                    message: "no photo in '\(folder)' was taken by camera '\(camera.model)': its correction changes nothing",
                    hint: models.isEmpty ? "the photos name no camera (EXIF Model)"
                        : "the photos' cameras are " + Wording.alternatives(models.map { "'\($0)'" })))
            }
        }
        for name in names {
            let file = (folder as NSString).appendingPathComponent(name)
            let meta: PhotoMetadata
            switch tracks.readPhoto(url.appendingPathComponent(name)) {
            case .success(let found):
                meta = found
            case .failure(let error):
                checker.fail(folderValue.json, folderPath, "photo '\(file)': its EXIF cannot be read (\(error.message))",
                             hint: "save it again from a photo editor with its metadata, or move it out of the folder")
                continue
            }
            if let camera = meta.camera, !models.contains(camera) { models.append(camera) }
            guard meta.utc != nil || meta.position != nil else {
                warn("photo '\(file)' is left out: its EXIF has no time or GPS position",
                     hint: "add DateTimeOriginal or GPSLatitude/GPSLongitude with a photo tool such as exiftool, or move it out of the folder")
                continue
            }
            switch photos.placing {
            case .time:
                guard let time = photos.time(of: meta) else {
                    warn("photo '\(file)' is left out: its EXIF has no DateTimeOriginal", hint: "use \"by\": \"position\" for photos with GPS, or move it out of the folder")
                    continue
                }
                let corrected = photos.cameras.contains { $0.matches(meta.camera) }
                guard let span, span.contains(time), let position = TrackPhotos.position(of: track.geometry, at: time) else {
                    let when = span.map { s in TrackPhotos.utcText(time) + " is outside the recording (" + TrackPhotos.utcText(s.lowerBound) + " to " + TrackPhotos.utcText(s.upperBound) + ")" }
                        ?? "the recording has no times"
                    warn("photo '\(file)' is left out: taken at \(when)",
                         hint: corrected ? "check the correction of camera '\(meta.camera ?? "")' in \"cameras\" (EXIF time - its offset from UTC + timeOffset = UTC)"
                             : meta.offset == nil ? "set \"timeOffset\" to the camera clock's error in seconds (EXIF time + timeOffset = UTC)"
                             : "its EXIF states its offset from UTC (OffsetTimeOriginal), which timeOffset does not change: correct its camera's clock with \"cameras\": [{\"model\": \"\(meta.camera ?? "its EXIF Model")\", \"timeOffset\": ...}]")
                    continue
                }
                photos.photos.append(TrackPhotos.Photo(file: file, time: time, position: position, orientation: meta.orientation))
            case .position:
                guard let at = meta.position else {
                    warn("photo '\(file)' is left out: its EXIF has no GPS position", hint: "use \"by\": \"time\", or move it out of the folder")
                    continue
                }
                let near = TrackPhotos.nearest(in: track.geometry, to: at)
                guard near.metres <= TrackPhotos.farMetres else {
                    warn("photo '\(file)' is left out: taken \(Int(near.metres.rounded())) m from track '\(track.file)'",
                         hint: "photos placed by position are kept within \(Int(TrackPhotos.farMetres)) m of the track")
                    continue
                }
                let start = track.geometry.start?.timeIntervalSince1970 ?? 0
                let time = start + (track.geometry.times?[near.index] ?? 0)
                photos.photos.append(TrackPhotos.Photo(file: file, time: time, position: track.geometry.points[near.index],
                                                       orientation: meta.orientation))
            }
        }
        // The order the mover passes them (ties: by name, as read).
        photos.photos = photos.photos.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        return photos
    }
}
