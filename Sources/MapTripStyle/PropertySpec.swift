import Foundation
import MapTripScene

/// One paint or layout property of a layer type, as the style specification (v8.json) describes it:
/// the table is `StyleSpecTable.swift`, written by `tools/style-spec-table.py`.
public struct PropertySpec: Sendable {
    public enum Section: String, Sendable { case paint, layout }

    /// The layer type (`fill`, `line`, `symbol`...).
    public var layer: String
    public var section: Section
    public var name: String
    /// `number`, `color`, `string`, `enum`, `boolean`, `array`, `formatted`, `resolvedImage`, `padding`...
    public var type: String
    /// The item type of an array property.
    public var element: String? = nil
    /// The length of a fixed-length array property.
    public var length: Int? = nil
    /// An enum's values.
    public var values: [String] = []
    /// The default, as JSON text (nil when the spec gives none).
    public var defaultJSON: String? = nil
    /// Whether expressions may use `zoom` (and legacy zoom functions are allowed).
    public var zoom: Bool
    /// Whether expressions may read the feature (data-driven).
    public var feature: Bool
    /// Whether `interpolate` may be used.
    public var interpolated: Bool
    /// Whether `{token}` strings are replaced by feature properties (`text-field`, `icon-image`).
    public var tokens = false

    /// The expression type a value of this property must have.
    public var expressionType: ExpressionType {
        func simple(_ t: String) -> ExpressionType {
            switch t {
            case "number": .number
            case "color": .color
            case "string", "enum": .string
            case "boolean": .boolean
            case "formatted": .formatted
            case "resolvedImage": .resolvedImage
            case "padding": .padding
            default: .value
            }
        }
        if type == "array" { return .array(simple(element ?? "value"), length) }
        return simple(type)
    }

    /// The default value (colours parsed), or nil when the spec has none.
    public var defaultValue: StyleValue? {
        guard let defaultJSON, let json = try? JSONParser.parse(Data(defaultJSON.utf8), file: "v8.json") else { return nil }
        let value = StyleValue(json: json)
        if type == "color", let s = value.string, let c = StyleColor(css: s) { return .color(c) }
        return value
    }

    /// The default of a layer type's property (parsed once).
    public static func defaultValue(layer: String, name: String) -> StyleValue? { defaults[layer]?[name] ?? nil }

    static let defaults: [String: [String: StyleValue?]] = index.mapValues { $0.mapValues(\.defaultValue) }

    /// The property of a layer type, by name.
    public static func lookup(layer: String, name: String) -> PropertySpec? { index[layer]?[name] }

    /// A layer type's properties by section.
    public static func properties(layer: String, section: Section) -> [PropertySpec] {
        table.filter { $0.layer == layer && $0.section == section }
    }

    static let index: [String: [String: PropertySpec]] = {
        var out: [String: [String: PropertySpec]] = [:]
        for p in table { out[p.layer, default: [:]][p.name] = p }
        return out
    }()
}
