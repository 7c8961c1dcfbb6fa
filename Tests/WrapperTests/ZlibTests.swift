import Foundation
import TestBasics
import Testing
import Zlib

@Suite("zlib")
struct ZlibTests {
    /// `gzip.compress(b'maptrip vector tiles ' * 50, mtime=0)` and `zlib.compress(b'Helsinki ' * 20)`,
    /// made by Python's gzip and zlib modules.
    static let pythonGzip = Data(base64Encoded: "H4sIAAAAAAACA8tNLCgpyixQKEtNLskvUijJzEktVsgdFRwVHBUc2YIAwq1UVhoEAAA=")!
    static let pythonZlib = Data(base64Encoded: "eJzzSM0pzszLzlTwGDoMAKtHQs0=")!

    @Test("Inflates gzip and zlib streams made by Python, told apart by their headers")
    func python() throws {
        #expect(Zlib.isGzip(Self.pythonGzip) && !Zlib.isGzip(Self.pythonZlib))
        let text = try Zlib.inflate(Self.pythonGzip, maxOutput: 1 << 20)
        #expect(text == Data(String(repeating: "maptrip vector tiles ", count: 50).utf8))
        #expect(try Zlib.inflate(Self.pythonZlib, maxOutput: 1 << 20) == Data(String(repeating: "Helsinki ", count: 20).utf8))
        #expect(!Zlib.libraryVersion.isEmpty)
    }

    @Test("Round trip through zlib's own deflate, gzip and zlib, with random data")
    func roundTrip() throws {
        var rng = SplitMix64(seed: 58)
        for size in [1, 100, 70_000, 300_000] {
            // Compressible: bytes from a small alphabet.
            let data = Data((0..<size).map { _ in UInt8(rng.next() % 7) + 65 })
            for gzip in [true, false] {
                let packed = try Zlib.deflate(data, gzip: gzip)
                #expect(Zlib.isGzip(packed) == gzip)
                #expect(packed.count < max(data.count, 30))
                #expect(try Zlib.inflate(packed, maxOutput: size) == data)
            }
        }
        // One inflater, many streams.
        let inflater = try Inflater()
        for n in 1...3 {
            let data = Data(repeating: UInt8(n), count: n * 1000)
            #expect(try inflater.inflate(try Zlib.deflate(data), maxOutput: 10_000) == data)
        }
    }

    @Test("A truncated stream, garbage and an empty input fail with zlib's message")
    func bad() throws {
        let truncated = Self.pythonGzip.prefix(Self.pythonGzip.count - 6)
        let cut = try #require(#expect(throws: ZlibError.self) { try Zlib.inflate(truncated, maxOutput: 1 << 20) })
        #expect(cut.description.contains("cut short"), "\(cut)")
        let garbage = try #require(#expect(throws: ZlibError.self) {
            try Zlib.inflate(Data("not compressed at all".utf8), maxOutput: 1 << 20)
        })
        #expect(garbage.description == "zlib: inflate: incorrect header check", "\(garbage)")
        var damaged = Self.pythonGzip
        damaged[damaged.count - 5] ^= 0xFF  // the CRC
        let crc = try #require(#expect(throws: ZlibError.self) { try Zlib.inflate(damaged, maxOutput: 1 << 20) })
        #expect(crc.description.contains("incorrect data check"), "\(crc)")
        #expect(throws: ZlibError.self) { try Zlib.inflate(Data(), maxOutput: 1 << 20) }
    }

    @Test("A decompression bomb over the bound is refused before it is inflated whole")
    func bomb() throws {
        let bomb = try Zlib.deflate(Data(count: 50 << 20))  // 50 MB of zeros
        #expect(bomb.count < 100_000)
        let e = try #require(#expect(throws: ZlibError.self) { try Zlib.inflate(bomb, maxOutput: 1 << 20) })
        #expect(e.description.contains("more than 1048576 bytes"), "\(e)")
        #expect(try Zlib.inflate(bomb, maxOutput: 50 << 20).count == 50 << 20)
    }
}
