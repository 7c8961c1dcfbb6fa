import Foundation
import Testing
import MapTripSupport
@testable import MapTripTracks

/// One test per documented error (docs/tracks.md, docs/errors.md): the file, where, what and how to fix.
@Suite struct ErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var what: String
        var name: String
        var bytes: [UInt8]
        var message: String
        var testDescription: String { what }
    }

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    static let cases: [Case] = [
        Case(what: "an empty file", name: "e.gpx", bytes: [],
             message: "e.gpx: the file is empty (maptrip reads GPX, TCX, FIT, KML, KMZ and GeoJSON)"),
        Case(what: "not a track format", name: "t.gpx", bytes: text("lat,lon\n1,2\n"),
             message: #"t.gpx: not a track file: its first bytes "lat,lon.1,2." are those of no GPX, TCX, FIT, KML, KMZ or GeoJSON file (maptrip reads GPX, TCX, FIT, KML, KMZ and GeoJSON)"#),
        Case(what: "XML of another kind", name: "t.gpx", bytes: text("<html><body/></html>"),
             message: "t.gpx: an XML file whose root element is <html>, not <gpx>, <TrainingCenterDatabase> or <kml> (maptrip reads GPX, TCX, FIT, KML, KMZ and GeoJSON)"),
        Case(what: "XML cut short", name: "t.gpx", bytes: text("<gpx>\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\">"),
             message: "t.gpx:3:24: the XML is not well-formed: the document ends before its elements are closed (the file may be cut short or not XML at all; export it again)"),
        Case(what: "entities that expand a billion times", name: "t.gpx", bytes: text(ErrorTests.billionLaughs),
             message: "t.gpx:14:23: the XML is not well-formed: entities that expand without end (an entity reference loop, or too much amplification) (the file may be cut short or not XML at all; export it again)"),
        Case(what: "a trkpt without lon", name: "t.gpx", bytes: text(Fixtures.gpx("<trk><trkseg><trkpt lat=\"1\"/></trkseg></trk>")),
             message: "t.gpx:3:28: <trkpt> has no lon attribute (every trkpt needs lat and lon attributes in degrees)"),
        Case(what: "a latitude that is not a number", name: "t.gpx", bytes: text(Fixtures.gpx("<wpt lat=\"48,85\" lon=\"2.35\"/>")),
             message: #"t.gpx:3:28: wpt lat "48,85" is not a number (write a decimal number such as 48.8566)"#),
        Case(what: "a time that is not ISO 8601", name: "t.gpx", bytes: text(Fixtures.gpx("<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>01/05/2024 09:30</time></trkpt></trkseg></trk>")),
             message: #"t.gpx:3:42: time "01/05/2024 09:30" is not an ISO 8601 date and time (write it as 2024-05-01T09:30:00Z)"#),
        Case(what: "no track points", name: "t.gpx", bytes: text(Fixtures.gpx("<trk><name>empty</name></trk>")),
             message: "t.gpx: no track points: the file has no trkpt, rtept or wpt with a position (export the recording again as a track)"),
        Case(what: "no usable point", name: "t.gpx", bytes: text(Fixtures.gpx("<trk><trkseg><trkpt lat=\"nan\" lon=\"2\"/></trkseg></trk>")),
             message: "t.gpx: none of its 1 point is usable: 1 point dropped: latitude or longitude not a number or out of range (the first: latitude nan, longitude 2.0) (check the file in a map editor)"),
        Case(what: "a TCX Position without a longitude", name: "t.tcx",
             bytes: text("<TrainingCenterDatabase><Courses><Course><Track><Trackpoint>\n<Position><LatitudeDegrees>1</LatitudeDegrees></Position></Trackpoint></Track></Course></Courses></TrainingCenterDatabase>"),
             message: "t.tcx:2:10: <Position> has no LongitudeDegrees (a Position holds LatitudeDegrees and LongitudeDegrees)"),
        Case(what: "KML coordinates that are not lon,lat", name: "t.kml",
             bytes: text("<kml><Placemark><LineString>\n<coordinates>1,2 3;4</coordinates></LineString></Placemark></kml>"),
             message: #"t.kml:2:13: coordinates "3;4" is not longitude,latitude[,altitude] (KML writes each position as lon,lat or lon,lat,alt, positions separated by spaces)"#),
        Case(what: "a gx:Track with fewer when than gx:coord", name: "t.kml",
             bytes: text("<kml><Placemark>\n<gx:Track><when>2024-01-01T00:00:00Z</when><gx:coord>1 2 3</gx:coord><gx:coord>1 2 4</gx:coord></gx:Track></Placemark></kml>"),
             message: "t.kml:2:10: a gx:Track has 1 <when> for 2 <gx:coord> (a gx:Track gives one when per gx:coord, in the same order)"),
        Case(what: "a KMZ with no KML inside", name: "t.kmz", bytes: ErrorTests.zip(name: "readme.txt", "hello"),
             message: "t.kmz: a ZIP file with no .kml inside, so not a KMZ (a KMZ holds its track in doc.kml)"),
        Case(what: "a damaged KMZ", name: "t.kmz", bytes: [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 7, count: 40),
             message: "t.kmz: a damaged ZIP file (libzip: not a zip archive) (a KMZ is a ZIP archive with a .kml inside: export it again)"),
        Case(what: "a KMZ whose KML does not match its CRC", name: "t.kmz",
             bytes: ErrorTests.zip(name: "doc.kml", "<kml></kml>", endless: true, crc: 0x1234_5678),
             message: "t.kmz: doc.kml cannot be inflated (libzip: crc error) (the KMZ is damaged: export it again)"),
        Case(what: "a KMZ whose directory claims more bytes than the file has", name: "t.kmz",
             bytes: ErrorTests.zip(name: "doc.kml", "<kml></kml>", claimed: 100_000),
             message: "t.kmz: doc.kml claims 100000 compressed bytes in a 123-byte file (the KMZ is damaged or cut short: export it again)"),
        Case(what: "a KMZ whose KML claims to inflate past the limit", name: "t.kmz",
             bytes: ErrorTests.zip(name: "doc.kml", "<kml></kml>", inflated: 0xFFFF_FFF0),
             message: "t.kmz: doc.kml inflates to more than 256 MB (a track's KML is far smaller: the file is damaged or a ZIP bomb)"),
        Case(what: "an error in a KMZ's KML", name: "t.kmz", bytes: ErrorTests.zip(name: "doc.kml", "<kml><Placemark><Point><coordinates>x,1</coordinates></Point></Placemark></kml>"),
             message: #"t.kmz/doc.kml:1:36: longitude "x" is not a number (write a decimal number such as 48.8566)"#),
        Case(what: "GeoJSON that is not JSON", name: "t.geojson", bytes: text("{\"type\": \"LineString\",\n \"coordinates\": [[1, 2],]}"),
             message: "t.geojson:2:25: expected a JSON value, found ']'"),
        Case(what: "GeoJSON of an unknown type", name: "t.geojson", bytes: text("{\"type\": \"Line\", \"coordinates\": []}"),
             message: #"t.geojson:1:10: "Line" is not a GeoJSON type (GeoJSON types: FeatureCollection, Feature, LineString, MultiLineString, Point, MultiPoint, Polygon, MultiPolygon, GeometryCollection)"#),
        Case(what: "a GeoJSON position that is not [lon, lat]", name: "t.geojson",
             bytes: text("{\"type\": \"Feature\", \"geometry\": {\"type\": \"LineString\",\n\"coordinates\": [[1, 2], {\"lon\": 1}]}}"),
             message: "t.geojson:2:25: geometry.coordinates[1]: a position is [longitude, latitude] or [longitude, latitude, altitude], found an object"),
        Case(what: "a FIT file with a wrong CRC", name: "t.fit", bytes: ErrorTests.fit(corruptCRC: true),
             message: "t.fit: record 0: the file's CRC is 0x0000, but its bytes give 0x2558: the file is damaged (copy it from the device again)"),
        Case(what: "a FIT file cut short", name: "t.fit", bytes: Array(ErrorTests.fit().dropLast(5)),
             message: "t.fit: record 1: the data ends inside a data message of 12 bytes (12 bytes needed, 9 left) (the file was cut short: copy it from the device again)"),
        Case(what: "a FIT header that is not one", name: "t.fit", bytes: [14, 0x10, 0, 0, 0, 0, 0, 0, 0x2E, 0x46, 0x49, 0x54, 1, 2],
             message: "t.fit: record 0: the FIT header's CRC is 0x0201, but its bytes give 0x8563: the header is damaged (copy the file from the device again)"),
        Case(what: "a FIT data message never defined", name: "t.fit", bytes: ErrorTests.fit(undefined: true),
             message: "t.fit: record 0: a data message of local type 3, which no definition message before it defines (the file is damaged or its writer broke the FIT protocol)"),
    ]

    @Test(arguments: cases)
    func eachErrorSaysWhereWhatAndHow(_ c: Case) {
        #expect(Fixtures.error(Data(c.bytes), name: c.name) == c.message)
    }

    @Test func aMissingFileAFolderAndATooLargeFile() throws {
        #expect(throws: TrackError.self) { try TrackFile.read(contentsOf: URL(fileURLWithPath: "/nonexistent/ride.gpx")) }
        do {
            _ = try TrackFile.read(contentsOf: URL(fileURLWithPath: "/tmp"))
        } catch {
            #expect(error.description == "/tmp: a folder, not a track file (name a GPX, TCX, FIT, KML, KMZ or GeoJSON file)")
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-big-\(UUID().uuidString).gpx")
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(TrackFile.maximumBytes + 10))  // sparse
        try handle.close()
        do {
            _ = try TrackFile.read(contentsOf: url)
        } catch {
            #expect(error.message == "larger than 256 MB: too large for a track file")
        }
    }

    /// The errors as diagnostics: a FIT record is the path, XML and JSON have line and column.
    /// The fuzzer's input that trapped inside FoundationXML's XMLParser (in _NSXMLParserStartElementNs):
    /// read as the trackxml harness reads it (its first byte picks the root: 3, none), it is an error.
    @Test func theInputThatTrappedXMLParserIsAnError() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/Known/trackxml-foundationxml-start-element-trap").standardizedFileURL
        let data = try Data(contentsOf: url)
        #expect(data.first == 3)
        let message = try #require(Fixtures.error(Data(data.dropFirst()), name: "t.tcx"))
        #expect(message.hasPrefix("t.tcx:"), "\(message)")
        #expect(message.contains("the XML is not well-formed"), "\(message)")
        #expect(Fixtures.error(data, name: "t.kmz") != nil)
    }

    /// A KMZ whose KML's deflate stream never ends: read as far as the entry's own bytes go (ZIPFoundation,
    /// the reader before libzip, waited for the stream's end for ever). The fuzzer's such input is an error.
    @Test(.timeLimit(.minutes(1))) func aDeflateStreamThatNeverEndsIsNoHang() throws {
        let endless = ErrorTests.zip(name: "doc.kml", "<kml><Placemark><LineString><coordinates>1,2 3,4</coordinates></LineString></Placemark></kml>",
                                     endless: true)
        let reading = try TrackFile.read(Data(endless), name: "t.kmz")
        #expect(reading.track.segments.flatMap { $0 }.map(\.longitude) == [1, 3])
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/Corpus/trackxml/hang-zipfoundation-endless-inflate").standardizedFileURL
        let message = try #require(Fixtures.error(Data(try Data(contentsOf: url).dropFirst()), name: "t.kmz"))
        #expect(message == "t.kmz: doc.kml cannot be inflated (libzip: crc error) (the KMZ is damaged: export it again)")
    }

    @Test func errorsAreDiagnostics() {
        let e = TrackError(file: "a.fit", location: TrackLocation(record: 7), message: "m", hint: "h")
        #expect(Diagnostic.from(e) == [Diagnostic(.error, message: "m", file: "a.fit", path: "record 7", hint: "h")])
    }

    /// Ten entities, each ten of the one before: 3 GB of text if expanded.
    static let billionLaughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [\n <!ENTITY lol \"lollollollollollollollollollol\">\n"
        + (1...9).map { i in " <!ENTITY lol\(i) \"" + String(repeating: "&lol\(i == 1 ? "" : String(i - 1));", count: 10) + "\">\n" }.joined()
        + "]>\n<gpx><trk><name>&lol9;</name></trk></gpx>\n"

    /// A ZIP of one stored file (no compression), as `zip -0` writes it.
    /// `claimed`, `inflated`: the compressed and uncompressed sizes the central directory gives
    /// instead of the content's (a lying directory).
    /// `endless`: the entry deflated as one stored block not marked final, so its deflate stream never
    /// ends (a reader waiting for the stream's end never returns); `crc`: a CRC other than the content's.
    static func zip(name: String, _ content: String, claimed: UInt32? = nil, inflated: UInt32? = nil,
                    endless: Bool = false, crc wrongCRC: UInt32? = nil) -> [UInt8] {
        let data = Array(content.utf8), fileName = Array(name.utf8)
        var crc: UInt32 = 0xFFFF_FFFF
        for b in data {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc = wrongCRC ?? crc ^ 0xFFFF_FFFF
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: UInt32) -> [UInt8] { le16(Int(v & 0xFFFF)) + le16(Int(v >> 16)) }
        // Deflate (method 8): a stored block's header (BFINAL 0, BTYPE 00), LEN and NLEN, the bytes.
        let method = endless ? 8 : 0
        let body = endless ? [0] + le16(data.count) + le16(~data.count & 0xFFFF) + data : data
        let local = le32(0x0403_4B50) + le16(20) + le16(0) + le16(method) + le16(0) + le16(0x21) + le32(crc)
            + le32(UInt32(body.count)) + le32(UInt32(data.count)) + le16(fileName.count) + le16(0) + fileName + body
        let central = le32(0x0201_4B50) + le16(20) + le16(20) + le16(0) + le16(method) + le16(0) + le16(0x21) + le32(crc)
            + le32(claimed ?? UInt32(body.count)) + le32(inflated ?? claimed ?? UInt32(data.count)) + le16(fileName.count) + le16(0) + le16(0) + le16(0)
            + le16(0) + le32(0) + le32(0) + fileName
        let end = le32(0x0605_4B50) + le16(0) + le16(0) + le16(1) + le16(1) + le32(UInt32(central.count))
            + le32(UInt32(local.count)) + le16(0)
        return local + central + end
    }

    /// A small FIT file: one definition of a record (timestamp, lat, long) and one record, with a
    /// header CRC and a file CRC (the file CRC zeroed when `corruptCRC`); `undefined`: the data message
    /// comes first, with a local type never defined.
    static func fit(corruptCRC: Bool = false, undefined: Bool = false) -> [UInt8] {
        var records: [UInt8] = []
        if undefined { records += [0x03] + [UInt8](repeating: 0, count: 8) }
        records += [0x40, 0, 0, 20, 0, 3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
        records += [0x00, 0x10, 0x27, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0x10]
        var header: [UInt8] = [14, 0x20, 0x08, 0x08] + [UInt8(records.count), 0, 0, 0] + Array(".FIT".utf8)
        let headerCRC = FITDecoder.crc(header, 0..<12)
        header += [UInt8(headerCRC & 0xFF), UInt8(headerCRC >> 8)]
        let body = header + records
        let crc = corruptCRC ? 0 : FITDecoder.crc(body, 0..<body.count)
        return body + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }
}
