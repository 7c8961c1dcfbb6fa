import Foundation
import MapTripScene
import MapTripSupport

/// What a feature is made of, as `geometry-type` and the legacy `$type` filter key see it.
public enum GeometryType: String, Sendable, CaseIterable {
    case point = "Point", lineString = "LineString", polygon = "Polygon"
    case multiPoint = "MultiPoint", multiLineString = "MultiLineString", multiPolygon = "MultiPolygon"

    /// Point, LineString or Polygon: what legacy filters' `$type` compares (multi kinds folded in).
    public var base: GeometryType {
        switch self {
        case .point, .multiPoint: .point
        case .lineString, .multiLineString: .lineString
        case .polygon, .multiPolygon: .polygon
        }
    }
}

/// One feature of a vector tile as expressions read it.
public struct StyleFeature: Sendable, Equatable {
    public var properties: [String: StyleValue]
    /// The feature's id (`.null` when it has none).
    public var id: StyleValue
    public var geometryType: GeometryType?
    /// What `feature-state` reads (maptrip keeps no state: empty unless a caller sets it).
    public var state: [String: StyleValue]

    public init(properties: [String: StyleValue] = [:], id: StyleValue = .null, geometryType: GeometryType? = nil,
                state: [String: StyleValue] = [:]) {
        self.properties = properties
        self.id = id
        self.geometryType = geometryType
        self.state = state
    }
}

/// Where an expression is evaluated: the zoom, the feature, and the images the style's sprite has
/// (what `image` reports as available; nil: none known).
public struct EvaluationContext: Sendable {
    public var zoom: Double
    public var feature = StyleFeature()
    public var availableImages: Set<String>?

    public init(zoom: Double, feature: StyleFeature = StyleFeature(), availableImages: Set<String>? = nil) {
        self.zoom = zoom
        self.feature = feature
        self.availableImages = availableImages
    }
}

/// An expression that does not parse: what is wrong and where, `key` being its JSON path below the
/// expression's own (`[2][1]`), `position` its line and column in the file when known.
public struct ExpressionError: Error, Equatable, Sendable, CustomStringConvertible, DiagnosticConvertible {
    public var key: String
    public var message: String
    public var position: SourcePosition?

    public var description: String { key.isEmpty ? message : "\(key): \(message)" }

    /// Alone (a style's errors are `StyleError`s, with the file and the whole path).
    public var diagnostics: [Diagnostic] {
        [Diagnostic(.error, message: message, line: position?.line, column: position?.column, path: key.isEmpty ? nil : key)]
    }
}

/// An expression that fails as it is evaluated (a value of the wrong type, an index out of range).
public struct ExpressionRuntimeError: Error, Equatable, Sendable, CustomStringConvertible, DiagnosticConvertible {
    public var message: String
    public var description: String { message }
}

/// A parsed, type-checked expression of the MapLibre style language: see `ExpressionParser` for the
/// operators, `evaluate` for evaluating it.
public struct Expression: Sendable {
    public let type: ExpressionType
    let node: Node

    indirect enum Node: Sendable {
        case literal(StyleValue)
        case assertion([Expression])
        case coercion([Expression])
        case call(Op, [Expression])
        case comparison(Comparison, Expression, Expression, untyped: Bool)
        case cases([(Expression, Expression)], Expression)
        case match([StyleValue: Int], Expression, [Expression], Expression, inputType: ExpressionType)
        case coalesce([Expression])
        case step(Expression, [Double], [Expression])
        case interpolate(Interpolation, Expression, [Double], [Expression])
        case bind([(String, Expression)], Expression)
        case variable(String, Expression)
        case at(Expression, Expression)
        case contains(Expression, Expression)
        case indexOf(Expression, Expression, Expression?)
        case slice(Expression, Expression, Expression?)
        case length(Expression)
        /// Sections' text, and the options (font, scale, colour) checked but not applied.
        case format([Expression], options: [Expression])
        /// `["image", name]`: the image of that name, available or not (see `EvaluationContext`).
        case image(Expression)
        case legacy(LegacyFilter)
    }

    enum Comparison: String, Sendable {
        case eq = "==", ne = "!=", lt = "<", le = "<=", gt = ">", ge = ">="
        var isOrder: Bool { self != .eq && self != .ne }
    }

    enum Interpolation: Sendable {
        case linear
        case exponential(Double)
        case cubicBezier(Double, Double, Double, Double)
    }

    /// The legacy filter forms' own tests (JavaScript's strict equality, no type conversion).
    enum LegacyFilter: Sendable {
        enum Key: Sendable { case type, id, property(String) }
        case compare(Comparison, Key, StyleValue)
        case among(Key, [StyleValue])
        case has(Key)
    }

    init(_ type: ExpressionType, _ node: Node) {
        self.type = type
        self.node = node
    }

    static func literal(_ value: StyleValue, _ type: ExpressionType? = nil) -> Expression {
        Expression(type ?? value.type, .literal(value))
    }

    var isLiteral: Bool { if case .literal = node { true } else { false } }

    /// The constant value, when the expression is one.
    public var constant: StyleValue? { if case .literal(let v) = node { v } else { nil } }

    var children: [Expression] {
        switch node {
        case .literal, .variable, .legacy: []
        case .assertion(let a), .coercion(let a), .call(_, let a), .coalesce(let a): a
        case .format(let sections, let options): sections + options
        case .comparison(_, let l, let r, _): [l, r]
        case .cases(let branches, let otherwise): branches.flatMap { [$0.0, $0.1] } + [otherwise]
        case .match(_, let input, let outputs, let otherwise, _): [input] + outputs + [otherwise]
        case .step(let input, _, let outputs), .interpolate(_, let input, _, let outputs): [input] + outputs
        case .bind(let bindings, let result): bindings.map(\.1) + [result]
        case .at(let a, let b), .contains(let a, let b): [a, b]
        case .indexOf(let a, let b, let c), .slice(let a, let b, let c): [a, b] + (c.map { [$0] } ?? [])
        case .length(let a), .image(let a): [a]
        }
    }

    /// False when the value depends on the feature (its properties, id, geometry type or state).
    public var isFeatureConstant: Bool {
        switch node {
        case .legacy: return false
        case .call(let op, let args):
            switch op {
            case .get, .has: if args.count == 1 { return false }
            case .featureState, .properties, .geometryType, .id: return false
            default: break
            }
        default: break
        }
        return children.allSatisfy(\.isFeatureConstant)
    }

    /// False when the value depends on the zoom.
    public var isZoomConstant: Bool {
        if case .call(.zoom, _) = node { return false }
        return children.allSatisfy(\.isZoomConstant)
    }

    /// Whether the expression can be worked out once, at parse time.
    var isConstant: Bool {
        switch node {
        case .variable(_, let bound): return bound.isConstant
        case .call(.error, _), .image: return false  // an image's availability is the context's
        case .assertion(let args), .coercion(let args):
            guard args.allSatisfy(\.isConstant) else { return false }
        default:
            guard children.allSatisfy(\.isLiteral) else { return false }
        }
        return isFeatureConstant && isZoomConstant
    }
}

// MARK: - Operators with fixed signatures

extension Expression {
    enum Op: String, Sendable, CaseIterable {
        case error, typeof, toRGBA = "to-rgba", rgb, rgba, has, get, featureState = "feature-state", properties
        case geometryType = "geometry-type", id, zoom
        case plus = "+", times = "*", minus = "-", divide = "/", mod = "%", pow = "^"
        case sqrt, log10, ln, log2, sin, cos, tan, asin, acos, atan, e, pi, ln2
        case min, max, abs, floor, ceil, round, not = "!", all, any, upcase, downcase, concat, split, join

        enum Params { case fixed([ExpressionType]), varargs(ExpressionType) }

        var signature: (ExpressionType, [Params]) {
            let n = ExpressionType.number, s = ExpressionType.string, b = ExpressionType.boolean
            switch self {
            case .error: return (.error, [.fixed([s])])
            case .typeof: return (s, [.fixed([.value])])
            case .toRGBA: return (.array(n, 4), [.fixed([.color])])
            case .rgb: return (.color, [.fixed([n, n, n])])
            case .rgba: return (.color, [.fixed([n, n, n, n])])
            case .has: return (b, [.fixed([s]), .fixed([s, .object])])
            case .get: return (.value, [.fixed([s]), .fixed([s, .object])])
            case .featureState: return (.value, [.fixed([s])])
            case .properties: return (.object, [.fixed([])])
            case .geometryType: return (s, [.fixed([])])
            case .id: return (.value, [.fixed([])])
            case .zoom, .e, .pi, .ln2: return (n, [.fixed([])])
            case .plus, .times, .min, .max: return (n, [.varargs(n)])
            case .minus: return (n, [.fixed([n, n]), .fixed([n])])
            case .divide, .mod, .pow: return (n, [.fixed([n, n])])
            case .sqrt, .log10, .ln, .log2, .sin, .cos, .tan, .asin, .acos, .atan, .abs, .floor, .ceil, .round:
                return (n, [.fixed([n])])
            case .not: return (b, [.fixed([b])])
            case .all, .any: return (b, [.fixed([b, b]), .varargs(b)])
            case .upcase, .downcase: return (s, [.fixed([s])])
            case .concat: return (s, [.varargs(.value)])
            case .split: return (.array(s, nil), [.fixed([s, s])])
            case .join: return (s, [.fixed([.array(s, nil), s])])
            }
        }
    }
}

// MARK: - Evaluation

extension Expression {
    /// The expression's value at `context`; throws `ExpressionRuntimeError` when it fails (a
    /// property of the wrong type, say). Colours come out as `.color`.
    public func evaluate(_ context: EvaluationContext) throws -> StyleValue {
        switch node {
        case .literal(let v):
            return v
        case .assertion(let args):
            for (i, arg) in args.enumerated() {
                let v = try arg.evaluate(context)
                if type.mismatch(v.type) == nil { return v }
                if i == args.count - 1 {
                    throw ExpressionRuntimeError(message: "Expected value to be of type \(type), but found \(v.type) instead.")
                }
            }
            throw ExpressionRuntimeError(message: "no value to check")
        case .coercion(let args):
            return try coerce(args, context)
        case .call(let op, let args):
            return try call(op, args, context)
        case .comparison(let op, let l, let r, let untyped):
            let a = try l.evaluate(context), b = try r.evaluate(context)
            if op.isOrder && untyped {
                let ta = a.type.kind, tb = b.type.kind
                guard ta == tb, ta == "string" || ta == "number" else {
                    throw ExpressionRuntimeError(message: "Expected arguments for \"\(op.rawValue)\" to be (string, string) or (number, number), but found (\(ta), \(tb)) instead.")
                }
            }
            return .bool(Self.compare(op, a, b))
        case .cases(let branches, let otherwise):
            for (test, output) in branches where try test.evaluate(context) == .bool(true) {
                return try output.evaluate(context)
            }
            return try otherwise.evaluate(context)
        case .match(let cases, let input, let outputs, let otherwise, let inputType):
            let v = try input.evaluate(context)
            if v.type == inputType, let i = cases[v] { return try outputs[i].evaluate(context) }
            return try otherwise.evaluate(context)
        case .coalesce(let args):
            // An image the sprite does not have counts as null; when the last is one such, the first
            // such image's name (as the reference gives it).
            var requested: String?
            for (i, arg) in args.enumerated() {
                let result = try arg.evaluate(context)
                if case .image(let name, available: false) = result {
                    requested = requested ?? name
                    if i == args.count - 1 { return .string(requested!) }
                    continue
                }
                if result != .null { return result }
            }
            return .null
        case .image(let nameExpression):
            return Self.image(try nameExpression.evaluate(context), context)
        case .step(let input, let stops, let outputs):
            if stops.count == 1 { return try outputs[0].evaluate(context) }
            let x = try Self.number(input.evaluate(context))
            if x <= stops[0] { return try outputs[0].evaluate(context) }
            if x >= stops[stops.count - 1] { return try outputs[stops.count - 1].evaluate(context) }
            return try outputs[Self.stopIndex(stops, x)].evaluate(context)
        case .interpolate(let interpolation, let input, let stops, let outputs):
            if stops.count == 1 { return try outputs[0].evaluate(context) }
            let x = try Self.number(input.evaluate(context))
            if x <= stops[0] { return try outputs[0].evaluate(context) }
            if x >= stops[stops.count - 1] { return try outputs[stops.count - 1].evaluate(context) }
            let i = try Self.stopIndex(stops, x)
            let t = Self.factor(interpolation, x, stops[i], stops[i + 1])
            return Self.interpolate(try outputs[i].evaluate(context), try outputs[i + 1].evaluate(context), t)
        case .bind(_, let result):
            return try result.evaluate(context)
        case .variable(_, let bound):
            return try bound.evaluate(context)
        case .at(let indexExpression, let arrayExpression):
            let index = try Self.number(indexExpression.evaluate(context))
            let items = try arrayExpression.evaluate(context).array ?? []
            if index < 0 { throw ExpressionRuntimeError(message: "Array index out of bounds: \(JSNumber.string(index)) < 0.") }
            if index >= Double(items.count) {
                throw ExpressionRuntimeError(message: "Array index out of bounds: \(JSNumber.string(index)) > \(items.count - 1).")
            }
            guard index == index.rounded(.down) else {
                throw ExpressionRuntimeError(message: "Array index must be an integer, but found \(JSNumber.string(index)) instead.")
            }
            return items[Int(index)]
        case .contains(let needleExpression, let haystackExpression):
            let needle = try needleExpression.evaluate(context)
            let haystack = try haystackExpression.evaluate(context)
            if !haystack.truthy { return .bool(false) }
            try Self.checkNeedle(needle)
            switch haystack {
            case .string(let s): return .bool(Self.needleText(needle).isEmpty || s.contains(Self.needleText(needle)))
            case .array(let items): return .bool(items.contains { Self.strictlyEqual($0, needle) })
            default:
                throw ExpressionRuntimeError(message: "Expected second argument to be of type array or string, but found \(haystack.type) instead.")
            }
        case .indexOf(let needleExpression, let haystackExpression, let fromExpression):
            let needle = try needleExpression.evaluate(context)
            let haystack = try haystackExpression.evaluate(context)
            try Self.checkNeedle(needle)
            let from = try fromExpression.map { try Self.number($0.evaluate(context)) }
            switch haystack {
            case .string(let s):
                let units = Array(s.utf16), n = Array(Self.needleText(needle).utf16)
                let start = Swift.max(0, Swift.min(Self.index(from ?? 0), units.count))
                guard n.count <= units.count, start <= units.count - n.count else { return .number(-1) }
                for i in start...(units.count - n.count) where Array(units[i..<(i + n.count)]) == n {
                    // In code points, as the reference counts its result.
                    let prefix = String(decoding: units[..<i], as: UTF16.self)
                    return .number(Double(prefix.unicodeScalars.count))
                }
                return .number(-1)
            case .array(let items):
                var start = Self.index(from ?? 0)
                if start < 0 { start = Swift.max(0, items.count + start) }
                for i in start..<Swift.max(start, items.count) where Self.strictlyEqual(items[i], needle) {
                    return .number(Double(i))
                }
                return .number(-1)
            default:
                throw ExpressionRuntimeError(message: "Expected second argument to be of type array or string, but found \(haystack.type) instead.")
            }
        case .slice(let inputExpression, let beginExpression, let endExpression):
            let input = try inputExpression.evaluate(context)
            let begin = try Self.number(beginExpression.evaluate(context))
            let end = try endExpression.map { try Self.number($0.evaluate(context)) }
            func range(_ count: Int) -> Range<Int> {
                func clamp(_ x: Double) -> Int {
                    let i = x.isNaN ? 0 : x.rounded(.towardZero)
                    return i < 0 ? Swift.max(0, count + Int(Swift.max(i, -1e15))) : Swift.min(count, Int(Swift.min(i, 1e15)))
                }
                let a = clamp(begin), b = end.map(clamp) ?? count
                return a..<Swift.max(a, b)
            }
            switch input {
            case .string(let s):
                let scalars = Array(s.unicodeScalars)
                var out = String.UnicodeScalarView()
                out.append(contentsOf: scalars[range(scalars.count)])
                return .string(String(out))
            case .array(let items): return .array(Array(items[range(items.count)]))
            default:
                throw ExpressionRuntimeError(message: "Expected first argument to be of type array or string, but found \(input.type) instead.")
            }
        case .length(let inputExpression):
            let input = try inputExpression.evaluate(context)
            switch input {
            case .string(let s): return .number(Double(s.unicodeScalars.count))
            case .array(let a): return .number(Double(a.count))
            default:
                throw ExpressionRuntimeError(message: "Expected value to be of type string or array, but found \(input.type) instead.")
            }
        case .format(let sections, _):
            // An image section has no text.
            return .string(try sections.map { s in
                let v = try s.evaluate(context)
                if case .image = v { return "" }
                return v.text
            }.joined())
        case .legacy(let filter):
            return .bool(Self.legacy(filter, context.feature))
        }
    }

    /// A number as an index: NaN is 0, fractions are cut, infinities and huge values held to ±2^53.
    static func index(_ x: Double) -> Int {
        x.isNaN ? 0 : Int(Swift.min(Swift.max(x.rounded(.towardZero), -9007199254740992), 9007199254740992))
    }

    /// A name as an image: null when it is empty, available when the context's images include it.
    static func image(_ name: StyleValue, _ context: EvaluationContext) -> StyleValue {
        let text = name.text
        if text.isEmpty { return .null }
        return .image(text, available: context.availableImages?.contains(text) ?? false)
    }

    static func number(_ v: StyleValue) throws -> Double {
        guard case .number(let x) = v else {
            throw ExpressionRuntimeError(message: "Expected value to be of type number, but found \(v.type) instead.")
        }
        return x
    }

    static func string(_ v: StyleValue) throws -> String {
        guard case .string(let s) = v else {
            throw ExpressionRuntimeError(message: "Expected value to be of type string, but found \(v.type) instead.")
        }
        return s
    }

    static func checkNeedle(_ needle: StyleValue) throws {
        switch needle {
        case .bool, .string, .number, .null: return
        default:
            throw ExpressionRuntimeError(message: "Expected first argument to be of type boolean, string, number or null, but found \(needle.type) instead.")
        }
    }

    /// JavaScript's `===` on values: arrays, objects and colours are never equal (they are compared
    /// by identity there).
    static func strictlyEqual(_ a: StyleValue, _ b: StyleValue) -> Bool {
        switch (a, b) {
        case (.array, _), (.object, _), (.color, _): false
        default: a == b
        }
    }

    /// Strings compare by UTF-16 code units, as JavaScript compares them.
    static func less(_ a: StyleValue, _ b: StyleValue) -> Bool? {
        switch (a, b) {
        case (.number(let x), .number(let y)): x < y
        case (.string(let x), .string(let y)): x.utf16.lexicographicallyPrecedes(y.utf16)
        case (.bool(let x), .bool(let y)): !x && y
        default: nil
        }
    }

    static func compare(_ op: Comparison, _ a: StyleValue, _ b: StyleValue) -> Bool {
        switch op {
        case .eq: return strictlyEqual(a, b)
        case .ne: return !strictlyEqual(a, b)
        case .lt: return less(a, b) ?? false
        case .gt: return less(b, a) ?? false
        case .le, .ge:
            let (x, y) = op == .le ? (a, b) : (b, a)
            switch (x, y) {
            case (.number(let p), .number(let q)): return p <= q
            case (.string, .string), (.bool, .bool): return !(less(y, x) ?? true)
            default: return false
            }
        }
    }

    /// A needle as JavaScript's `String.indexOf` reads it (null is "null").
    static func needleText(_ v: StyleValue) -> String { v.isNull ? "null" : v.text }

    /// The index of the last stop at or below `x`.
    static func stopIndex(_ stops: [Double], _ x: Double) throws -> Int {
        guard !x.isNaN else { throw ExpressionRuntimeError(message: "Input is not a number.") }
        var lo = 0, hi = stops.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if stops[mid] <= x { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// How far `x` is from `lower` to `upper` (0...1) under the interpolation.
    static func factor(_ interpolation: Interpolation, _ x: Double, _ lower: Double, _ upper: Double) -> Double {
        func exponential(_ base: Double) -> Double {
            let difference = upper - lower, progress = x - lower
            if difference == 0 { return 0 }
            if base == 1 { return progress / difference }
            return (Foundation.pow(base, progress) - 1) / (Foundation.pow(base, difference) - 1)
        }
        switch interpolation {
        case .linear: return exponential(1)
        case .exponential(let base): return exponential(base)
        case .cubicBezier(let x1, let y1, let x2, let y2):
            return CubicBezier(x1, y1, x2, y2)(exponential(1))  // x1, x2 checked in [0, 1] when parsed
        }
    }

    static func interpolate(_ a: StyleValue, _ b: StyleValue, _ t: Double) -> StyleValue {
        switch (a, b) {
        case (.number(let x), .number(let y)): return .number(x * (1 - t) + y * t)
        case (.color(let x), .color(let y)): return .color(x.mixed(with: y, t))
        case (.array(let x), .array(let y)) where x.count == y.count:
            return .array(zip(x, y).map { interpolate($0, $1, t) })
        default: return t < 1 ? a : b
        }
    }

    func coerce(_ args: [Expression], _ context: EvaluationContext) throws -> StyleValue {
        switch type {
        case .boolean:
            return .bool(try args[0].evaluate(context).truthy)
        case .color:
            var input = StyleValue.null
            var error: String?
            for arg in args {
                input = try arg.evaluate(context)
                error = nil
                switch input {
                case .color: return input
                case .string(let s): if let c = StyleColor(css: s) { return .color(c) }
                case .array(let items):
                    if items.count < 3 || items.count > 4 {
                        error = "Invalid rgba value \(input.json): expected an array containing either three or four numeric values."
                    } else {
                        error = Self.rgbaProblem(items)
                    }
                    if error == nil {
                        let n = items.map { $0.number ?? 0 }
                        return .color(StyleColor(red: n[0] / 255, green: n[1] / 255, blue: n[2] / 255,
                                                 alpha: n.count == 4 ? n[3] : 1))
                    }
                default: break
                }
            }
            throw ExpressionRuntimeError(message: error ?? "Could not parse color from value '\(input.string ?? input.json)'")
        case .number:
            var value = StyleValue.null
            for arg in args {
                value = try arg.evaluate(context)
                let x: Double
                switch value {
                case .null: return .number(0)
                case .number(let n): x = n
                case .bool(let b): x = b ? 1 : 0
                case .string(let s): x = JSNumber.parse(s)
                case .array(let items):
                    x = items.isEmpty ? 0 : items.count == 1 ? JSNumber.parse(items[0].text) : .nan
                default: x = .nan
                }
                if !x.isNaN { return .number(x) }
            }
            throw ExpressionRuntimeError(message: "Could not convert \(value.json) to number.")
        case .resolvedImage:
            let v = try args[0].evaluate(context)
            if case .image = v { return v }
            return Self.image(v, context)
        default:
            return .string(try args[0].evaluate(context).text)
        }
    }

    /// Why r, g, b (0-255) and a (0-1) do not make a colour, or nil when they do.
    static func rgbaProblem(_ items: [StyleValue]) -> String? {
        let shown = "[" + items.map { $0.isNull ? "" : $0.text }.joined(separator: ", ") + "]"
        for c in items.prefix(3) {
            guard let x = c.number, x >= 0, x <= 255 else {
                return "Invalid rgba value \(shown): 'r', 'g', and 'b' must be between 0 and 255."
            }
        }
        if items.count == 4 {
            guard let a = items[3].number, a >= 0, a <= 1 else {
                return "Invalid rgba value \(shown): 'a' must be between 0 and 1."
            }
        }
        return nil
    }

    func call(_ op: Op, _ args: [Expression], _ context: EvaluationContext) throws -> StyleValue {
        func num(_ i: Int) throws -> Double { try Self.number(args[i].evaluate(context)) }
        func str(_ i: Int) throws -> String { try Self.string(args[i].evaluate(context)) }
        func unary(_ f: (Double) -> Double) throws -> StyleValue { .number(f(try num(0))) }
        let properties = context.feature.properties
        switch op {
        case .error: throw ExpressionRuntimeError(message: try str(0))
        case .typeof: return .string(try args[0].evaluate(context).type.description)
        case .toRGBA:
            guard let c = try args[0].evaluate(context).color else { return .null }
            return .array([.number(c.red * 255), .number(c.green * 255), .number(c.blue * 255), .number(c.alpha)])
        case .rgb, .rgba:
            let items = try args.map { try $0.evaluate(context) }
            if let problem = Self.rgbaProblem(items) { throw ExpressionRuntimeError(message: problem) }
            let n = items.map { $0.number! }
            return .color(StyleColor(red: n[0] / 255, green: n[1] / 255, blue: n[2] / 255, alpha: n.count == 4 ? n[3] : 1))
        case .has, .get:
            let key = try str(0)
            let object: [String: StyleValue]
            if args.count == 2 {
                guard case .object(let o) = try args[1].evaluate(context) else { return op == .has ? .bool(false) : .null }
                object = o
            } else {
                object = properties
            }
            return op == .has ? .bool(object[key] != nil) : (object[key] ?? .null)
        case .featureState: return context.feature.state[try str(0)] ?? .null
        case .properties: return .object(properties)
        case .geometryType: return context.feature.geometryType.map { .string($0.rawValue) } ?? .null
        case .id: return context.feature.id
        case .zoom: return .number(context.zoom)
        case .plus: return .number(try args.indices.reduce(0) { try $0 + num($1) })
        case .times: return .number(try args.indices.reduce(1) { try $0 * num($1) })
        case .minus: return args.count == 1 ? .number(-(try num(0))) : .number(try num(0) - num(1))
        case .divide: return .number(try num(0) / num(1))
        case .mod: return .number(try num(0).truncatingRemainder(dividingBy: num(1)))
        case .pow: return .number(Foundation.pow(try num(0), try num(1)))
        case .sqrt: return try unary { $0.squareRoot() }
        case .log10: return try unary(Foundation.log10)
        case .ln: return try unary(Foundation.log)
        case .log2: return try unary(Foundation.log2)
        case .sin: return try unary(Foundation.sin)
        case .cos: return try unary(Foundation.cos)
        case .tan: return try unary(Foundation.tan)
        case .asin: return try unary(Foundation.asin)
        case .acos: return try unary(Foundation.acos)
        case .atan: return try unary(Foundation.atan)
        case .e: return .number(M_E)
        case .pi: return .number(Double.pi)
        case .ln2: return .number(M_LN2)
        case .min, .max:
            var result = op == .min ? Double.infinity : -Double.infinity
            for i in args.indices {
                let x = try num(i)
                if x.isNaN || result.isNaN { result = .nan } else { result = op == .min ? Swift.min(result, x) : Swift.max(result, x) }
            }
            return .number(result)
        case .abs: return try unary { Swift.abs($0) }
        case .floor: return try unary { $0.rounded(.down) }
        case .ceil: return try unary { $0.rounded(.up) }
        case .round: return try unary { $0.rounded(.toNearestOrAwayFromZero) }
        case .not: return .bool(!(try args[0].evaluate(context).truthy))
        case .all:
            for arg in args where !(try arg.evaluate(context).truthy) { return .bool(false) }
            return .bool(true)
        case .any:
            for arg in args where try arg.evaluate(context).truthy { return .bool(true) }
            return .bool(false)
        case .upcase: return .string(try str(0).uppercased())
        case .downcase: return .string(try str(0).lowercased())
        case .concat: return .string(try args.map { try $0.evaluate(context).text }.joined())
        case .split:
            let s = try str(0), d = try str(1)
            if d.isEmpty { return .array(s.map { .string(String($0)) }) }
            return .array(s.components(separatedBy: d).map { .string($0) })
        case .join:
            let items = try args[0].evaluate(context).array ?? []
            return .string(items.map(\.text).joined(separator: try str(1)))
        }
    }

    static func legacy(_ filter: LegacyFilter, _ feature: StyleFeature) -> Bool {
        func value(_ key: LegacyFilter.Key) -> StyleValue? {
            switch key {
            case .type: feature.geometryType.map { .string($0.base.rawValue) } ?? .null
            case .id: feature.id
            case .property(let name): feature.properties[name]
            }
        }
        switch filter {
        case .compare(let op, let key, let expected):
            guard let v = value(key) else { return false }
            switch op {
            case .eq: return strictlyEqual(v, expected)
            case .ne: return !strictlyEqual(v, expected)
            default: return compare(op, v, expected)
            }
        case .among(let key, let values):
            guard let v = value(key) else { return false }
            return values.contains { strictlyEqual($0, v) }
        case .has(let key):
            switch key {
            case .type: return true
            case .id: return feature.id != .null
            case .property(let name): return feature.properties[name] != nil
            }
        }
    }
}

extension StyleValue {
    var isNaNNumber: Bool { if case .number(let x) = self { x.isNaN } else { false } }
}

