import Foundation
import FuzzSupport
import MapTripScene
import MapTripStyle

/// A style's expressions as a render meets them: any bytes parsed as JSON, then as the value of
/// properties of several types (a number, a colour, a string with `{token}`s, a boolean, an enum, a
/// fixed-length number array, an image), as a filter and as an untyped expression, each evaluated on features of every
/// geometry kind, with odd property values, at zooms from below 0 to past the last (NaN included).
/// Parsing and evaluating either succeed or fail with an error; nothing may trap.
@_cdecl("FuzzExpression_main")
func fuzzExpressionMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Fuzz.run(argc, argv) { bytes, count in
        guard let json = try? JSONParser.parse(Fuzz.data(bytes, count), file: "fuzz.json") else { return 0 }
        for spec in FuzzExpression.specs {
            for constants in [true, false] {
                guard let value = try? PropertyValue(json: json, spec: spec, constants: constants) else { continue }
                for context in FuzzExpression.contexts {
                    _ = value.evaluate(context)
                    _ = try? value.evaluateStrictly(context)
                }
            }
        }
        // As a layer's filter (legacy or expression), and as an untyped expression.
        if let filter = try? Filter(json: json) {
            for context in FuzzExpression.contexts { _ = filter.matches(zoom: context.zoom, feature: context.feature) }
        }
        if let expression = try? ExpressionParser().parse(json) {
            for context in FuzzExpression.contexts { _ = try? expression.evaluate(context) }
        }
        return 0
    }
}

enum FuzzExpression {
    /// Real properties of the spec's table, one of each kind: a number, a colour, a string with
    /// `{token}`s, a string array, an enum, a fixed-length number array, a zoom-only boolean, an image.
    static let specs: [PropertySpec] = [
        ("line", "line-width"), ("fill", "fill-color"), ("symbol", "text-field"), ("symbol", "text-font"),
        ("symbol", "text-anchor"), ("symbol", "text-offset"), ("symbol", "symbol-avoid-edges"), ("symbol", "icon-image"),
    ].compactMap { PropertySpec.lookup(layer: $0.0, name: $0.1) }

    /// Features of each geometry kind with properties of every JSON type under the names fixtures use.
    static let contexts: [EvaluationContext] = {
        let features: [StyleFeature] = [
            StyleFeature(),
            StyleFeature(properties: ["name": .string("Helsinki"), "name:en": .string("Helsinki"), "class": .string("primary"),
                                      "x": .number(2), "y": .number(-1.5), "rank": .number(3)],
                         id: .number(7), geometryType: .point),
            StyleFeature(properties: ["class": .string("water"), "x": .number(.nan), "y": .number(.infinity),
                                      "a": .array([.number(1), .string("b"), .null]), "o": .object(["k": .bool(true)])],
                         id: .string("w"), geometryType: .multiPolygon),
            StyleFeature(properties: ["x": .string("12"), "y": .bool(false), "name": .string(""), "rank": .number(-1e308),
                                      "color": .string("rgba(10,20,30,0.5)"), "icon": .string("bus")],
                         id: .number(-1), geometryType: .lineString, state: ["hover": .bool(true)]),
        ]
        var out: [EvaluationContext] = []
        for zoom in [-1, 0, 3.5, 14, 24, 30, .nan] {
            for feature in features { out.append(EvaluationContext(zoom: zoom, feature: feature, availableImages: ["bus"])) }
        }
        return out
    }()
}
