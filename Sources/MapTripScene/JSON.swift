import Foundation

/// A place in a source file: 1-based line and column. Columns count Unicode scalars (a tab is one
/// column), so they match what editors show for UTF-8 text.
public struct SourcePosition: Equatable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (a: SourcePosition, b: SourcePosition) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    public var description: String { "\(line):\(column)" }
}

/// A JSON number with the text it was written as (for messages such as "latitude 1e3 is ...").
public struct JSONNumber: Equatable, Sendable {
    public var value: Double
    public var literal: String

    public init(value: Double, literal: String) {
        self.value = value
        self.literal = literal
    }

    /// The value as an `Int` if it is a whole number in range (`30` and `30.0` are, `30.5` is not).
    public var integerValue: Int? { Int(exactly: value) }
}

/// An object member; members keep the order of the file.
public struct JSONMember: Equatable, Sendable {
    public var key: String
    public var keyPosition: SourcePosition
    public var value: JSONValue
}

/// A parsed JSON value and where it starts in the file.
public struct JSONValue: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case null
        case bool(Bool)
        case number(JSONNumber)
        case string(String)
        case array([JSONValue])
        case object([JSONMember])
    }

    public var kind: Kind
    public var position: SourcePosition

    public init(_ kind: Kind, at position: SourcePosition) {
        self.kind = kind
        self.position = position
    }

    /// "a number", "an object", ... for messages such as "expected a number, found a string".
    public var typeDescription: String {
        switch kind {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public var members: [JSONMember]? {
        if case .object(let members) = kind { members } else { nil }
    }

    public var elements: [JSONValue]? {
        if case .array(let elements) = kind { elements } else { nil }
    }

    public var string: String? {
        if case .string(let s) = kind { s } else { nil }
    }

    public var number: JSONNumber? {
        if case .number(let n) = kind { n } else { nil }
    }

    public var bool: Bool? {
        if case .bool(let b) = kind { b } else { nil }
    }

    public var isNull: Bool { kind == .null }

    /// The member's value for `key` in an object (nil for a missing key or a non-object).
    public subscript(key: String) -> JSONValue? {
        members?.first { $0.key == key }?.value
    }
}

/// JSON paths as shown in messages: `places[1].lat`, `map.subdomains[0]`, `["odd key"]`.
public enum JSONPath {
    public static func appending(key: String, to base: String) -> String {
        if isIdentifier(key) {
            return base.isEmpty ? key : base + "." + key
        }
        return base + "[" + JSONText.quoted(key) + "]"
    }

    public static func appending(index: Int, to base: String) -> String {
        base + "[\(index)]"
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first == "_" || isASCIILetter(first) else { return false }
        return key.unicodeScalars.allSatisfy { $0 == "_" || isASCIILetter($0) || ("0"..."9").contains($0) }
    }

    private static func isASCIILetter(_ s: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(s) || ("A"..."Z").contains(s)
    }
}

/// Writing JSON text: string literals and compact numbers.
public enum JSONText {
    /// A JSON string literal: quotes, backslashes and control characters escaped.
    public static func quoted(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{2028}" || scalar == "\u{2029}":
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A number in its shortest round-trip form, whole numbers without ".0" (`3`, `3.3333333333333335`,
    /// `1e-07`); `null` for NaN and infinities, which JSON cannot represent.
    public static func number(_ x: Double) -> String {
        guard x.isFinite else { return "null" }
        if x == x.rounded(), abs(x) < 1e15 {
            return x == 0 ? "0" : String(Int64(x))
        }
        return x.description
    }
}

/// A strict JSON (RFC 8259) parser that keeps the line and column of every value and key, for
/// scene-file messages. Errors are `SceneError`s at the offending character.
/// Beyond the RFC: a UTF-8 byte-order mark is skipped, duplicate keys are an error, and numbers too
/// large for a `Double` are rejected.
public enum JSONParser {
    /// Arrays and objects nested deeper than this are rejected (no scene needs more than a handful).
    public static let maxDepth = 512

    public static func parse(_ data: Data, file: String) throws -> JSONValue {
        try parse(Array(data), file: file)
    }

    public static func parse(_ bytes: [UInt8], file: String) throws -> JSONValue {
        var parser = JSONByteParser(bytes: bytes, file: file)
        return try parser.parseDocument()
    }
}

// MARK: - The parser

private enum ASCII {
    static let tab: UInt8 = 0x09, newline: UInt8 = 0x0A, cr: UInt8 = 0x0D, space: UInt8 = 0x20
    static let quote: UInt8 = 0x22, apostrophe: UInt8 = 0x27, plus: UInt8 = 0x2B, comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D, dot: UInt8 = 0x2E, slash: UInt8 = 0x2F, zero: UInt8 = 0x30
    static let nine: UInt8 = 0x39, colon: UInt8 = 0x3A, backslash: UInt8 = 0x5C
    static let openBracket: UInt8 = 0x5B, closeBracket: UInt8 = 0x5D
    static let openBrace: UInt8 = 0x7B, closeBrace: UInt8 = 0x7D
    static let star: UInt8 = 0x2A

    static func isDigit(_ b: UInt8) -> Bool { b >= zero && b <= nine }
    static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    static func isWordByte(_ b: UInt8) -> Bool { isLetter(b) || isDigit(b) || b == 0x5F }
    static func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case 0x30...0x39: UInt32(b - 0x30)
        case 0x41...0x46: UInt32(b - 0x41 + 10)
        case 0x61...0x66: UInt32(b - 0x61 + 10)
        default: nil
        }
    }
}

private struct JSONByteParser {
    let bytes: [UInt8]
    let file: String
    var index = 0
    var line = 1
    var column = 1

    init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
    }

    var position: SourcePosition { SourcePosition(line: line, column: column) }
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    func peek(_ offset: Int) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    /// Moves past one byte, keeping line and column (a column per Unicode scalar; CR, LF and CRLF end lines).
    mutating func advance() {
        let b = bytes[index]
        index += 1
        if b == ASCII.newline || (b == ASCII.cr && current != ASCII.newline) {
            line += 1
            column = 1
        } else if b & 0xC0 != 0x80 {
            column += 1
        }
    }

    /// Nesting past `maxDepth`: the position, and the path's first and last steps only (not 500 of them).
    func tooDeep(at position: SourcePosition, path: String) -> SceneError {
        var steps: [Substring] = []
        var rest = Substring(path)
        while !rest.isEmpty {
            let next = rest.dropFirst().firstIndex { $0 == "[" || $0 == "." } ?? rest.endIndex
            steps.append(rest[..<next])
            rest = rest[next...]
        }
        let shown = steps.count > 6 ? steps.prefix(3).joined() + "…(\(steps.count - 4) more)…" + steps.suffix(1).joined()
                                    : path
        return error("nesting is too deep (more than \(JSONParser.maxDepth) levels)", at: position, path: shown,
                     hint: "a scene is a few levels deep; look for brackets opened and never closed")
    }

    func error(_ message: String, at position: SourcePosition, path: String, hint: String? = nil) -> SceneError {
        SceneError(file: file, line: position.line, column: position.column, path: path, message: message, hint: hint)
    }

    // MARK: Document

    mutating func parseDocument() throws -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }  // UTF-8 BOM: skipped, not a column
        try checkEncoding()
        try skipWhitespace(path: "")
        if current == nil {
            throw error("the file is empty", at: position, path: "",
                        hint: "a scene file is a JSON object such as { \"places\": [ ... ] }")
        }
        let value = try parseValue(path: "", depth: 0, atDocumentStart: true)
        try skipWhitespace(path: "")
        if current != nil {
            let hint: String? = switch current {
            case ASCII.closeBrace, ASCII.closeBracket: "there are more closing brackets than opening ones"
            default: "a scene file holds exactly one JSON value"
            }
            throw error("unexpected \(describeCurrent()) after the end of the JSON document", at: position,
                        path: "", hint: hint)
        }
        return value
    }

    /// Rejects files that are not UTF-8 text before parsing, with a message that says so.
    mutating func checkEncoding() throws {
        let start = SourcePosition(line: 1, column: 1)
        // By byte order mark (UTF-32's little-endian mark begins as UTF-16's does), then, without one,
        // by where the zero bytes of ASCII text fall (RFC 8259's own way: JSON begins with ASCII).
        let encoding: String? =
            if bytes.starts(with: [0xFF, 0xFE, 0, 0]) || bytes.starts(with: [0, 0, 0xFE, 0xFF]) { "UTF-32" }
            else if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) { "UTF-16" }
            else if bytes.count >= 4, bytes[1] == 0, bytes[2] == 0, bytes[3] == 0 || bytes[0] == 0 { "UTF-32" }
            else if bytes.count >= 4, bytes[0] == 0, bytes[1] == 0, bytes[2] == 0 { "UTF-32" }
            else if bytes.count >= 2, (bytes[0] == 0) != (bytes[1] == 0) { "UTF-16" }
            else { nil }
        if let encoding {
            throw error("the file is \(encoding) encoded, not UTF-8", at: start, path: "", hint: "save it as UTF-8")
        }
        // Text never holds zero bytes; binary files do, near the start.
        if bytes.prefix(8000).contains(0) {
            throw error("the file is not UTF-8 text: it contains zero bytes (is it binary?)",
                        at: start, path: "", hint: "a scene file is a UTF-8 JSON text file")
        }
        if let bad = firstInvalidUTF8() {
            while index < bad { advance() }  // to the bad byte's line and column
            let found = String(format: "0x%02X", bytes[bad])
            throw error("the file is not valid UTF-8 text (byte \(found))", at: position, path: "",
                        hint: "a scene file is a UTF-8 JSON text file")
        }
    }

    /// The index of the first byte that is not part of a well-formed UTF-8 sequence, if any.
    func firstInvalidUTF8() -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            let length: Int
            var lower: UInt8 = 0x80, upper: UInt8 = 0xBF  // the range of the second byte
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F  // no UTF-16 surrogates
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F  // nothing above U+10FFFF
            default: return i
            }
            guard i + 1 < n, bytes[i + 1] >= lower, bytes[i + 1] <= upper else { return i }
            for k in 2..<length {
                guard i + k < n, bytes[i + k] & 0xC0 == 0x80 else { return i }
            }
            i += length
        }
        return nil
    }

    /// Skips JSON whitespace; comments are named as such rather than "unexpected '/'".
    mutating func skipWhitespace(path: String) throws {
        while let b = current {
            switch b {
            case ASCII.space, ASCII.tab, ASCII.newline, ASCII.cr:
                advance()
            case ASCII.slash where peek(1) == ASCII.slash || peek(1) == ASCII.star:
                throw error("comments are not allowed in JSON", at: position, path: path,
                            hint: "remove the comment")
            default:
                return
            }
        }
    }

    /// What the parser is looking at, for messages: `'x'`, `a line break`, `end of file`.
    func describeCurrent() -> String {
        guard let b = current else { return "end of file" }
        switch b {
        case ASCII.newline, ASCII.cr: return "a line break"
        case ASCII.tab: return "a tab"
        case 0..<0x20, 0x7F: return String(format: "control character 0x%02X", b)
        case 0x20..<0x7F:
            if ASCII.isWordByte(b) {
                var end = index
                while end < bytes.count, end - index < 24, ASCII.isWordByte(bytes[end]) { end += 1 }
                return "'" + String(decoding: bytes[index..<end], as: UTF8.self) + "'"
            }
            return "'" + String(UnicodeScalar(b)) + "'"
        default:
            var end = index + 1
            while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
            return "'" + String(decoding: bytes[index..<end], as: UTF8.self) + "'"
        }
    }

    // MARK: Values

    mutating func parseValue(path: String, depth: Int, atDocumentStart: Bool = false) throws -> JSONValue {
        try skipWhitespace(path: path)
        guard let b = current else {
            throw error("expected a JSON value, found end of file", at: position, path: path)
        }
        let start = position
        switch b {
        case ASCII.openBrace:
            return try parseObject(path: path, depth: depth + 1)
        case ASCII.openBracket:
            return try parseArray(path: path, depth: depth + 1)
        case ASCII.quote:
            return JSONValue(.string(try parseString(path: path)), at: start)
        case ASCII.minus, ASCII.zero...ASCII.nine:
            return JSONValue(.number(try parseNumber(path: path)), at: start)
        case ASCII.apostrophe:
            throw error("strings must be in double quotes, not single quotes", at: start, path: path)
        case ASCII.plus:
            throw error("numbers cannot start with '+'", at: start, path: path, hint: "remove the '+'")
        case ASCII.dot:
            throw error("numbers must start with a digit", at: start, path: path, hint: "write 0.5, not .5")
        case _ where ASCII.isLetter(b):
            return try parseWord(path: path, atDocumentStart: atDocumentStart)
        default:
            let hint = atDocumentStart ? "a scene file is a JSON object such as { \"places\": [ ... ] }" : nil
            throw error("expected a JSON value, found \(describeCurrent())", at: start, path: path, hint: hint)
        }
    }

    /// The run of word bytes (letters, digits, '_') from the current byte, and where it ends.
    func wordAhead() -> (word: String, end: Int) {
        var end = index
        while end < bytes.count, ASCII.isWordByte(bytes[end]) { end += 1 }
        return (String(decoding: bytes[index..<end], as: UTF8.self), end)
    }

    /// Words other languages write for numbers JSON cannot hold.
    static let nonFiniteWords: Set<String> = ["NaN", "Infinity", "inf", "nan"]

    func nonFinite(_ literal: String, at start: SourcePosition, path: String) -> SceneError {
        error("\(literal) is not a JSON number", at: start, path: path, hint: "JSON numbers must be finite")
    }

    mutating func parseWord(path: String, atDocumentStart: Bool) throws -> JSONValue {
        let start = position
        let (word, end) = wordAhead()
        let kind: JSONValue.Kind
        switch word {
        case "true": kind = .bool(true)
        case "false": kind = .bool(false)
        case "null": kind = .null
        case _ where Self.nonFiniteWords.contains(word):
            throw nonFinite(word, at: start, path: path)
        default:
            let lower = word.lowercased()
            if ["true", "false", "null"].contains(lower) {
                throw error("unexpected '\(word)'", at: start, path: path,
                            hint: "JSON literals are lowercase: \(lower)")
            }
            if ["none", "nil", "undefined"].contains(lower) {
                throw error("unexpected '\(word)'", at: start, path: path, hint: "JSON writes a missing value as null")
            }
            let hint = atDocumentStart
                ? "a scene file is a JSON object such as { \"places\": [ ... ] }"
                : "strings must be in double quotes"
            throw error("expected a JSON value, found '\(word)'", at: start, path: path, hint: hint)
        }
        while index < end { advance() }
        return JSONValue(kind, at: start)
    }

    mutating func parseObject(path: String, depth: Int) throws -> JSONValue {
        let start = position
        guard depth <= JSONParser.maxDepth else {
            throw tooDeep(at: start, path: path)
        }
        advance()  // {
        var members: [JSONMember] = []
        var seen: [String: SourcePosition] = [:]
        try skipWhitespace(path: path)
        if current == ASCII.closeBrace {
            advance()
            return JSONValue(.object([]), at: start)
        }
        while true {
            try skipWhitespace(path: path)
            guard current == ASCII.quote else {
                let hint: String? = if let b = current, ASCII.isLetter(b) {
                    "object keys must be in double quotes"
                } else if current == ASCII.apostrophe {
                    "use double quotes, not single quotes"
                } else if current == nil {
                    "the object opened at line \(start.line), column \(start.column) is not closed"
                } else { nil }
                throw error("expected a string key in double quotes, found \(describeCurrent())",
                            at: position, path: path, hint: hint)
            }
            let keyPosition = position
            let key = try parseString(path: path)
            let memberPath = JSONPath.appending(key: key, to: path)
            if let first = seen[key] {
                throw error("duplicate key '\(key)'", at: keyPosition, path: memberPath,
                            hint: "it is already set at line \(first.line), column \(first.column)")
            }
            seen[key] = keyPosition
            try skipWhitespace(path: memberPath)
            guard current == ASCII.colon else {
                throw error("expected ':' after object key '\(key)', found \(describeCurrent())",
                            at: position, path: memberPath)
            }
            advance()
            let value = try parseValue(path: memberPath, depth: depth)
            members.append(JSONMember(key: key, keyPosition: keyPosition, value: value))
            if try endOfContainer(close: ASCII.closeBrace, opener: "object", start: start, path: path) {
                return JSONValue(.object(members), at: start)
            }
        }
    }

    mutating func parseArray(path: String, depth: Int) throws -> JSONValue {
        let start = position
        guard depth <= JSONParser.maxDepth else {
            throw tooDeep(at: start, path: path)
        }
        advance()  // [
        var elements: [JSONValue] = []
        try skipWhitespace(path: path)
        if current == ASCII.closeBracket {
            advance()
            return JSONValue(.array([]), at: start)
        }
        while true {
            let value = try parseValue(path: JSONPath.appending(index: elements.count, to: path), depth: depth)
            elements.append(value)
            if try endOfContainer(close: ASCII.closeBracket, opener: "array", start: start, path: path) {
                return JSONValue(.array(elements), at: start)
            }
        }
    }

    /// After a member of an object or an element of an array: consumes the ',' (true: more follow)
    /// or the closing bracket (false: the container is done), or explains what is wrong.
    mutating func endOfContainer(close: UInt8, opener: String, start: SourcePosition, path: String) throws -> Bool {
        let isObject = close == ASCII.closeBrace
        let closeChar = isObject ? "}" : "]", otherClose = isObject ? ASCII.closeBracket : ASCII.closeBrace
        let item = isObject ? "member" : "element"
        try skipWhitespace(path: path)
        switch current {
        case ASCII.comma:
            let comma = position
            advance()
            try skipWhitespace(path: path)
            if current == close {
                throw error("trailing comma before '\(closeChar)'", at: comma, path: path,
                            hint: "JSON does not allow a ',' after the last \(item)")
            }
            return false
        case close:
            advance()
            return true
        default:
            let opened = "the \(opener) opened at line \(start.line), column \(start.column)"
            let hint: String? = switch current {
            case nil: "\(opened) is not closed"
            case otherClose: "\(opened) closes with '\(closeChar)'"
            case ASCII.quote: "add a ',' between \(item)s"
            case let b? where !isObject && (b == ASCII.openBrace || b == ASCII.openBracket || ASCII.isDigit(b)
                                            || b == ASCII.minus): "add a ',' between \(item)s"
            default: nil
            }
            throw error("expected ',' or '\(closeChar)' after \(opener) \(item), found \(describeCurrent())",
                        at: position, path: path, hint: hint)
        }
    }

    // MARK: Strings

    mutating func parseString(path: String) throws -> String {
        let start = position
        advance()  // "
        var buffer: [UInt8] = []
        while true {
            guard let b = current else {
                throw error("unterminated string", at: start, path: path, hint: "the closing '\"' is missing")
            }
            switch b {
            case ASCII.quote:
                advance()
                return String(decoding: buffer, as: UTF8.self)
            case ASCII.backslash:
                try parseEscape(into: &buffer, path: path)
            case ASCII.newline, ASCII.cr:
                throw error("unterminated string", at: start, path: path,
                            hint: "strings cannot span lines; close the quote or write \\n")
            case 0..<0x20:
                let named = b == ASCII.tab ? "a tab" : String(format: "control character 0x%02X", b)
                let escape = b == ASCII.tab ? "\\t" : String(format: "\\u%04X", b)
                throw error("\(named) must be escaped in a string", at: position, path: path,
                            hint: "write \(escape)")
            default:
                buffer.append(b)
                advance()
            }
        }
    }

    mutating func parseEscape(into buffer: inout [UInt8], path: String) throws {
        let start = position
        advance()  // backslash
        guard let b = current else {
            throw error("unterminated string", at: start, path: path, hint: "the closing '\"' is missing")
        }
        let simple: UInt8? = switch b {
        case ASCII.quote: ASCII.quote
        case ASCII.backslash: ASCII.backslash
        case ASCII.slash: ASCII.slash
        case 0x62: 0x08  // b
        case 0x66: 0x0C  // f
        case 0x6E: 0x0A  // n
        case 0x72: 0x0D  // r
        case 0x74: 0x09  // t
        default: nil
        }
        if let simple {
            advance()
            buffer.append(simple)
            return
        }
        guard b == 0x75 else {  // u
            let message = (0x20..<0x7F).contains(b)
                ? "invalid escape '\\\(String(UnicodeScalar(b)))' in string"
                : "invalid escape in string: '\\' followed by \(describeCurrent())"
            throw error(message, at: start, path: path,
                        hint: "valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
        }
        advance()
        let unit = try parseHex4(escapeStart: start, path: path)
        let scalarValue: UInt32
        switch unit {
        case 0xD800...0xDBFF:
            guard current == ASCII.backslash, peek(1) == 0x75 else {
                throw error(String(format: "unpaired UTF-16 surrogate \\u%04X in string", unit), at: start, path: path,
                            hint: "a high surrogate must be followed by a low one (\\uDC00-\\uDFFF)")
            }
            let lowStart = position
            advance()
            advance()
            let low = try parseHex4(escapeStart: lowStart, path: path)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw error(String(format: "unpaired UTF-16 surrogate \\u%04X in string", unit), at: start, path: path,
                            hint: String(format: "\\u%04X is not a low surrogate (\\uDC00-\\uDFFF)", low))
            }
            scalarValue = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        case 0xDC00...0xDFFF:
            throw error(String(format: "unpaired UTF-16 surrogate \\u%04X in string", unit), at: start, path: path,
                        hint: "a low surrogate must follow a high one (\\uD800-\\uDBFF)")
        default:
            scalarValue = unit
        }
        // Always valid: surrogates were handled above and a pair is at most U+10FFFF.
        let scalar = Unicode.Scalar(scalarValue)!
        buffer.append(contentsOf: Array(String(scalar).utf8))
    }

    mutating func parseHex4(escapeStart: SourcePosition, path: String) throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let b = current, let digit = ASCII.hexValue(b) else {
                throw error("invalid \\u escape: expected 4 hex digits", at: escapeStart, path: path,
                            hint: "write \\u followed by exactly four of 0-9 and A-F, e.g. \\u00E9")
            }
            value = value << 4 | digit
            advance()
        }
        return value
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    mutating func parseNumber(path: String) throws -> JSONNumber {
        let start = position
        let startIndex = index
        if current == ASCII.minus {
            advance()
            guard let b = current, ASCII.isDigit(b) else {
                let word = wordAhead().word
                if Self.nonFiniteWords.contains(word) { throw nonFinite("-" + word, at: start, path: path) }
                throw error("expected a digit after '-', found \(describeCurrent())", at: position, path: path)
            }
        }
        if current == ASCII.zero {
            advance()
            if let b = current, ASCII.isDigit(b) {
                throw error("numbers cannot have leading zeros", at: start, path: path)
            }
        } else {
            while let b = current, ASCII.isDigit(b) { advance() }
        }
        if current == ASCII.dot {
            advance()
            guard let b = current, ASCII.isDigit(b) else {
                throw error("expected a digit after '.', found \(describeCurrent())", at: position, path: path,
                            hint: "write 1.0 or 1, not 1.")
            }
            while let b = current, ASCII.isDigit(b) { advance() }
        }
        if current == 0x65 || current == 0x45 {  // e E
            advance()
            if current == ASCII.plus || current == ASCII.minus { advance() }
            guard let b = current, ASCII.isDigit(b) else {
                throw error("expected a digit in the exponent, found \(describeCurrent())", at: position, path: path)
            }
            while let b = current, ASCII.isDigit(b) { advance() }
        }
        let literal = String(decoding: bytes[startIndex..<index], as: UTF8.self)
        guard let value = Double(literal), value.isFinite else {
            throw error("number \(literal) is too large", at: start, path: path)
        }
        return JSONNumber(value: value, literal: literal)
    }
}
