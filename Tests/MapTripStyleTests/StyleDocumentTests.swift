import Foundation
import Testing
import MapTripScene
import MapTripSupport
@testable import MapTripStyle

/// Style documents: real styles (OpenMapTiles' Positron, OSM Liberty) read and evaluated, and the
/// errors and warnings a broken style gets.
@Suite struct StyleDocumentTests {
    static func fixture(_ name: String) throws -> StyleDocument {
        try StyleDocument(contentsOf: ConformanceTests.fixtures.appendingPathComponent(name))
    }

    static func style(_ layers: String, sources: String = #"{"v": {"type": "vector", "url": "https://example.com/v.json"}}"#) -> Data {
        Data(#"{"version": 8, "sources": \#(sources), "layers": \#(layers)}"#.utf8)
    }

    /// The error a style gets, as the command line would print it.
    static func error(_ data: Data) -> String {
        do {
            _ = try StyleDocument(data: data, file: "style.json")
            return "no error"
        } catch {
            return Diagnostic.from(error).map(\.description).joined(separator: "\n")
        }
    }

    /// Synthetic features of every kind the two styles draw: OpenMapTiles' classes and names.
    static let features: [StyleFeature] = {
        var out: [StyleFeature] = []
        let classes = ["motorway", "trunk", "primary", "secondary", "tertiary", "minor", "service", "track", "path", "rail",
                       "river", "stream", "ocean", "lake", "park", "wood", "residential", "country", "city", "town",
                       "village", "pier", "runway", "taxiway", "aerodrome_label", "ice", "sand", "grass"]
        for (i, c) in classes.enumerated() {
            for g in [GeometryType.point, .lineString, .polygon, .multiPolygon] {
                out.append(StyleFeature(properties: [
                    "class": .string(c), "subclass": .string(c), "name": .string("Name \(i)"),
                    "name:latin": .string("Latin \(i)"), "name_en": .string("En \(i)"), "ref": .string("A\(i)"),
                    "rank": .number(Double(i % 7)), "admin_level": .number(Double(2 + i % 3)), "brunnel": .string(i % 3 == 0 ? "bridge" : i % 3 == 1 ? "tunnel" : "none"),
                    "capital": .number(Double(i % 3)), "oneway": .number(Double(i % 2)), "ramp": .number(0),
                    "intermittent": .number(0), "ref_length": .number(3), "layer": .number(1), "level": .number(0),
                    "render_height": .number(10), "render_min_height": .number(0), "iata": .string("XYZ"),
                ], id: .number(Double(i)), geometryType: g))
            }
        }
        out.append(StyleFeature())  // no properties at all
        return out
    }()

    /// Every filter and every fill, line and symbol property of a style, at zooms 0 to 16, for every
    /// synthetic feature: evaluated without a runtime error, and giving values of the property's type.
    static func evaluateAll(_ doc: StyleDocument) -> (evaluations: Int, problems: [String]) {
        var count = 0
        var problems: [String] = []
        for layer in doc.layers where layer.type.isDrawn {
            let properties = (layer.paint.merging(layer.layout) { a, _ in a })
            for zoom in stride(from: 0.0, through: 16, by: 0.5) {
                for feature in features {
                    let context = EvaluationContext(zoom: zoom, feature: feature)
                    if let filter = layer.filter {
                        do {
                            let v = try filter.expression.evaluate(context)
                            if v.bool == nil { problems.append("\(layer.id) filter gave \(v)") }
                        } catch {
                            problems.append("\(layer.id) filter at \(zoom): \(error)")
                        }
                        count += 1
                        // Only features the filter lets through reach the properties, as in a renderer.
                        if !filter.matches(zoom: zoom, feature: feature) { continue }
                    }
                    for (name, value) in properties {
                        count += 1
                        do {
                            let v = try value.evaluateStrictly(context)
                            if v != .null, value.spec.expressionType.mismatch(v.type) != nil,
                               !["formatted", "resolvedImage"].contains(value.spec.type) {
                                problems.append("\(layer.id).\(name) gave \(v)")
                            }
                        } catch {
                            problems.append("\(layer.id).\(name) at \(zoom) for \(feature.properties["class"] ?? .null): \(error)")
                        }
                    }
                }
            }
        }
        return (count, Array(Set(problems)).sorted())
    }

    @Test func positronReadsAndEvaluatesEverywhere() throws {
        let doc = try Self.fixture("positron.json")
        #expect(doc.layers.count == 50)
        #expect(doc.sources["openmaptiles"]?.type == "vector")
        #expect(doc.glyphs?.contains("{fontstack}") == true)
        // Its one oddity: a root "id" (Mapbox Studio's), not in the spec.
        #expect(doc.warnings.map(\.message) == [#"unknown key "id" (ignored)"#])
        let (count, problems) = Self.evaluateAll(doc)
        #expect(count > 100_000)
        #expect(problems.isEmpty, "\(problems.prefix(20))")

        let background = try #require(doc.layer(id: "background"))
        #expect(background.type == .background)
        let bg = background.color("background-color", zoom: 3)
        #expect(abs(bg.red - 242 / 255) < 1e-9 && abs(bg.green - 243 / 255) < 1e-9 && bg.alpha == 1)

        let water = try #require(doc.layer(id: "water"))
        let lake = StyleFeature(properties: ["class": "lake"], geometryType: .polygon)
        let tunnel = StyleFeature(properties: ["brunnel": "tunnel"], geometryType: .polygon)
        #expect(water.matches(zoom: 5, feature: lake))
        #expect(background.matches(zoom: 5, feature: lake))  // no filter
        #expect(water.filter?.matches(zoom: 5, feature: tunnel) == false)
        #expect(water.filter?.matches(zoom: 5, feature: StyleFeature(geometryType: .lineString)) == false)
        #expect(water.source == "openmaptiles" && water.sourceLayer == "water")

        let label = try #require(doc.layer(id: "water_name"))
        let river = StyleFeature(properties: ["name:latin": "Rhein", "name:nonlatin": "Рейн"], geometryType: .lineString)
        #expect(label.string("text-field", zoom: 10, feature: river) == "Rhein\nРейн")
        #expect(label.strings("text-font", zoom: 10) == ["Metropolis Medium Italic", "Noto Sans Italic"])
        #expect(label.symbolPlacement(zoom: 10) == .line)
        #expect(label.number("text-size", zoom: 10) == 12)
        #expect(label.textAnchor(zoom: 10) == .center)  // the spec's default
    }

    @Test func osmLibertyReadsAndEvaluatesEverywhere() throws {
        let doc = try Self.fixture("osm-liberty.json")
        #expect(doc.layers.count == 105)
        #expect(doc.sources["natural_earth_shaded_relief"]?.tileSize == 256)
        #expect(doc.sources["natural_earth_shaded_relief"]?.maxzoom == 6)
        let skipped = doc.warnings.filter { $0.message.contains("does not draw") }
        #expect(skipped.count == 1 && skipped[0].path == "layers[84].type")
        #expect(skipped.first?.message == #"maptrip does not draw fill-extrusion layers: layer "building-3d" is skipped"#)
        #expect(doc.drawnLayers.count == 104)
        #expect(doc.warnings.count == 2)
        let (count, problems) = Self.evaluateAll(doc)
        #expect(count > 100_000)
        #expect(problems.isEmpty, "\(problems.prefix(20))")
    }

    @Test func aLegacyZoomFunctionInterpolatesExponentially() throws {
        let data = Self.style(#"""
            [{"id": "roads", "type": "line", "source": "v", "source-layer": "roads", "minzoom": 4,
            "paint": {"line-width": {"base": 2, "stops": [[5, 1], [10, 4]]}, "line-dasharray": [2, 1],
                      "line-color": {"stops": [[5, "#000000"], [10, "#ffffff"]]}},
            "layout": {"line-cap": "round", "line-join": {"stops": [[0, "bevel"], [12, "round"]]}}}]
            """#)
        let doc = try StyleDocument(data: data, file: "style.json")
        let roads = doc.layers[0]
        // (2^2.5 - 1) / (2^5 - 1) of the way from 1 to 4.
        let t = (Foundation.pow(2, 2.5) - 1) / 31
        #expect(abs(roads.number("line-width", zoom: 7.5) - (1 + 3 * t)) < 1e-12)
        #expect(roads.number("line-width", zoom: 2) == 1)
        #expect(roads.number("line-width", zoom: 20) == 4)
        #expect(roads.color("line-color", zoom: 7.5) == StyleColor(red: 0.5, green: 0.5, blue: 0.5))
        #expect(roads.numbers("line-dasharray", zoom: 7) == [2, 1])
        #expect(roads.lineCap(zoom: 7) == .round)
        #expect(roads.lineJoin(zoom: 11) == .bevel && roads.lineJoin(zoom: 12) == .round)
        #expect(roads.number("line-opacity", zoom: 7) == 1)  // the spec's default
        #expect(!roads.isShown(atZoom: 3) && roads.isShown(atZoom: 4))
    }

    @Test func textFieldTokensAndNameFallbacks() throws {
        let data = Self.style(#"""
            [{"id": "a", "type": "symbol", "source": "v", "layout": {"text-field": "{name:latin} ({ref})"}},
            {"id": "b", "type": "symbol", "source": "v",
             "layout": {"text-field": ["coalesce", ["get", "name:de"], ["get", "name:en"], ["get", "name"]],
                        "text-transform": "uppercase"}}]
            """#)
        let doc = try StyleDocument(data: data, file: "style.json")
        let paris = StyleFeature(properties: ["name:latin": "Paris", "ref": 75, "name": "Paris", "name:en": "Paris (en)"])
        #expect(doc.layers[0].string("text-field", zoom: 5, feature: paris) == "Paris (75)")
        #expect(doc.layers[0].string("text-field", zoom: 5, feature: StyleFeature()) == " ()")
        #expect(doc.layers[1].string("text-field", zoom: 5, feature: paris) == "Paris (en)")
        var german = paris
        german.properties["name:de"] = "Paris (de)"
        #expect(doc.layers[1].string("text-field", zoom: 5, feature: german) == "Paris (de)")
        #expect(doc.layers[1].textTransform(zoom: 5) == .uppercase)
        #expect(doc.layers[0].strings("text-font", zoom: 5) == ["Open Sans Regular", "Arial Unicode MS Regular"])
    }

    @Test func aValueThatFailsGivesTheDefault() throws {
        let data = Self.style(#"""
            [{"id": "a", "type": "line", "source": "v", "paint": {"line-width": ["get", "w"],
            "line-color": ["to-color", ["get", "c"]]}}]
            """#)
        let layer = try StyleDocument(data: data, file: "style.json").layers[0]
        #expect(layer.number("line-width", zoom: 1, feature: StyleFeature(properties: ["w": 3])) == 3)
        #expect(layer.number("line-width", zoom: 1, feature: StyleFeature(properties: ["w": "wide"])) == 1)
        #expect(layer.color("line-color", zoom: 1, feature: StyleFeature(properties: ["c": "red"])) == StyleColor(red: 1, green: 0, blue: 0))
        #expect(layer.color("line-color", zoom: 1, feature: StyleFeature(properties: ["c": "nope"])) == .black)
    }

    @Test func anExpressionOfTheWrongTypeIsAnErrorAtItsPath() {
        let data = Self.style("""
            [{"id": "bg", "type": "background"},
             {"id": "a", "type": "fill", "source": "v",
              "paint": {"fill-color": ["case", ["has", "x"], "red", 5]}}]
            """)
        #expect(Self.error(data) == "style.json:3:57: layers[1].paint.fill-color[3]: Expected color but found number instead.")
        let filter = Self.style(#"[{"id": "a", "type": "fill", "source": "v", "filter": ["all", ["==", ["get", "a"], 1], ["+", 1, 2]]}]"#)
        #expect(Self.error(filter) == "style.json:1:188: layers[0].filter[2]: Expected boolean but found number instead.")
        let zoom = Self.style(#"[{"id": "a", "type": "line", "source": "v", "paint": {"line-width": ["+", ["zoom"], 1]}}]"#)
        #expect(Self.error(zoom).contains(#"layers[0].paint.line-width: "zoom" expression may only be used as input to a top-level"#))
        let constant = Self.style(##"[{"id": "a", "type": "line", "source": "v", "paint": {"line-color": "#ggg"}}]"##)
        #expect(Self.error(constant).contains("layers[0].paint.line-color: Could not parse color from value '#ggg'"))
        let layoutOnly = Self.style(#"[{"id": "a", "type": "symbol", "source": "v", "layout": {"symbol-placement": ["get", "p"]}}]"#)
        #expect(Self.error(layoutOnly).contains("layers[0].layout.symbol-placement: data expressions not supported"))
    }

    @Test func iconImageTakesTokensStringsAndImageExpressions() throws {
        let data = Self.style(#"""
            [{"id": "a", "type": "symbol", "source": "v", "layout": {"icon-image": "shield-{ref_length}"}},
             {"id": "b", "type": "symbol", "source": "v", "layout": {"icon-image": ["image", ["concat", "shield-", ["get", "ref_length"]]]}},
             {"id": "c", "type": "symbol", "source": "v",
              "layout": {"icon-image": ["coalesce", ["image", ["get", "icon"]], ["image", "dot"], ["image", "star"]]}},
             {"id": "d", "type": "symbol", "source": "v", "layout": {"icon-image": ["get", "icon"]}}]
            """#)
        let layers = try StyleDocument(data: data, file: "style.json").layers
        let sprite: Set<String> = ["shield-3", "dot", "cafe"]
        let three = StyleFeature(properties: ["ref_length": 3, "icon": "cafe"])
        let none = StyleFeature(properties: ["icon": "bar"])
        #expect(layers[0].image("icon-image", zoom: 5, feature: three, available: sprite) == "shield-3")
        #expect(layers[1].image("icon-image", zoom: 5, feature: three, available: sprite) == "shield-3")
        #expect(layers[2].image("icon-image", zoom: 5, feature: three, available: sprite) == "cafe")
        // The first image the sprite has; when it has none of them, the first one named.
        #expect(layers[2].image("icon-image", zoom: 5, feature: none, available: sprite) == "dot")
        #expect(layers[2].image("icon-image", zoom: 5, feature: none, available: []) == "bar")
        #expect(layers[3].image("icon-image", zoom: 5, feature: none, available: sprite) == "bar")
        #expect(layers[3].image("icon-image", zoom: 5, feature: StyleFeature(), available: sprite) == "")
        let wrong = Self.style(#"[{"id": "a", "type": "symbol", "source": "v", "layout": {"icon-image": ["image", ["+", 1, 2]]}}]"#)
        #expect(Self.error(wrong) == "style.json:1:182: layers[0].layout.icon-image[1]: Expected string but found number instead.")
        let notImage = Self.style(#"[{"id": "a", "type": "symbol", "source": "v", "layout": {"text-size": ["image", "x"]}}]"#)
        #expect(Self.error(notImage).contains("layers[0].layout.text-size: Expected number but found resolvedImage instead."))
        let arity = Self.style(#"[{"id": "a", "type": "symbol", "source": "v", "layout": {"icon-image": ["image"]}}]"#)
        #expect(Self.error(arity).contains("layers[0].layout.icon-image: Expected two arguments."))
    }

    @Test func brokenOrIncompleteStylesGetOneClearError() {
        #expect(Self.error(Data("{\"version\": 8,\n \"layers\": [}".utf8)).hasPrefix("style.json:2:13: layers"))
        #expect(Self.error(Data("".utf8)) == "style.json:1:1: the file is empty")
        #expect(Self.error(Data(#"{"version": 8, "sources": {}}"#.utf8)) == #"style.json:1:1: missing required key "layers""#)
        #expect(Self.error(Data(#"{"version": 7, "sources": {}, "layers": []}"#.utf8)) == "style.json:1:13: version: the style version must be 8, found 7")
        #expect(Self.error(Self.style(#"[{"type": "fill", "source": "v"}]"#)).hasSuffix(#"layers[0]: missing required key "id""#))
        #expect(Self.error(Self.style(#"[{"id": "a", "type": "fill", "source": "w"}]"#)).contains(#"layers[0].source: no source named "w" (sources: v)"#))
        #expect(Self.error(Self.style(#"[{"id": "a", "type": "fill"}]"#)).contains(#"missing required key "source""#))
        #expect(Self.error(Self.style(#"[{"id": "a", "type": "background"}, {"id": "a", "type": "background"}]"#))
            .contains(#"layers[1].id: duplicate layer id "a""#))
        #expect(Self.error(Self.style("[]", sources: #"{"v": {"type": "vectr"}}"#)).contains(#"sources.v.type: unknown source type "vectr""#))
    }

    @Test func unknownPropertiesAndUndrawnLayersAreWarningsListedOnce() throws {
        let data = Self.style(#"""
            [{"id": "a", "type": "fill", "source": "v", "paint": {"fill-colour": "red", "line-width": 2,
              "fill-color-transition": {"duration": 300}}, "layout": {"fill-color": "red"}},
             {"id": "h", "type": "heatmap", "source": "v"}, {"id": "c", "type": "circle", "source": "v"},
             {"id": "x", "type": "sparkles", "source": "v", "paint": {"glitter": 1}}]
            """#)
        let doc = try StyleDocument(data: data, file: "style.json")
        let listed = doc.warnings.map(\.listed)
        #expect(listed == [
            #"style.json:1:170: warning: layers[0].paint.fill-colour: unknown fill paint property "fill-colour" (ignored) (did you mean "fill-color"?)"#,
            #"style.json:1:191: warning: layers[0].paint.line-width: unknown fill paint property "line-width" (ignored)"#,
            #"style.json:2:73: warning: layers[0].layout.fill-color: unknown fill layout property "fill-color" (ignored) (it is a paint property)"#,
            #"style.json:3:22: warning: layers[1].type: maptrip does not draw heatmap layers: layer "h" is skipped"#,
            #"style.json:3:69: warning: layers[2].type: maptrip does not draw circle layers: layer "c" is skipped"#,
            #"style.json:4:22: warning: layers[3].type: unknown layer type "sparkles": layer "x" is skipped"#,
        ])
        #expect(doc.warnings.allSatisfy { $0.severity == .warning })
        #expect(doc.drawnLayers.map(\.id) == ["a"])
        #expect(doc.layers[3].type == .other("sparkles"))
    }
}

extension StyleValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}
