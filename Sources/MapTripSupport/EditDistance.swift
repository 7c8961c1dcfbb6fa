/// How far apart two spellings are, for "did you mean": the optimal-string-alignment distance, the
/// insertions, deletions, substitutions and swaps of two neighbours that turn one into the other
/// ("fsp" is one from "fps", as "Pairs" is from "Paris").
public enum EditDistance {
    /// The distance from `a` to `b`, or nil when it is more than `bound` (worked out no further than
    /// needed to know that: a row's least value never falls in the rows after it).
    public static func between<T: Equatable>(_ a: [T], _ b: [T], atMost bound: Int = .max) -> Int? {
        if abs(a.count - b.count) > bound { return nil }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var row = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            row[0] = i
            var least = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], previous2[j - 2] + 1)
                }
                least = min(least, row[j])
            }
            if least > bound { return nil }
            (previous2, previous, row) = (previous, row, previous2)
        }
        return previous[b.count] <= bound ? previous[b.count] : nil
    }

    /// The same for two strings, character by character.
    public static func between(_ a: String, _ b: String, atMost bound: Int = .max) -> Int? {
        between(Array(a), Array(b), atMost: bound)
    }

    /// The candidate nearest `word` (case aside), if it is near enough to be what was meant: one edit
    /// from a word of four letters or fewer, two from a longer one.
    public static func nearest(to word: String, among candidates: [String]) -> String? {
        let lower = word.lowercased()
        var best: (key: String, distance: Int)?
        for candidate in candidates {
            let d = between(lower, candidate.lowercased(), atMost: 2) ?? .max
            if d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        guard let best else { return nil }
        let limit = min(word.count, best.key.count) <= 4 ? 1 : 2
        return best.distance <= limit ? best.key : nil
    }
}
