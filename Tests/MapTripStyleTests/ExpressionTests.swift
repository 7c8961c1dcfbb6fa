import Foundation
import Testing
import MapTripScene
import MapTripSupport
@testable import MapTripStyle

/// The expression language and the legacy filter syntax, on cases the reference's fixtures do not
/// cover (legacy filters have none).
@Suite struct ExpressionTests {
    static func json(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Data(text.utf8), file: "test.json")
    }

    static func filter(_ text: String) throws -> Filter { try Filter(json: json(text)) }

    static func evaluate(_ text: String, zoom: Double = 0, _ feature: StyleFeature = StyleFeature()) throws -> StyleValue {
        try ExpressionParser().parse(json(text)).evaluate(EvaluationContext(zoom: zoom, feature: feature))
    }

    static let park = StyleFeature(properties: ["class": "park", "rank": 3, "name": "Hyde"], id: 7, geometryType: .multiPolygon)
    static let road = StyleFeature(properties: ["class": "primary", "rank": "3"], geometryType: .lineString)

    @Test func legacyComparisonsAreStrict() throws {
        let f = try Self.filter(#"["==", "class", "park"]"#)
        #expect(f.isLegacy)
        #expect(f.matches(zoom: 0, feature: Self.park) && !f.matches(zoom: 0, feature: Self.road))
        // A number is not the string of its digits, and a missing key is not null.
        #expect(try Self.filter(#"["==", "rank", 3]"#).matches(zoom: 0, feature: Self.park))
        #expect(!(try Self.filter(#"["==", "rank", 3]"#).matches(zoom: 0, feature: Self.road)))
        #expect(!(try Self.filter(#"["==", "missing", null]"#).matches(zoom: 0, feature: Self.park)))
        #expect(try Self.filter(#"["!=", "missing", "x"]"#).matches(zoom: 0, feature: Self.park))
        #expect(try Self.filter(#"[">=", "rank", 3]"#).matches(zoom: 0, feature: Self.park))
        #expect(!(try Self.filter(#"[">=", "rank", 3]"#).matches(zoom: 0, feature: Self.road)))  // "3" is a string
        #expect(try Self.filter(#"["<", "class", "pb"]"#).matches(zoom: 0, feature: Self.park))
    }

    @Test func legacySetsKeysAndCombinations() throws {
        let among = try Self.filter(#"["in", "class", "wood", "park"]"#)
        #expect(among.isLegacy && among.matches(zoom: 0, feature: Self.park) && !among.matches(zoom: 0, feature: Self.road))
        #expect(try Self.filter(#"["!in", "class", "wood", "park"]"#).matches(zoom: 0, feature: Self.road))
        #expect(!(try Self.filter(#"["in", "class"]"#).matches(zoom: 0, feature: Self.park)))
        #expect(try Self.filter(#"["has", "name"]"#).matches(zoom: 0, feature: Self.park))
        #expect(try Self.filter(#"["!has", "name"]"#).matches(zoom: 0, feature: Self.road))
        // $type folds multi-geometries into their kind; $id is the feature's id.
        #expect(try Self.filter(#"["==", "$type", "Polygon"]"#).matches(zoom: 0, feature: Self.park))
        #expect(try Self.filter(#"["in", "$type", "LineString", "Point"]"#).matches(zoom: 0, feature: Self.road))
        #expect(try Self.filter(#"["in", "$id", 6, 7]"#).matches(zoom: 0, feature: Self.park))
        #expect(try Self.filter(#"["has", "$id"]"#).matches(zoom: 0, feature: Self.park))
        #expect(!(try Self.filter(#"["has", "$id"]"#).matches(zoom: 0, feature: Self.road)))
        let none = try Self.filter(#"["none", ["==", "class", "park"], ["has", "missing"]]"#)
        #expect(none.isLegacy && !none.matches(zoom: 0, feature: Self.park) && none.matches(zoom: 0, feature: Self.road))
        #expect(try Self.filter(#"["all", ["==", "class", "park"], [">", "rank", 2]]"#).matches(zoom: 0, feature: Self.park))
        #expect(try Self.filter(#"["any", ["==", "class", "x"], ["==", "$type", "LineString"]]"#).matches(zoom: 0, feature: Self.road))
        #expect(!(try Self.filter(#"["any"]"#).matches(zoom: 0, feature: Self.park)))
        #expect(try Self.filter(#"["all"]"#).matches(zoom: 0, feature: Self.park))
    }

    @Test func aFilterIsLegacyUnlessItCanOnlyBeAnExpression() throws {
        // The same `in`: a legacy set test, or the expression's membership test.
        let expression = try Self.filter(#"["in", ["get", "class"], ["literal", ["park", "wood"]]]"#)
        #expect(!expression.isLegacy && expression.matches(zoom: 0, feature: Self.park))
        #expect(!(try Self.filter(#"["==", ["get", "class"], "park"]"#).isLegacy))
        // One expression child makes the whole `all` an expression.
        let mixed = try Self.filter(#"["all", ["has", "name"], ["==", ["geometry-type"], "MultiPolygon"]]"#)
        #expect(!mixed.isLegacy && mixed.matches(zoom: 0, feature: Self.park))
        #expect(try Self.filter("true").matches(zoom: 0, feature: Self.road))
        // A filter must be boolean, and one that fails on a feature does not match it.
        #expect(throws: ExpressionError.self) { try Self.filter(#"["+", 1, 2]"#) }
        let flag = try Self.filter(#"["get", "flag"]"#)  // a value: asserted boolean as it is evaluated
        #expect(flag.matches(zoom: 0, feature: StyleFeature(properties: ["flag": .bool(true)])))
        #expect(!flag.matches(zoom: 0, feature: StyleFeature(properties: ["flag": "yes"])))
        let failing = try Self.filter(#"[">", ["get", "class"], 2]"#)
        #expect(!failing.matches(zoom: 0, feature: Self.park))
        #expect(try Self.filter(#"["step", ["zoom"], false, 10, true]"#).matches(zoom: 12, feature: Self.park))
        #expect(!(try Self.filter(#"["step", ["zoom"], false, 10, true]"#).matches(zoom: 9.9, feature: Self.park)))
    }

    @Test func valuesAsJavaScriptWritesThem() throws {
        #expect(JSNumber.string(1e21) == "1e+21")
        #expect(JSNumber.string(1e-7) == "1e-7")
        #expect(JSNumber.string(123456789012) == "123456789012")
        #expect(JSNumber.string(0.000001) == "0.000001")
        #expect(JSNumber.string(-1.5) == "-1.5")
        #expect(JSNumber.string(0.1 + 0.2) == "0.30000000000000004")
        #expect(try Self.evaluate(#"["to-string", ["rgba", 255, 0, 0, 0.5]]"#) == "rgba(255,0,0,0.5)")
        #expect(try Self.evaluate(#"["concat", "a", 1, true, null, ["literal", [1, "b"]]]"#) == #"a1true[1,"b"]"#)
        #expect(try Self.evaluate(#"["to-number", " 0x10 "]"#) == 16)
        #expect(try Self.evaluate(#"["typeof", ["literal", [[1], [2]]]]"#) == "array<value, 2>")
    }

    @Test func cssColours() {
        #expect(StyleColor(css: "#f0c8") == StyleColor(red: 1, green: 0, blue: 0xcc / 255.0, alpha: 0x88 / 255.0))
        #expect(StyleColor(css: "rgb(255 0 0 / 50%)") == StyleColor(red: 1, green: 0, blue: 0, alpha: 0.5))
        #expect(StyleColor(css: "rgba(100%, 0%, 0%, 0.25)") == StyleColor(red: 1, green: 0, blue: 0, alpha: 0.25))
        #expect(StyleColor(css: "hsl(120, 100%, 50%)") == StyleColor(red: 0, green: 1, blue: 0))
        #expect(StyleColor(css: " SteelBlue ") == StyleColor(red: 70 / 255.0, green: 130 / 255.0, blue: 180 / 255.0))
        #expect(StyleColor(css: "rgb(255, 0 0)") == nil)  // commas all or none
        #expect(StyleColor(css: "rgb(100%, 0, 0)") == nil)  // numbers or percentages, not both
        #expect(StyleColor(css: "#12345") == nil)
        #expect(StyleColor(css: "#１２３") == nil)  // full-width digits are not hex digits here
    }

    @Test func zoomInterpolationOfColoursAndNumbers() throws {
        let e = #"["interpolate", ["exponential", 1.5], ["zoom"], 10, 1, 14, ["*", 2, ["get", "w"]]]"#
        let w = StyleFeature(properties: ["w": 4])
        #expect(throws: ExpressionError.self) {  // strings do not interpolate
            try Self.evaluate(#"["interpolate", ["linear"], ["zoom"], 0, "red", 10, "blue"]"#)
        }
        #expect(try Self.evaluate(e, zoom: 8, w) == 1)
        #expect(try Self.evaluate(e, zoom: 20, w) == 8)
        let t = (Foundation.pow(1.5, 2.0) - 1) / (Foundation.pow(1.5, 4.0) - 1)
        #expect(try Self.evaluate(e, zoom: 12, w).number.map { abs($0 - (1 + 7 * t)) < 1e-12 } == true)
        let c = try Self.evaluate(##"["interpolate", ["linear"], ["zoom"], 0, ["to-color", "rgba(0, 0, 0, 0)"], 10, ["to-color", "#ffffff"]]"##, zoom: 5)
        // Straight components interpolate: black at alpha 0 to white gives mid grey at half alpha.
        #expect(c == .color(StyleColor(red: 0.5, green: 0.5, blue: 0.5, alpha: 0.5)))
        let arrays = #"["interpolate", ["linear"], ["zoom"], 0, ["literal", [0, 10]], 10, ["literal", [10, 0]]]"#
        #expect(try Self.evaluate(arrays, zoom: 2.5) == .array([2.5, 7.5]))
    }

    @Test func letMatchAndCoalesceTogether() throws {
        let e = #"["let", "c", ["get", "class"], ["match", ["var", "c"], ["park", "wood"], "green", "primary", "red", ["coalesce", ["get", "colour"], "grey"]]]"#
        #expect(try Self.evaluate(e, Self.park) == "green")
        #expect(try Self.evaluate(e, Self.road) == "red")
        #expect(try Self.evaluate(e, StyleFeature(properties: ["class": "x", "colour": "blue"])) == "blue")
        #expect(try Self.evaluate(e, StyleFeature(properties: ["class": 5])) == "grey")  // a number never matches string labels
        #expect(throws: ExpressionError.self) { try Self.evaluate(#"["var", "nope"]"#) }
        #expect(throws: ExpressionError.self) { try Self.evaluate(#"["match", ["get", "x"], [1, "a"], 1, 2]"#) }
        #expect(throws: ExpressionError.self) { try Self.evaluate(#"["rgb", 300, 0, 0]"#) }  // folded at parse time
        #expect(throws: ExpressionError.self) { try Self.evaluate(#"["at", 3, ["literal", [1, 2]]]"#) }  // folded too
        #expect(throws: ExpressionRuntimeError.self) {
            try Self.evaluate(#"["at", 3, ["array", ["get", "a"]]]"#, StyleFeature(properties: ["a": .array([1, 2])]))
        }
    }

    @Test func outOfRangeIndicesAreHeldNotTrapped() throws {
        let a = StyleFeature(properties: ["a": .array([1, 2, 1]), "s": "abcabc", "from": .number(.infinity), "neg": -1e300])
        #expect(try Self.evaluate(#"["index-of", 1, ["get", "a"], ["get", "from"]]"#, a) == -1)
        #expect(try Self.evaluate(#"["index-of", 1, ["get", "a"], ["get", "neg"]]"#, a) == 0)
        #expect(try Self.evaluate(#"["index-of", "c", ["get", "s"], ["get", "from"]]"#, a) == -1)
        #expect(try Self.evaluate(#"["index-of", "c", ["get", "s"], 3]"#, a) == 5)
        #expect(try Self.evaluate(#"["slice", ["get", "s"], ["get", "neg"], ["get", "from"]]"#, a) == "abcabc")
        #expect(try Self.evaluate(#"["slice", ["get", "a"], -2]"#, a) == .array([2, 1]))
    }

    @Test func anErrorKnowsWhereItIs() throws {
        do {
            _ = try ExpressionParser().parse(Self.json("[\"case\",\n  [\"has\", \"x\"], 1,\n  \"two\"]"), expected: .number)
            Issue.record("parsed")
        } catch let e as ExpressionError {
            #expect(e.key == "[3]")
            #expect(e.message == "Expected number but found string instead.")
            #expect(e.position == SourcePosition(line: 3, column: 3))
            #expect(Diagnostic.from(e).map(\.description) == ["3:3: [3]: Expected number but found string instead."])
        }
    }
}

extension StyleValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .number(value) }
}
