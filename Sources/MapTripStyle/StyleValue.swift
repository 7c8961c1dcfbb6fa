import Foundation
import MapTripScene

/// A value a style expression takes or gives: JSON's values, and colours.
public enum StyleValue: Equatable, Hashable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case color(StyleColor)
    case array([StyleValue])
    case object([String: StyleValue])
    /// A resolved image (`["image", name]`): its name, and whether the style's sprite has it.
    case image(String, available: Bool)

    /// A parsed JSON value, positions dropped.
    public init(json: JSONValue) {
        switch json.kind {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = .number(n.value)
        case .string(let s): self = .string(s)
        case .array(let a): self = .array(a.map(StyleValue.init(json:)))
        case .object(let members):
            var o: [String: StyleValue] = [:]
            for m in members { o[m.key] = StyleValue(json: m.value) }
            self = .object(o)
        }
    }

    public var number: Double? { if case .number(let n) = self { n } else { nil } }
    public var string: String? { if case .string(let s) = self { s } else { nil } }
    public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var array: [StyleValue]? { if case .array(let a) = self { a } else { nil } }
    public var color: StyleColor? { if case .color(let c) = self { c } else { nil } }
    public var isNull: Bool { self == .null }

    /// The value's type, as `typeof` names it (arrays with their item type and length).
    public var type: ExpressionType {
        switch self {
        case .null: return .null
        case .bool: return .boolean
        case .number: return .number
        case .string: return .string
        case .color: return .color
        case .object: return .object
        case .image: return .resolvedImage
        case .array(let items):
            // One item type when every item has the same simple type (nested arrays never match).
            var item: ExpressionType?
            for v in items {
                let t = v.type
                if case .array = t { item = .value; break }
                if item == nil { item = t } else if item != t { item = .value; break }
            }
            return .array(item ?? .value, items.count)
        }
    }

    /// As `to-string` and `concat` write it: "" for null, numbers as JavaScript writes them, colours
    /// as `rgba(...)`, images by their name, arrays and objects as JSON.
    public var text: String {
        switch self {
        case .null: ""
        case .string(let s): s
        case .bool(let b): b ? "true" : "false"
        case .number(let n): JSNumber.string(n)
        case .color(let c): c.cssString
        case .image(let name, _): name
        case .array, .object: json
        }
    }

    /// Compact JSON (object keys sorted).
    public var json: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n.isFinite ? JSNumber.string(n) : "null"
        case .string(let s): JSONText.quoted(s)
        case .color(let c): JSONText.quoted(c.cssString)
        case .image(let name, _): JSONText.quoted(name)
        case .array(let a): "[" + a.map(\.json).joined(separator: ",") + "]"
        case .object(let o): "{" + o.keys.sorted().map { JSONText.quoted($0) + ":" + o[$0]!.json }.joined(separator: ",") + "}"
        }
    }

    /// JavaScript's truthiness (`to-boolean`): false for null, false, 0, NaN and "".
    public var truthy: Bool {
        switch self {
        case .null: false
        case .bool(let b): b
        case .number(let n): !(n == 0 || n.isNaN)
        case .string(let s): !s.isEmpty
        default: true
        }
    }

    public var description: String { json }
}

/// The types of the expression language (MapLibre style spec v8), for checking expressions as they
/// are parsed.
public indirect enum ExpressionType: Equatable, Hashable, Sendable, CustomStringConvertible {
    case null, number, string, boolean, color, object, value, formatted, resolvedImage, padding, collator, error
    case array(ExpressionType, Int?)

    /// `number`, `array<string, 2>`, `array` (of values, any length), as the spec writes types.
    public var description: String {
        switch self {
        case .null: "null"
        case .number: "number"
        case .string: "string"
        case .boolean: "boolean"
        case .color: "color"
        case .object: "object"
        case .value: "value"
        case .formatted: "formatted"
        case .resolvedImage: "resolvedImage"
        case .padding: "padding"
        case .collator: "collator"
        case .error: "error"
        case .array(let item, let n):
            if let n { "array<\(item), \(n)>" } else if item == .value { "array" } else { "array<\(item)>" }
        }
    }

    var kind: String {
        if case .array = self { return "array" }
        return description
    }

    /// nil when a value of type `t` may be used where `self` is expected; else the message saying not.
    func mismatch(_ t: ExpressionType) -> String? {
        if t == .error { return nil }
        if kind != "array", kind == t.kind { return nil }
        switch self {
        case .array(let item, let n):
            if case .array(let titem, let tn) = t,
               (tn == 0 && titem == .value) || item.mismatch(titem) == nil,
               n == nil || n == tn {
                return nil
            }
        case .value:
            let members: [ExpressionType] = [.null, .number, .string, .boolean, .color, .formatted, .object,
                                             .array(.value, nil), .padding, .resolvedImage]
            if members.contains(where: { $0.mismatch(t) == nil }) { return nil }
        default:
            if kind == t.kind { return nil }
        }
        return "Expected \(self) but found \(t) instead."
    }
}

/// Numbers written as JavaScript's `String(n)` writes them (`1`, `0.5`, `1e+21`, `1e-7`).
public enum JSNumber {
    public static func string(_ x: Double) -> String {
        if x.isNaN { return "NaN" }
        if x.isInfinite { return x < 0 ? "-Infinity" : "Infinity" }
        if x == 0 { return "0" }
        let sign = x < 0 ? "-" : ""
        // Swift's description is the shortest round-trip form too; only its layout differs.
        let text = abs(x).description
        let parts = text.split(separator: "e")
        let exponent = parts.count == 2 ? Int(parts[1])! : 0
        let mantissa = parts[0]
        let intPart = mantissa.split(separator: ".", omittingEmptySubsequences: false)[0]
        var digits = Array(mantissa.replacingOccurrences(of: ".", with: ""))
        var n = intPart.count + exponent  // value = 0.d1d2... x 10^n
        while digits.first == "0" { digits.removeFirst(); n -= 1 }
        while digits.last == "0" { digits.removeLast() }
        let k = digits.count
        let d = String(digits)
        if k <= n && n <= 21 { return sign + d + String(repeating: "0", count: n - k) }
        if 0 < n && n <= 21 { return sign + String(digits[..<n]) + "." + String(digits[n...]) }
        if -6 < n && n <= 0 { return sign + "0." + String(repeating: "0", count: -n) + d }
        let e = n - 1
        let m = k == 1 ? d : String(digits[0]) + "." + String(digits[1...])
        return sign + m + "e" + (e >= 0 ? "+" : "-") + String(abs(e))
    }

    /// JavaScript's `Number(string)`: trimmed, "" is 0, decimal, `Infinity`, 0x/0o/0b integers; else NaN.
    public static func parse(_ s: String) -> Double {
        let t = s.trimmingCharacters(in: .whitespacesAndNewlines)
        if t.isEmpty { return 0 }
        for (prefix, radix) in [("0x", 16), ("0X", 16), ("0o", 8), ("0O", 8), ("0b", 2), ("0B", 2)] where t.hasPrefix(prefix) {
            return Int(t.dropFirst(2), radix: radix).map(Double.init) ?? .nan
        }
        switch t {
        case "Infinity", "+Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: break
        }
        guard t.allSatisfy({ "0123456789.eE+-".contains($0) }), let v = Double(t) else { return .nan }
        return v
    }
}
