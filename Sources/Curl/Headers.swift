/// HTTP header fields in order, looked up case-insensitively. Used both for request headers and
/// for a response's parsed headers.
public struct Headers: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public private(set) var fields: [Field] = []

    public init() {}
    public init(_ fields: [(String, String)]) {
        for (n, v) in fields { add(n, v) }
    }
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    public var isEmpty: Bool { fields.isEmpty }
    public var count: Int { fields.count }
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Appends a field (keeping any with the same name).
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// The value of `name` (several fields are joined with ", ", as HTTP allows for list headers);
    /// setting replaces all fields of that name, nil removes them.
    public subscript(name: String) -> String? {
        get {
            let v = values(for: name)
            return v.isEmpty ? nil : v.joined(separator: ", ")
        }
        set {
            fields.removeAll { Self.same($0.name, name) }
            if let newValue { add(name, newValue) }
        }
    }

    public func contains(_ name: String) -> Bool { fields.contains { Self.same($0.name, name) } }

    static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.lowercased() == b.lowercased()
    }

    /// Parses one raw header line as libcurl hands it to the header callback. Returns false for
    /// lines that are not fields (status line, blank line).
    mutating func parseLine(_ line: String) -> Bool {
        if line.first == " " || line.first == "\t" {  // obsolete line folding: continues the previous value
            guard !fields.isEmpty else { return false }
            let more = line.trimmingWhitespace
            if !more.isEmpty { fields[fields.count - 1].value += " " + more }
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return false }
        let name = String(line[..<colon]).trimmingWhitespace
        guard !name.isEmpty else { return false }
        add(name, String(line[line.index(after: colon)...]).trimmingWhitespace)
        return true
    }
}
