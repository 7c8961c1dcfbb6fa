/// Pieces of the messages people read.
public enum Wording {
    /// Alternatives as a sentence lists them: `a`, `a or b`, `a, b or c` (nothing for none).
    public static func alternatives(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        return items.count == 1 ? last : items.dropLast().joined(separator: ", ") + " or " + last
    }

    /// `text`, or when it is longer than `limit` characters its start and end with the number of
    /// characters left out between them: a message quotes at most a short excerpt of any input, so a
    /// million-character key gives a readable line, not megabytes.
    public static func excerpt(_ text: String, limit: Int = 80) -> String {
        guard text.count > limit else { return text }
        let head = max(1, limit * 3 / 4), tail = max(1, limit / 8)
        return "\(text.prefix(head))…[\(text.count - head - tail) characters]…\(text.suffix(tail))"
    }
}
