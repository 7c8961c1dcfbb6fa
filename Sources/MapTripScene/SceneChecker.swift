import Foundation
import MapTripSupport

/// A value that passed the format's checks, with where it stood.
enum Checked {
    case string(String, JSONValue)
    case number(Double, JSONValue)
    case integer(Int, JSONValue)
    case bool(Bool, JSONValue)
    /// The members that passed, by key (with their paths), and the object itself.
    case object([String: (Checked, String)], JSONValue)
    /// Every element, nil where it did not pass (so indices stay those of the file).
    case array(CheckedList, JSONValue)

    var json: JSONValue {
        switch self {
        case .string(_, let v), .number(_, let v), .integer(_, let v), .bool(_, let v), .object(_, let v),
             .array(_, let v): v
        }
    }
    var string: String? { if case .string(let s, _) = self { s } else { nil } }
    var number: Double? {
        switch self {
        case .number(let x, _): x
        case .integer(let i, _): Double(i)
        default: nil
        }
    }
    var integer: Int? { if case .integer(let i, _) = self { i } else { nil } }
    var bool: Bool? { if case .bool(let b, _) = self { b } else { nil } }
    var elements: [Checked?]? {
        guard case .array(let list, _) = self else { return nil }
        return list.items
    }
    subscript(key: String) -> Checked? {
        if case .object(let members, _) = self { return members[key]?.0 }
        return nil
    }
    /// An object every member of which passed (anything else: true).
    var isComplete: Bool {
        guard case .object(let members, let value) = self else { return true }
        return members.count == (value.members?.count ?? 0)
    }
    func path(of key: String) -> String? {
        if case .object(let members, _) = self { return members[key]?.1 }
        return nil
    }
}

/// The elements of a checked array, nil where one did not pass.
final class CheckedList {
    let items: [Checked?]
    init(_ items: [Checked?]) { self.items = items }
}

/// Checks a parsed document against `SceneFormat`, collecting every problem (not stopping at the first):
/// unknown keys (with "did you mean"), types, ranges, required keys, empty lists.
struct SceneChecker {
    let file: String
    private(set) var errors: [SceneError] = []

    init(file: String) { self.file = file }

    mutating func fail(_ value: JSONValue, _ path: String, _ message: String, hint: String? = nil) {
        fail(at: value.position, path, message, hint: hint)
    }

    mutating func fail(at position: SourcePosition, _ path: String, _ message: String, hint: String? = nil) {
        errors.append(SceneError(file: file, line: position.line, column: position.column, path: path,
                                 message: message, hint: hint))
    }

    /// Sets the hint of the problem at `path` (where the description alone could not know it).
    mutating func amend(path: String, hint: String) {
        for i in errors.indices where errors[i].path == path { errors[i].hint = hint }
    }

    mutating func typeError(_ value: JSONValue, _ path: String, expected: String, hint: String? = nil,
                            rule: SceneFormat.Rule? = nil) {
        var hint = hint
        if value.isNull {
            hint = "remove the key to use the default"
        } else if expected.hasPrefix("a number") || expected.hasPrefix("an integer"), let s = value.string {
            if Double(s.trimmingCharacters(in: .whitespaces)) != nil {
                hint = "write the number without quotes"
            } else if let seconds = rule?.seconds(inText: s) {
                hint = Self.secondsHint(seconds)
            }
        }
        fail(value, path, "expected \(expected), found \(value.typeDescription)", hint: hint)
    }

    /// What to write for a time given as text with its unit ("3s"): the number of seconds alone.
    static func secondsHint(_ seconds: Double) -> String {
        "write \(JSONText.number(seconds)), a number of seconds without quotes or unit"
    }

    /// The checked value, or nil (with the problems recorded) when it does not fit `kind`.
    mutating func check(_ value: JSONValue, _ kind: SceneFormat.Kind, path: String) -> Checked? {
        switch kind {
        case .string(let nonEmpty, let noun):
            guard let s = value.string else {
                typeError(value, path, expected: "a string")
                return nil
            }
            if nonEmpty && s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                fail(value, path, "\(noun) must not be empty")
                return nil
            }
            return .string(s, value)
        case .number(let rule):
            guard let n = value.number else {
                typeError(value, path, expected: "a number", rule: rule)
                return nil
            }
            guard n.value.isFinite else {
                fail(value, path, "\(n.literal) is too large to be a number here")
                return nil
            }
            if let rule, !rule.accepts(n.value) {
                fail(value, path, rule.message(n.literal), hint: rule.hint)
                return nil
            }
            return .number(n.value, value)
        case .integer(let rule, let even):
            guard let n = value.number else {
                typeError(value, path, expected: "an integer")
                return nil
            }
            guard let i = n.integerValue else {
                fail(value, path, "expected an integer, found \(n.literal)")
                return nil
            }
            if let rule, !rule.accepts(Double(i)) {
                fail(value, path, rule.message(String(i)), hint: rule.hint)
                return nil
            }
            if even && i % 2 != 0 {
                let noun = path.split(separator: ".").last.map(String.init) ?? path
                let options = [i - 1, i + 1].filter(SceneFormat.videoSizeRange.contains).map(String.init)
                    .joined(separator: " or ")
                fail(value, path, "\(noun) \(i) is odd; H.264 with 4:2:0 chroma needs even frame sizes",
                     hint: "use \(options)")
                return nil
            }
            return .integer(i, value)
        case .boolean:
            guard let b = value.bool else {
                typeError(value, path, expected: "true or false")
                return nil
            }
            return .bool(b, value)
        case .choice(let options, let noun, let hint):
            guard let s = value.string else {
                typeError(value, path, expected: "a string")
                return nil
            }
            guard options.contains(s) else {
                fail(value, path, "unknown \(noun) '\(s)'", hint: hint)
                return nil
            }
            return .string(s, value)
        case .object(let object):
            return checkObject(value, object, path: path)
        case .stringOr(let object, let noun):
            if let s = value.string {
                if s.trimmingCharacters(in: .whitespaces).isEmpty {
                    fail(value, path, "\(noun) must not be empty")
                    return nil
                }
                return .string(s, value)
            }
            guard value.members != nil else {
                typeError(value, path, expected: "an object or a file name")
                return nil
            }
            return checkObject(value, object, path: path)
        case .switchOr(let object, let words, let noun):
            if let b = value.bool { return .bool(b, value) }
            if let s = value.string {
                guard words.contains(s) else {
                    let list = Wording.alternatives((["true", "false"] + words.map { "\"\($0)\"" }))
                    fail(value, path, "unknown \(noun) '\(Wording.excerpt(s, limit: 40))'", hint: "use \(list), or an object")
                    return nil
                }
                return .string(s, value)
            }
            guard value.members != nil else {
                let list = (["true", "false"] + words.map { "\"\($0)\"" }).joined(separator: ", ")
                typeError(value, path, expected: "\(list) or an object", hint: object.typeHint)
                return nil
            }
            return checkObject(value, object, path: path)
        case .arrayOr(let list, let object):
            if value.elements != nil { return check(value, list, path: path) }
            guard value.members != nil else {
                typeError(value, path, expected: "an array or an object")
                return nil
            }
            return checkObject(value, object, path: path)
        case .color:
            guard let s = value.string else {
                typeError(value, path, expected: "a colour string such as \"#e4572e\"")
                return nil
            }
            guard Color(hex: s) != nil, s.hasPrefix("#") else {
                fail(value, path, "'\(s)' is not a colour",
                     hint: "write it as \"#rrggbb\", or \"#rrggbbaa\" with opacity, e.g. \"#e4572e\"")
                return nil
            }
            return .string(s, value)
        case .numberOr(let words, let rule, let noun):
            if let s = value.string {
                guard words.contains(s) else {
                    let list = Wording.alternatives(words.map { "\"\($0)\"" })
                    let hint = rule?.seconds(inText: s).map { Self.secondsHint($0) + ", or \(list)" }
                    fail(value, path, "unknown \(noun) '\(s)'",
                         hint: hint ?? "give a number\(rule?.unit == "seconds" ? " of seconds" : "") or \(list)")
                    return nil
                }
                return .string(s, value)
            }
            return check(value, .number(rule), path: path)
        case .array(let item, let nonEmpty, let what, let itemHint):
            guard let elements = value.elements else {
                typeError(value, path, expected: what)
                return nil
            }
            if let nonEmpty, elements.isEmpty {
                fail(value, path, nonEmpty.message, hint: nonEmpty.hint)
                return nil
            }
            var checked: [Checked?] = []
            for (i, element) in elements.enumerated() {
                let itemPath = JSONPath.appending(index: i, to: path)
                if case .object(let object) = item, element.members == nil {
                    typeError(element, itemPath, expected: "an object", hint: object.typeHint ?? itemHint)
                    checked.append(nil)
                    continue
                }
                checked.append(check(element, item, path: itemPath))
            }
            return .array(CheckedList(checked), value)
        }
    }

    /// Every member checked; unknown keys and missing required keys reported. The members that
    /// passed are kept (so later checks can still look at them); nil only when it is not an object.
    mutating func checkObject(_ value: JSONValue, _ object: SceneFormat.Object, path: String) -> Checked? {
        guard let members = value.members else {
            typeError(value, path, expected: "an object", hint: object.typeHint)
            return nil
        }
        var checked: [String: (Checked, String)] = [:]
        var seen = Set<String>()
        var suggested = Set<String>()
        for member in members {
            let memberPath = JSONPath.appending(key: member.key, to: path)
            guard let field = object.field(member.key) else {
                let hint: String
                if let section = object.misplaced[member.key] {
                    hint = "'\(member.key)' belongs in \(section)"
                } else if let suggestion = SceneLoader.suggestion(for: member.key, among: object.keys) {
                    hint = "did you mean '\(suggestion)'?"
                    suggested.insert(suggestion)
                } else {
                    hint = "allowed keys here: " + object.keys.filter { $0 != "$schema" }.joined(separator: ", ")
                }
                fail(at: member.keyPosition, memberPath, "unknown key '\(Wording.excerpt(member.key, limit: 40))'", hint: hint)
                continue
            }
            seen.insert(member.key)  // the parser has refused duplicate keys
            if let c = check(member.value, field.kind, path: memberPath) {
                checked[member.key] = (c, memberPath)
            }
        }
        // A required key that a misspelt one already points to ("did you mean") is one problem, not two.
        for field in object.fields where field.required && !seen.contains(field.key) && !suggested.contains(field.key) {
            fail(value, path, "missing required key '\(field.key)'", hint: field.missingHint)
        }
        return .object(checked, value)
    }
}
