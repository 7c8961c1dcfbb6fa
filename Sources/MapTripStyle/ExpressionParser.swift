import Foundation
import MapTripScene

/// Parses and type-checks expressions of the MapLibre style language, as the reference does: each
/// operator's arguments are checked against its signature, a value of unknown type meets an expected
/// type through an assertion (`number`, `string`...) or a coercion (colours), and every
/// sub-expression whose inputs are all constant is evaluated at once (so `["rgb", 300, 0, 0]` is a
/// parse error).
///
/// Operators: `literal`, `array`, `boolean`, `number`, `string`, `object`, `to-boolean`, `to-color`,
/// `to-number`, `to-string`, `typeof`, `get`, `has`, `properties`, `feature-state` (null unless the
/// feature carries state), `geometry-type`, `id`, `zoom`, `at`, `in`, `index-of`, `slice`, `length`,
/// `!`, `==`, `!=`, `<`, `<=`, `>`, `>=`, `all`, `any`, `case`, `match`, `coalesce`, `step`,
/// `interpolate` (linear, exponential, cubic-bezier; numbers, colours, arrays of numbers), `let`,
/// `var`, `+`, `-`, `*`, `/`, `%`, `^`, `abs`, `ceil`, `floor`, `round`, `sqrt`, `ln`, `log10`,
/// `log2`, `sin`, `cos`, `tan`, `asin`, `acos`, `atan`, `e`, `pi`, `ln2`, `min`, `max`, `concat`,
/// `upcase`, `downcase`, `split`, `join`, `rgb`, `rgba`, `to-rgba`, `format` (its text only), `error`,
/// `image` (a name, available when the context's sprite has it; `coalesce` of images takes the first
/// available). Not supported (a parse error naming them): `collator`, `resolved-locale`, `number-format`,
/// `within`, `distance`, `global-state`, `interpolate-hcl`, `interpolate-lab`,
/// `is-supported-script`, `heatmap-density`, `line-progress`, `accumulated`, `elevation`.
public struct ExpressionParser {
    /// Operators this parser knows.
    public static let operators: Set<String> = Set(Expression.Op.allCases.map(\.rawValue)).union([
        "literal", "array", "boolean", "number", "string", "object", "to-boolean", "to-color", "to-number",
        "to-string", "at", "in", "index-of", "slice", "length", "==", "!=", "<", "<=", ">", ">=", "case", "match",
        "coalesce", "step", "interpolate", "let", "var", "format", "image",
    ])

    /// Operators of the language this parser does not evaluate.
    public static let unsupportedOperators: Set<String> = [
        "collator", "resolved-locale", "number-format", "within", "distance", "global-state",
        "interpolate-hcl", "interpolate-lab", "is-supported-script", "heatmap-density", "line-progress",
        "accumulated", "elevation", "to-padding", "semiliteral",
    ]

    enum Annotation { case assert, coerce, omit }

    var scope: [(String, Expression)] = []

    public init() {}

    /// Parses `json` as an expression of type `expected` (nil: any type).
    public func parse(_ json: JSONValue, expected: ExpressionType? = nil) throws -> Expression {
        try parse(json, "", expected)
    }

    func error(_ message: String, _ key: String, _ json: JSONValue?) -> ExpressionError {
        ExpressionError(key: key, message: message, position: json?.position)
    }

    func parse(_ json: JSONValue, _ key: String, _ expected: ExpressionType?,
               annotation: Annotation? = nil) throws -> Expression {
        let elements: [JSONValue]
        switch json.kind {
        case .null, .bool, .number, .string:
            elements = [JSONValue(.string("literal"), at: json.position), json]
        case .array(let a):
            elements = a
        case .object:
            throw error("Bare objects invalid. Use [\"literal\", {...}] instead.", key, json)
        }
        guard let first = elements.first else {
            throw error("Expected an array with at least one element. If you wanted a literal array, use [\"literal\", []].", key, json)
        }
        guard let op = first.string else {
            throw error("Expression name must be a string, but found \(Self.jsType(first)) instead. If you wanted a literal array, use [\"literal\", [...]].", key + "[0]", first)
        }
        var parsed = try parseOperator(op, elements, key, expected, json)
        if let expected {
            let actual = parsed.type
            if ["string", "number", "boolean", "object", "array"].contains(expected.kind), actual == .value {
                parsed = Self.annotate(parsed, expected, annotation ?? .assert)
            } else if (["color", "formatted", "resolvedImage"].contains(expected.kind) && (actual == .value || actual == .string))
                        || (expected == .padding && (actual == .value || actual == .number || actual.kind == "array")) {
                parsed = Self.annotate(parsed, expected, annotation ?? .coerce)
            } else if let mismatch = expected.mismatch(actual) {
                throw error(mismatch, key, json)
            }
        }
        if !parsed.isLiteral, parsed.type != .resolvedImage, parsed.isConstant {
            do {
                parsed = .literal(try parsed.evaluate(EvaluationContext(zoom: .nan)), parsed.type)
            } catch let e as ExpressionRuntimeError {
                throw error(e.message, key, json)
            }
        }
        return parsed
    }

    static func annotate(_ e: Expression, _ type: ExpressionType, _ annotation: Annotation) -> Expression {
        switch annotation {
        case .assert: Expression(type, .assertion([e]))
        case .coerce: Expression(type, .coercion([e]))
        case .omit: e
        }
    }

    static func jsType(_ json: JSONValue) -> String {
        switch json.kind {
        case .null, .array, .object: "object"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        }
    }

    func scoped(_ bindings: [(String, Expression)]) -> ExpressionParser {
        var p = self
        p.scope += bindings
        return p
    }

    // MARK: Operators

    func parseOperator(_ op: String, _ args: [JSONValue], _ key: String, _ expected: ExpressionType?,
                       _ json: JSONValue) throws -> Expression {
        func at(_ i: Int) -> String { key + "[\(i)]" }
        func fail(_ message: String, _ k: String? = nil, _ j: JSONValue? = nil) -> ExpressionError {
            error(message, k ?? key, j ?? json)
        }
        /// The input/output pairs of `step` and `interpolate`, from argument 3 on: literal inputs in
        /// strictly ascending order, outputs of one type.
        func stopPairs(_ name: String, _ stops: inout [Double], _ outputs: inout [Expression],
                       _ output: inout ExpressionType?) throws {
            var i = 3
            while i < args.count {
                guard let label = args[i].number?.value else {
                    throw fail("Input/output pairs for \"\(name)\" expressions must be defined using literal numeric values (not computed expressions) for the input values.", at(i), args[i])
                }
                if let last = stops.last, last >= label {
                    throw fail("Input/output pairs for \"\(name)\" expressions must be arranged with input values in strictly ascending order.", at(i), args[i])
                }
                let e = try parse(args[i + 1], at(i + 1), output)
                output = output ?? e.type
                stops.append(label)
                outputs.append(e)
                i += 2
            }
        }
        switch op {
        case "literal":
            guard args.count == 2 else {
                throw fail("'literal' expression requires exactly one argument, but found \(args.count - 1) instead.")
            }
            let value = StyleValue(json: args[1])
            var type = value.type
            if case .array(_, 0) = type, let expected, case .array(_, let n) = expected, n == nil || n == 0 {
                type = expected
            }
            return .literal(value, type)

        case "array", "boolean", "number", "string", "object":
            guard args.count >= 2 else { throw fail("Expected at least one argument.") }
            var i = 1
            var type: ExpressionType
            if op == "array" {
                var item = ExpressionType.value
                if args.count > 2 {
                    guard let name = args[1].string, let t = ["string": ExpressionType.string, "number": .number,
                                                              "boolean": .boolean][name] else {
                        throw fail("The item type argument of \"array\" must be one of string, number, boolean", at(1), args[1])
                    }
                    item = t
                    i += 1
                }
                var n: Int?
                if args.count > 3 {
                    if !args[2].isNull {
                        guard let x = args[2].number?.value, x >= 0, x == x.rounded(.down), x < 1e9 else {
                            throw fail("The length argument to \"array\" must be a positive integer literal", at(2), args[2])
                        }
                        n = Int(x)
                    }
                    i += 1
                }
                type = .array(item, n)
            } else {
                type = ["boolean": .boolean, "number": .number, "string": .string, "object": .object][op]!
            }
            var parsed: [Expression] = []
            while i < args.count {
                parsed.append(try parse(args[i], at(i), .value))
                i += 1
            }
            return Expression(type, .assertion(parsed))

        case "to-boolean", "to-color", "to-number", "to-string":
            guard args.count >= 2 else { throw fail("Expected at least one argument.") }
            if (op == "to-boolean" || op == "to-string") && args.count != 2 { throw fail("Expected one argument.") }
            let type: ExpressionType = ["to-boolean": .boolean, "to-color": .color, "to-number": .number,
                                        "to-string": .string][op]!
            let parsed = try args.indices.dropFirst().map { try parse(args[$0], at($0), .value) }
            return Expression(type, .coercion(parsed))

        case "==", "!=", "<", "<=", ">", ">=":
            guard args.count == 3 || args.count == 4 else { throw fail("Expected two or three arguments.") }
            let cmp = Expression.Comparison(rawValue: op)!
            func comparable(_ t: ExpressionType) -> Bool {
                cmp.isOrder ? ["string", "number", "value"].contains(t.kind)
                            : ["boolean", "string", "number", "null", "value"].contains(t.kind)
            }
            var lhs = try parse(args[1], at(1), .value)
            guard comparable(lhs.type) else {
                throw fail("\"\(op)\" comparisons are not supported for type '\(lhs.type)'.", at(1), args[1])
            }
            var rhs = try parse(args[2], at(2), .value)
            guard comparable(rhs.type) else {
                throw fail("\"\(op)\" comparisons are not supported for type '\(rhs.type)'.", at(2), args[2])
            }
            if lhs.type.kind != rhs.type.kind && lhs.type != .value && rhs.type != .value {
                throw fail("Cannot compare types '\(lhs.type)' and '\(rhs.type)'.")
            }
            if cmp.isOrder {
                if lhs.type == .value && rhs.type != .value { lhs = Expression(rhs.type, .assertion([lhs])) }
                else if lhs.type != .value && rhs.type == .value { rhs = Expression(lhs.type, .assertion([rhs])) }
            }
            if args.count == 4 { throw fail("collators are not supported", at(3), args[3]) }
            return Expression(.boolean, .comparison(cmp, lhs, rhs, untyped: lhs.type == .value || rhs.type == .value))

        case "case":
            guard args.count >= 4 else { throw fail("Expected at least 3 arguments, but found only \(args.count - 1).") }
            guard args.count % 2 == 0 else { throw fail("Expected an odd number of arguments.") }
            var output: ExpressionType? = expected == .value ? nil : expected
            var branches: [(Expression, Expression)] = []
            var i = 1
            while i < args.count - 1 {
                let test = try parse(args[i], at(i), .boolean)
                let result = try parse(args[i + 1], at(i + 1), output)
                branches.append((test, result))
                output = output ?? result.type
                i += 2
            }
            let otherwise = try parse(args[args.count - 1], at(args.count - 1), output)
            return Expression(output ?? otherwise.type, .cases(branches, otherwise))

        case "match":
            guard args.count >= 5 else { throw fail("Expected at least 4 arguments, but found only \(args.count - 1).") }
            guard args.count % 2 == 1 else { throw fail("Expected an even number of arguments.") }
            var inputType: ExpressionType?
            var output: ExpressionType? = expected == .value ? nil : expected
            var cases: [StyleValue: Int] = [:]
            var outputs: [Expression] = []
            var i = 2
            while i < args.count - 1 {
                let labels = args[i].elements ?? [args[i]]
                if labels.isEmpty { throw fail("Expected at least one branch label.", at(i), args[i]) }
                for label in labels {
                    let value: StyleValue
                    switch label.kind {
                    case .number(let n):
                        guard Swift.abs(n.value) <= 9007199254740991 else {
                            throw fail("Branch labels must be integers no larger than 9007199254740991.", at(i), args[i])
                        }
                        guard n.value == n.value.rounded(.down) else {
                            throw fail("Numeric branch labels must be integer values.", at(i), args[i])
                        }
                        value = .number(n.value)
                    case .string(let s): value = .string(s)
                    default: throw fail("Branch labels must be numbers or strings.", at(i), args[i])
                    }
                    if let inputType {
                        if let m = inputType.mismatch(value.type) { throw fail(m, at(i), args[i]) }
                    } else {
                        inputType = value.type
                    }
                    if cases[value] != nil { throw fail("Branch labels must be unique.", at(i), args[i]) }
                    cases[value] = outputs.count
                }
                let result = try parse(args[i + 1], at(i + 1), output)
                output = output ?? result.type
                outputs.append(result)
                i += 2
            }
            let input = try parse(args[1], at(1), .value)
            let otherwise = try parse(args[args.count - 1], at(args.count - 1), output)
            if input.type != .value, let m = inputType!.mismatch(input.type) { throw fail(m, at(1), args[1]) }
            return Expression(output ?? otherwise.type, .match(cases, input, outputs, otherwise, inputType: inputType!))

        case "coalesce":
            guard args.count >= 2 else { throw fail("Expected at least one argument.") }
            var output: ExpressionType? = expected == .value ? nil : expected
            var parsed: [Expression] = []
            for i in 1..<args.count {
                let e = try parse(args[i], at(i), output, annotation: .omit)
                output = output ?? e.type
                parsed.append(e)
            }
            let needsAnnotation = expected.map { t in parsed.contains { t.mismatch($0.type) != nil } } ?? false
            return Expression(needsAnnotation ? .value : output!, .coalesce(parsed))

        case "step":
            guard args.count - 1 >= 4 else { throw fail("Expected at least 4 arguments, but found only \(args.count - 1).") }
            guard (args.count - 1) % 2 == 0 else { throw fail("Expected an even number of arguments.") }
            let input = try parse(args[1], at(1), .number)
            var output: ExpressionType? = expected == .value ? nil : expected
            var stops: [Double] = [-.infinity]
            var outputs: [Expression] = []
            let first = try parse(args[2], at(2), output)
            output = output ?? first.type
            outputs.append(first)
            try stopPairs("step", &stops, &outputs, &output)
            return Expression(output!, .step(input, stops, outputs))

        case "interpolate":
            guard args.count >= 2, let kind = args[1].elements, let name = kind.first else {
                throw fail("Expected an interpolation type expression.", at(1), args.count > 1 ? args[1] : json)
            }
            let interpolation: Expression.Interpolation
            switch name.string {
            case "linear": interpolation = .linear
            case "exponential":
                guard kind.count > 1, let base = kind[1].number?.value else {
                    throw fail("Exponential interpolation requires a numeric base.", at(1) + "[1]", args[1])
                }
                interpolation = .exponential(base)
            case "cubic-bezier":
                let points = kind.dropFirst().compactMap { $0.number?.value }
                guard kind.count == 5, points.count == 4, points.allSatisfy({ $0 >= 0 && $0 <= 1 }) else {
                    throw fail("Cubic bezier interpolation requires four numeric arguments with values between 0 and 1.", at(1), args[1])
                }
                interpolation = .cubicBezier(points[0], points[1], points[2], points[3])
            default:
                throw fail("Unknown interpolation type \(name.string ?? StyleValue(json: name).text)", at(1) + "[0]", name)
            }
            guard args.count - 1 >= 4 else { throw fail("Expected at least 4 arguments, but found only \(args.count - 1).") }
            guard (args.count - 1) % 2 == 0 else { throw fail("Expected an even number of arguments.") }
            let input = try parse(args[2], at(2), .number)
            var output: ExpressionType? = expected == .value ? nil : expected
            var stops: [Double] = []
            var outputs: [Expression] = []
            try stopPairs("interpolate", &stops, &outputs, &output)
            let type = output!
            let numbers: Bool = if case .array(.number, .some) = type { true } else { false }
            guard type == .number || type == .color || type == .padding || numbers else {
                throw fail("Type \(type) is not interpolatable.")
            }
            return Expression(type, .interpolate(interpolation, input, stops, outputs))

        case "let":
            guard args.count >= 4 else { throw fail("Expected at least 3 arguments, but found \(args.count - 1) instead.") }
            var bindings: [(String, Expression)] = []
            var i = 1
            while i < args.count - 1 {
                guard let name = args[i].string else {
                    throw fail("Expected string, but found \(Self.jsType(args[i])) instead.", at(i), args[i])
                }
                guard !name.isEmpty, name.unicodeScalars.allSatisfy({ ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || $0 == "_" }) else {
                    throw fail("Variable names must contain only alphanumeric characters or '_'.", at(i), args[i])
                }
                bindings.append((name, try parse(args[i + 1], at(i + 1), nil)))
                i += 2
            }
            let result = try scoped(bindings).parse(args[args.count - 1], at(args.count - 1), expected)
            return Expression(result.type, .bind(bindings, result))

        case "var":
            guard args.count == 2, let name = args[1].string else {
                throw fail("'var' expression requires exactly one string literal argument.")
            }
            guard let bound = scope.last(where: { $0.0 == name })?.1 else {
                throw fail("Unknown variable \"\(name)\". Make sure \"\(name)\" has been bound in an enclosing \"let\" expression before using it.", at(1), args[1])
            }
            return Expression(bound.type, .variable(name, bound))

        case "at":
            guard args.count == 3 else { throw fail("Expected 2 arguments, but found \(args.count - 1) instead.") }
            let index = try parse(args[1], at(1), .number)
            let input = try parse(args[2], at(2), .array(expected ?? .value, nil))
            guard case .array(let item, _) = input.type else { throw fail("Expected an array.") }
            return Expression(item, .at(index, input))

        case "in", "index-of":
            let arity = op == "in" ? (3...3) : (3...4)
            guard arity.contains(args.count) else {
                throw fail(op == "in" ? "Expected 2 arguments, but found \(args.count - 1) instead."
                                      : "Expected 2 or 3 arguments, but found \(args.count - 1) instead.")
            }
            let needle = try parse(args[1], at(1), .value)
            let haystack = try parse(args[2], at(2), .value)
            guard ["boolean", "string", "number", "null", "value"].contains(needle.type.kind) else {
                throw fail("Expected first argument to be of type boolean, string, number or null, but found \(needle.type) instead")
            }
            if op == "in" { return Expression(.boolean, .contains(needle, haystack)) }
            let from = args.count == 4 ? try parse(args[3], at(3), .number) : nil
            return Expression(.number, .indexOf(needle, haystack, from))

        case "slice":
            guard args.count == 3 || args.count == 4 else {
                throw fail("Expected 2 or 3 arguments, but found \(args.count - 1) instead.")
            }
            let input = try parse(args[1], at(1), .value)
            let begin = try parse(args[2], at(2), .number)
            guard ["array", "string", "value"].contains(input.type.kind) else {
                throw fail("Expected first argument to be of type array or string, but found \(input.type) instead")
            }
            let end = args.count == 4 ? try parse(args[3], at(3), .number) : nil
            return Expression(input.type, .slice(input, begin, end))

        case "length":
            guard args.count == 2 else { throw fail("Expected 1 argument, but found \(args.count - 1) instead.") }
            let input = try parse(args[1], at(1), nil)
            guard ["array", "string", "value"].contains(input.type.kind) else {
                throw fail("Expected argument of type string or array, but found \(input.type) instead.")
            }
            return Expression(.number, .length(input))

        case "image":
            guard args.count == 2 else { throw fail("Expected two arguments.") }
            return Expression(.resolvedImage, .image(try parse(args[1], at(1), .string)))

        case "format":
            guard args.count >= 2 else { throw fail("Expected at least one argument.") }
            var sections: [Expression] = []
            var options: [Expression] = []
            var i = 1
            while i < args.count {
                if args[i].members != nil {
                    // Options of the section before: checked for their types, not used (text only).
                    guard i > 1, args[i - 1].members == nil else {
                        throw fail("First argument must be an image or text section.", at(i), args[i])
                    }
                    for member in args[i].members! {
                        let k = JSONPath.appending(key: member.key, to: at(i))
                        switch member.key {
                        case "font-scale": options.append(try parse(member.value, k, .number))
                        case "text-font": options.append(try parse(member.value, k, .array(.string, nil)))
                        case "text-color": options.append(try parse(member.value, k, .color))
                        case "vertical-align":
                            if let v = member.value.string, !["bottom", "center", "top"].contains(v) {
                                throw fail("'vertical-align' must be one of: 'bottom', 'center', 'top' but found '\(v)' instead.", k, member.value)
                            }
                            options.append(try parse(member.value, k, .string))
                        default: break
                        }
                    }
                } else {
                    let content = try parse(args[i], at(i), .value)
                    guard ["string", "value", "null", "formatted", "resolvedImage"].contains(content.type.kind) else {
                        throw fail("Formatted text type must be 'string', 'value', 'image' or 'null'.", at(i), args[i])
                    }
                    sections.append(content)
                }
                i += 1
            }
            return Expression(.formatted, .format(sections, options: options))

        default:
            if let o = Expression.Op(rawValue: op) { return try parseCall(o, args, key, json) }
            if Self.unsupportedOperators.contains(op) {
                throw fail("\"\(op)\" expressions are not supported by maptrip", at(0), args[0])
            }
            throw fail("Unknown expression \"\(op)\". If you wanted a literal array, use [\"literal\", [...]].", at(0), args[0])
        }
    }

    /// An operator of fixed signatures: the first overload whose parameters the arguments fit.
    func parseCall(_ op: Expression.Op, _ args: [JSONValue], _ key: String, _ json: JSONValue) throws -> Expression {
        let (type, overloads) = op.signature
        let candidates = overloads.filter {
            if case .fixed(let p) = $0 { return p.count == args.count - 1 }
            return true
        }
        var lastError: ExpressionError?
        for params in candidates {
            do {
                var parsed: [Expression] = []
                for i in 1..<Swift.max(1, args.count) {
                    let expected: ExpressionType
                    switch params {
                    case .fixed(let p): expected = p[i - 1]
                    case .varargs(let t): expected = t
                    }
                    parsed.append(try parse(args[i], key + "[\(i)]", expected))
                }
                return Expression(type, .call(op, parsed))
            } catch let e as ExpressionError {
                lastError = e
            }
        }
        // The reference names the signatures; the last candidate's own error (an argument's path and
        // type) says more, and is what is thrown.
        if let lastError { throw lastError }
        let wanted = overloads.map { params -> String in
            switch params {
            case .fixed(let p): "(" + p.map(\.description).joined(separator: ", ") + ")"
            case .varargs(let t): "(\(t)...)"
            }
        }.joined(separator: " | ")
        throw error("Expected arguments of type \(wanted), but found \(args.count - 1) arguments instead.", key, json)
    }
}
