import Foundation
import Testing
import TestSupport
@testable import MapTripScene

@Suite("JSON parser")
struct JSONParserTests {
    func parse(_ json: String) throws -> JSONValue {
        try JSONParser.parse(Data(json.utf8), file: "doc.json")
    }

    @Test func parsesAllKindsKeepingOrderAndPositions() throws {
        let json = """
        {
          "z": 1,
          "a": [true, false, null, -0.5e1, "s"],
          "m": {}
        }
        """
        let root = try parse(json)
        #expect(root.position == SourcePosition(line: 1, column: 1))
        let members = try #require(root.members)
        #expect(members.map(\.key) == ["z", "a", "m"])
        #expect(members[0].keyPosition == SourcePosition(line: 2, column: 3))
        #expect(members[0].value.position == SourcePosition(line: 2, column: 8))
        #expect(members[0].value.number?.value == 1)
        let array = try #require(members[1].value.elements)
        #expect(members[1].value.position == SourcePosition(line: 3, column: 8))
        #expect(array.map(\.kind) == [.bool(true), .bool(false), .null,
                                      .number(JSONNumber(value: -5, literal: "-0.5e1")), .string("s")])
        #expect(array.map(\.position.column) == [9, 15, 22, 28, 36])
        #expect(members[2].value.members?.isEmpty == true)
        #expect(root["m"]?.position == SourcePosition(line: 4, column: 8))
        #expect(root["missing"] == nil)
    }

    @Test func stringEscapes() throws {
        let value = try parse(#"["\"\\\/\b\f\n\r\t", "\u00e9\u4E2D", "\uD83D\uDE00", "a\u0000b", "한국"]"#)
        let strings = try #require(value.elements).map { $0.string }
        #expect(strings == ["\"\\/\u{08}\u{0C}\n\r\t", "é中", "😀", "a\u{0}b", "한국"])
    }

    @Test(arguments: [
        ("0", 0.0), ("-0", -0.0), ("12", 12), ("1.5", 1.5), ("-2.25", -2.25), ("1e3", 1000),
        ("1E+2", 100), ("25e-1", 2.5), ("0.1", 0.1), ("123456789.125", 123456789.125),
    ])
    func validNumbers(literal: String, value: Double) throws {
        let parsed = try #require(try parse(literal).number)
        #expect(parsed.value == value)
        #expect(parsed.literal == literal)
    }

    @Test func integerValues() throws {
        #expect(try parse("30").number?.integerValue == 30)
        #expect(try parse("30.0").number?.integerValue == 30)
        #expect(try parse("3e1").number?.integerValue == 30)
        #expect(try parse("30.5").number?.integerValue == nil)
        #expect(try parse("1e300").number?.integerValue == nil)
    }

    @Test(arguments: [
        ("01", 1, "leading zeros"),
        ("1.", 3, "expected a digit after '.'"),
        ("1.e5", 3, "expected a digit after '.'"),
        (".5", 1, "must start with a digit"),
        ("+1", 1, "cannot start with '+'"),
        ("-", 2, "expected a digit after '-'"),
        ("-x", 2, "expected a digit after '-'"),
        ("1e", 3, "expected a digit in the exponent"),
        ("1e+", 4, "expected a digit in the exponent"),
        ("NaN", 1, "NaN is not a JSON number"),
        ("Infinity", 1, "Infinity is not a JSON number"),
        ("-Infinity", 1, "-Infinity is not a JSON number"),
        ("-nan", 1, "-nan is not a JSON number"),
        ("1e400", 1, "too large"),
    ])
    func invalidNumbers(literal: String, column: Int, message: String) throws {
        let error = try #require(parseError("[\n" + literal + "\n]"))
        #expect(error.line == 2)
        #expect(error.column == column)
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.path == "[0]")
        #expect(error.file == "doc.json")
    }

    @Test func missingCommaBetweenArrayElements() throws {
        let json = """
        {
          "places": [
            { "lat": 1, "lon": 2 }
            { "lat": 3, "lon": 4 }
          ]
        }
        """
        let error = try #require(parseError(json))
        #expect(error.line == 4)
        #expect(error.column == 5)
        #expect(error.path == "places")
        #expect(error.message == "expected ',' or ']' after array element, found '{'")
        #expect(error.hint?.contains("add a ','") == true)
        #expect(error.description.hasPrefix("doc.json:4:5: places: expected ',' or ']'"))
    }

    @Test func missingCommaBetweenMembers() throws {
        let error = try #require(parseError(#"{"places": [{"lat": 1 "lon": 2}]}"#))
        #expect((error.line, error.column) == (1, 23))
        #expect(error.path == "places[0]")
        #expect(error.message == "expected ',' or '}' after object member, found '\"'")
        #expect(error.hint == "add a ',' between members")
    }

    @Test(arguments: [
        (#"{"a": 1,}"#, 8, "trailing comma before '}'", ""),
        (#"{"a": [1, 2, ]}"#, 12, "trailing comma before ']'", "a"),
        (#"{"a" 1}"#, 6, "expected ':' after object key 'a', found '1'", "a"),
        (#"{a: 1}"#, 2, "expected a string key in double quotes, found 'a'", ""),
        (#"{'a': 1}"#, 2, "expected a string key in double quotes", ""),
        (#"{"a": 'x'}"#, 7, "strings must be in double quotes", "a"),
        (#"{"a": 1 // note"#, 9, "comments are not allowed in JSON", ""),
        (#"{"a": /* x */ 1}"#, 7, "comments are not allowed in JSON", "a"),
        (#"{"a": 1, "a": 2}"#, 10, "duplicate key 'a'", "a"),
        (#"{"title": "abc"#, 11, "unterminated string", "title"),
        (#"{"a": True}"#, 7, "unexpected 'True'", "a"),
        (#"{"a": maybe}"#, 7, "expected a JSON value, found 'maybe'", "a"),
        (#"{"a": }"#, 7, "expected a JSON value, found '}'", "a"),
        (#"{"a": 1"#, 8, "expected ',' or '}' after object member, found end of file", ""),
        (#"[1, 2"#, 6, "expected ',' or ']' after array element, found end of file", ""),
        (#"{"a": [1}"#, 9, "expected ',' or ']' after array element, found '}'", "a"),
        (#"{} {}"#, 4, "unexpected '{' after the end of the JSON document", ""),
        (#"{}}"#, 3, "unexpected '}' after the end of the JSON document", ""),
        (#"{"a": "x\qy"}"#, 9, "invalid escape '\\q' in string", "a"),
        (#"{"a": "\u12G4"}"#, 8, "invalid \\u escape: expected 4 hex digits", "a"),
        (#"{"a": "\uD83D"}"#, 8, "unpaired UTF-16 surrogate \\uD83D", "a"),
        (#"{"a": "\uD83Dx"}"#, 8, "unpaired UTF-16 surrogate \\uD83D", "a"),
        (#"{"a": "\uD83D\u0041"}"#, 8, "unpaired UTF-16 surrogate \\uD83D", "a"),
        (#"{"a": "\uDE00"}"#, 8, "unpaired UTF-16 surrogate \\uDE00", "a"),
        ("{\"a\": \"x\ty\"}", 9, "a tab must be escaped in a string", "a"),
        ("{\"a\": \"x\u{1}\"}", 9, "control character 0x01 must be escaped", "a"),
        (#"{"odd key": [1,]}"#, 15, "trailing comma", "[\"odd key\"]"),
    ])
    func malformed(json: String, column: Int, message: String, path: String) throws {
        let error = try #require(parseError(json))
        #expect(error.line == 1)
        #expect(error.column == column, "\(error)")
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.path == path)
    }

    @Test func unterminatedStringAcrossALine() throws {
        let error = try #require(parseError("{\n  \"title\": \"abc\n}"))
        #expect((error.line, error.column) == (2, 12))
        #expect(error.message == "unterminated string")
        #expect(error.hint?.contains("\\n") == true)
    }

    @Test func duplicateKeyNamesTheFirst() throws {
        let error = try #require(parseError("{\n  \"lat\": 1,\n  \"lat\": 2\n}"))
        #expect((error.line, error.column) == (3, 3))
        #expect(error.hint == "it is already set at line 2, column 3")
    }

    @Test func columnsCountCharactersNotBytes() throws {
        // "é" is two bytes and "😀" four, but each is one column.
        let error = try #require(parseError(#"{"é😀": [1 2]}"#))
        #expect(error.column == 11)
        #expect(error.path == "[\"é😀\"]")
    }

    @Test func crlfAndCRLineEndings() throws {
        let crlf = try #require(parseError("{\r\n\"a\": 1,\r\n}"))
        #expect((crlf.line, crlf.column) == (2, 7))
        let cr = try #require(parseError("[\r\r 1 2]"))
        #expect((cr.line, cr.column) == (3, 4))
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let value = try JSONParser.parse(bom + Array(#"{"a": 1}"#.utf8), file: "doc.json")
        #expect(value["a"]?.position == SourcePosition(line: 1, column: 7))
        let error = try #require(parseError(bom + Array("[1,]".utf8)))
        #expect((error.line, error.column) == (1, 3))
    }

    @Test func emptyAndBlankFiles() throws {
        for text in ["", "  \n\t "] {
            let error = try #require(parseError(text))
            #expect(error.message == "the file is empty")
        }
    }

    @Test func garbageIsRejectedClearly() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let binary = try #require(parseError(png))
        #expect(binary.message.contains("not valid UTF-8"))
        #expect((binary.line, binary.column) == (1, 1))

        let utf16 = try #require(parseError([0xFF, 0xFE] + Array("{}".utf8)))
        #expect(utf16.message.contains("UTF-16"))

        let utf16NoBOM = try #require(parseError([0x7B, 0x00, 0x7D, 0x00]))
        #expect(utf16NoBOM.message == "the file is UTF-16 encoded, not UTF-8")
        let utf16BE = try #require(parseError([0x00, 0x7B, 0x00, 0x7D]))
        #expect(utf16BE.message == "the file is UTF-16 encoded, not UTF-8")

        // UTF-32 is named as such, with or without its mark, in either byte order (its little-endian
        // mark begins as UTF-16's does).
        let brace32LE: [UInt8] = [0x7B, 0, 0, 0, 0x7D, 0, 0, 0], brace32BE: [UInt8] = [0, 0, 0, 0x7B, 0, 0, 0, 0x7D]
        for bytes in [[0xFF, 0xFE, 0, 0] + brace32LE, [0, 0, 0xFE, 0xFF] + brace32BE, brace32LE, brace32BE] {
            let utf32 = try #require(parseError(bytes))
            #expect(utf32.message == "the file is UTF-32 encoded, not UTF-8", "\(bytes)")
            #expect(utf32.hint == "save it as UTF-8")
        }

        let elf: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0xD0]
        let executable = try #require(parseError(elf))
        #expect(executable.message.contains("zero bytes"))
        #expect((executable.line, executable.column) == (1, 1))

        let invalidLater = try #require(parseError(Array("{\n  \"a\": \"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)))
        #expect((invalidLater.line, invalidLater.column) == (2, 9))
        #expect(invalidLater.message.contains("0xC3"))
        let afterBOM = try #require(parseError([0xEF, 0xBB, 0xBF, 0x5B, 0xFF, 0x5D]))
        #expect((afterBOM.line, afterBOM.column) == (1, 2))

        let prose = try #require(parseError("hello world"))
        #expect(prose.message == "expected a JSON value, found 'hello'")
        #expect(prose.hint?.contains("JSON object") == true)

        let yaml = try #require(parseError("- places:\n"))
        #expect(yaml.message.contains("expected a digit after '-'"))
    }

    @Test func nestingLimit() throws {
        let deep = String(repeating: "[", count: JSONParser.maxDepth + 1)
            + String(repeating: "]", count: JSONParser.maxDepth + 1)
        let error = try #require(parseError(deep))
        #expect(error.message.contains("nesting is too deep"))
        // The position, and the path's ends only: not 512 steps of it.
        #expect(error.column == JSONParser.maxDepth + 1)
        #expect(error.path == "[0][0][0]…(\(JSONParser.maxDepth - 4) more)…[0]")
        #expect(error.description.count < 250, "\(error.description)")
        let deepObject = "{\"places\": " + String(repeating: "{\"a\": ", count: JSONParser.maxDepth) + "1"
            + String(repeating: "}", count: JSONParser.maxDepth + 1)
        #expect(try #require(parseError(deepObject)).path.hasPrefix("places.a.a…("))
        let fine = String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth)
        #expect(throws: Never.self) { try parse(fine) }
    }

    @Test func quotingAndNumbersForOutput() {
        #expect(JSONText.quoted("a\"b\\c\nd\u{1}é") == #""a\"b\\c\nd\u0001é""#)
        #expect(JSONText.number(3) == "3")
        #expect(JSONText.number(-0.0) == "0")
        #expect(JSONText.number(10.0 / 3.0) == "3.3333333333333335")
        #expect(JSONText.number(0.5) == "0.5")
        #expect(JSONText.number(.nan) == "null")
        #expect(JSONPath.appending(key: "lat", to: "places[1]") == "places[1].lat")
        #expect(JSONPath.appending(key: "places", to: "") == "places")
        #expect(JSONPath.appending(key: "a b", to: "x") == #"x["a b"]"#)
    }

    @Test func roundTripThroughFoundation() throws {
        // Whatever JSONText writes, JSONSerialization reads back.
        let strings = ["plain", "quote\" and \\ backslash", "tab\tnew\nline", "\u{0}\u{1F}", "한국 😀", "\u{2028}"]
        let json = "[" + strings.map(JSONText.quoted).joined(separator: ",") + "]"
        let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String]
        #expect(decoded == strings)
        #expect(try parse(json).elements?.map(\.string) == strings)
    }
}
