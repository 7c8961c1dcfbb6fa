import Foundation
import Testing
import Zip

/// libzip through `ZipArchive`, on a ZIP written by Python's zipfile (an independent writer).
struct ZipTests {
    /// Python: `tracks/` (a folder), `tracks/doc.kml` ("Helsinki " x 40, deflated), `readme.txt`
    /// ("stored", stored).
    static let python = Data(base64Encoded: "UEsDBBQAAAAIAPe1fl0AAAAAAgAAAAAAAAAHAAAAdHJhY2tzLwMAUEsDBBQAAAAIAPe1fl2gLHjrEAAAAGgBAAAOAAAAdHJhY2tzL2RvYy5rbWzzSM0pzszLzlTwGGXQkgEAUEsDBBQAAAAAAPe1fl0L+UNWBgAAAAYAAAAKAAAAcmVhZG1lLnR4dHN0b3JlZFBLAQIUAxQAAAAIAPe1fl0AAAAAAgAAAAAAAAAHAAAAAAAAAAAAEAD9QQAAAAB0cmFja3MvUEsBAhQDFAAAAAgA97V+XaAseOsQAAAAaAEAAA4AAAAAAAAAAAAAAIABJwAAAHRyYWNrcy9kb2Mua21sUEsBAhQDFAAAAAAA97V+XQv5Q1YGAAAABgAAAAoAAAAAAAAAAAAAAIABYwAAAHJlYWRtZS50eHRQSwUGAAAAAAMAAwCpAAAAkQAAAAAA")!
    /// Where doc.kml's 16 deflated bytes start in `python`.
    static let kmlData = 83

    @Test("Lists the entries with their sizes and reads each, deflated and stored")
    func readsWhatPythonWrote() throws {
        let archive = try ZipArchive(data: Self.python)
        #expect(archive.entries.map(\.path) == ["tracks/", "tracks/doc.kml", "readme.txt"])
        #expect(archive.entries.map(\.isDirectory) == [true, false, false])
        let kml = archive.entries[1]
        #expect(kml.size == 360 && kml.compressedSize == 16)
        #expect(try archive.read(kml, maxBytes: 1 << 20) == Data(String(repeating: "Helsinki ", count: 40).utf8))
        #expect(try archive.read(archive.entries[2], maxBytes: 6) == Data("stored".utf8))
    }

    @Test("Refuses more than the bound, a damaged entry and what is not a ZIP, with libzip's words")
    func refusesWithLibzipsMessage() throws {
        let archive = try ZipArchive(data: Self.python)
        #expect(throws: ZipError(message: "inflates to more than 100 bytes (refused: a ZIP bomb?)", operation: "zip_fread")) {
            try archive.read(archive.entries[1], maxBytes: 100)
        }
        // Every single-byte change to the deflated bytes is refused (a CRC or deflate error) or,
        // where the stream still inflates to the same bytes, read back unchanged: never anything else.
        let expected = Data(String(repeating: "Helsinki ", count: 40).utf8)
        var refused = 0
        for offset in 0..<16 {
            var damaged = Self.python
            damaged[Self.kmlData + offset] ^= 0x5A
            let copy = try ZipArchive(data: damaged)
            do {
                #expect(try copy.read(copy.entries[1], maxBytes: 1 << 20) == expected)
            } catch {
                #expect(error.operation == "zip_fread" && !error.message.isEmpty)
                refused += 1
            }
        }
        #expect(refused >= 14)
        #expect(throws: ZipError(message: "Not a zip archive", operation: "zip_open_from_source")) {
            try ZipArchive(data: Data("PK\u{3}\u{4} and then nothing a ZIP has".utf8))
        }
    }

    /// The KMZ on which ZIPFoundation (maptrip's ZIP reader before libzip) never returned: its
    /// doc.kml's deflate stream does not end within the entry (the trackxml fuzzer's find).
    @Test("An entry whose deflate stream never ends is refused at once", .timeLimit(.minutes(1)))
    func endlessStreamEnds() throws {
        let input = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/Corpus/trackxml/hang-zipfoundation-endless-inflate")
        let archive = try ZipArchive(data: try Data(contentsOf: input).dropFirst())  // the first byte picks the harness's reader
        let kml = try #require(archive.entries.first { $0.path == "doc.kml" })
        #expect(throws: ZipError.self) { try archive.read(kml, maxBytes: 1 << 20) }
    }
}
