import Foundation

/// A JSON value of a GeoJSON file and the byte offset where it starts (turned into a line and column
/// only for a message).
struct JSONNode {
    enum Value {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        case object([(key: String, value: JSONNode)])
    }

    var value: Value
    var offset: Int

    subscript(key: String) -> JSONNode? {
        if case .object(let members) = value { return members.first { $0.key == key }?.value }
        return nil
    }

    var elements: [JSONNode]? { if case .array(let a) = value { a } else { nil } }
    var string: String? { if case .string(let s) = value { s } else { nil } }
    var number: Double? { if case .number(let n) = value { n } else { nil } }

    var kind: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A small JSON reader for track files (RFC 8259: no comments, no trailing commas), keeping each
/// value's offset so that errors name a line and column; nesting bounded.
struct JSONReader {
    static let maximumDepth = 200
    let bytes: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Line and column (from 1, columns in characters) of a byte offset.
    static func location(of offset: Int, in bytes: [UInt8]) -> TrackLocation {
        var line = 1, column = 1
        for b in bytes[..<min(offset, bytes.count)] {
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return TrackLocation(line: line, column: column)
    }

    func fail(_ message: String, at offset: Int? = nil, hint: String? = nil) -> TrackProblem {
        TrackProblem(message, at: Self.location(of: offset ?? i, in: bytes), hint: hint)
    }

    mutating func document() throws(TrackProblem) -> JSONNode {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        let value = try parse(depth: 0)
        skipSpace()
        if i < bytes.count { throw fail("unexpected \(describe()) after the end of the JSON document") }
        return value
    }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    func describe() -> String {
        guard i < bytes.count else { return "end of file" }
        let b = bytes[i]
        return b >= 0x21 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : String(format: "byte 0x%02X", b)
    }

    mutating func parse(depth: Int) throws(TrackProblem) -> JSONNode {
        skipSpace()
        guard depth < Self.maximumDepth else { throw fail("JSON nested more than \(Self.maximumDepth) deep") }
        guard i < bytes.count else { throw fail("expected a JSON value, found end of file", hint: "the file may be cut short") }
        let start = i
        switch bytes[i] {
        case 0x7B:  // {
            i += 1
            var members: [(key: String, value: JSONNode)] = []
            skipSpace()
            if i < bytes.count, bytes[i] == 0x7D { i += 1; return JSONNode(value: .object(members), offset: start) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x22 else { throw fail("expected a key in double quotes, found \(describe())") }
                let key = try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x3A else { throw fail("expected ':' after the key \"\(key)\", found \(describe())") }
                i += 1
                members.append((key, try parse(depth: depth + 1)))
                skipSpace()
                guard i < bytes.count else { throw fail("the object is not closed: expected ',' or '}', found end of file") }
                if bytes[i] == 0x2C { i += 1; continue }
                if bytes[i] == 0x7D { i += 1; return JSONNode(value: .object(members), offset: start) }
                throw fail("expected ',' or '}' in an object, found \(describe())")
            }
        case 0x5B:  // [
            i += 1
            var elements: [JSONNode] = []
            skipSpace()
            if i < bytes.count, bytes[i] == 0x5D { i += 1; return JSONNode(value: .array(elements), offset: start) }
            while true {
                elements.append(try parse(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("the array is not closed: expected ',' or ']', found end of file") }
                if bytes[i] == 0x2C { i += 1; continue }
                if bytes[i] == 0x5D { i += 1; return JSONNode(value: .array(elements), offset: start) }
                throw fail("expected ',' or ']' in an array, found \(describe())")
            }
        case 0x22:
            return JSONNode(value: .string(try string()), offset: start)
        case 0x2D, 0x30...0x39:
            while i < bytes.count, case let b = bytes[i], (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2B || b == 0x2E || b == 0x45 || b == 0x65 {
                i += 1
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            guard let v = Double(text), v.isFinite else { throw fail("\"\(text)\" is not a JSON number", at: start) }
            return JSONNode(value: .number(v), offset: start)
        default:
            for (word, value) in [("true", JSONNode.Value.bool(true)), ("false", .bool(false)), ("null", .null)]
            where bytes[i...].starts(with: word.utf8) {
                i += word.utf8.count
                return JSONNode(value: value, offset: start)
            }
            throw fail("expected a JSON value, found \(describe())",
                       hint: bytes[i] == 0x4E || bytes[i] == 0x49 ? "JSON has no NaN or Infinity: leave the position out" : nil)
        }
    }

    mutating func string() throws(TrackProblem) -> String {
        let start = i
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x22 { i += 1; return String(decoding: out, as: UTF8.self) }
            if b < 0x20 { throw fail("a control character inside a string (write it as an escape such as \\n)") }
            if b != 0x5C { out.append(b); i += 1; continue }
            guard i + 1 < bytes.count else { break }
            let e = bytes[i + 1]
            i += 2
            switch e {
            case 0x22, 0x5C, 0x2F: out.append(e)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                guard var u = hex4() else { throw fail("\\u needs four hexadecimal digits", at: i - 2) }
                if (0xD800..<0xDC00).contains(u), i + 1 < bytes.count, bytes[i] == 0x5C, bytes[i + 1] == 0x75 {
                    i += 2
                    if let low = hex4(), (0xDC00..<0xE000).contains(low) { u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00) }
                }
                out.append(contentsOf: Array(String(Unicode.Scalar(u).map(Character.init) ?? "\u{FFFD}").utf8))
            default:
                throw fail("unknown escape \\\(Character(Unicode.Scalar(e))) in a string", at: i - 2)
            }
        }
        throw fail("the string is not closed: end of file before its closing quote", at: start)
    }

    mutating func hex4() -> UInt32? {
        guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else { return nil }
        i += 4
        return v
    }
}

/// GeoJSON (RFC 7946): `LineString` and `MultiLineString` geometries as segments, alone, in a
/// `Feature`, a `FeatureCollection` or a `GeometryCollection`; `Point` and `MultiPoint` as waypoints;
/// times per position from a feature's `coordTimes`, `times` or `coordinateProperties.times`
/// (ISO 8601 strings, or numbers of seconds, or of milliseconds when above 1e11, since 1970).
struct GeoJSONReader {
    let bytes: [UInt8]
    var raw = RawTrack(whatHasPoints: "LineString, MultiLineString or Point")
    var polygons = 0

    init(_ data: Data) { bytes = [UInt8](data) }

    func fail(_ message: String, _ node: JSONNode, hint: String? = nil) -> TrackProblem {
        TrackProblem(message, at: JSONReader.location(of: node.offset, in: bytes), hint: hint)
    }

    mutating func read() throws(TrackProblem) -> RawTrack {
        var reader = JSONReader(bytes)
        let root = try reader.document()
        try object(root, properties: nil, path: "")
        if polygons > 0 {
            raw.warnings.append(TrackWarning(kind: .ignored, message: "\(TrackCleaning.count(polygons, "polygon")) skipped: a track is a line"))
        }
        return raw
    }

    mutating func object(_ node: JSONNode, properties: JSONNode?, path: String) throws(TrackProblem) {
        guard case .object = node.value else { throw fail("\(where_(path))expected a GeoJSON object, found \(node.kind)", node) }
        guard let type = node["type"]?.string else {
            throw fail("\(where_(path))a GeoJSON object needs a \"type\" (such as \"LineString\" or \"FeatureCollection\")", node)
        }
        switch type {
        case "FeatureCollection":
            guard let features = node["features"]?.elements else { throw fail("\(where_(path))a FeatureCollection needs a \"features\" array", node) }
            for (k, f) in features.enumerated() { try object(f, properties: nil, path: path + "features[\(k)]") }
        case "Feature":
            let props = node["properties"]
            if raw.name == nil, let name = props?["name"]?.string { raw.name = name }
            guard let geometry = node["geometry"], !(geometry.value.isNull) else { return }
            try object(geometry, properties: props, path: path + (path.isEmpty ? "" : ".") + "geometry")
        case "GeometryCollection":
            guard let geometries = node["geometries"]?.elements else {
                throw fail("\(where_(path))a GeometryCollection needs a \"geometries\" array", node)
            }
            for (k, g) in geometries.enumerated() { try object(g, properties: properties, path: path + ".geometries[\(k)]") }
        case "LineString":
            let c = try coordinates(node, path)
            raw.segments.append(try line(c, times: times(properties, line: nil), path: path + ".coordinates"))
        case "MultiLineString":
            let c = try coordinates(node, path)
            guard let lines = c.elements else { throw fail("\(where_(path)).coordinates: expected an array of lines, found \(c.kind)", c) }
            for (k, l) in lines.enumerated() {
                raw.segments.append(try line(l, times: times(properties, line: k), path: path + ".coordinates[\(k)]"))
            }
        case "Point":
            let p = try position(try coordinates(node, path), path + ".coordinates")
            raw.waypoints.append(Waypoint(name: properties?["name"]?.string, latitude: p.point.latitude, longitude: p.point.longitude,
                                          altitude: p.point.altitude))
        case "MultiPoint":
            for p in try line(try coordinates(node, path), times: nil, path: path + ".coordinates") {
                raw.waypoints.append(Waypoint(name: properties?["name"]?.string, latitude: p.point.latitude, longitude: p.point.longitude,
                                              altitude: p.point.altitude))
            }
        case "Polygon", "MultiPolygon":
            polygons += 1
        default:
            throw fail("\(where_(path))\"\(type)\" is not a GeoJSON type", node[ "type"] ?? node,
                       hint: "GeoJSON types: FeatureCollection, Feature, LineString, MultiLineString, Point, MultiPoint, Polygon, MultiPolygon, GeometryCollection")
        }
    }

    func where_(_ path: String) -> String { path.isEmpty ? "" : path + ": " }

    func coordinates(_ node: JSONNode, _ path: String) throws(TrackProblem) -> JSONNode {
        guard let c = node["coordinates"] else { throw fail("\(where_(path))a geometry needs \"coordinates\"", node) }
        return c
    }

    /// `[lon, lat]` or `[lon, lat, alt]`.
    func position(_ node: JSONNode, _ path: String) throws(TrackProblem) -> RawPoint {
        guard let e = node.elements, e.count >= 2, e.count <= 4, let lon = e[0].number, let lat = e[1].number else {
            throw fail("\(path): a position is [longitude, latitude] or [longitude, latitude, altitude], found \(describe(node))", node)
        }
        var p = TrackPoint(latitude: lat, longitude: lon)
        if e.count >= 3 {
            guard let alt = e[2].number else { throw fail("\(path)[2]: an altitude is a number, found \(e[2].kind)", e[2]) }
            p.altitude = alt
        }
        return RawPoint(point: p, location: JSONReader.location(of: node.offset, in: bytes))
    }

    func describe(_ node: JSONNode) -> String {
        if let e = node.elements { return "an array of \(TrackCleaning.count(e.count, "element"))" + (e.isEmpty ? "" : " (\(e[0].kind) first)") }
        return node.kind
    }

    mutating func line(_ node: JSONNode, times: JSONNode?, path: String) throws(TrackProblem) -> [RawPoint] {
        guard let positions = node.elements else { throw fail("\(path): expected an array of positions, found \(node.kind)", node) }
        var points: [RawPoint] = []
        points.reserveCapacity(positions.count)
        for (k, p) in positions.enumerated() { points.append(try position(p, path + "[\(k)]")) }
        guard let times, let list = times.elements else { return points }
        guard list.count == positions.count else {
            raw.warnings.append(TrackWarning(kind: .ignored, message: "\(list.count) times for \(positions.count) positions: the times are ignored",
                                             location: JSONReader.location(of: times.offset, in: bytes)))
            return points
        }
        for (k, t) in list.enumerated() {
            switch t.value {
            case .string(let s):
                guard let d = ISOTime.parse(Substring(s)) else {
                    throw fail("time \"\(s)\" is not an ISO 8601 date and time", t, hint: "write it as 2024-05-01T09:30:00Z")
                }
                points[k].point.time = d
            case .number(let n):
                points[k].point.time = Date(timeIntervalSince1970: n > 1e11 ? n / 1000 : n)
            case .null:
                break
            default:
                throw fail("a time is an ISO 8601 string or a number of seconds, found \(t.kind)", t)
            }
        }
        return points
    }

    /// The times of a feature's line (`line` of a MultiLineString: that line's array).
    func times(_ properties: JSONNode?, line: Int?) -> JSONNode? {
        guard let properties else { return nil }
        guard let all = properties["coordTimes"] ?? properties["times"] ?? properties["coordinateProperties"]?["times"] else { return nil }
        guard let line else { return all }
        return all.elements.flatMap { line < $0.count ? $0[line] : nil }
    }
}

extension JSONNode.Value {
    var isNull: Bool { if case .null = self { true } else { false } }
}
