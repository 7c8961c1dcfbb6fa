import Foundation

/// How long a response may be reused, from its headers (RFC 9111, the parts a private tile cache
/// needs): `Cache-Control: no-store` (don't keep), `no-cache` (keep, but revalidate every time),
/// `max-age` (minus `Age`), else `Expires` (relative to the server's `Date` when given), else the
/// default lifetime.
enum HTTPCachePolicy {
    enum Decision: Equatable {
        case noStore
        /// Keep until this epoch time (may be `now`: stale at once, revalidate next time).
        case store(expires: Double)
    }

    static func decide(header: (String) -> String?, now: Double, defaultLifetime: Double) -> Decision {
        let directives = cacheControl(header("Cache-Control"))
        if directives["no-store"] != nil { return .noStore }
        if directives["no-cache"] != nil { return .store(expires: now) }
        if let raw = directives["max-age"] ?? nil, let maxAge = Int(raw) {
            let age = header("Age").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
            return .store(expires: now + Double(max(0, maxAge - max(0, age))))
        }
        if let expiresText = header("Expires") {
            // An invalid Expires ("0", "-1") means already expired.
            guard let expires = HTTPDate.parse(expiresText) else { return .store(expires: now) }
            if let dateText = header("Date"), let date = HTTPDate.parse(dateText) {
                return .store(expires: now + max(0, expires - date))
            }
            return .store(expires: max(now, expires))
        }
        return .store(expires: now + defaultLifetime)
    }

    /// `Cache-Control` directives, lowercased names; the value is nil for directives without one.
    static func cacheControl(_ value: String?) -> [String: String?] {
        guard let value else { return [:] }
        var out: [String: String?] = [:]
        for part in value.split(separator: ",") {
            let item = part.trimmingCharacters(in: .whitespaces)
            guard !item.isEmpty else { continue }
            if let eq = item.firstIndex(of: "=") {
                let name = item[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
                var v = item[item.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                if v.count >= 2, v.hasPrefix("\""), v.hasSuffix("\"") { v = String(v.dropFirst().dropLast()) }
                out[name] = .some(v)
            } else {
                out[item.lowercased()] = .some(nil)
            }
        }
        return out
    }

    /// `Retry-After` in seconds from now: delay-seconds or an HTTP date. nil when absent or invalid.
    static func retryAfter(_ value: String?, now: Double) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return Double(max(0, seconds)) }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(0, date - now)
    }
}

/// HTTP dates (IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT",
/// asctime "Sun Nov  6 08:49:37 1994") to epoch seconds, without locale-dependent formatters.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun",
                                 "jul", "aug", "sep", "oct", "nov", "dec"]

    static func parse(_ text: String) -> Double? {
        var day: Int?, month: Int?, year: Int?, time: (Int, Int, Int)?
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" || $0 == "\t" })
        for token in tokens {
            if token.contains(":") {
                let p = token.split(separator: ":").compactMap { Int($0) }
                guard p.count == 3, (0...23).contains(p[0]), (0...59).contains(p[1]), (0...60).contains(p[2]) else {
                    return nil
                }
                time = (p[0], p[1], p[2])
            } else if let n = Int(token), token.allSatisfy(\.isASCII) {
                if token.count == 4 { year = n }
                else if token.count <= 2, day == nil { day = n }
                else if token.count == 2 { year = n < 70 ? 2000 + n : 1900 + n }
                else { return nil }
            } else if let m = months.firstIndex(of: String(token.prefix(3)).lowercased()), token.count == 3 {
                month = m + 1
            }
        }
        guard let day, let month, let year, let time, (1...31).contains(day) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86_400 + time.0 * 3600 + time.1 * 60 + time.2)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
