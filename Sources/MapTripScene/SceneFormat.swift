import Foundation
import MapTripSupport

/// The scene file format, described once: every key with its type, range, default and one line of
/// documentation. The loader's checks (`SceneChecker`), the JSON Schema (`SceneSchema`) and the
/// README's table of keys all come from this description.
public enum SceneFormat {
    /// A rule on a number beyond its type: what passes, the message when it does not, and the same
    /// rule in JSON Schema's words.
    public struct Rule: Sendable {
        public let accepts: @Sendable (Double) -> Bool
        /// The message for a value that fails (given the number as written).
        public let message: @Sendable (String) -> String
        public let hint: String?
        /// JSON Schema keywords (`minimum`, `maximum`, `exclusiveMinimum`, `enum`).
        public let schema: [String: Double]
        public let schemaEnum: [Double]?
        /// A short human form for the README ("16-8192", "> 0").
        public let summary: String
        /// What the number counts ("seconds"), where a rule says.
        public var unit: String? = nil

        /// `noun L is outside [a, b]`.
        public static func within(_ a: Double, _ b: Double, noun: String, hint: String? = nil) -> Rule {
            Rule(accepts: { (a...b).contains($0) },
                 message: { "\(noun) \($0) is outside [\(format(a)), \(format(b))]" }, hint: hint,
                 schema: ["minimum": a, "maximum": b], schemaEnum: nil, summary: "\(format(a)) to \(format(b))")
        }

        /// Greater than 0.
        public static func positive(noun: String, unit: String) -> Rule {
            Rule(accepts: { $0 > 0 }, message: { "\(noun) must be greater than 0 \(unit), found \($0)" }, hint: nil,
                 schema: ["exclusiveMinimum": 0], schemaEnum: nil, summary: "> 0", unit: unit)
        }

        /// 0 or more.
        public static func nonNegative(noun: String, unit: String, hint: String? = nil) -> Rule {
            Rule(accepts: { $0 >= 0 }, message: { "\(noun) must be 0 \(unit) or more, found \($0)" }, hint: hint,
                 schema: ["minimum": 0], schemaEnum: nil, summary: ">= 0", unit: unit)
        }

        /// Greater than 0 and at most `b`.
        public static func positive(atMost b: Double, noun: String, hint: String? = nil) -> Rule {
            Rule(accepts: { $0 > 0 && $0 <= b },
                 message: { "\(noun) must be greater than 0 and at most \(format(b)), found \($0)" }, hint: hint,
                 schema: ["exclusiveMinimum": 0, "maximum": b], schemaEnum: nil, summary: "> 0, <= \(format(b))")
        }

        /// One of a few values.
        public static func oneOf(_ values: [Double], noun: String) -> Rule {
            let words = Wording.alternatives(values.map(format))
            return Rule(accepts: { values.contains($0) }, message: { "\(noun) must be \(words), found \($0)" },
                        hint: nil, schema: [:], schemaEnum: values, summary: words)
        }

        static func format(_ x: Double) -> String { JSONText.number(x) }

        /// A number of this rule's unit written as text ("3s", "1.5 sec", "500 ms", "2 min", "0:05"),
        /// for the hint that says what to write instead; nil for anything else, or where the rule does
        /// not count seconds.
        func seconds(inText text: String) -> Double? {
            unit == "seconds" ? TimeText.seconds(in: text) : nil
        }
    }

    /// What a key holds.
    public indirect enum Kind: Sendable {
        /// `noun` names it in "NOUN must not be empty".
        case string(nonEmpty: Bool, noun: String)
        case number(Rule?)
        /// `even`: frame sides (4:2:0 video).
        case integer(Rule?, even: Bool)
        case boolean
        /// One of these strings.
        case choice([String], noun: String, hint: String)
        case object(Object)
        /// A list; `nonEmpty` gives the message and hint when it is empty; `what` names its items in
        /// type errors ("an array of strings").
        case array(of: Kind, nonEmpty: (message: String, hint: String)?, what: String, itemHint: String?)
        /// A file name, or the object for the long form (`"audio": "music.mp3"`).
        case stringOr(Object, noun: String)
        /// A colour: `#rrggbb` or `#rrggbbaa`.
        case color
        /// A number, or one of a few words (`"flight": "auto"`).
        case numberOr([String], Rule?, noun: String)
        /// `true`, `false`, one of a few words, or the object for the long form (`"scaleBar": true`,
        /// `"northArrow": "auto"`).
        case switchOr(Object, words: [String], noun: String)
        /// A list (an `array` kind), or the object for the long form (`"readouts": {"mover": ..., "items": [...]}`).
        case arrayOr(Kind, Object)
    }

    /// One key of an object.
    public struct Field: Sendable {
        public let key: String
        public let kind: Kind
        public let required: Bool
        /// A hint when the key is missing.
        public let missingHint: String?
        /// The default, as the README and the schema show it (nil: none).
        public let defaultValue: DefaultValue?
        /// One line of documentation.
        public let doc: String

        public init(_ key: String, _ kind: Kind, required: Bool = false, missingHint: String? = nil,
                    default defaultValue: DefaultValue? = nil, _ doc: String) {
            self.key = key
            self.kind = kind
            self.required = required
            self.missingHint = missingHint
            self.defaultValue = defaultValue
            self.doc = doc
        }
    }

    /// A default: a JSON value for the schema, and how the README says it.
    public struct DefaultValue: Sendable {
        public let json: JSONDefault
        public let text: String

        public static func number(_ x: Double, _ text: String? = nil) -> DefaultValue {
            DefaultValue(json: .number(x), text: text ?? Rule.format(x))
        }
        public static func string(_ s: String, _ text: String? = nil) -> DefaultValue {
            DefaultValue(json: .string(s), text: text ?? s)
        }
        public static func bool(_ b: Bool) -> DefaultValue { DefaultValue(json: .bool(b), text: b ? "true" : "false") }
        /// Said in words only (no JSON default).
        public static func words(_ text: String) -> DefaultValue { DefaultValue(json: .none, text: text) }
    }

    public enum JSONDefault: Sendable {
        case number(Double)
        case string(String)
        case bool(Bool)
        case none
    }

    /// A rule across several keys of one object.
    public enum Constraint: Sendable {
        /// Given together or not at all (`lat` and `lon`).
        case together([String])
        /// At least one of these sets of keys is given (coordinates, or a name to look up).
        case anyOf([[String]])
    }

    /// An object: its keys (in the order the README lists them) and keys that belong elsewhere.
    public struct Object: Sendable {
        public let name: String
        public let fields: [Field]
        /// Keys that are not allowed here but belong in another section, for hints.
        public let misplaced: [String: String]
        /// The hint when the value is not an object.
        public let typeHint: String?
        /// Rules across keys (checked by the loader when it builds the value; stated in the schema).
        public let constraints: [Constraint]

        public init(_ name: String, _ fields: [Field], misplaced: [String: String] = [:], typeHint: String? = nil,
                    constraints: [Constraint] = []) {
            self.name = name
            self.fields = fields
            self.misplaced = misplaced
            self.typeHint = typeHint
            self.constraints = constraints
        }

        public var keys: [String] { fields.map(\.key) }
        public func field(_ key: String) -> Field? { fields.first { $0.key == key } }
    }

    // MARK: The description

    public static let maxDuration = 24.0 * 3600
    public static let maxFrames = 10_000_000
    public static let videoSizeRange = 16...8192
    public static let fpsRange = 1...240
    public static let maxScale = 8.0
    public static let minScale = 0.1
    public static let zoomRange = 0.0...22.0
    public static let tileZoomRange = 0...24

    static let dwellRule = Rule.positive(noun: "dwell", unit: "seconds")
    static let flightRule = Rule.nonNegative(noun: "flight", unit: "seconds", hint: "0 jumps straight to the place")

    public static let video = Object("video", [
        Field("width", .integer(.within(16, 8192, noun: "width"), even: true), default: .number(1920),
              "frame width in pixels, even"),
        Field("height", .integer(.within(16, 8192, noun: "height"), even: true), default: .number(1080),
              "frame height in pixels, even"),
        Field("preset", .choice(VideoPreset.allCases.map(\.rawValue), noun: "video preset",
                                hint: "use " + VideoPreset.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")),
              "a named frame shape: " + VideoPreset.allCases.map { "`\($0.rawValue)` \($0.width)x\($0.height)" }
                .joined(separator: ", ") + "; width and height override it"),
        Field("fps", .integer(.within(1, 240, noun: "fps"), even: false), default: .number(30), "frames per second"),
        // A scale of 5e-324 made the view 10^323 frames wide (a crash): a tenth is the least.
        Field("scale", .number(.within(minScale, maxScale, noun: "scale",
                                       hint: "scale is the pixel ratio: 2 renders the view of 1920x1080 at 3840x2160")),
              default: .number(1), "pixel ratio: 2 renders 3840x2160 with the view of 1920x1080"),
        Field("safeZone", .choice(SafeZone.allCases.map(\.rawValue), noun: "safe zone",
                                  hint: "use " + SafeZone.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")),
              default: .words("standard"),
              "what titles, captions, labels and the counter keep clear of: `standard` (5% in from each edge), "
                + "or a platform's interface over a phone video: `reels`, `shorts`, `tiktok`, `social` (all three)"),
    ])

    public static let map = Object("map", [
        Field("tiles", .string(nonEmpty: true, noun: "tiles"), default: .words("the embedded map"),
              "raster or vector tiles: an XYZ URL template, a tile folder, an .mbtiles or PMTiles file (below)"),
        Field("style", .string(nonEmpty: true, noun: "style"), default: .words("the theme's"),
              "how vector tiles are drawn: a MapLibre GL style JSON file, or a theme (`light`, `dark`, `atlas`)"),
        Field("projection", .string(nonEmpty: true, noun: "projection"), default: .string("EPSG:3857"),
              "`globe` (a turning globe), or any CRS or projection PROJ knows: `EPSG:3035`, `ESRI:54030`, `+proj=robin`, ..."),
        Field("graticule", .number(.within(0.1, 90, noun: "graticule",
                                           hint: "degrees between lines: 10 draws one every 10 degrees; 0.1 is the finest")),
              "degrees between meridians and parallels drawn over the map (none without it)"),
        Field("towns", .boolean, default: .bool(true),
              "the embedded map names the towns around the trip on close-ups (GeoNames); `false`: none"),
        Field("attribution", .string(nonEmpty: false, noun: "attribution"),
              "the map's credit, drawn bottom-right"),
        Field("contact", .string(nonEmpty: false, noun: "contact"),
              "an e-mail or URL for the User-Agent sent to tile servers"),
        Field("tileSize", .integer(.oneOf([256, 512], noun: "tileSize"), even: false), default: .number(256),
              "tile size in pixels"),
        Field("minZoom", .integer(.within(0, 24, noun: "minZoom"), even: false), "the source's shallowest zoom level"),
        Field("maxZoom", .integer(.within(0, 24, noun: "maxZoom"), even: false), "the source's deepest zoom level"),
        Field("subdomains", .array(of: .string(nonEmpty: true, noun: "a subdomain"),
                                   nonEmpty: ("subdomains must not be empty",
                                              "list them, e.g. [\"a\", \"b\", \"c\"], or remove the key"),
                                   what: "an array of strings", itemHint: nil),
              default: .words("a, b, c"), "values for `{s}` in a URL template"),
    ])

    public static let audio = Object("audio", [
        Field("file", .string(nonEmpty: true, noun: "file"), required: true, missingHint: "add \"file\": \"music.mp3\"",
              "any audio file libavformat reads, relative to the scene"),
        Field("volume", .number(.within(0, 4, noun: "volume", hint: "1 is the file's own level, 0.5 half as loud")),
              default: .number(1), "gain: 1 is the file's own level"),
        Field("offset", .number(.nonNegative(noun: "offset", unit: "seconds")), default: .number(0),
              "seconds into the file where the sound starts"),
        Field("fadeOut", .number(.nonNegative(noun: "fadeOut", unit: "seconds")), default: .number(1.5),
              "seconds of fade-out at the end"),
        Field("loop", .boolean, default: .bool(false), "repeat a file shorter than the video (else silence follows)"),
    ])

    public static let duck = Object("duck", [
        Field("gain", .number(.within(-60, 0, noun: "duck gain", hint: "decibels: -12 is a quarter of the amplitude, 0 no ducking")),
              default: .number(Voices.defaultDuckGain), "decibels the music drops by under a voice"),
        Field("attack", .number(.within(0, 10, noun: "attack", hint: "seconds, e.g. 0.25")),
              default: .number(Voices.defaultAttack), "seconds before the voice over which the music goes down (linearly in dB)"),
        Field("release", .number(.within(0, 10, noun: "release", hint: "seconds, e.g. 0.5")),
              default: .number(Voices.defaultRelease), "seconds after the voice over which the music comes back"),
    ])

    public static let voices = Object("voices", [
        Field("volume", .number(.within(0, 4, noun: "volume", hint: "1 is the files' own level, 0.5 half as loud")),
              default: .number(1), "gain of every place's voice: 1 is the file's own level"),
        Field("duck", .object(duck), "how the music ducks under a voice"),
        Field("extendRests", .boolean, default: .bool(false),
              "a rest shorter than its voice is lengthened to hold it (its dwell grows; `plan` shows it); false: `validate` reports it as an error"),
    ])

    static let positiveWidth = Rule.positive(atMost: 100, noun: "width")
    static let dashes = Kind.array(of: .number(.positive(atMost: 1000, noun: "a dash length")), nonEmpty: nil,
                                   what: "an array of numbers", itemHint: nil)

    public static let travelled = Object("travelled", [
        Field("color", .color, default: .words("the line's"), "the colour of a leg once the camera has moved on"),
    ])

    public static let route = Object("route", [
        Field("path", .choice(RouteStyle.Path.allCases.map(\.rawValue), noun: "route path",
                              hint: "use \"geodesic\" (great circle), \"straight\" or \"none\""),
              default: .string("geodesic"), "the leg's line: the great circle, a straight line on the map, or none"),
        Field("color", .color, default: .string("#e4572e"), "the line's colour"),
        Field("width", .number(positiveWidth), default: .number(4), "the line's width in layout units"),
        Field("dash", dashes, default: .words("solid"), "dash and gap lengths in layout units, e.g. [8, 4]"),
        Field("outline", .color, default: .string("#ffffff"), "the casing under the line (a transparent colour: none)"),
        Field("travelled", .object(travelled), "the style of legs already travelled"),
        Field("colorBy", .choice(RouteColoring.Quantity.allCases.map(\.rawValue), noun: "colorBy",
                                 hint: "use \"speed\", \"elevation\" or \"gradient\""),
              "a line that follows a recording (a mover's, a track leg's) coloured by the value along it, with a legend"),
        Field("palette", .choice(RoutePalette.allCases.map(\.rawValue), noun: "palette",
                                 hint: "use \"viridis\", \"magma\" or \"redBlue\""),
              default: .words("`viridis`; `redBlue` for gradient"), "the colours of `colorBy`, low to high"),
        Field("range", .array(of: .number(nil), nonEmpty: ("range must be [min, max]", "give two numbers, such as [0, 40]"),
                              what: "an array of two numbers", itemHint: nil),
              default: .words("the recording's 2nd to 98th percentile"),
              "the values at the palette's ends, [min, max], in the scene's `units` (km/h or mph, m or ft, %)"),
    ])

    public static let privacyZone = Object("privacyZone", [
        Field("lat", .number(.within(-90, 90, noun: "latitude")), required: true, missingHint: "add \"lat\": ...",
              "the centre's latitude in degrees"),
        Field("lon", .number(.within(-180, 180, noun: "longitude")), required: true, missingHint: "add \"lon\": ...",
              "the centre's longitude in degrees"),
        Field("radius", .number(.positive(atMost: 100_000, noun: "radius", hint: "metres, such as 500")), required: true,
              missingHint: "add \"radius\": 500 (metres)", "metres around the centre inside which nothing of a route is drawn"),
    ], typeHint: "a privacy zone is { \"lat\": ..., \"lon\": ..., \"radius\": 500 }")

    public static let end = Object("end", [
        Field("title", .string(nonEmpty: true, noun: "end title"), required: true,
              missingHint: "add \"title\": \"See you\"", "the end card's title"),
        Field("subtitle", .string(nonEmpty: false, noun: "subtitle"), "a smaller line under it"),
    ])

    static func stroke(_ name: String) -> Object {
        Object(name, [
            Field("color", .color, "line colour"),
            Field("width", .number(positiveWidth), "width in layout units"),
            Field("dash", dashes, "dash and gap lengths in layout units"),
        ])
    }

    static let label = Object("label", [
        Field("color", .color, "text colour"),
        Field("halo", .color, "the halo around the text"),
        Field("size", .number(.positive(atMost: 500, noun: "size")), "text size in layout units"),
    ])

    static let card = Object("card", [
        Field("color", .color, "text colour"),
        Field("background", .color, "the card's colour"),
        Field("size", .number(.positive(atMost: 500, noun: "size")), "text size in layout units"),
    ])

    public static let style = Object("style", [
        Field("theme", .choice(Style.themes, noun: "theme", hint: "use \"light\", \"dark\" or \"atlas\""),
              default: .string("light"), "the ready theme to start from (Assets/themes)"),
        Field("sea", .color, "the sea's colour"),
        Field("land", .color, "the land's colour"),
        Field("lakes", .color, "lakes' colour"),
        Field("borders", .object(stroke("borders")), "country borders"),
        Field("provinces", .object(stroke("provinces")), "province and state lines"),
        Field("font", .string(nonEmpty: true, noun: "font"), "the font family of every text"),
        Field("pin", .color, "pins' colour"),
        Field("currentPin", .color, "the colour of the pin the camera is on"),
        Field("label", .object(label), "place names"),
        Field("currentLabel", .object(label), "the name of the place the camera is on"),
        Field("caption", .object(card), "captions and the distance counter"),
        Field("card", .object(card), "the title and end cards"),
        Field("route", .object(route), "route defaults"),
        Field("space", .color, "around the globe"),
        Field("atmosphere", .color, "the glow at the globe's edge"),
        Field("graticule", .object(stroke("graticule")), "meridians and parallels (with `map.graticule`)"),
        Field("polar", .color, "where tiles end, beyond 85.05 degrees north and south"),
    ])

    public static let place = Object("place", [
        Field("name", .string(nonEmpty: true, noun: "name"), default: .words("`Place N`"),
              "label (any script); without lat/lon, the place is looked up by this name"),
        Field("lat", .number(.within(-90, 90, noun: "latitude")), "latitude in degrees (with lon; wins over the name)"),
        Field("lon", .number(.within(-180, 180, noun: "longitude")), "longitude in degrees (with lat)"),
        Field("country", .string(nonEmpty: true, noun: "country"),
              "narrows a lookup by name: ISO code (`FR`) or the country's name"),
        Field("region", .string(nonEmpty: true, noun: "region"),
              "narrows it further, to a state, province or nation: its name or abbreviation (`Illinois`, `IL`, `Ontario`, `ON`, `Scotland`) in the US, Canada, Australia and the UK, or GeoNames' code elsewhere (the error for an ambiguous name lists them)"),
        Field("dwell", .number(dwellRule), default: .words("the scene's"), "seconds this place holds the screen"),
        Field("zoom", .number(.within(0, 22, noun: "zoom")), default: .words("automatic"),
              "web-map zoom (the world is 256 x 2^zoom pixels wide); without zoom or span, one that frames the place and its neighbours"),
        Field("span", .number(.positive(atMost: 40000, noun: "span")),
              "kilometres visible across the frame's shorter side (instead of zoom)"),
        Field("flight", .numberOr(["auto"], flightRule, noun: "flight"), default: .words("the scene's"),
              "seconds of the flight into this place, or `auto` (longer legs take longer)"),
        Field("curve", .number(.positive(atMost: 10, noun: "curve", hint: "1.42 is the default; lower is flatter")),
              default: .number(1.42), "the flight's arc (van Wijk's rho): lower is flatter, higher zooms out further"),
        Field("route", .object(route), default: .words("the scene's"), "the line of the leg arriving here"),
        Field("vehicle", .string(nonEmpty: true, noun: "vehicle"), default: .words("the scene's"),
              "what travels the leg arriving here (as the scene's `vehicle`)"),
        Field("caption", .string(nonEmpty: true, noun: "caption"), "a lower-third card while the camera rests here"),
        Field("photo", .string(nonEmpty: true, noun: "photo"),
              "a PNG, JPEG or WebP shown on a card while the camera rests here, relative to the scene"),
        Field("clip", .string(nonEmpty: true, noun: "clip"),
              "a video (any format libavformat reads, relative to the scene) played on the card where a photo goes while the camera rests here; a clip shorter than the rest holds its last frame"),
        Field("from", .number(.nonNegative(noun: "from", unit: "seconds")), default: .number(0),
              "seconds into the clip shown as the rest starts"),
        Field("muted", .boolean, default: .bool(true), "the clip's sound is left out; `false` mixes it in at `volume`"),
        Field("volume", .number(.within(0, 4, noun: "volume", hint: "1 is the clip's own level, 0.5 half as loud")),
              default: .number(1), "the clip's gain when not muted: 1 is its own level"),
        Field("bearing", .number(.within(-360, 360, noun: "bearing")), default: .number(0),
              "degrees clockwise from north that point up while the camera rests here; flights turn the short way"),
        Field("track", .string(nonEmpty: true, noun: "track"),
              "a recording (GPX, TCX, FIT, KML, KMZ, GeoJSON, relative to the scene) the leg arriving here follows; without lat/lon the place is its last point"),
        Field("voice", .string(nonEmpty: true, noun: "voice"),
              "a sound file (any libavformat reads, relative to the scene) played when the camera arrives here, over ducked music; it must fit the rest unless `voices.extendRests`"),
        Field("pace", .choice(TrackLeg.Pace.allCases.map(\.rawValue), noun: "pace",
                              hint: "use \"distance\" (an even speed along the track) or \"recorded\" (the recording's own clock)"),
              default: .string("distance"), "how the vehicle moves along the track: evenly by distance, or by the recording's clock"),
    ], misplaced: [:], typeHint: "a place is { \"lat\": ..., \"lon\": ... }, { \"name\": \"Busan\" } or { \"track\": \"ride.gpx\" }",
       constraints: [.together(["lat", "lon"]), .anyOf([["lat", "lon"], ["name"], ["track"]])])

    public static let presenter = Object("presenter", [
        Field("file", .string(nonEmpty: true, noun: "file"), required: true, missingHint: "add \"file\": \"me.mp4\"",
              "a video of the presenter (any format libavformat reads, relative to the scene); at second t of the trip it shows second `from` + t"),
        Field("corner", .choice(Presenter.Corner.allCases.map(\.rawValue), noun: "corner",
                                hint: "use " + Wording.alternatives(Presenter.Corner.allCases.map { "\"\($0.rawValue)\"" })),
              default: .string("bottom-left"), "the corner of the safe area it sits in; captions, labels and the counter keep clear of it"),
        Field("size", .number(.within(0.05, 0.5, noun: "size", hint: "a share of the frame's shorter side: 0.25 is a quarter")),
              default: .number(Presenter.defaultSize), "its height as a share of the frame's shorter side"),
        Field("shape", .choice(Presenter.Shape.allCases.map(\.rawValue), noun: "shape", hint: "use \"circle\" or \"rounded\""),
              default: .string("circle"), "`circle` (the middle of the picture) or `rounded` (the whole picture, rounded corners)"),
        Field("places", .array(of: .string(nonEmpty: true, noun: "a place's name"),
                               nonEmpty: ("places must name at least one place", "name places, or remove the key for the whole trip"),
                               what: "an array of place names", itemHint: nil),
              default: .words("the whole trip"), "the places (by name) during whose slots it shows"),
        Field("from", .number(.nonNegative(noun: "from", unit: "seconds")), default: .number(0),
              "seconds into the file at the trip's start"),
        Field("volume", .number(.within(0, 4, noun: "volume", hint: "1 is the file's own level, 0 silent")),
              default: .number(1), "the gain of its sound: 1 is the file's own level, 0 silent"),
    ], typeHint: "a presenter is { \"file\": \"me.mp4\", \"corner\": \"bottom-left\" }")

    static let furnitureCorner = Kind.choice(Presenter.Corner.allCases.map(\.rawValue), noun: "corner",
                                hint: "use " + Wording.alternatives(Presenter.Corner.allCases.map { "\"\($0.rawValue)\"" }))

    public static let scaleBar = Object("scaleBar", [
        Field("corner", furnitureCorner, default: .string(Furniture.ScaleBar.defaultCorner.rawValue),
              "the corner of the safe area it sits in"),
        Field("units", .choice(Furniture.ScaleBar.Units.allCases.map(\.rawValue), noun: "units",
                               hint: "use \"metric\" (m, km) or \"imperial\" (ft, mi)"),
              default: .words("the scene's `units`"), "`metric` (m, km) or `imperial` (ft, mi)"),
    ], typeHint: "a scale bar is true, or { \"corner\": \"bottom-left\", \"units\": \"metric\" }")

    public static let northArrow = Object("northArrow", [
        Field("corner", furnitureCorner, default: .string(Furniture.NorthArrow.defaultCorner.rawValue),
              "the corner of the safe area it sits in"),
        Field("auto", .boolean, default: .bool(false), "hidden (faded) while the map is north-up"),
    ], typeHint: "a north arrow is true, \"auto\", or { \"corner\": \"top-right\" }")

    public static let watermark = Object("watermark", [
        Field("file", .string(nonEmpty: true, noun: "file"), required: true, missingHint: "add \"file\": \"logo.png\"",
              "a PNG, JPEG, WebP or SVG picture, relative to the scene"),
        Field("corner", furnitureCorner, default: .string(Furniture.Watermark.defaultCorner.rawValue),
              "the corner of the safe area it sits in"),
        Field("size", .number(.within(0.02, 0.5, noun: "size", hint: "a share of the frame's shorter side: 0.12 is an eighth")),
              default: .number(Furniture.Watermark.defaultSize), "its longer side as a share of the frame's shorter side"),
        Field("opacity", .number(.within(0, 1, noun: "opacity", hint: "0 is invisible, 1 opaque")),
              default: .number(Furniture.Watermark.defaultOpacity), "how opaque it is drawn"),
    ], typeHint: "a watermark is \"logo.png\" or { \"file\": \"logo.png\", \"corner\": \"top-right\" }")

    public static let track = Object("track", [
        Field("file", .string(nonEmpty: true, noun: "file"), required: true, missingHint: "add \"file\": \"anna.gpx\"",
              "a recording with a time at every point (GPX, TCX, FIT, KML, KMZ, GeoJSON), relative to the scene"),
        Field("name", .string(nonEmpty: true, noun: "name"), default: .words("the file's name"), "the mover's label"),
        Field("color", .color, default: .words("one of six in turn"), "the mover's colour: its dot and its travelled line"),
        Field("vehicle", .string(nonEmpty: true, noun: "vehicle"), default: .string("none"),
              "its icon (as the scene's `vehicle`); `none`: a dot"),
    ], typeHint: "a track is { \"file\": \"anna.gpx\", \"name\": \"Anna\" }")

    public static let playback = Object("playback", [
        Field("speed", .number(.positive(atMost: 100_000, noun: "speed", hint: "60 shows a minute of the recording each second")),
              default: .number(60), "recorded seconds per second of video"),
        Field("skipIdle", .number(.positive(atMost: 31_536_000, noun: "skipIdle", hint: "seconds without movement before a stretch is cut, such as 300")), default: .words("never"),
              "stretches where no mover moves for longer than this many seconds are cut out (the picture dips through black across the cut, the clock fades)"),
        Field("clock", .choice(Playback.Clock.allCases.map(\.rawValue), noun: "clock",
                               hint: "use \"HH:mm\", \"HH:mm:ss\" or \"none\""),
              default: .string("HH:mm"), "the clock readout: the recorded time (in `timeZone`, else the followed recording's own time zone where its file states one, else the first stated, else UTC), or the time since the start when together"),
        Field("timeZone", .string(nonEmpty: true, noun: "timeZone"), default: .words("UTC"),
              "the time zone the clock shows recorded times in, whatever offset the recordings state (a FIT activity's local time, a GPX, TCX or KML time such as `2024-05-01T09:30:00+02:00`; without `timeZone` the followed recording's, else the first stated; files that disagree are a warning): an IANA name such as `Europe/Helsinki` (daylight saving followed) or an offset such as `+02:00`"),
        Field("start", .choice(Playback.Start.allCases.map(\.rawValue), noun: "start",
                               hint: "use \"recorded\" (each at its own time) or \"together\" (a ghost race)"),
              default: .string("recorded"), "`recorded`: each track at its recorded time; `together`: all from one start (a ghost race)"),
        Field("offset", .number(.within(-86_400, 31_536_000, noun: "offset", hint: "seconds of the recording skipped before the first frame, such as 12.5")),
              default: .number(0), "recorded seconds skipped before the video's first frame (negative: the movers wait at their start that long), to line the playback up with your own footage"),
    ])

    public static let photos = Object("photos", [
        Field("folder", .string(nonEmpty: true, noun: "folder"), required: true, missingHint: "add \"folder\": \"holiday/\"",
              "a folder of JPEG photos (relative to the scene), placed on the track in name order by their EXIF"),
        Field("by", .choice(TrackPhotos.Placing.allCases.map(\.rawValue), noun: "by",
                            hint: "use \"time\" (EXIF DateTimeOriginal) or \"position\" (EXIF GPS)"),
              default: .string("time"), "`time`: where the mover was when each was taken (EXIF DateTimeOriginal, UTC unless its OffsetTimeOriginal says otherwise); `position`: the track's point nearest its EXIF GPS position"),
        Field("timeOffset", .number(.within(-31_536_000, 31_536_000, noun: "timeOffset", hint: "seconds added to the camera's clock, such as -3600 for a clock an hour ahead")),
              default: .number(0), "seconds added to the EXIF time of each photo that states no offset from UTC of its own (OffsetTimeOriginal) and whose camera `cameras` does not list: a camera clock that was wrong or on local time"),
        Field("cameras", .array(of: .object(photoCamera), nonEmpty: nil, what: "an array", itemHint: nil),
              "clock corrections by camera, which win over `timeOffset` for their photos: each camera's `timeOffset` added to the time of every photo whose EXIF Model is its `model`, after the photo's own offset from UTC (a clock that was wrong, on a camera that states its offset too)"),
        Field("mover", .string(nonEmpty: true, noun: "mover"), default: .words("the followed mover, else the first track"),
              "the name of the track (`tracks[].name`) the photos are placed on"),
        Field("hold", .number(.positive(atMost: 60, noun: "hold", hint: "seconds of video each photo shows, such as 2.5")),
              default: .number(TrackPhotos.defaultHold), "seconds of video each photo's card shows from when the mover passes it (photos closer than that queue)"),
    ], typeHint: "photos are \"holiday/\" or { \"folder\": \"holiday/\", \"by\": \"time\" }")

    public static let photoCamera = Object("camera", [
        Field("model", .string(nonEmpty: true, noun: "model"), required: true,
              missingHint: "add \"model\": the camera's EXIF Model, as `exiftool -Model photo.jpg` prints it",
              "the camera's EXIF Model (as `exiftool -Model` prints it; case aside)"),
        Field("timeOffset", .number(.within(-31_536_000, 31_536_000, noun: "timeOffset", hint: "seconds added to the camera's clock, such as -600 for a clock ten minutes ahead")),
              required: true, missingHint: "add \"timeOffset\": the seconds to add to this camera's times, such as -600",
              "seconds added to the time of each of its photos (after the photo's own offset from UTC)"),
    ], typeHint: "a camera is { \"model\": \"ILCE-7M3\", \"timeOffset\": -600 }")

    public static let keyframe = Object("keyframe", [
        Field("t", .number(.nonNegative(noun: "t", unit: "seconds")), required: true, missingHint: "add \"t\": 0, the keyframe's second in the video",
              "the second of the video the camera is here (on the frame grid: exact at that frame)"),
        Field("lon", .number(.within(-180, 180, noun: "longitude")), default: .words("the keyframe before's"),
              "the centre's longitude (with lat; required on the first keyframe)"),
        Field("lat", .number(.within(-90, 90, noun: "latitude")), default: .words("the keyframe before's"),
              "the centre's latitude (with lon)"),
        Field("zoom", .number(.within(0, 22, noun: "zoom")), default: .words("the keyframe before's"),
              "web-map zoom (required on the first keyframe)"),
        Field("bearing", .number(.within(-360, 360, noun: "bearing")), default: .words("the keyframe before's, 0 first"),
              "degrees clockwise from north that point up; turns the short way"),
        Field("ease", .choice(CameraEase.allCases.map(\.rawValue), noun: "ease",
                              hint: "use " + Wording.alternatives(CameraEase.allCases.map { "\"\($0.rawValue)\"" })),
              default: .string("inOutCubic"), "how the camera comes here from the keyframe before: an easing, or `fly` (zooms out and in)"),
    ], typeHint: "a keyframe is { \"t\": 0, \"lon\": ..., \"lat\": ..., \"zoom\": ... }",
       constraints: [.together(["lat", "lon"])])

    /// The readouts' list (`readouts`, or `readouts.items`).
    static let readoutItems = Kind.array(of: .choice(ReadoutItem.allCases.map(\.rawValue), noun: "readout",
                                                     hint: "use " + Wording.alternatives(ReadoutItem.allCases.map { "\"\($0.rawValue)\"" })),
                                         nonEmpty: ("readouts must list at least one readout", "add \"speed\", or remove the key"),
                                         what: "an array of readouts", itemHint: nil)

    /// `readouts` in its long form: the list and the mover it measures.
    public static let readouts = Object("readouts", [
        Field("mover", .string(nonEmpty: true, noun: "mover"), default: .words("the followed mover, else the first track"),
              "the name of the track (`tracks[].name`) whose values the readouts show; for playbacks"),
        Field("items", readoutItems, required: true, missingHint: "add \"items\": [ \"speed\" ]", "the readouts shown, as in the plain list"),
    ])

    public static let camera = Object("camera", [
        Field("follow", .string(nonEmpty: true, noun: "follow"),
              "the name of the track (`tracks[].name`) whose mover the camera follows: centred on it at every frame"),
        Field("zoom", .numberOr(["speed"], .within(0, 22, noun: "zoom"), noun: "zoom"), default: .number(15),
              "the following camera's web-map zoom, or `speed`: out as the mover speeds up, in as it slows (the mover crosses half the frame in 4 s of video; zoom 8 to 18)"),
        Field("headingUp", .boolean, default: .bool(false),
              "the map turns so that the followed mover's direction of travel points up (smoothed)"),
        Field("intro", .number(.nonNegative(noun: "intro", unit: "seconds")), default: .number(3),
              "seconds at the playback's start over which the camera flies in from the whole route to the mover; the scene's `outro` flies back out"),
        Field("keyframes", .array(of: .object(keyframe),
                                  nonEmpty: ("keyframes must list at least one keyframe", "add { \"t\": 0, \"lon\": ..., \"lat\": ..., \"zoom\": ... }, or remove the key"),
                                  what: "an array", itemHint: nil),
              "the camera at given seconds, eased between, held before the first and after the last; for place trips and playbacks (not with `follow`)"),
    ], typeHint: "a camera is { \"follow\": \"Anna\", \"headingUp\": true } or { \"keyframes\": [ ... ] }")

    public static let scene = Object("scene", [
        Field("$schema", .string(nonEmpty: false, noun: "$schema"), "the JSON Schema, for editors (ignored)"),
        Field("title", .string(nonEmpty: true, noun: "title"), "shown on a card over the first place, fading as the trip starts"),
        Field("dwell", .number(dwellRule), default: .number(3),
              "seconds each place holds the screen; a place may override it"),
        Field("flight", .numberOr(["auto"], flightRule, noun: "flight"), default: .string("auto"),
              "seconds of the flight at the start of each place's slot, capped by the slot, or `auto` (from the distance, lengthened within the slot to keep the map's speed on screen within its bound); a place may override it"),
        Field("video", .object(video), "frame size, rate and pixel ratio"),
        Field("map", .object(map), default: .words("the embedded map"), "the base map: tiles, projection, graticule"),
        Field("background", .choice(["map", "transparent"], noun: "background",
                                    hint: "use \"transparent\" (no map, for overlaying), or remove the key for the map"),
              default: .string("map"), "`transparent`: no base map, for outputs with alpha"),
        Field("audio", .stringOr(audio, noun: "audio"), "a sound track: a file name, or the object below"),
        Field("voices", .object(voices), "how the places' voices (`places[].voice`) play: level, the music's ducking, rests"),
        Field("style", .object(style), default: .words("the light theme"), "how the trip looks: a theme and overrides"),
        Field("route", .object(route), "the line of every leg"),
        Field("vehicle", .string(nonEmpty: true, noun: "vehicle"), default: .string("none"),
              "what travels each leg: `plane`, `car`, `train`, `ship`, `bike`, `walk`, `none` or an image file"),
        Field("end", .object(end), "a card over the last place's rest"),
        Field("outro", .number(.nonNegative(noun: "outro", unit: "seconds")), default: .number(0),
              "seconds added after the last place, for the end card"),
        Field("distance", .boolean, default: .bool(false), "a counter of kilometres travelled"),
        Field("opening", .boolean, default: .bool(true),
              "the title card fades in over a slow zoom onto the first place, whose pin drops in"),
        Field("closing", .boolean, default: .bool(true),
              "during the end card's time the camera pulls out to frame the whole trip; captions and the counter fade first"),
        Field("places", .array(of: .object(place),
                               nonEmpty: ("places must list at least one place", "add { \"lat\": ..., \"lon\": ... }"),
                               what: "an array", itemHint: nil),
              "the stops, in order (required unless `tracks` are given: then pinned along the playback)"),
        Field("tracks", .array(of: .object(track),
                               nonEmpty: ("tracks must list at least one track", "add { \"file\": \"anna.gpx\" }, or remove the key"),
                               what: "an array", itemHint: nil),
              "recordings played back by their own clock, each a mover (docs/tracks.md)"),
        Field("playback", .object(playback), "how `tracks` are played back"),
        Field("backgroundTracks", .array(of: .string(nonEmpty: true, noun: "a background track"),
                                         nonEmpty: ("backgroundTracks must list at least one file", "add \"last-year.gpx\", or remove the key"),
                                         what: "an array of file names", itemHint: nil),
              "earlier recordings (GPX, TCX, FIT, KML, KMZ, GeoJSON, relative to the scene) drawn faintly under everything from the first frame"),
        Field("privacy", .array(of: .object(privacyZone),
                                nonEmpty: ("privacy must list at least one zone", "add { \"lat\": ..., \"lon\": ..., \"radius\": 500 }, or remove the key"),
                                what: "an array", itemHint: nil),
              "circles inside which no route line, mover or vehicle is drawn (the drawing only: the files are not changed)"),
        Field("units", .choice(Units.allCases.map(\.rawValue), noun: "units", hint: "use \"metric\" or \"imperial\""),
              default: .string("metric"), "how values are written (the readouts, a coloured route's legend, the scale bar): km/h, m, km (metric) or mph, ft, mi (imperial)"),
        Field("camera", .object(camera), default: .words("the trip's own"),
              "a camera that follows a mover (`follow`, `headingUp`, `zoom`) or keyframes"),
        Field("presenter", .object(presenter), "a video in a corner of the frame, for the whole trip or chosen places"),
        Field("readouts", .arrayOr(readoutItems, readouts),
              "live values on a panel: `speed`, `altitude`, `distance`, `elapsed`, `heartRate`, `cadence`, `power`, `profile` (an elevation profile); of a playback's followed mover (else the first track), or on a place trip of the track leg being flown; or `{\"mover\": ..., \"items\": [...]}` to name the playback's track they measure"),
        Field("scaleBar", .switchOr(scaleBar, words: [], noun: "scaleBar"), default: .bool(false),
              "a scale bar of a round length (1, 2 or 5 x 10^n), exact for the camera at each frame; faded out where the view spans more than about 2,000 km"),
        Field("northArrow", .switchOr(northArrow, words: ["auto"], noun: "northArrow"), default: .bool(false),
              "an arrow to true north at the frame's centre, turning with the map; `auto`: hidden while the map is north-up"),
        Field("watermark", .stringOr(watermark, noun: "watermark"), "a picture in a corner of the frame: a file name, or the object below"),
        Field("photos", .stringOr(photos, noun: "photos"),
              "photos along a playback's track, each shown as a card as the mover passes where it was taken: a folder of JPEGs, or the object below"),
    ], misplaced: [
        "clip": "a place in \"places\"", "muted": "a place in \"places\"", "corner": "presenter", "shape": "presenter",
        "width": "video", "height": "video", "fps": "video", "scale": "video",
        "tiles": "map", "attribution": "map", "tileSize": "map", "minZoom": "map", "maxZoom": "map",
        "subdomains": "map", "contact": "map", "projection": "map", "graticule": "map", "towns": "map",
        "lat": "a place in \"places\"", "lon": "a place in \"places\"", "zoom": "a place in \"places\"",
        "country": "a place in \"places\"", "region": "a place in \"places\"",
        "file": "audio", "volume": "audio", "offset": "audio", "fadeOut": "audio",
        "theme": "style", "span": "a place in \"places\"", "caption": "a place in \"places\"",
        "photo": "a place in \"places\"", "curve": "a place in \"places\"", "preset": "video",
        "speed": "playback", "skipIdle": "playback", "clock": "playback", "timeZone": "playback",
        "follow": "camera", "headingUp": "camera", "keyframes": "camera",
        "voice": "a place in \"places\"", "duck": "voices", "extendRests": "voices",
        "units": "scaleBar", "opacity": "watermark",
        "timeOffset": "photos", "hold": "photos", "folder": "photos",
    ], constraints: [.anyOf([["places"], ["tracks"]])])
}
