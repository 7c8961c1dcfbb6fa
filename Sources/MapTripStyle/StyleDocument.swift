import Foundation
import MapTripScene
import MapTripSupport

/// A style-file problem: what is wrong, where (file:line:column and JSON path such as
/// `layers[12].paint.fill-color`), and how to fix it; warnings take the same form. The same error a
/// scene file's problems are (`SceneError`): one form for every file maptrip reads.
public typealias StyleError = SceneError

/// A tile source of a style (`sources.<name>`).
public struct StyleSource: Sendable, Equatable {
    /// `vector`, `raster`, `raster-dem`, `geojson`, `image`, `video`.
    public var type: String
    /// A TileJSON URL, when the source gives one instead of `tiles`.
    public var url: String?
    /// Tile URL templates (`{z}/{x}/{y}`).
    public var tiles: [String]
    public var minzoom: Double
    public var maxzoom: Double
    /// Raster tiles' size in pixels (512 for vector sources, which do not use it).
    public var tileSize: Double
    public var attribution: String?
    /// `xyz` or `tms`.
    public var scheme: String
    /// A GeoJSON source's `data` when it is a URL.
    public var data: String?
}

/// A layer's type. maptrip draws background, fill, line, symbol and raster layers; the others are
/// listed (as warnings) and skipped.
public enum LayerKind: Sendable, Equatable, CustomStringConvertible {
    case background, fill, line, symbol, raster
    case other(String)

    init(_ name: String) {
        switch name {
        case "background": self = .background
        case "fill": self = .fill
        case "line": self = .line
        case "symbol": self = .symbol
        case "raster": self = .raster
        default: self = .other(name)
        }
    }

    public var description: String {
        switch self {
        case .background: "background"
        case .fill: "fill"
        case .line: "line"
        case .symbol: "symbol"
        case .raster: "raster"
        case .other(let name): name
        }
    }

    /// Whether maptrip draws layers of this type.
    public var isDrawn: Bool { if case .other = self { false } else { true } }
}

/// `line-cap`.
public enum LineCap: String, Sendable { case butt, round, square }
/// `line-join`.
public enum LineJoin: String, Sendable { case bevel, round, miter }
/// `text-anchor`, `icon-anchor`.
public enum SymbolAnchor: String, Sendable {
    case center, left, right, top, bottom
    case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
}
/// `symbol-placement`.
public enum SymbolPlacement: String, Sendable { case point, line, lineCenter = "line-center" }
/// `text-transform`.
public enum TextTransform: String, Sendable { case none, uppercase, lowercase }
/// `text-justify`.
public enum TextJustify: String, Sendable { case auto, left, center, right }

/// One layer of a style, its paint and layout properties parsed and checked against the spec.
///
/// Every paint and layout property of the spec (v8) is parsed, checked and evaluated, with the spec's
/// default when the layer does not set it; the typed accessors below read them. The renderer uses
/// (background) `background-color`, `background-opacity`; (fill) `fill-color`, `fill-opacity`,
/// `fill-outline-color`, `fill-antialias`, `fill-translate`; (line) `line-color`, `line-width`,
/// `line-opacity`, `line-dasharray`, `line-cap`, `line-join`, `line-gap-width`, `line-offset`,
/// `line-blur`, `line-miter-limit`; (symbol) `text-field` (with `{token}` strings), `text-font`,
/// `text-size`, `text-color`, `text-halo-color`, `text-halo-width`, `text-halo-blur`, `text-opacity`,
/// `text-transform`, `text-anchor`, `text-offset`, `text-max-width`, `text-letter-spacing`,
/// `text-justify`, `symbol-placement`, `symbol-spacing`, `icon-image` (names or images), `icon-size`,
/// `icon-anchor`, `icon-offset`, `icon-opacity`, `icon-color`, `icon-rotate`, `icon-rotation-alignment`,
/// `icon-keep-upright`, `icon-text-fit`, `icon-text-fit-padding`; (raster)
/// `raster-opacity`. Patterns and collators are not evaluated.
public struct StyleLayer: Sendable {
    public var id: String
    public var type: LayerKind
    public var source: String?
    public var sourceLayer: String?
    public var minzoom: Double?
    public var maxzoom: Double?
    public var filter: Filter?
    /// False when `layout.visibility` is `none`.
    public var visible: Bool
    /// The properties the layer sets, by name.
    public var paint: [String: PropertyValue]
    public var layout: [String: PropertyValue]

    /// Whether the layer shows at `zoom`: visible, and minzoom <= zoom < maxzoom.
    public func isShown(atZoom zoom: Double) -> Bool {
        visible && zoom >= (minzoom ?? -.infinity) && zoom < (maxzoom ?? .infinity)
    }

    /// Whether a feature passes the layer's filter at a zoom (every feature does when there is none).
    public func matches(zoom: Double, feature: StyleFeature) -> Bool {
        filter?.matches(zoom: zoom, feature: feature) ?? true
    }

    /// Whether the layer sets a property (paint or layout).
    public func sets(_ name: String) -> Bool { paint[name] != nil || layout[name] != nil }

    /// A property's value at a zoom for a feature: the layer's own, else the spec's default (nil for
    /// a property the layer type does not have, or one without a default it does not set).
    public func value(_ name: String, zoom: Double, feature: StyleFeature = StyleFeature()) -> StyleValue? {
        if let p = paint[name] ?? layout[name] { return p.evaluate(EvaluationContext(zoom: zoom, feature: feature)) }
        return PropertySpec.defaultValue(layer: type.description, name: name)
    }

    /// A colour property (straight RGBA); transparent when unset and without a default.
    public func color(_ name: String, zoom: Double, feature: StyleFeature = StyleFeature()) -> StyleColor {
        value(name, zoom: zoom, feature: feature)?.color ?? .transparent
    }

    /// A number property; 0 when unset and without a default.
    public func number(_ name: String, zoom: Double, feature: StyleFeature = StyleFeature()) -> Double {
        value(name, zoom: zoom, feature: feature)?.number ?? 0
    }

    /// An array-of-numbers property (`line-dasharray`, `text-offset`); empty when unset.
    public func numbers(_ name: String, zoom: Double, feature: StyleFeature = StyleFeature()) -> [Double] {
        value(name, zoom: zoom, feature: feature)?.array?.compactMap(\.number) ?? []
    }

    /// A string, enum or formatted property (`text-field` gives its text, tokens filled in); "" when unset.
    public func string(_ name: String, zoom: Double, feature: StyleFeature = StyleFeature()) -> String {
        value(name, zoom: zoom, feature: feature)?.text ?? ""
    }

    /// An image property (`icon-image`): the name of the image it gives ("" for none), `available`
    /// being the icons the style's sprite has (what `["image", name]` and `coalesce` of images test).
    public func image(_ name: String, zoom: Double, feature: StyleFeature = StyleFeature(), available: Set<String>) -> String {
        guard let p = paint[name] ?? layout[name] else { return "" }
        return p.evaluate(EvaluationContext(zoom: zoom, feature: feature, availableImages: available)).text
    }

    /// An array-of-strings property (`text-font`).
    public func strings(_ name: String, zoom: Double, feature: StyleFeature = StyleFeature()) -> [String] {
        value(name, zoom: zoom, feature: feature)?.array?.compactMap(\.string) ?? []
    }

    public func bool(_ name: String, zoom: Double, feature: StyleFeature = StyleFeature()) -> Bool {
        value(name, zoom: zoom, feature: feature)?.bool ?? false
    }

    /// An enum property as a Swift enum (nil when unset without a default, or not one of its cases).
    public func enumValue<T: RawRepresentable>(_ name: String, as: T.Type, zoom: Double,
                                               feature: StyleFeature = StyleFeature()) -> T? where T.RawValue == String {
        value(name, zoom: zoom, feature: feature)?.string.flatMap(T.init(rawValue:))
    }

    public func lineCap(zoom: Double, feature: StyleFeature = StyleFeature()) -> LineCap {
        enumValue("line-cap", as: LineCap.self, zoom: zoom, feature: feature) ?? .butt
    }

    public func lineJoin(zoom: Double, feature: StyleFeature = StyleFeature()) -> LineJoin {
        enumValue("line-join", as: LineJoin.self, zoom: zoom, feature: feature) ?? .miter
    }

    public func textAnchor(zoom: Double, feature: StyleFeature = StyleFeature()) -> SymbolAnchor {
        enumValue("text-anchor", as: SymbolAnchor.self, zoom: zoom, feature: feature) ?? .center
    }

    public func symbolPlacement(zoom: Double, feature: StyleFeature = StyleFeature()) -> SymbolPlacement {
        enumValue("symbol-placement", as: SymbolPlacement.self, zoom: zoom, feature: feature) ?? .point
    }

    public func textTransform(zoom: Double, feature: StyleFeature = StyleFeature()) -> TextTransform {
        enumValue("text-transform", as: TextTransform.self, zoom: zoom, feature: feature) ?? .none
    }

    public func textJustify(zoom: Double, feature: StyleFeature = StyleFeature()) -> TextJustify {
        enumValue("text-justify", as: TextJustify.self, zoom: zoom, feature: feature) ?? .center
    }
}

/// A MapLibre GL style document (version 8): its sources and layers, checked.
///
/// `init(data:file:)` throws a `StyleError` (file:line:column and JSON path) for broken JSON, a
/// missing or mistyped required key, a filter or property value that does not parse or has the wrong
/// type. Unknown keys and properties, and layers of types maptrip does not draw (fill-extrusion,
/// hillshade, heatmap, circle, color-relief), are `warnings`, once each.
public struct StyleDocument: Sendable {
    public var version: Int
    public var name: String?
    public var sources: [String: StyleSource]
    public var layers: [StyleLayer]
    /// The glyphs URL template (`{fontstack}/{range}.pbf`).
    public var glyphs: String?
    /// The sprite URL, or the JSON text of a sprite array.
    public var sprite: String?
    public var warnings: [Diagnostic]

    public init(version: Int = 8, name: String? = nil, sources: [String: StyleSource], layers: [StyleLayer],
                glyphs: String? = nil, sprite: String? = nil, warnings: [Diagnostic] = []) {
        self.version = version
        self.name = name
        self.sources = sources
        self.layers = layers
        self.glyphs = glyphs
        self.sprite = sprite
        self.warnings = warnings
    }

    /// The largest style file read.
    public static let maxBytes = 16 << 20

    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw StyleError(file: url.path, line: 0, column: 0, path: "", message: "cannot read the style: \(Diagnostic.message(of: error))")
        }
        try self.init(data: data, file: url.path)
    }

    public init(data: Data, file: String) throws {
        guard data.count <= Self.maxBytes else {
            throw StyleError(file: file, line: 0, column: 0, path: "",
                             message: "the style is \(data.count) bytes, more than \(Self.maxBytes)")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(data, file: file)
        } catch let e as SceneError {
            // The JSON reader's hints that speak of scene files say nothing of styles.
            let hint = e.hint.flatMap { $0.contains("scene") ? nil : $0 }
            throw StyleError(file: file, line: e.line, column: e.column, path: e.path, message: e.message, hint: hint)
        }
        try self.init(json: json, file: file)
    }

    public init(json: JSONValue, file: String) throws {
        var checker = StyleChecker(file: file)
        self = try checker.document(json)
    }

    /// The layers maptrip draws (known types), in drawing order.
    public var drawnLayers: [StyleLayer] { layers.filter { $0.type.isDrawn } }

    public func layer(id: String) -> StyleLayer? { layers.first { $0.id == id } }
}

/// Paths as style messages write them: `layers[3].paint.fill-color` (hyphens kept in keys).
enum StylePath {
    static func appending(key: String, to base: String) -> String {
        let plain = key.unicodeScalars.first.map { CharacterSet.letters.contains($0) || $0 == "_" } ?? false
            && key.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }
        return plain ? (base.isEmpty ? key : base + "." + key) : JSONPath.appending(key: key, to: base)
    }
}

struct StyleChecker {
    let file: String
    var warnings: [Diagnostic] = []

    init(file: String) { self.file = file }

    func error(_ value: JSONValue, _ path: String, _ message: String, hint: String? = nil) -> StyleError {
        StyleError(file: file, line: value.position.line, column: value.position.column, path: path, message: message, hint: hint)
    }

    mutating func warn(_ value: JSONValue, _ path: String, _ message: String, hint: String? = nil) {
        warnings.append(error(value, path, message, hint: hint).diagnostic(.warning))
    }

    func required(_ object: JSONValue, _ key: String, _ path: String) throws -> JSONValue {
        guard let v = object[key] else {
            throw error(object, path, "missing required key \"\(key)\"")
        }
        return v
    }

    func string(_ v: JSONValue, _ path: String) throws -> String {
        guard let s = v.string else { throw error(v, path, "expected a string, found \(v.typeDescription)") }
        return s
    }

    func number(_ v: JSONValue, _ path: String, in range: ClosedRange<Double>? = nil) throws -> Double {
        guard let n = v.number?.value else { throw error(v, path, "expected a number, found \(v.typeDescription)") }
        if let range, !range.contains(n) {
            throw error(v, path, "\(JSNumber.string(n)) is outside [\(JSNumber.string(range.lowerBound)), \(JSNumber.string(range.upperBound))]")
        }
        return n
    }

    mutating func unknownKeys(_ object: JSONValue, _ path: String, known: [String], what: String) {
        for member in object.members ?? [] where !known.contains(member.key) {
            let hint = EditDistance.nearest(to: member.key, among: known).map { "did you mean \"\($0)\"?" }
            warn(member.value, StylePath.appending(key: member.key, to: path), "unknown \(what) \"\(member.key)\" (ignored)", hint: hint)
        }
    }

    static let rootKeys = ["version", "name", "metadata", "center", "centerAltitude", "zoom", "bearing", "pitch", "roll",
                           "light", "sky", "projection", "terrain", "sources", "sprite", "glyphs", "font-faces",
                           "transition", "layers", "state"]
    static let sourceKeys = ["type", "url", "tiles", "bounds", "scheme", "minzoom", "maxzoom", "tileSize", "attribution",
                             "promoteId", "volatile", "encoding", "data", "maxzoom", "buffer", "tolerance", "cluster",
                             "clusterRadius", "clusterMaxZoom", "clusterMinPoints", "clusterProperties", "lineMetrics",
                             "generateId", "filter", "coordinates", "urls", "redFactor", "greenFactor", "blueFactor",
                             "baseShift"]
    static let layerKeys = ["id", "type", "metadata", "source", "source-layer", "minzoom", "maxzoom", "filter", "layout",
                            "paint"]
    /// Layers past which a style is warned of (OpenMapTiles' styles have 100-400): a 10,000-layer style
    /// draws, in bounded memory, but a frame of one took 22 s here (release build, 1280x720).
    static let manyLayers = 2_000
    static let sourceTypes = ["vector", "raster", "raster-dem", "geojson", "image", "video"]
    static let specLayerTypes = ["fill", "line", "symbol", "circle", "heatmap", "fill-extrusion", "raster", "hillshade",
                                 "color-relief", "background"]

    mutating func document(_ json: JSONValue) throws -> StyleDocument {
        guard json.members != nil else {
            throw error(json, "", "a style is a JSON object, found \(json.typeDescription)",
                        hint: "a MapLibre style such as {\"version\": 8, \"sources\": {...}, \"layers\": [...]}")
        }
        let versionJSON = try required(json, "version", "")
        guard versionJSON.number?.value == 8 else {
            throw error(versionJSON, "version", "the style version must be 8, found \(StyleValue(json: versionJSON).json)")
        }
        unknownKeys(json, "", known: Self.rootKeys, what: "key")
        let name = try json["name"].map { try string($0, "name") }
        let glyphs = try json["glyphs"].map { try string($0, "glyphs") }
        let sprite = json["sprite"].map { $0.string ?? StyleValue(json: $0).json }

        let sourcesJSON = try required(json, "sources", "")
        guard let sourceMembers = sourcesJSON.members else {
            throw error(sourcesJSON, "sources", "expected an object of sources by name, found \(sourcesJSON.typeDescription)")
        }
        var sources: [String: StyleSource] = [:]
        for member in sourceMembers {
            let path = StylePath.appending(key: member.key, to: "sources")
            sources[member.key] = try source(member.value, path)
        }

        let layersJSON = try required(json, "layers", "")
        guard let layerItems = layersJSON.elements else {
            throw error(layersJSON, "layers", "expected an array of layers, found \(layersJSON.typeDescription)")
        }
        if layerItems.count > Self.manyLayers {
            warn(layersJSON, "layers", "\(layerItems.count) layers, where a map style has a few hundred: every layer is matched "
                 + "against its tiles' features for every frame drawn, so drawing slows in proportion",
                 hint: "merge layers that differ only in their filter into one, with a match or case expression")
        }
        var layers: [StyleLayer] = []
        var ids: Set<String> = []
        for (i, item) in layerItems.enumerated() {
            let path = JSONPath.appending(index: i, to: "layers")
            let l = try layer(item, path, sources: sources)
            guard ids.insert(l.id).inserted else {
                throw error(item["id"] ?? item, StylePath.appending(key: "id", to: path), "duplicate layer id \"\(l.id)\"")
            }
            layers.append(l)
        }
        return StyleDocument(version: 8, name: name, sources: sources, layers: layers, glyphs: glyphs, sprite: sprite,
                             warnings: warnings)
    }

    mutating func source(_ json: JSONValue, _ path: String) throws -> StyleSource {
        guard json.members != nil else { throw error(json, path, "expected a source object, found \(json.typeDescription)") }
        let typeJSON = try required(json, "type", path)
        let type = try string(typeJSON, StylePath.appending(key: "type", to: path))
        guard Self.sourceTypes.contains(type) else {
            throw error(typeJSON, StylePath.appending(key: "type", to: path),
                        "unknown source type \"\(type)\"", hint: "one of " + Wording.alternatives(Self.sourceTypes))
        }
        unknownKeys(json, path, known: Self.sourceKeys, what: "source key")
        func key(_ k: String) -> String { StylePath.appending(key: k, to: path) }
        var tiles: [String] = []
        if let t = json["tiles"] {
            guard let items = t.elements else { throw error(t, key("tiles"), "expected an array of URL templates") }
            tiles = try items.enumerated().map { try string($1, JSONPath.appending(index: $0, to: key("tiles"))) }
        }
        return StyleSource(
            type: type,
            url: try json["url"].map { try string($0, key("url")) },
            tiles: tiles,
            minzoom: try json["minzoom"].map { try number($0, key("minzoom"), in: 0...24) } ?? 0,
            maxzoom: try json["maxzoom"].map { try number($0, key("maxzoom"), in: 0...24) } ?? 22,
            tileSize: try json["tileSize"].map { try number($0, key("tileSize"), in: 1...4096) } ?? 512,
            attribution: try json["attribution"].map { try string($0, key("attribution")) },
            scheme: try json["scheme"].map { try string($0, key("scheme")) } ?? "xyz",
            data: json["data"]?.string)
    }

    mutating func layer(_ json: JSONValue, _ path: String, sources: [String: StyleSource]) throws -> StyleLayer {
        guard json.members != nil else { throw error(json, path, "expected a layer object, found \(json.typeDescription)") }
        func key(_ k: String) -> String { StylePath.appending(key: k, to: path) }
        let id = try string(try required(json, "id", path), key("id"))
        let typeJSON = try required(json, "type", path)
        let typeName = try string(typeJSON, key("type"))
        let type = LayerKind(typeName)
        unknownKeys(json, path, known: Self.layerKeys, what: "layer key")
        let known = Self.specLayerTypes.contains(typeName)
        if !type.isDrawn {
            warn(typeJSON, key("type"), known ? "maptrip does not draw \(typeName) layers: layer \"\(id)\" is skipped"
                                              : "unknown layer type \"\(typeName)\": layer \"\(id)\" is skipped")
        }
        var source: String?
        if let s = json["source"] {
            source = try string(s, key("source"))
            if sources[source!] == nil {
                throw error(s, key("source"), "no source named \"\(source!)\"",
                            hint: sources.isEmpty ? nil : "sources: " + Wording.alternatives(sources.keys.sorted()))
            }
        } else if known, typeName != "background" {
            throw error(json, path, "missing required key \"source\" (a \(typeName) layer draws a source)")
        }
        let sourceLayer = try json["source-layer"].map { try string($0, key("source-layer")) }
        let minzoom = try json["minzoom"].map { try number($0, key("minzoom"), in: 0...24) }
        let maxzoom = try json["maxzoom"].map { try number($0, key("maxzoom"), in: 0...24) }
        var filter: Filter?
        if let f = json["filter"] {
            filter = try expressionCheck(key("filter"), f) { try Filter(json: f) }
        }
        var paint: [String: PropertyValue] = [:], layout: [String: PropertyValue] = [:]
        if known {
            paint = try properties(json["paint"], .paint, typeName, key("paint"))
            layout = try properties(json["layout"], .layout, typeName, key("layout"))
        }
        let visible = layout["visibility"]?.expression.constant?.string != "none"
        return StyleLayer(id: id, type: type, source: source, sourceLayer: sourceLayer, minzoom: minzoom, maxzoom: maxzoom,
                          filter: filter, visible: visible, paint: paint, layout: layout)
    }

    /// An expression's parse error as a style error: its path below `path`, its own line and column.
    func expressionCheck<T>(_ path: String, _ json: JSONValue, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as ExpressionError {
            let position = e.position ?? json.position
            throw StyleError(file: file, line: position.line, column: position.column, path: path + e.key, message: e.message)
        }
    }

    mutating func properties(_ json: JSONValue?, _ section: PropertySpec.Section, _ layerType: String,
                             _ path: String) throws -> [String: PropertyValue] {
        guard let json else { return [:] }
        guard let members = json.members else {
            throw error(json, path, "expected an object of \(section.rawValue) properties, found \(json.typeDescription)")
        }
        var out: [String: PropertyValue] = [:]
        let specs = PropertySpec.properties(layer: layerType, section: section)
        for member in members {
            let p = StylePath.appending(key: member.key, to: path)
            guard let spec = specs.first(where: { $0.name == member.key }) else {
                if section == .paint, member.key.hasSuffix("-transition"),
                   specs.contains(where: { $0.name + "-transition" == member.key }) { continue }
                let other = PropertySpec.lookup(layer: layerType, name: member.key)
                let hint = other.map { "it is a \($0.section.rawValue) property" }
                    ?? EditDistance.nearest(to: member.key, among: specs.map(\.name)).map { "did you mean \"\($0)\"?" }
                warn(member.value, p, "unknown \(layerType) \(section.rawValue) property \"\(member.key)\" (ignored)", hint: hint)
                continue
            }
            out[member.key] = try expressionCheck(p, member.value) { try PropertyValue(json: member.value, spec: spec) }
        }
        return out
    }
}
