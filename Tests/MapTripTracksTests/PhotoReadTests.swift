import Foundation
import MapTripGeometry
import MapTripScene
import TestBasics
import Testing
@testable import MapTripTracks

/// A photo's EXIF as `photos` reads it (`TrackFileCheck.readPhoto`, libexif underneath): JPEG files
/// written with `ExifWriter`, their times and positions read back as written.
@Suite struct PhotoReadTests {
    static func read(_ fields: ExifWriter.Fields, _ dir: URL) -> Result<PhotoMetadata, PhotoReadError> {
        let url = dir.appendingPathComponent("p.jpg")
        try? Data(ExifWriter.inserting(fields, into: ExifWriter.emptyJPEG)).write(to: url)
        return TrackFileCheck().readPhoto(url)
    }

    /// Seeded random times on random clocks: the wall clock against Foundation's UTC calendar, the moment
    /// (UTC) less the offset the file gives, none without one.
    @Test func timesAndPositionsComeBackAsWritten() throws {
        try TemporaryFolder.with("photo-read") { dir in
            var random = SplitMix64(seed: 5904)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            for i in 0..<30 {
                let y = 1995 + Int(random.next() % 35), mo = 1 + Int(random.next() % 12), d = 1 + Int(random.next() % 28)
                let h = Int(random.next() % 24), mi = Int(random.next() % 60), s = Int(random.next() % 60)
                let minutes = (Int(random.next() % 57) - 24) * 15
                let offset = String(format: "%@%02d:%02d", minutes < 0 ? "-" : "+", abs(minutes) / 60, abs(minutes) % 60)
                let lat = random.unit() * 170 - 85, lon = random.unit() * 358 - 179
                let fields = ExifWriter.Fields(dateTimeOriginal: String(format: "%04d:%02d:%02d %02d:%02d:%02d", y, mo, d, h, mi, s),
                                               offsetTimeOriginal: i % 2 == 0 ? offset : nil, latitude: lat, longitude: lon,
                                               orientation: 1 + i % 8)
                let meta = try Self.read(fields, dir).get()
                let wall = calendar.date(from: DateComponents(year: y, month: mo, day: d, hour: h, minute: mi, second: s))!
                #expect(meta.wallClock == wall.timeIntervalSince1970, "\(i)")
                #expect(meta.offset == (i % 2 == 0 ? minutes * 60 : nil), "\(i): \(offset)")
                #expect(meta.utc == wall.timeIntervalSince1970 - Double(i % 2 == 0 ? minutes * 60 : 0))
                let p = try #require(meta.position)
                #expect(abs(p.lat - lat) < 1e-6 && abs(p.lon - lon) < 1e-6)
                #expect(meta.orientation == 1 + i % 8)
            }
        }
    }

    @Test func aTimeThatIsNoTimeIsNone() throws {
        try TemporaryFolder.with("photo-read") { dir in
            // What cameras without a set clock write, a month 13, an offset that is not one.
            #expect(try Self.read(.init(dateTimeOriginal: "    :  :     :  :  "), dir).get().wallClock == nil)
            #expect(try Self.read(.init(dateTimeOriginal: "2024:13:01 00:00:00"), dir).get().wallClock == nil)
            let odd = try Self.read(.init(dateTimeOriginal: "2000:02:29 23:59:59", offsetTimeOriginal: "garbage"), dir).get()
            #expect(odd.wallClock == 951_868_799 && odd.offset == nil)
            let leap = try Self.read(.init(dateTimeOriginal: "2000:02:29 23:59:59", offsetTimeOriginal: "-05:30"), dir).get()
            #expect(leap.utc == 951_888_599)
        }
    }

    /// A picture without an EXIF block has no time, position or turn (the scene warns and leaves it out);
    /// a file that cannot be read at all is a failure.
    @Test func aFileWithoutExifHasNoMetadata() throws {
        try TemporaryFolder.with("photo-read") { dir in
            let url = dir.appendingPathComponent("plain.jpg")
            try Data(ExifWriter.emptyJPEG).write(to: url)
            #expect(TrackFileCheck().readPhoto(url) == .success(PhotoMetadata()))
            #expect(TrackFileCheck().readPhoto(dir.appendingPathComponent("none.jpg")).isFailure)
        }
    }
}

extension Result {
    var isFailure: Bool { if case .failure = self { true } else { false } }
}
