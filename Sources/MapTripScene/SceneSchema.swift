import Foundation

/// What `SceneFormat` says, written for editors and readers: the JSON Schema (draft 2020-12) that
/// `maptrip schema` prints and `Assets/scene.schema.json` holds, and the README's table of keys.
public enum SceneSchema {
    public static let draft = "https://json-schema.org/draft/2020-12/schema"
    public static let id = "https://github.com/maptrip/maptrip/blob/main/Assets/scene.schema.json"

    /// The schema as pretty-printed JSON with sorted keys (stable, so the checked-in file can be
    /// compared with what the description generates).
    public static func json() -> String {
        var root = object(SceneFormat.scene)
        root["$schema"] = draft
        root["$id"] = id
        root["title"] = "maptrip scene"
        root["description"] = "A scripted journey: places (by coordinates or by name) and how long each holds "
            + "the screen. Render it with `maptrip render FILE`."
        let data = try! JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys,
                                                                                .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func object(_ o: SceneFormat.Object) -> [String: Any] {
        var properties: [String: Any] = [:]
        for field in o.fields {
            var p = kind(field.kind)
            p["description"] = field.doc
            switch field.defaultValue?.json {
            case .number(let x)?: p["default"] = x == x.rounded() ? Int(x) as Any : x as Any
            case .string(let s)?: p["default"] = s
            case .bool(let b)?: p["default"] = b
            default: break
            }
            properties[field.key] = p
        }
        var schema: [String: Any] = ["type": "object", "properties": properties, "additionalProperties": false]
        let required = o.fields.filter(\.required).map(\.key)
        if !required.isEmpty { schema["required"] = required }
        for constraint in o.constraints {
            switch constraint {
            case .together(let keys):
                var dependent = schema["dependentRequired"] as? [String: [String]] ?? [:]
                for k in keys { dependent[k] = keys.filter { $0 != k } }
                schema["dependentRequired"] = dependent
            case .anyOf(let alternatives):
                schema["anyOf"] = alternatives.map { ["required": $0] }
            }
        }
        return schema
    }

    static func kind(_ k: SceneFormat.Kind) -> [String: Any] {
        switch k {
        case .string(let nonEmpty, _):
            return nonEmpty ? ["type": "string", "pattern": "\\S"] : ["type": "string"]
        case .number(let rule):
            return ["type": "number"].merging(rule.map(keywords) ?? [:]) { a, _ in a }
        case .integer(let rule, let even):
            var s: [String: Any] = ["type": "integer"].merging(rule.map(keywords) ?? [:]) { a, _ in a }
            if even { s["multipleOf"] = 2 }
            return s
        case .boolean:
            return ["type": "boolean"]
        case .choice(let options, _, _):
            return ["type": "string", "enum": options]
        case .object(let o):
            return object(o)
        case .array(let item, let nonEmpty, _, _):
            var s: [String: Any] = ["type": "array", "items": kind(item)]
            if nonEmpty != nil { s["minItems"] = 1 }
            return s
        case .stringOr(let o, _):
            return ["anyOf": [["type": "string", "pattern": "\\S"], object(o)]]
        case .arrayOr(let list, let o):
            return ["anyOf": [kind(list), object(o)]]
        case .color:
            return ["type": "string", "pattern": "^#([0-9a-fA-F]{6}|[0-9a-fA-F]{8})$"]
        case .numberOr(let words, let rule, _):
            return ["anyOf": [kind(.number(rule)), ["type": "string", "enum": words]]]
        case .switchOr(let o, let words, _):
            var any: [[String: Any]] = [["type": "boolean"]]
            if !words.isEmpty { any.append(["type": "string", "enum": words]) }
            return ["anyOf": any + [object(o)]]
        }
    }

    static func keywords(_ rule: SceneFormat.Rule) -> [String: Any] {
        var s: [String: Any] = [:]
        for (k, v) in rule.schema { s[k] = v == v.rounded() ? Int(v) as Any : v as Any }
        if let values = rule.schemaEnum { s["enum"] = values.map { $0 == $0.rounded() ? Int($0) as Any : $0 as Any } }
        return s
    }

    // MARK: README

    /// The README's table of keys: `| key | meaning | default |`, every key of every section.
    public static func markdownTable() -> String {
        var rows = ["| key | meaning | default |", "|---|---|---|"]
        func walk(_ o: SceneFormat.Object, prefix: String) {
            for field in o.fields where field.key != "$schema" {
                let key = prefix + field.key
                switch field.kind {
                case .object(let inner):
                    walk(inner, prefix: key + ".")
                case .array(.object(let inner), _, _, _):
                    walk(inner, prefix: key + "[].")
                case .stringOr(let inner, _), .switchOr(let inner, _, _), .arrayOr(_, let inner):
                    rows.append("| `\(key)` | \(field.doc) | \(field.defaultValue?.text ?? "none") |")
                    walk(inner, prefix: key + ".")
                default:
                    var meaning = field.doc
                    if let range = range(field.kind) { meaning += " (\(range))" }
                    if field.required { meaning += "; required" }
                    rows.append("| `\(key)` | \(meaning) | \(field.defaultValue?.text ?? (field.required ? "" : "none")) |")
                }
            }
        }
        walk(SceneFormat.scene, prefix: "")
        return rows.joined(separator: "\n") + "\n"
    }

    static func range(_ k: SceneFormat.Kind) -> String? {
        switch k {
        case .number(let rule?), .integer(let rule?, _): rule.summary
        case .choice(let options, _, _): options.map { "`\($0)`" }.joined(separator: " or ")
        case .numberOr(let words, let rule?, _): rule.summary + " or " + words.map { "`\($0)`" }.joined(separator: " or ")
        case .switchOr(_, let words, _): (["`true`", "`false`"] + words.map { "`\($0)`" }).joined(separator: " or ") + " or an object"
        default: nil
        }
    }

    /// Markers around the generated table in the README.
    public static let tableBegin = "<!-- scene keys: generated from SceneFormat by `maptrip schema --markdown`; a test keeps them equal -->"
    public static let tableEnd = "<!-- end of scene keys -->"
}
