import Foundation
import MapTripScene

/// A layer's `filter`: an expression of type boolean, or the legacy filter syntax (`["==", "class",
/// "park"]`, `["in", "class", ...]`, `["!in", ...]`, `["has", k]`, `["!has", k]`, `["all", ...]`,
/// `["any", ...]`, `["none", ...]`, with `$type` and `$id`) taken as the spec defines it: a filter is
/// legacy unless it (or one of its `all`/`any` children) can only be read as an expression.
public struct Filter: Sendable {
    public let expression: Expression
    /// Whether the filter was written in the legacy syntax.
    public let isLegacy: Bool

    static let spec = PropertySpec(layer: "", section: .layout, name: "filter", type: "boolean", element: nil,
                                   length: nil, values: [], defaultJSON: "false", zoom: true, feature: true,
                                   interpolated: false, tokens: false)

    public init(json: JSONValue) throws {
        isLegacy = !Self.isExpression(json)
        if isLegacy {
            expression = try Self.legacy(json)
        } else {
            expression = try PropertyValue(json: json, spec: Self.spec).expression
        }
    }

    /// Whether a feature passes at a zoom (false when the expression fails on it, as the reference has it).
    public func matches(zoom: Double, feature: StyleFeature) -> Bool {
        (try? expression.evaluate(EvaluationContext(zoom: zoom, feature: feature))) == .bool(true)
    }

    // MARK: Telling the syntaxes apart

    enum Classification { case expression, legacy, neutral }

    public static func isExpression(_ json: JSONValue) -> Bool { classify(json) != .legacy }

    static func classify(_ json: JSONValue) -> Classification {
        if json.bool != nil { return .neutral }
        guard let items = json.elements, let first = items.first else { return .legacy }
        switch first.string {
        case "has":
            if items.count < 2 || items[1].string == "$id" || items[1].string == "$type" { return .legacy }
            return items.count == 2 ? .neutral : .expression
        case "in":
            return items.count >= 3 && (items[1].string == nil || items[2].elements != nil) ? .expression : .legacy
        case "!in", "!has", "none":
            return .legacy
        case "==", "!=", ">", ">=", "<", "<=":
            return items.count != 3 || items[1].elements != nil || items[2].elements != nil ? .expression : .legacy
        case "any", "all":
            var sawLegacy = false
            for child in items.dropFirst() {
                switch classify(child) {
                case .expression: return .expression
                case .legacy: sawLegacy = true
                case .neutral: break
                }
            }
            return sawLegacy ? .legacy : .neutral
        default:
            return .expression
        }
    }

    // MARK: The legacy syntax

    static func legacy(_ json: JSONValue) throws -> Expression {
        func fail(_ message: String) -> ExpressionError {
            ExpressionError(key: "", message: message, position: json.position)
        }
        guard let items = json.elements else {
            if json.isNull || json.bool == false { return .literal(.bool(true)) }
            throw fail("a filter is an array such as [\"==\", \"class\", \"park\"], found \(json.typeDescription)")
        }
        guard let op = items.first?.string else {
            if items.isEmpty { return .literal(.bool(true)) }
            throw fail("a filter's first item is its operator, a string")
        }
        if items.count <= 1 { return .literal(.bool(op != "any")) }
        func key(_ i: Int) throws -> Expression.LegacyFilter.Key {
            guard let name = items[i].string else { throw fail("\"\(op)\" filters name a property with a string") }
            return name == "$type" ? .type : name == "$id" ? .id : .property(name)
        }
        func node(_ f: Expression.LegacyFilter) -> Expression { Expression(.boolean, .legacy(f)) }
        func not(_ e: Expression) -> Expression { Expression(.boolean, .call(.not, [e])) }
        func children() throws -> [Expression] { try items.dropFirst().map { try legacy($0) } }
        switch op {
        case "==", "!=", "<", "<=", ">", ">=":
            guard items.count == 3 else { throw fail("\"\(op)\" filters take a key and a value") }
            let value = StyleValue(json: items[2])
            let k = try key(1)
            if op == "!=" { return not(node(.compare(.eq, k, value))) }
            return node(.compare(Expression.Comparison(rawValue: op)!, k, value))
        case "any": return Expression(.boolean, .call(.any, try children()))
        case "all": return Expression(.boolean, .call(.all, try children()))
        case "none": return Expression(.boolean, .call(.all, try children().map(not)))
        case "in", "!in":
            let values = items.dropFirst(2).map { StyleValue(json: $0) }
            let e = values.isEmpty ? Expression.literal(.bool(false)) : node(.among(try key(1), values))
            return op == "!in" ? not(e) : e
        case "has", "!has":
            let e = node(.has(try key(1)))
            return op == "!has" ? not(e) : e
        default:
            return .literal(.bool(true))
        }
    }
}
