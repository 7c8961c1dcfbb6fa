import Foundation
import MapTripScene

/// A paint or layout property's value, parsed against its specification: a constant, a legacy
/// function (`{"stops": [[z, v], ...], "base": b}`, with `"property"` and `"type"` categorical,
/// interval, exponential or identity) converted to the expression it stands for, or an expression.
/// Checked as the reference checks it: the type, whether the property may depend on the feature or
/// the zoom, and that `zoom` is only the input of one top-level `step` or `interpolate`.
public struct PropertyValue: Sendable {
    public let spec: PropertySpec
    public let expression: Expression
    /// The spec's default, given when the value is null, NaN, not one of an enum's values, or fails.
    public let defaultValue: StyleValue?

    public var isFeatureConstant: Bool { expression.isFeatureConstant }
    public var isZoomConstant: Bool { expression.isZoomConstant }

    /// - Parameter constants: whether a value that is not an expression is a constant (as in a
    ///   style), or an expression all the same (as the reference's expression fixtures take it).
    public init(json: JSONValue, spec: PropertySpec, constants: Bool = true) throws {
        self.spec = spec
        defaultValue = spec.defaultValue
        let source: JSONValue
        if json.members != nil {
            source = try LegacyFunction.convert(json, spec: spec)
        } else if !constants || Self.isExpression(json) {
            source = json
        } else if spec.tokens, let s = json.string {
            source = LegacyFunction.tokens(s, at: json.position)
        } else {
            source = JSONValue(.array([JSONValue(.string("literal"), at: json.position), json]), at: json.position)
        }
        let parser = ExpressionParser()
        let parsed = try parser.parse(source, "", spec.expressionType,
                                      annotation: spec.type == "string" ? .coerce : nil)
        func fail(_ message: String) -> ExpressionError { ExpressionError(key: "", message: message, position: json.position) }
        if !parsed.isFeatureConstant && !spec.feature { throw fail("data expressions not supported") }
        if !parsed.isZoomConstant && !spec.zoom { throw fail("zoom expressions not supported") }
        switch Self.zoomCurve(parsed, "") {
        case .none:
            if !parsed.isZoomConstant {
                throw fail("\"zoom\" expression may only be used as input to a top-level \"step\" or \"interpolate\" expression.")
            }
        case .failure(let message): throw fail(message)
        case .curve(_, let isInterpolate):
            if isInterpolate && !spec.interpolated { throw fail("\"interpolate\" expressions cannot be used with this property") }
        }
        expression = parsed
    }

    /// Whether a JSON value is an expression rather than a constant: an array naming an operator.
    public static func isExpression(_ json: JSONValue) -> Bool {
        guard let op = json.elements?.first?.string else { return false }
        return ExpressionParser.operators.contains(op) || ExpressionParser.unsupportedOperators.contains(op)
    }

    /// The value, errors thrown (as the reference's fixtures see it).
    public func evaluateStrictly(_ context: EvaluationContext) throws -> StyleValue {
        try expression.evaluate(context)
    }

    /// The value, or the spec's default when it is null, NaN, not one of an enum's values, or fails.
    public func evaluate(_ context: EvaluationContext) -> StyleValue {
        guard let v = try? expression.evaluate(context) else { return defaultValue ?? .null }
        switch v {
        case .null: return defaultValue ?? .null
        case .number(let x) where x.isNaN: return defaultValue ?? .null
        case .string(let s) where spec.type == "enum" && !spec.values.contains(s): return defaultValue ?? .null
        default: return v
        }
    }

    enum ZoomCurve { case none, curve(String, isInterpolate: Bool), failure(String) }

    /// The one `step` or `interpolate` on `zoom`, reached from the top through `let` and `coalesce` only.
    static func zoomCurve(_ e: Expression, _ path: String) -> ZoomCurve {
        var result = ZoomCurve.none
        switch e.node {
        case .bind(let bindings, let body):
            result = zoomCurve(body, path + "/\(bindings.count)")
        case .coalesce(let args):
            for (i, arg) in args.enumerated() {
                result = zoomCurve(arg, path + "/\(i)")
                if case .none = result { continue }
                break
            }
        case .step(let input, _, _), .interpolate(_, let input, _, _):
            if case .call(.zoom, _) = input.node {
                if case .interpolate = e.node { result = .curve(path, isInterpolate: true) } else { result = .curve(path, isInterpolate: false) }
            }
        default: break
        }
        if case .failure = result { return result }
        for (i, child) in e.children.enumerated() {
            let found = zoomCurve(child, path + "/\(i)")
            switch (found, result) {
            case (.failure, _): result = found
            case (.curve, .none):
                result = .failure("\"zoom\" expression may only be used as input to a top-level \"step\" or \"interpolate\" expression.")
            case (.curve(let a, _), .curve(let b, _)) where a != b:
                result = .failure("Only one zoom-based \"step\" or \"interpolate\" subexpression may be used in an expression.")
            default: break
            }
        }
        return result
    }
}

/// Legacy (pre-expression) functions turned into the expressions they mean, as the style spec's
/// migration defines them.
enum LegacyFunction {
    static func convert(_ fn: JSONValue, spec: PropertySpec) throws -> JSONValue {
        let at = fn.position
        func v(_ kind: JSONValue.Kind) -> JSONValue { JSONValue(kind, at: at) }
        func s(_ x: String) -> JSONValue { v(.string(x)) }
        func n(_ x: Double) -> JSONValue { v(.number(JSONNumber(value: x, literal: JSNumber.string(x)))) }
        func a(_ items: [JSONValue]) -> JSONValue { v(.array(items)) }
        func literal(_ x: JSONValue) -> JSONValue { x.elements != nil || x.members != nil ? a([s("literal"), x]) : x }
        let property = fn["property"]?.string
        let defaultValue = fn["default"]

        guard let stopsJSON = fn["stops"] else {
            // Identity function.
            guard let property else {
                throw ExpressionError(key: "", message: "a function needs \"stops\" or a \"property\"", position: at)
            }
            let get = a([s("get"), s(property)])
            guard let defaultValue else { return spec.type == "string" ? a([s("string"), get]) : get }
            if spec.type == "enum" { return a([s("match"), get, a(spec.values.map(s)), get, defaultValue]) }
            var items = [s(spec.type == "color" ? "to-color" : spec.type), get, literal(defaultValue)]
            if spec.type == "array" {
                items.insert(contentsOf: [s(spec.element ?? "value"), spec.length.map { n(Double($0)) } ?? v(.null)], at: 1)
            }
            return a(items)
        }
        guard let rawStops = stopsJSON.elements, !rawStops.isEmpty,
              rawStops.allSatisfy({ ($0.elements?.count ?? 0) == 2 }) else {
            throw ExpressionError(key: "stops", message: "a function's stops must be [input, output] pairs", position: stopsJSON.position)
        }
        let zoomAndFeature = rawStops[0].elements![0].members != nil
        let featureDependent = zoomAndFeature || property != nil
        var stops: [(JSONValue, JSONValue)] = rawStops.map { pair in
            let out = pair.elements![1]
            if !featureDependent, spec.tokens, let text = out.string { return (pair.elements![0], tokens(text, at: out.position)) }
            return (pair.elements![0], literal(out))
        }
        let declared = fn["type"]?.string
        func functionType(_ declared: String?) -> String { declared ?? (spec.interpolated ? "exponential" : "interval") }
        if let colorSpace = fn["colorSpace"]?.string, colorSpace != "rgb" {
            throw ExpressionError(key: "colorSpace", message: "\"\(colorSpace)\" colour interpolation is not supported", position: at)
        }
        func appendStop(_ curve: inout [JSONValue], _ input: JSONValue, _ output: JSONValue, isStep: Bool) {
            if curve.count > 3, input == curve[curve.count - 2] || (input.number?.value != nil && input.number?.value == curve[curve.count - 2].number?.value) { return }
            if !(isStep && curve.count == 2) { curve.append(input) }
            curve.append(output)
        }
        func fixDegenerateStep(_ curve: inout [JSONValue]) {
            if curve[0].string == "step", curve.count == 3 { curve += [n(0), curve[2]] }
        }
        func base() -> JSONValue {
            let b = fn["base"]?.number?.value ?? 1
            return b == 1 ? a([s("linear")]) : a([s("exponential"), n(b)])
        }
        func fallback(_ defaultValue: JSONValue?) -> JSONValue {
            if let defaultValue { return literal(defaultValue) }
            if let json = spec.defaultJSON, let d = try? JSONParser.parse(Data(json.utf8), file: "v8.json") {
                return literal(JSONValue(d.kind, at: at))
            }
            return v(.null)
        }
        func propertyFunction(_ type: String, _ stops: [(JSONValue, JSONValue)], _ defaultValue: JSONValue?) throws -> JSONValue {
            let get = a([s("get"), s(property ?? "")])
            switch type {
            case "categorical" where stops[0].0.bool != nil:
                var e = [s("case")]
                for (input, output) in stops { e += [a([s("=="), get, input]), output] }
                return a(e + [fallback(defaultValue)])
            case "categorical":
                var e = [s("match"), get]
                for (input, output) in stops { appendStop(&e, input, output, isStep: false) }
                return a(e + [fallback(defaultValue)])
            case "interval", "exponential":
                let isStep = type == "interval"
                var e = isStep ? [s("step"), a([s("number"), get])] : [s("interpolate"), base(), a([s("number"), get])]
                for (input, output) in stops { appendStop(&e, input, output, isStep: isStep) }
                fixDegenerateStep(&e)
                guard let defaultValue else { return a(e) }
                return a([s("case"), a([s("=="), a([s("typeof"), get]), s("number")]), a(e), literal(defaultValue)])
            default:
                throw ExpressionError(key: "type", message: "unknown property function type \"\(type)\"", position: at)
            }
        }

        if zoomAndFeature {
            var zooms: [Double] = []
            var byZoom: [Double: [(JSONValue, JSONValue)]] = [:]
            for (input, output) in stops {
                guard let z = input["zoom"]?.number?.value, let value = input["value"] else {
                    throw ExpressionError(key: "stops", message: "a zoom-and-property stop's input is {\"zoom\": z, \"value\": v}", position: input.position)
                }
                if byZoom[z] == nil { zooms.append(z); byZoom[z] = [] }
                byZoom[z]!.append((value, output))
            }
            let isStep = functionType(nil) != "exponential"
            var e = isStep ? [s("step"), a([s("zoom")])] : [s("interpolate"), a([s("linear")]), a([s("zoom")])]
            for z in zooms {
                appendStop(&e, n(z), try propertyFunction(functionType(declared), byZoom[z]!, defaultValue), isStep: isStep)
            }
            if isStep { fixDegenerateStep(&e) }
            return a(e)
        }
        if featureDependent { return try propertyFunction(functionType(declared), stops, defaultValue) }
        // A zoom function.
        let type = functionType(declared)
        guard type == "interval" || type == "exponential" else {
            throw ExpressionError(key: "type", message: "unknown zoom function type \"\(type)\"", position: at)
        }
        let isStep = type == "interval"
        var e = isStep ? [s("step"), a([s("zoom")])] : [s("interpolate"), base(), a([s("zoom")])]
        stops = stops.map { ($0.0, $0.1) }
        for (input, output) in stops { appendStop(&e, input, output, isStep: isStep) }
        fixDegenerateStep(&e)
        return a(e)
    }

    /// `"{name} ({ref})"` as the expression it stands for: the text, with each `{key}` replaced by
    /// the feature's property (nothing when it has none).
    static func tokens(_ text: String, at position: SourcePosition) -> JSONValue {
        func v(_ kind: JSONValue.Kind) -> JSONValue { JSONValue(kind, at: position) }
        func s(_ x: String) -> JSONValue { v(.string(x)) }
        var parts: [JSONValue] = [s("concat")]
        var rest = Substring(text)
        var literal = ""
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(where: { $0 == "}" || $0 == "{" }), after[close] == "}",
                  close > after.startIndex else {
                literal += rest[...open]
                rest = after
                continue
            }
            literal += rest[..<open]
            if !literal.isEmpty { parts.append(s(literal)); literal = "" }
            parts.append(v(.array([s("get"), s(String(after[..<close]))])))
            rest = after[after.index(after: close)...]
        }
        literal += rest
        if parts.count == 1 { return v(.array([s("literal"), s(text)])) }
        if !literal.isEmpty { parts.append(s(literal)) } else if parts.count == 2 { return v(.array([s("to-string"), parts[1]])) }
        return v(.array(parts))
    }
}
