import Foundation
import MapTripGazetteer
import SQLite
import Testing

/// `NameKey.normalize` (Swift) must make exactly the keys `tools/build-gazetteer.py` (Python) stored,
/// or names typed by users would miss names in the file.
@Suite("NameKey: Swift and Python normalize alike")
struct NameKeyTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardizedFileURL

    /// Names that exercise every rule: accents, case, ligatures, width, apostrophes, punctuation,
    /// letters with no decomposition, special casing, and scripts with marks of their own.
    static let corpus = [
        "São Paulo", "SÃO PAULO", "sao paulo", "Zürich", "Zu\u{308}rich", "ZÜRICH", "Saint-Étienne",
        "N'Djamena", "N’Djamena", "Hawaiʻi", "Al Qāhirah", "ʿAmmān", "Straße", "STRASSE", "ẞ",
        "İstanbul", "ıstanbul", "DİYARBAKIR", "Łódź", "Ærøskøbing", "Œuvre", "Þórshöfn", "Đà Nẵng",
        "Ħamrun", "ﬁnland", "ＴＯＫＹＯ", "ﾊﾟﾘ", "Ⅻ", "ℌ", "½", "x²", "  Mumbai -- (City)  ", "a\tb\rc\u{0B}d",
        "Αθήνα", "ΑΘΗΝΑΣ", "Σίσυφος", "ΐ", "Москва", "Київ", "Ёлкино", "서울", "부산", "東京", "とうきょう",
        "ガンダム", "ヴ", "々", "ー", "القاهرة", "مَدِينَة", "ירושלים", "मुंबई", "नई दिल्ली", "ज़", "कोलकाता",
        "กรุงเทพมหานคร", "თბილისი", "Երևան", "ᎠᏂ", "ǰ", "ŉ", "Ǆ", "ǅ", "ǆ", "K", "Å", "µ", "ﬀ",
        "🙂 Paris 🙂", "Paris!!!", "", " ", "---", "12 de Octubre", "Wirziburg", "Zuerich (Kreis 4)",
    ]

    /// Python's keys for `lines`, from the build script itself.
    static func pythonKeys(_ lines: [String]) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", repository.appendingPathComponent("tools/build-gazetteer.py").path, "--normalize"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Write from another thread: the output pipe must be read while the input is written.
        let text = Data(lines.map { $0 + "\n" }.joined().utf8)
        let writer = Thread {
            input.fileHandleForWriting.write(text)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 build-gazetteer.py --normalize failed")
        var keys = String(decoding: data, as: UTF8.self).components(separatedBy: "\n")
        if keys.last == "" { keys.removeLast() }
        return keys
    }

    @Test func examples() {
        #expect(NameKey.normalize("São Paulo") == "sao paulo")
        #expect(NameKey.normalize("SÃO PAULO") == "sao paulo")
        #expect(NameKey.normalize("Zürich") == "zurich")
        #expect(NameKey.normalize("Saint-Étienne") == "saint etienne")
        #expect(NameKey.normalize("N’Djamena") == "ndjamena")
        #expect(NameKey.normalize("Straße") == "strasse")
        #expect(NameKey.normalize("ẞ") == "ss")
        #expect(NameKey.normalize("İstanbul") == "istanbul")
        #expect(NameKey.normalize("Łódź") == "lodz")
        #expect(NameKey.normalize("  Mumbai -- (City)  ") == "mumbai city")
        #expect(NameKey.normalize("ＴＯＫＹＯ") == "tokyo")
        #expect(NameKey.normalize("ﾊﾟﾘ") == "パリ")  // half-width kana: NFKD, then NFC puts the mark back
        #expect(NameKey.normalize("ΑΘΗΝΑΣ") == "αθηνασ")  // final sigma folds to σ
        #expect(NameKey.normalize("서울") == "서울")
        #expect(NameKey.normalize("東京") == "東京")
        #expect(NameKey.normalize("मुंबई") == "मुंबई")  // Devanagari vowel signs are not accents
        #expect(NameKey.normalize("---") == "")
    }

    @Test func keysAreFixedPoints() {
        for text in Self.corpus {
            let key = NameKey.normalize(text)
            #expect(NameKey.normalize(key) == key, "\(text.debugDescription) -> \(key.debugDescription)")
        }
    }

    @Test func pythonAgreesOnTheCorpus() throws {
        let python = try Self.pythonKeys(Self.corpus)
        try #require(python.count == Self.corpus.count, "\(python)")
        for (text, key) in zip(Self.corpus, python) {
            #expect(NameKey.normalize(text) == key, "\(text.debugDescription): Python \(key.debugDescription)")
        }
    }

    /// Every place's main name, in whatever script GeoNames gives it: Python's key is Swift's, and
    /// looking the name up finds the place.
    @Test func pythonAgreesOnEveryPlaceName() throws {
        let db = try Database(path: assets.appendingPathComponent(Gazetteer.fileName).path)
        let s = try db.prepare("SELECT name, country, lat, lon FROM places ORDER BY id")
        var names: [String] = [], places: [(String, Double, Double)] = []
        while try s.step() {
            names.append(s.text(0) ?? "")
            places.append((s.text(1) ?? "", s.double(2), s.double(3)))
        }
        try #require(names.count == 34006)
        let python = try Self.pythonKeys(names)
        try #require(python.count == names.count)
        var disagreements: [String] = []
        for (name, key) in zip(names, python) where NameKey.normalize(name) != key {
            disagreements.append("\(name.debugDescription): Swift \(NameKey.normalize(name).debugDescription), Python \(key.debugDescription)")
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagree: \(disagreements.prefix(10))")

        var unfound: [String] = []
        for (name, (country, lat, lon)) in zip(names, places) {
            let found = try gazetteer.matches(for: name, country: country)
            if !found.contains(where: { $0.name == name && $0.lat == lat && $0.lon == lon }) { unfound.append(name) }
        }
        #expect(unfound.isEmpty, "\(unfound.count) places not found by their own name: \(unfound.prefix(10))")
    }

    /// Every key in the file is its own key in Swift: a user who types exactly what is stored
    /// finds it (checks the Python keys against the Swift rules on the whole index).
    @Test func everyStoredKeyIsASwiftKey() throws {
        let db = try Database(path: assets.appendingPathComponent(Gazetteer.fileName).path)
        let s = try db.prepare("SELECT DISTINCT key FROM names")
        var count = 0, differing: [String] = []
        while try s.step() {
            let key = s.text(0) ?? ""
            count += 1
            if NameKey.normalize(key) != key { differing.append(key) }
        }
        #expect(count > 250_000)
        #expect(differing.isEmpty, "\(differing.count) keys change under NameKey: \(differing.prefix(10))")
    }
}
