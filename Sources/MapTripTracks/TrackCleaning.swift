import Foundation
import MapTripGeometry

/// A point as a format's reader found it, with where it was in the file.
struct RawPoint {
    var point: TrackPoint
    var location: TrackLocation
}

/// A track as a format's reader found it: not yet checked.
struct RawTrack {
    var name: String?
    var segments: [[RawPoint]] = []
    var waypoints: [Waypoint] = []
    var warnings: [TrackWarning] = []
    /// What the file holds when it holds no point, for the error ("no trkpt, rtept or wpt").
    var whatHasPoints: String
    /// The recording's offset from UTC where the file states one (seconds east).
    var utcOffset: Int?
}

/// The data checks: points with a position that is not a number or out of range, repeats of the
/// point before, times that go backwards and jumps faster than 1,000 km/h are dropped, one warning
/// per kind and segment.
enum TrackCleaning {
    /// 1,000 km/h in metres per second: faster than any airliner's ground speed.
    static let maximumSpeed = 1000.0 / 3.6

    static func check(_ raw: RawTrack, format: TrackFormat) throws(TrackProblem) -> (Track, [TrackWarning]) {
        var warnings = raw.warnings
        var segments: [[TrackPoint]] = []
        var total = 0
        for segment in raw.segments {
            total += segment.count
            let (kept, dropped) = clean(segment)
            warnings += dropped
            if !kept.isEmpty { segments.append(kept) }
        }
        let waypoints = raw.waypoints.filter { Self.valid($0.latitude, $0.longitude) }
        if waypoints.count < raw.waypoints.count {
            warnings.append(TrackWarning(kind: .invalidPosition,
                                         message: "\(count(raw.waypoints.count - waypoints.count, "waypoint")) dropped: latitude or longitude not a number or out of range",
                                         count: raw.waypoints.count - waypoints.count))
        }
        if segments.isEmpty && waypoints.isEmpty {
            if total > 0 {
                throw TrackProblem("none of its \(count(total, "point")) is usable: " + warnings.map(\.message).joined(separator: "; "),
                                   hint: "check the file in a map editor")
            }
            throw TrackProblem("no track points: the file has no \(raw.whatHasPoints) with a position",
                               hint: "export the recording again as a track")
        }
        var track = Track(name: raw.name, format: format, segments: segments, waypoints: waypoints)
        track.utcOffset = raw.utcOffset
        return (track, warnings)
    }

    static func valid(_ lat: Double, _ lon: Double) -> Bool {
        lat.isFinite && lon.isFinite && abs(lat) <= 90 && abs(lon) <= 180
    }

    /// One segment's points kept, and a warning per kind of point dropped.
    static func clean(_ points: [RawPoint]) -> ([TrackPoint], [TrackWarning]) {
        var kept: [TrackPoint] = []
        kept.reserveCapacity(points.count)
        var tallies: [TrackWarning.Kind: (count: Int, first: TrackLocation, detail: String)] = [:]
        var order: [TrackWarning.Kind] = []
        func drop(_ kind: TrackWarning.Kind, _ raw: RawPoint, _ detail: @autoclosure () -> String) {
            if let t = tallies[kind] {
                tallies[kind] = (t.count + 1, t.first, t.detail)
            } else {
                tallies[kind] = (1, raw.location, detail())
                order.append(kind)
            }
        }
        for raw in points {
            let p = raw.point
            guard valid(p.latitude, p.longitude) else {
                drop(.invalidPosition, raw, "latitude \(p.latitude), longitude \(p.longitude)")
                continue
            }
            guard let last = kept.last else { kept.append(p); continue }
            if last.latitude == p.latitude && last.longitude == p.longitude && last.time == p.time {
                drop(.duplicate, raw, "")
                continue
            }
            if let t0 = last.time, let t1 = p.time {
                let dt = t1.timeIntervalSince(t0)
                if dt < 0 {
                    drop(.timeBackwards, raw, "\(ISOTime.format(t1)) after \(ISOTime.format(t0))")
                    continue
                }
                let metres = Geodesy.distanceKm(last.lonLat, p.lonLat) * 1000
                // Two fixes in the same second are one second apart at most.
                if metres / max(dt, 1) > maximumSpeed {
                    drop(.jump, raw, "\(Int(metres / 1000)) km in \(Int(dt)) s")
                    continue
                }
            }
            kept.append(p)
        }
        let warnings = order.compactMap { kind -> TrackWarning? in
            guard let t = tallies[kind] else { return nil }
            let what = count(t.count, "point") + " dropped"
            let message: String
            switch kind {
            case .invalidPosition: message = "\(what): latitude or longitude not a number or out of range (the first: \(t.detail))"
            case .duplicate: message = "\(what): the same position and time as the point before"
            case .timeBackwards: message = "\(what): time goes backwards (the first: \(t.detail))"
            case .jump: message = "\(what): reached faster than 1000 km/h from the point before (the first: \(t.detail))"
            case .ignored: message = what
            }
            return TrackWarning(kind: kind, message: message, count: t.count, location: t.first)
        }
        return (kept, warnings)
    }

    static func count(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }
}

/// ISO 8601 date-times as track files write them: `2024-05-01T09:30:00Z`, with or without fractions
/// of a second, with `Z`, an offset (`+02:00`, `+0200`) or no zone (taken as UTC, as GPX says).
enum ISOTime {
    /// The offset from UTC a date and time states (seconds east: `+02:00` gives 7200), nil for one in
    /// UTC (`Z`) or without an offset (neither says where it was recorded) and for text that is no time.
    static func offset(_ text: Substring) -> Int? {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard parse(Substring(t)) != nil, let tee = t.firstIndex(where: { $0 == "T" || $0 == "t" || $0 == " " }),
              let sign = t[tee...].lastIndex(where: { $0 == "+" || $0 == "-" }) else { return nil }
        let digits = t[t.index(after: sign)...].filter(\.isNumber)
        guard digits.count == 2 || digits.count == 4, let hh = Int(digits.prefix(2)) else { return nil }
        let mm = digits.count == 4 ? Int(digits.suffix(2)) ?? 0 : 0
        return (t[sign] == "-" ? -1 : 1) * (hh * 3600 + mm * 60)
    }

    static func parse(_ text: Substring) -> Date? {
        let s = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= s.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = s[i + k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < s.count, s[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2),
              i < s.count, s[i] == 0x54 || s[i] == 0x74 || s[i] == 0x20 else { return nil }
        i += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2) else { return nil }
        var fraction = 0.0
        if i < s.count, s[i] == 0x2E || s[i] == 0x2C {
            i += 1
            var scale = 0.1, any = false
            while i < s.count, s[i] >= 0x30 && s[i] <= 0x39 {
                fraction += Double(s[i] - 0x30) * scale
                scale /= 10
                i += 1
                any = true
            }
            guard any else { return nil }
        }
        var offset = 0
        if i < s.count {
            if s[i] == 0x5A || s[i] == 0x7A {
                i += 1
            } else if s[i] == 0x2B || s[i] == 0x2D {
                let sign = s[i] == 0x2D ? -1 : 1
                i += 1
                guard let oh = digits(2) else { return nil }
                _ = expect(0x3A)
                let om = digits(2) ?? 0
                guard oh <= 23, om <= 59 else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            }
        }
        guard i == s.count, (1...12).contains(month), day >= 1, day <= daysIn(month, year), hour <= 24, minute <= 59,
              second <= 60 else { return nil }
        let days = daysFromCivil(year, month, day)
        let seconds = Double(days * 86400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func format(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: date)
    }
}
