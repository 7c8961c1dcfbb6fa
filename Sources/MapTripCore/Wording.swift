/// Pieces of the messages people read.
public enum Wording {
    /// Alternatives as a sentence lists them: `a`, `a or b`, `a, b or c` (nothing for none).
    public static func alternatives(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        return items.count == 1 ? last : items.dropLast().joined(separator: ", ") + " or " + last
    }
}
