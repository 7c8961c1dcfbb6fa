import Foundation
import MapTripSupport
import Zip

/// Reads recorded tracks: `TrackFile.read(contentsOf:)` recognises the format by the file's content
/// (not its extension), reads it with that format's reader, checks the points (dropping, with
/// warnings, those that are not a number, repeat, go back in time or jump) and gives the track.
///
/// ```swift
/// let reading = try TrackFile.read(contentsOf: URL(fileURLWithPath: "ride.fit"))
/// for segment in reading.track.segments { ... }
/// reading.diagnostics  // the warnings, as maptrip prints them
/// ```
///
/// Errors are `TrackError`s: the file, where in it (line:column, or a FIT record's index) and how to
/// fix it. Nothing in a file makes it trap, and what it allocates is bounded by its size.
public enum TrackFile {
    /// The largest track file read (a day's 1-second FIT recording is a few MB; a GPX of it tens).
    public static let maximumBytes = 256 << 20
    /// The most a KMZ's KML may inflate to.
    public static let maximumInflatedBytes = 256 << 20

    /// Reads the track file at `url`; its path (as given) names it in errors and warnings.
    public static func read(contentsOf url: URL) throws(TrackError) -> TrackReading {
        let name = url.isFileURL ? url.relativePath : url.absoluteString
        switch FileKind(path: url.path) {
        case .missing:
            throw TrackError(file: name, message: "no such file", hint: "check the file's name and folder")
        case .directory:
            throw TrackError(file: name, message: "a folder, not a track file", hint: "name a GPX, TCX, FIT, KML, KMZ or GeoJSON file")
        case .special:
            throw TrackError(file: name, message: "a special file (a FIFO, a socket or a device), not a regular file",
                             hint: "name a GPX, TCX, FIT, KML, KMZ or GeoJSON file")
        default:
            break
        }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        } catch {
            throw TrackError(file: name, message: "cannot be read: \((error as NSError).localizedFailureReason ?? Diagnostic.message(of: error))")
        }
        return try read(data, name: name)
    }

    /// The offset from UTC the first time in elements `name` states (`+02:00`), nil when it is in UTC
    /// (`Z`) or states none.
    static func statedOffset(_ tree: XMLElement, _ name: String) -> Int? {
        tree.descendants(name).first { !$0.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            .flatMap { ISOTime.offset(Substring($0.text)) }
    }

    /// Reads a track file's bytes; `name` names it in errors and warnings.
    public static func read(_ data: Data, name: String) throws(TrackError) -> TrackReading {
        do {
            guard data.count <= maximumBytes else {
                throw TrackProblem("larger than \(maximumBytes >> 20) MB: too large for a track file",
                                   hint: "split the recording, or simplify it in a track editor")
            }
            guard let format = format(of: data) else { throw TrackProblem(unknown(data), hint: "maptrip reads GPX, TCX, FIT, KML, KMZ and GeoJSON") }
            var raw: RawTrack
            switch format {
            case .fit:
                var decoder = FITDecoder(data)
                raw = try decoder.decode()
            case .geoJSON:
                var reader = GeoJSONReader(data)
                raw = try reader.read()
            case .gpx:
                let tree = try XMLTree.parse(data)
                raw = try GPXReader.read(tree)
                raw.utcOffset = statedOffset(tree, "time")
            case .tcx:
                let tree = try XMLTree.parse(data)
                raw = try TCXReader.read(tree)
                raw.utcOffset = statedOffset(tree, "Time")
            case .kml:
                let tree = try XMLTree.parse(data)
                raw = try KMLReader.read(tree)
                raw.utcOffset = statedOffset(tree, "when")
            case .kmz:
                let (kml, inner) = try kmlInside(data)
                do {
                    let tree = try XMLTree.parse(kml)
                    raw = try KMLReader.read(tree)
                    raw.utcOffset = statedOffset(tree, "when")
                } catch {
                    // The KML inside is named as the KMZ's part: ride.kmz/doc.kml:12:5.
                    throw TrackError(file: name + "/" + inner, location: error.location, message: error.message, hint: error.hint)
                }
            }
            let (track, warnings) = try TrackCleaning.check(raw, format: format)
            return TrackReading(track: track, warnings: warnings, file: name)
        } catch let error as TrackProblem {
            throw error.error(file: name)
        } catch let error as TrackError {
            throw error
        } catch {
            throw TrackError(file: name, message: Diagnostic.message(of: error))
        }
    }

    /// The format of a track file's bytes, by their content: FIT's header, a ZIP's signature (KMZ),
    /// JSON's `{`, or XML's root element (`gpx`, `TrainingCenterDatabase`, `kml`).
    public static func format(of data: Data) -> TrackFormat? {
        if FITDecoder.looksLikeFIT(data) { return .fit }
        if data.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .kmz }
        var bytes = data.prefix(4096)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return nil }
        if bytes[first] == 0x7B { return .geoJSON }
        guard bytes[first] == 0x3C, let root = rootElement(bytes[first...]) else { return nil }
        switch root {
        case "gpx": return .gpx
        case "TrainingCenterDatabase": return .tcx
        case "kml": return .kml
        default: return nil
        }
    }

    /// The local name of the first element of an XML text's start (after `<?xml ...?>`, comments
    /// and a doctype).
    static func rootElement(_ bytes: Data) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            guard let c = rest.first else { return nil }
            if c == "?" || c == "!" {
                let close = c == "!" && rest.hasPrefix("!--") ? rest.range(of: "-->")?.upperBound : rest.firstIndex(of: ">").map { rest.index(after: $0) }
                guard let close else { return nil }
                rest = rest[close...]
                continue
            }
            let name = rest.prefix { !" \t\r\n/>".contains($0) }
            return name.split(separator: ":").last.map(String.init)
        }
        return nil
    }

    /// What a file of no known format starts with, for the error.
    static func unknown(_ data: Data) -> String {
        if data.isEmpty { return "the file is empty" }
        if let root = rootElement(data.prefix(4096)) {
            return "an XML file whose root element is <\(root)>, not <gpx>, <TrainingCenterDatabase> or <kml>"
        }
        let head = data.prefix(16).map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : "." }.joined()
        return "not a track file: its first bytes \"\(head)\" are those of no GPX, TCX, FIT, KML, KMZ or GeoJSON file"
    }

    /// The KML in a KMZ: `doc.kml` or else the first `.kml` entry at the top, inflated no further
    /// than `maximumInflatedBytes`.
    static func kmlInside(_ data: Data) throws(TrackProblem) -> (Data, String) {
        let archive: ZipArchive
        do {
            archive = try ZipArchive(data: data)
        } catch {
            throw TrackProblem("a damaged ZIP file (libzip: \(error.message.lowercased()))",
                               hint: "a KMZ is a ZIP archive with a .kml inside: export it again")
        }
        let kmls = archive.entries.filter { !$0.isDirectory && $0.path.lowercased().hasSuffix(".kml") }
        guard let entry = kmls.first(where: { $0.path == "doc.kml" }) ?? kmls.min(by: { $0.path.count < $1.path.count }) else {
            throw TrackProblem("a ZIP file with no .kml inside, so not a KMZ", hint: "a KMZ holds its track in doc.kml")
        }
        guard entry.compressedSize <= UInt64(data.count) else {
            throw TrackProblem("\(entry.path) claims \(entry.compressedSize) compressed bytes in a \(data.count)-byte file",
                               hint: "the KMZ is damaged or cut short: export it again")
        }
        guard entry.size <= UInt64(maximumInflatedBytes) else {
            throw TrackProblem("\(entry.path) inflates to more than \(maximumInflatedBytes >> 20) MB", hint: "a track's KML is far smaller: the file is damaged or a ZIP bomb")
        }
        do {
            // At most the size the directory claims (libzip refuses an entry longer or shorter than it).
            return (try archive.read(entry, maxBytes: maximumInflatedBytes), entry.path)
        } catch {
            throw TrackProblem("\(entry.path) cannot be inflated (libzip: \(error.message.lowercased()))", hint: "the KMZ is damaged: export it again")
        }
    }
}
