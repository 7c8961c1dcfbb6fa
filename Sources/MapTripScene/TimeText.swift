import Foundation

/// A time as people write it: `12.5` (seconds), `12.5s`, `1.5 sec`, `500 ms`, `2 min`, or a clock as
/// `maptrip plan` prints one, `0:12.5` (m:ss) or `1:02:03` (h:mm:ss).
public enum TimeText {
    /// The number of seconds `text` says (case and spaces aside), or nil when it says none.
    public static func seconds(in text: String) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t.contains(":") { return clock(t) }
        guard let end = t.firstIndex(where: { !($0.isASCII && ($0.isNumber || $0 == ".")) }) else {
            return number(t)
        }
        guard let value = number(t[..<end]) else { return nil }
        let factors: [String: Double] = ["s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
                                         "ms": 0.001, "min": 60, "mins": 60, "minute": 60, "minutes": 60]
        return factors[t[end...].trimmingCharacters(in: .whitespaces)].map { value * $0 }
    }

    /// `m:ss(.s)` or `h:mm:ss(.s)`: the fields after the first under 60, of one or two digits (`0:3.5`
    /// reads as `0:03.5`), the last alone with a fraction.
    private static func clock(_ t: String) -> Double? {
        let fields = t.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3 else { return nil }
        var total = 0.0
        for (i, field) in fields.enumerated() {
            let last = i == fields.count - 1
            guard !field.isEmpty, last || !field.contains("."), let v = number(field) else { return nil }
            if i > 0 && (v >= 60 || !(1...2).contains(field.prefix(while: { $0 != "." }).count)) { return nil }
            total = total * 60 + v
        }
        return total
    }

    /// Digits with at most one point, as a finite number.
    private static func number(_ s: Substring) -> Double? {
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              s.filter({ $0 == "." }).count <= 1, let v = Double(s), v.isFinite else { return nil }
        return v
    }

    private static func number(_ s: String) -> Double? { number(Substring(s)) }
}
