import Foundation

/// Values read from XML text, with the element's position in an error.
extension XMLElement {
    /// A number written in this element's text or attribute: `what` names it in an error. NaN and
    /// infinities parse (they are data problems, dropped later with a warning).
    func number(_ text: String, _ what: String) throws(TrackProblem) -> Double {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let v = Double(t) else {
            throw TrackProblem("\(what) \"\(t)\" is not a number", at: location, hint: "write a decimal number such as 48.8566")
        }
        return v
    }

    /// The required number attribute `name` of a point element.
    func coordinate(_ name: String) throws(TrackProblem) -> Double {
        guard let text = attributes[name] else {
            throw TrackProblem("<\(self.name)> has no \(name) attribute", at: location,
                               hint: "every \(self.name) needs lat and lon attributes in degrees")
        }
        return try number(text, "\(self.name) \(name)")
    }

    /// The optional number in child `name`'s text.
    func optionalNumber(_ name: String) throws(TrackProblem) -> Double? {
        guard let text = value(name), let e = child(name) else { return nil }
        return try e.number(text, name)
    }

    /// The optional time in child `name`'s text (ISO 8601).
    func optionalTime(_ name: String) throws(TrackProblem) -> Date? {
        guard let text = value(name), let e = child(name) else { return nil }
        return try e.time(text)
    }

    func time(_ text: String) throws(TrackProblem) -> Date {
        guard let date = ISOTime.parse(Substring(text)) else {
            throw TrackProblem("\(name) \"\(text)\" is not an ISO 8601 date and time", at: location,
                               hint: "write it as 2024-05-01T09:30:00Z")
        }
        return date
    }

    /// The first number found in a descendant named any of `names` (extensions: `gpxtpx:hr`, `ns3:Watts`).
    func extensionNumber(_ names: [String]) throws(TrackProblem) -> Double? {
        for name in names {
            if let e = descendants(name).first, case let t = e.text.trimmingCharacters(in: .whitespacesAndNewlines), !t.isEmpty {
                return try e.number(t, name)
            }
        }
        return nil
    }
}

/// Integers for heart rate, cadence and power: rounded, and nil when absurd.
func sensorValue(_ v: Double?) -> Int? {
    guard let v, v.isFinite, v >= 0, v < 100_000 else { return nil }
    return Int(v.rounded())
}

/// GPX 1.0 and 1.1: `trk`/`trkseg`/`trkpt` as segments (or, when a file has no track, each `rte`'s
/// `rtept`s), `wpt` as waypoints; `ele`, `time`, GPX 1.0's `speed` and the common extensions
/// (Garmin's TrackPointExtension `hr`, `cad`, `speed`; `power`).
enum GPXReader {
    static func read(_ root: XMLElement) throws(TrackProblem) -> RawTrack {
        let tracks = root.all("trk")
        var raw = RawTrack(name: root.child("metadata")?.value("name") ?? root.value("name") ?? tracks.first?.value("name"),
                           whatHasPoints: "trkpt, rtept or wpt")
        for wpt in root.all("wpt") {
            raw.waypoints.append(Waypoint(name: wpt.value("name"), latitude: try wpt.coordinate("lat"),
                                          longitude: try wpt.coordinate("lon"), time: try wpt.optionalTime("time"),
                                          altitude: try wpt.optionalNumber("ele")))
        }
        for trk in tracks {
            for seg in trk.all("trkseg") {
                var points: [RawPoint] = []
                for p in seg.all("trkpt") { points.append(try point(p)) }
                raw.segments.append(points)
            }
        }
        if raw.segments.allSatisfy(\.isEmpty) {
            raw.segments = []
            for rte in root.all("rte") {
                var points: [RawPoint] = []
                for p in rte.all("rtept") { points.append(try point(p)) }
                raw.segments.append(points)
            }
            if raw.name == nil { raw.name = root.all("rte").first?.value("name") }
        }
        return raw
    }

    static func point(_ e: XMLElement) throws(TrackProblem) -> RawPoint {
        var p = TrackPoint(latitude: try e.coordinate("lat"), longitude: try e.coordinate("lon"))
        p.altitude = try e.optionalNumber("ele")
        p.time = try e.optionalTime("time")
        p.speed = try e.optionalNumber("speed")
        if let ext = e.child("extensions") {
            p.heartRate = sensorValue(try ext.extensionNumber(["hr", "heartrate"]))
            p.cadence = sensorValue(try ext.extensionNumber(["cad", "cadence"]))
            p.power = sensorValue(try ext.extensionNumber(["power", "PowerInWatts"]))
            if p.speed == nil { p.speed = try ext.extensionNumber(["speed"]) }
        }
        return RawPoint(point: p, location: e.location)
    }
}

/// Garmin's Training Center XML: each `Track` of an `Activity`'s laps or of a `Course` is a segment,
/// `CoursePoint`s are waypoints; `Trackpoint`s without a `Position` (indoors, no fix yet) are skipped
/// with one warning.
enum TCXReader {
    static func read(_ root: XMLElement) throws(TrackProblem) -> RawTrack {
        var raw = RawTrack(name: root.descendants("Course").first?.value("Name"), whatHasPoints: "Trackpoint or CoursePoint")
        var skipped = 0
        var firstSkipped = TrackLocation.none
        for track in root.descendants("Track") {
            var points: [RawPoint] = []
            for tp in track.all("Trackpoint") {
                guard let position = tp.child("Position") else {
                    if skipped == 0 { firstSkipped = tp.location }
                    skipped += 1
                    continue
                }
                var p = TrackPoint(latitude: try coordinate(position, "LatitudeDegrees"),
                                   longitude: try coordinate(position, "LongitudeDegrees"))
                p.time = try tp.optionalTime("Time")
                p.altitude = try tp.optionalNumber("AltitudeMeters")
                p.heartRate = sensorValue(try tp.child("HeartRateBpm")?.optionalNumber("Value"))
                p.cadence = sensorValue(try tp.optionalNumber("Cadence"))
                if let ext = tp.child("Extensions") {
                    p.speed = try ext.extensionNumber(["Speed"])
                    p.power = sensorValue(try ext.extensionNumber(["Watts"]))
                    if p.cadence == nil { p.cadence = sensorValue(try ext.extensionNumber(["RunCadence"])) }
                }
                points.append(RawPoint(point: p, location: tp.location))
            }
            raw.segments.append(points)
        }
        for cp in root.descendants("CoursePoint") {
            guard let position = cp.child("Position") else { continue }
            raw.waypoints.append(Waypoint(name: cp.value("Name"), latitude: try coordinate(position, "LatitudeDegrees"),
                                          longitude: try coordinate(position, "LongitudeDegrees"),
                                          time: try cp.optionalTime("Time"), altitude: try cp.optionalNumber("AltitudeMeters")))
        }
        if skipped > 0 {
            raw.warnings.append(TrackWarning(kind: .ignored, message: "\(TrackCleaning.count(skipped, "Trackpoint")) without a Position skipped",
                                             location: firstSkipped))
        }
        return raw
    }

    static func coordinate(_ position: XMLElement, _ name: String) throws(TrackProblem) -> Double {
        guard let v = try position.optionalNumber(name) else {
            throw TrackProblem("<Position> has no \(name)", at: position.location,
                               hint: "a Position holds LatitudeDegrees and LongitudeDegrees")
        }
        return v
    }
}

/// KML (and the KML inside a KMZ): every `Placemark`'s `LineString` and `gx:Track` (`when` and
/// `gx:coord`), also inside `MultiGeometry` and `gx:MultiTrack`, as segments; its `Point`s as
/// waypoints; polygons skipped with a warning.
enum KMLReader {
    static func read(_ root: XMLElement) throws(TrackProblem) -> RawTrack {
        var raw = RawTrack(name: root.child("Document")?.value("name"), whatHasPoints: "LineString, gx:Track or Point")
        var polygons = 0
        for placemark in root.descendants("Placemark") {
            let name = placemark.value("name")
            let time = try placemark.child("TimeStamp")?.optionalTime("when")
            var stack: [XMLElement] = placemark.children.reversed()
            while let e = stack.popLast() {
                switch e.name {
                case "LineString":
                    let segment = try coordinates(e)
                    if !segment.isEmpty, raw.name == nil { raw.name = name }
                    raw.segments.append(segment)
                case "Track":
                    let segment = try track(e)
                    if !segment.isEmpty, raw.name == nil { raw.name = name }
                    raw.segments.append(segment)
                case "Point":
                    for p in try coordinates(e) {
                        raw.waypoints.append(Waypoint(name: name, latitude: p.point.latitude, longitude: p.point.longitude,
                                                      time: time, altitude: p.point.altitude))
                    }
                case "MultiGeometry", "MultiTrack":
                    stack.append(contentsOf: e.children.reversed())
                case "Polygon", "MultiPolygon":
                    polygons += 1
                default:
                    break
                }
            }
        }
        if polygons > 0 {
            raw.warnings.append(TrackWarning(kind: .ignored, message: "\(TrackCleaning.count(polygons, "polygon")) skipped: a track is a line"))
        }
        return raw
    }

    /// A `coordinates` element's tuples, `lon,lat[,alt]` separated by white space.
    static func coordinates(_ geometry: XMLElement) throws(TrackProblem) -> [RawPoint] {
        guard let e = geometry.child("coordinates") else { return [] }
        var points: [RawPoint] = []
        // A space after a comma ("1.5, 47.2") still joins its tuple.
        let text = e.text.replacingOccurrences(of: #",\s+"#, with: ",", options: .regularExpression)
        for tuple in text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }) {
            let parts = tuple.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3 else {
                throw TrackProblem("coordinates \"\(tuple)\" is not longitude,latitude[,altitude]", at: e.location,
                                   hint: "KML writes each position as lon,lat or lon,lat,alt, positions separated by spaces")
            }
            let lon = try e.number(String(parts[0]), "longitude"), lat = try e.number(String(parts[1]), "latitude")
            var p = TrackPoint(latitude: lat, longitude: lon)
            if parts.count == 3, !parts[2].isEmpty { p.altitude = try e.number(String(parts[2]), "altitude") }
            points.append(RawPoint(point: p, location: e.location))
        }
        return points
    }

    /// A `gx:Track`: `when` times beside `gx:coord` positions (`lon lat alt`), in step.
    static func track(_ e: XMLElement) throws(TrackProblem) -> [RawPoint] {
        let whens = e.all("when"), coords = e.all("coord")
        guard whens.isEmpty || whens.count == coords.count else {
            throw TrackProblem("a gx:Track has \(whens.count) <when> for \(coords.count) <gx:coord>", at: e.location,
                               hint: "a gx:Track gives one when per gx:coord, in the same order")
        }
        var points: [RawPoint] = []
        for (i, c) in coords.enumerated() {
            let parts = c.text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
            guard parts.count == 2 || parts.count == 3 else {
                throw TrackProblem("gx:coord \"\(c.text.trimmingCharacters(in: .whitespacesAndNewlines))\" is not longitude latitude [altitude]",
                                   at: c.location, hint: "gx:coord writes a position as lon lat alt, separated by spaces")
            }
            var p = TrackPoint(latitude: try c.number(String(parts[1]), "latitude"), longitude: try c.number(String(parts[0]), "longitude"))
            if parts.count == 3 { p.altitude = try c.number(String(parts[2]), "altitude") }
            if !whens.isEmpty { p.time = try whens[i].time(whens[i].text.trimmingCharacters(in: .whitespacesAndNewlines)) }
            points.append(RawPoint(point: p, location: c.location))
        }
        return points
    }
}
