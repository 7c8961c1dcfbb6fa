import MapTripScene

/// A numeric key of the scene format, found by walking `SceneFormat` (a key added later is found
/// too): its path in a probe scene (`places`, `zoom`), whether it must be an integer, and its rule.
/// For the property tests over every numeric key (NumericKeysTests, NumericKeysRenderTests).
public struct NumericKey: CustomStringConvertible, Sendable {
    public var path: [String]
    public var integer: Bool
    public var rule: SceneFormat.Rule?
    /// Inside an array of numbers (`dash`): the value goes in as `[v]`.
    public var inArray = false

    public var description: String { loaderPath }

    /// The path as the loader writes it: `places[0].zoom`, `video.width`, `route.dash[0]`.
    public var loaderPath: String {
        var out = ""
        for k in path {
            out += (out.isEmpty ? "" : ".") + (["places", "keyframes", "privacy", "cameras"].contains(k) ? k + "[0]" : k)
        }
        return inArray ? out + "[0]" : out
    }

    /// Every numeric key under `object`, with `prefix` before it.
    public static func keys(in object: SceneFormat.Object, prefix: [String] = []) -> [NumericKey] {
        var out: [NumericKey] = []
        for field in object.fields {
            let path = prefix + [field.key]
            switch field.kind {
            case .number(let rule): out.append(NumericKey(path: path, integer: false, rule: rule))
            case .integer(let rule, _): out.append(NumericKey(path: path, integer: true, rule: rule))
            case .numberOr(_, let rule, _): out.append(NumericKey(path: path, integer: false, rule: rule))
            case .object(let inner), .stringOr(let inner, _), .switchOr(let inner, _, _): out += keys(in: inner, prefix: path)
            case .array(of: .object(let inner), _, _, _): out += keys(in: inner, prefix: path)
            case .array(of: .number(let rule), _, _, _):
                out.append(NumericKey(path: path, integer: false, rule: rule, inArray: true))
            default: break
            }
        }
        return out
    }

    public static let all = keys(in: SceneFormat.scene)

    /// The limits the rule states (minimum, maximum, the values of a choice).
    public var limits: [Double] { Array((rule?.schema ?? [:]).values).sorted() + (rule?.schemaEnum ?? []) }

    /// 0, tiny, huge and negative values, and each limit with a hair either side.
    public var probeValues: [Double] {
        var v: [Double] = [0, 1e-300, -1e-300, 1e-9, 0.5, 1, -1, 1e9, -1e9, 1e300, -1e300, 7]
        for limit in limits { v += [limit, limit.nextDown, limit.nextUp, limit - 1, limit + 1, limit * 10] }
        return v.filter(\.isFinite)
    }

    /// The probe scene: two places in a 320x180 frame (unless the key is the frame's), with `value`
    /// (as JSON text) at the key, and what its object needs besides.
    public func probeScene(_ value: String) -> String {
        let number = inArray ? "[\(value)]" : value
        func object(_ path: ArraySlice<String>) -> String {
            guard let first = path.first else { return number }
            return "{ \"\(first)\": \(object(path.dropFirst())) }"
        }
        let head = path[0]
        let seoul = #"{ "lat": 37.5665, "lon": 126.978"#, busan = #"{ "lat": 35.1796, "lon": 129.0756 }"#
        var members: [String] = []
        if head == "camera", path.count == 3, path[1] == "keyframes" {
            // One keyframe, complete but for the key probed.
            var fields = ["t": "0", "lon": "127", "lat": "37.5", "zoom": "5"].filter { $0.key != path[2] }
                .sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }
            fields.append("\"\(path[2])\": \(number)")
            members.append("\"camera\": { \"keyframes\": [ { \(fields.joined(separator: ", ")) } ] }")
            members.append("\"places\": [ \(seoul) }, \(busan) ]")
        } else if head == "privacy", path.count == 2 {
            // One zone, complete but for the key probed.
            var fields = ["lat": "37.5", "lon": "127", "radius": "500"].filter { $0.key != path[1] }
                .sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }
            fields.append("\"\(path[1])\": \(number)")
            members.append("\"privacy\": [ { \(fields.joined(separator: ", ")) } ]")
            members.append("\"places\": [ \(seoul) }, \(busan) ]")
        } else if head == "photos", path.count == 3, path[1] == "cameras" {
            // One camera's correction, complete but for the key probed (the scene has no tracks: an
            // error at "photos" once the value is taken).
            var fields = ["model": "\"X100V\"", "timeOffset": "0"].filter { $0.key != path[2] }
                .sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }
            fields.append("\"\(path[2])\": \(number)")
            members.append("\"photos\": { \"folder\": \"shots\", \"cameras\": [ { \(fields.joined(separator: ", ")) } ] }")
            members.append("\"places\": [ \(seoul) }, \(busan) ]")
        } else if head == "places" {
            let field = "\"\(path[1])\": \(path.count == 2 ? number : object(path.dropFirst(2)))"
            members.append("\"places\": [ \(seoul), \(field) }, \(busan) ]")
        } else {
            var value = path.count == 1 ? number : object(path.dropFirst())
            // What the value's object must hold besides.
            if head == "audio" { value = "{ \"file\": \"music.mp3\", " + value.dropFirst(2) }
            if head == "end" { value = "{ \"title\": \"The end\", " + value.dropFirst(2) }
            members.append("\"\(head)\": \(value)")
            members.append("\"places\": [ \(seoul) }, \(busan) ]")
        }
        if head != "video" { members.append(#""video": { "width": 320, "height": 180 }"#) }
        return "{ " + members.joined(separator: ", ") + " }"
    }
}
