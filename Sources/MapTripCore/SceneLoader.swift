import Foundation

/// Reads and validates scene files. Every problem is a `SceneError` pointing at the offending value
/// (the key, for an unknown key; the enclosing object, for a missing one) with its JSON path.
public enum SceneLoader {
    /// Longest video a scene may describe.
    public static let maxDuration = 24.0 * 3600
    /// Most frames a scene may describe.
    public static let maxFrames = 10_000_000

    public static let sceneKeys = ["title", "dwell", "flight", "video", "map", "background", "audio", "places"]
    public static let audioKeys = ["file", "volume", "offset", "fadeOut", "loop"]
    public static let placeKeys = ["name", "lat", "lon", "dwell", "zoom", "flight"]
    public static let videoKeys = ["width", "height", "fps", "scale"]
    public static let mapKeys = ["tiles", "attribution", "tileSize", "minZoom", "maxZoom", "subdomains", "contact"]

    public static let videoSizeRange = 16...8192
    public static let fpsRange = 1...240
    public static let maxScale = 8.0
    public static let zoomRange = 0.0...22.0
    public static let tileZoomRange = 0...24

    public static func load(contentsOf url: URL) throws -> Scene {
        let file = url.isFileURL ? url.relativePath : url.absoluteString
        func failure(_ message: String, hint: String? = nil) -> SceneError {
            SceneError(file: file, line: 0, column: 0, path: "", message: message, hint: hint)
        }
        guard url.isFileURL else { throw failure("cannot read the scene: only local files are supported") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw failure("cannot read the scene: no such file")
        }
        guard !isDirectory.boolValue else {
            throw failure("cannot read the scene: it is a directory", hint: "pass the scene's .json file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.isReadableFile(atPath: url.path)
                ? error.localizedDescription : "permission denied"
            throw failure("cannot read the scene: \(reason)")
        }
        return try decode(data, file: file)
    }

    public static func decode(_ data: Data, file: String) throws -> Scene {
        let root = try JSONParser.parse(data, file: file)
        return try SceneDecoder(file: file).scene(from: root)
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
        ]
        let lower = key.lowercased()
        if let synonym = synonyms[lower], allowed.contains(synonym) { return synonym }
        var best: (key: String, distance: Int)?
        for candidate in allowed {
            let d = editDistance(lower, candidate.lowercased())
            if d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        guard let best else { return nil }
        let limit = min(key.count, best.key.count) <= 4 ? 1 : 2
        return best.distance <= limit ? best.key : nil
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent swaps.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var row = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            row[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, row) = (previous, row, previous2)
        }
        return previous[b.count]
    }
}

// MARK: - Decoding

/// Turns the parsed document into a `Scene`, checking every rule on the way.
private struct SceneDecoder {
    let file: String

    func error(at position: SourcePosition, path: String, _ message: String, hint: String? = nil) -> SceneError {
        SceneError(file: file, line: position.line, column: position.column, path: path, message: message, hint: hint)
    }

    func error(_ value: JSONValue, path: String, _ message: String, hint: String? = nil) -> SceneError {
        error(at: value.position, path: path, message, hint: hint)
    }

    func scene(from root: JSONValue) throws -> Scene {
        guard root.members != nil else {
            let hint = root.elements != nil ? "put the list under \"places\": { \"places\": [ ... ] }" : nil
            throw error(root, path: "", "a scene must be a JSON object, found \(root.typeDescription)", hint: hint)
        }
        let object = try ObjectReader(root, path: "", allowed: SceneLoader.sceneKeys, decoder: self,
                                      misplaced: Self.misplacedTopLevelKeys)
        let title = try object.optional("title") { try nonEmptyString($0, $1, what: "title") }
        let dwell = try object.optional("dwell") { try dwellValue($0, $1) } ?? Scene.defaultDwell
        let flight = try object.optional("flight") { try flightValue($0, $1) } ?? Scene.defaultFlight
        let video = try object.optional("video") { try self.video($0, $1) } ?? Video()
        let map = try object.optional("map") { try self.map($0, $1) }
        let background = try object.optional("background") { value, path in
            let s = try string(value, path)
            guard let b = Background(rawValue: s) else {
                throw error(value, path: path, "unknown background '\(s)'",
                            hint: "use \"transparent\" (no map, for overlaying), or remove the key for the map")
            }
            return b
        } ?? .map
        let audio = try object.optional("audio") { try self.audio($0, $1) }

        let (placesValue, placesPath) = try object.required(
            "places", hint: "add \"places\": [ { \"name\": \"Seoul\", \"lat\": 37.5665, \"lon\": 126.978 } ]")
        guard let elements = placesValue.elements else {
            throw typeError(placesValue, placesPath, expected: "an array")
        }
        guard !elements.isEmpty else {
            throw error(placesValue, path: placesPath, "places must list at least one place",
                        hint: "add { \"lat\": ..., \"lon\": ... }")
        }
        let places = try elements.enumerated().map { i, element in
            try place(element, JSONPath.appending(index: i, to: placesPath), number: i + 1, sceneDwell: dwell)
        }
        let scene = Scene(title: title, dwell: dwell, flight: flight, video: video, places: places, map: map,
                          background: background, audio: audio)
        try checkTotals(scene, placesValue: placesValue, placesPath: placesPath, object: object)
        return scene
    }

    /// Top-level keys that belong in a section, for hints.
    static let misplacedTopLevelKeys = [
        "width": "video", "height": "video", "fps": "video", "scale": "video",
        "tiles": "map", "attribution": "map", "tileSize": "map", "minZoom": "map", "maxZoom": "map",
        "subdomains": "map", "contact": "map",
        "lat": "a place in \"places\"", "lon": "a place in \"places\"",
        "zoom": "a place in \"places\"",
    ]

    // MARK: Sections

    func place(_ value: JSONValue, _ path: String, number: Int, sceneDwell: Double) throws -> Place {
        guard value.members != nil else {
            throw typeError(value, path, expected: "an object", hint: "a place is { \"lat\": ..., \"lon\": ... }")
        }
        let object = try ObjectReader(value, path: path, allowed: SceneLoader.placeKeys, decoder: self)
        let name = try object.optional("name") { try nonEmptyString($0, $1, what: "name") } ?? "Place \(number)"
        let (latValue, latPath) = try object.required("lat")
        let (lonValue, lonPath) = try object.required("lon")
        let lat = try self.number(latValue, latPath)
        let lon = try self.number(lonValue, lonPath)
        let swapHint = abs(lat) <= 180 && abs(lon) <= 90 ? "are lat and lon swapped?" : nil
        guard (-90...90).contains(lat) else {
            throw error(latValue, path: latPath, "latitude \(latValue.number!.literal) is outside [-90, 90]",
                        hint: swapHint)
        }
        guard (-180...180).contains(lon) else {
            throw error(lonValue, path: lonPath, "longitude \(lonValue.number!.literal) is outside [-180, 180]")
        }
        let dwell = try object.optional("dwell") { try dwellValue($0, $1) } ?? sceneDwell
        let zoom = try object.optional("zoom") { value, path in
            let zoom = try self.number(value, path)
            guard SceneLoader.zoomRange.contains(zoom) else {
                throw error(value, path: path, "zoom \(value.number!.literal) is outside [0, 22]")
            }
            return zoom
        } ?? Place.defaultZoom
        let flight = try object.optional("flight") { try flightValue($0, $1) }
        return Place(name: name, position: LonLat(lon: lon, lat: lat), dwell: dwell, zoom: zoom, flight: flight)
    }

    func video(_ value: JSONValue, _ path: String) throws -> Video {
        guard value.members != nil else { throw typeError(value, path, expected: "an object") }
        let object = try ObjectReader(value, path: path, allowed: SceneLoader.videoKeys, decoder: self)
        var video = Video()
        if let width = try object.optional("width", { try frameSide($0, $1, what: "width") }) {
            video.width = width
        }
        if let height = try object.optional("height", { try frameSide($0, $1, what: "height") }) {
            video.height = height
        }
        if let fps = try object.optional("fps", { value, path in
            let fps = try integer(value, path)
            guard SceneLoader.fpsRange.contains(fps) else {
                throw error(value, path: path, "fps \(fps) is outside [1, 240]")
            }
            return fps
        }) {
            video.fps = fps
        }
        if let scale = try object.optional("scale", { value, path in
            let scale = try number(value, path)
            guard scale > 0, scale <= SceneLoader.maxScale else {
                throw error(value, path: path,
                            "scale must be greater than 0 and at most 8, found \(value.number!.literal)",
                            hint: "scale is the pixel ratio: 2 renders the view of 1920x1080 at 3840x2160")
            }
            return scale
        }) {
            video.scale = scale
        }
        return video
    }

    /// A frame width or height: an even integer in [16, 8192].
    func frameSide(_ value: JSONValue, _ path: String, what: String) throws -> Int {
        let n = try integer(value, path)
        let range = SceneLoader.videoSizeRange
        guard range.contains(n) else {
            throw error(value, path: path, "\(what) \(n) is outside [\(range.lowerBound), \(range.upperBound)]")
        }
        guard n % 2 == 0 else {
            let options = [n - 1, n + 1].filter(range.contains).map(String.init).joined(separator: " or ")
            throw error(value, path: path, "\(what) \(n) is odd; H.264 with 4:2:0 chroma needs even frame sizes",
                        hint: "use \(options)")
        }
        return n
    }

    func map(_ value: JSONValue, _ path: String) throws -> MapSource {
        guard value.members != nil else { throw typeError(value, path, expected: "an object") }
        let object = try ObjectReader(value, path: path, allowed: SceneLoader.mapKeys, decoder: self)
        let (tilesValue, tilesPath) = try object.required(
            "tiles", hint: "add \"tiles\": \"https://tile.example.org/{z}/{x}/{y}.png\" (or a folder or .mbtiles file)")
        var map = MapSource(tiles: try nonEmptyString(tilesValue, tilesPath, what: "tiles"))
        map.attribution = try object.optional("attribution") { try string($0, $1) }
        map.contact = try object.optional("contact") { try string($0, $1) }
        if let tileSize = try object.optional("tileSize", { value, path in
            let size = try integer(value, path)
            guard size == 256 || size == 512 else {
                throw error(value, path: path, "tileSize must be 256 or 512, found \(size)")
            }
            return size
        }) {
            map.tileSize = tileSize
        }
        func tileZoom(_ value: JSONValue, _ path: String, what: String) throws -> Int {
            let zoom = try integer(value, path)
            let range = SceneLoader.tileZoomRange
            guard range.contains(zoom) else {
                throw error(value, path: path, "\(what) \(zoom) is outside [\(range.lowerBound), \(range.upperBound)]")
            }
            return zoom
        }
        map.minZoom = try object.optional("minZoom") { try tileZoom($0, $1, what: "minZoom") }
        map.maxZoom = try object.optional("maxZoom") { try tileZoom($0, $1, what: "maxZoom") }
        if let minZoom = map.minZoom, let maxZoom = map.maxZoom, minZoom > maxZoom {
            let (value, path) = object.member("minZoom")!
            throw error(value, path: path, "minZoom \(minZoom) is greater than maxZoom \(maxZoom)")
        }
        if let subdomains = try object.optional("subdomains", { value, path in
            guard let elements = value.elements else { throw typeError(value, path, expected: "an array of strings") }
            guard !elements.isEmpty else {
                throw error(value, path: path, "subdomains must not be empty",
                            hint: "list them, e.g. [\"a\", \"b\", \"c\"], or remove the key")
            }
            return try elements.enumerated().map { i, element in
                try nonEmptyString(element, JSONPath.appending(index: i, to: path), what: "a subdomain")
            }
        }) {
            map.subdomains = subdomains
        }
        return map
    }

    func audio(_ value: JSONValue, _ path: String) throws -> SceneAudio {
        if let file = value.string {  // "audio": "music.mp3"
            guard !file.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw error(value, path: path, "audio must not be empty")
            }
            return SceneAudio(file: file)
        }
        guard value.members != nil else { throw typeError(value, path, expected: "an object or a file name") }
        let object = try ObjectReader(value, path: path, allowed: SceneLoader.audioKeys, decoder: self)
        let (fileValue, filePath) = try object.required("file", hint: "add \"file\": \"music.mp3\"")
        var audio = SceneAudio(file: try nonEmptyString(fileValue, filePath, what: "file"))
        if let volume = try object.optional("volume", { value, path in
            let v = try number(value, path)
            guard (0...4).contains(v) else {
                throw error(value, path: path, "volume \(value.number!.literal) is outside [0, 4]",
                            hint: "1 is the file's own level, 0.5 half as loud")
            }
            return v
        }) { audio.volume = volume }
        if let offset = try object.optional("offset", { value, path in
            let v = try number(value, path)
            guard v >= 0 else { throw error(value, path: path, "offset must be 0 seconds or more") }
            return v
        }) { audio.offset = offset }
        if let fade = try object.optional("fadeOut", { value, path in
            let v = try number(value, path)
            guard v >= 0 else { throw error(value, path: path, "fadeOut must be 0 seconds or more") }
            return v
        }) { audio.fadeOut = fade }
        if let loop = try object.optional("loop", { value, path in
            guard let b = value.bool else { throw typeError(value, path, expected: "true or false") }
            return b
        }) { audio.loop = loop }
        return audio
    }

    /// Rejects scenes whose length is absurd (or too short for a single frame).
    func checkTotals(_ scene: Scene, placesValue: JSONValue, placesPath: String, object: ObjectReader) throws {
        let total = scene.places.reduce(0) { $0 + $1.dwell }
        guard total <= SceneLoader.maxDuration else {
            throw error(placesValue, path: placesPath,
                        "the places' dwells add up to \(Self.clock(total)), over the 24-hour limit")
        }
        let frames = FrameGrid(dwells: scene.places.map(\.dwell), fps: scene.video.fps).frameCount
        let (fpsValue, fpsPath) = object.member("video").flatMap { video, path in
            video["fps"].map { ($0, JSONPath.appending(key: "fps", to: path)) }
        } ?? (placesValue, placesPath)
        guard frames <= SceneLoader.maxFrames else {
            throw error(fpsValue, path: fpsPath,
                        "the video would have \(frames) frames, over the limit of \(SceneLoader.maxFrames)",
                        hint: "lower the frame rate or shorten the dwells")
        }
        guard frames >= 1 else {
            throw error(placesValue, path: placesPath, "the video would be shorter than one frame",
                        hint: "lengthen the dwells")
        }
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
    }

    // MARK: Values

    func typeError(_ value: JSONValue, _ path: String, expected: String, hint: String? = nil) -> SceneError {
        var hint = hint
        if value.isNull {
            hint = "remove the key to use the default"
        } else if expected.hasPrefix("a number") || expected.hasPrefix("an integer"),
                  let s = value.string, Double(s.trimmingCharacters(in: .whitespaces)) != nil {
            hint = "write the number without quotes"
        }
        return error(value, path: path, "expected \(expected), found \(value.typeDescription)", hint: hint)
    }

    func number(_ value: JSONValue, _ path: String) throws -> Double {
        guard let n = value.number else { throw typeError(value, path, expected: "a number") }
        return n.value
    }

    func integer(_ value: JSONValue, _ path: String) throws -> Int {
        guard let n = value.number else { throw typeError(value, path, expected: "an integer") }
        guard let i = n.integerValue else {
            throw error(value, path: path, "expected an integer, found \(n.literal)")
        }
        return i
    }

    func string(_ value: JSONValue, _ path: String) throws -> String {
        guard let s = value.string else { throw typeError(value, path, expected: "a string") }
        return s
    }

    func nonEmptyString(_ value: JSONValue, _ path: String, what: String) throws -> String {
        let s = try string(value, path)
        guard !s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw error(value, path: path, "\(what) must not be empty")
        }
        return s
    }

    func dwellValue(_ value: JSONValue, _ path: String) throws -> Double {
        let dwell = try number(value, path)
        guard dwell > 0 else {
            throw error(value, path: path, "dwell must be greater than 0 seconds, found \(value.number!.literal)")
        }
        return dwell
    }

    func flightValue(_ value: JSONValue, _ path: String) throws -> Double {
        let flight = try number(value, path)
        guard flight >= 0 else {
            throw error(value, path: path, "flight must be 0 seconds or more, found \(value.number!.literal)",
                        hint: "0 jumps straight to the place")
        }
        return flight
    }
}

/// An object being decoded: its members by key, checked against the allowed keys up front.
private struct ObjectReader {
    let value: JSONValue
    let path: String
    let decoder: SceneDecoder
    private let members: [String: JSONMember]

    init(_ value: JSONValue, path: String, allowed: [String], decoder: SceneDecoder,
         misplaced: [String: String] = [:]) throws {
        let list = value.members ?? []
        for member in list where !allowed.contains(member.key) {
            let hint: String
            if let section = misplaced[member.key] {
                hint = "'\(member.key)' belongs in \(section)"
            } else if let suggestion = SceneLoader.suggestion(for: member.key, among: allowed) {
                hint = "did you mean '\(suggestion)'?"
            } else {
                hint = "allowed keys here: " + allowed.joined(separator: ", ")
            }
            throw decoder.error(at: member.keyPosition, path: JSONPath.appending(key: member.key, to: path),
                                "unknown key '\(member.key)'", hint: hint)
        }
        self.value = value
        self.path = path
        self.decoder = decoder
        self.members = Dictionary(list.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func member(_ key: String) -> (value: JSONValue, path: String)? {
        members[key].map { ($0.value, JSONPath.appending(key: key, to: path)) }
    }

    func required(_ key: String, hint: String? = nil) throws -> (value: JSONValue, path: String) {
        guard let member = member(key) else {
            throw decoder.error(value, path: path, "missing required key '\(key)'", hint: hint)
        }
        return member
    }

    func optional<T>(_ key: String, _ decode: (JSONValue, String) throws -> T) throws -> T? {
        guard let (value, path) = member(key) else { return nil }
        return try decode(value, path)
    }
}

extension SceneError: LocalizedError {
    /// The same text as `description`, so `error.localizedDescription` reads well too.
    public var errorDescription: String? { description }
}
