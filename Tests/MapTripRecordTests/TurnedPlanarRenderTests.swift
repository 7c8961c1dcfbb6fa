import FFmpeg
import Foundation
import MapTripGeometry
import MapTripOutput
import MapTripRecord
import MapTripRender
import Testing
import TestSupport

/// A heading-up chase over the embedded map rendered as `maptrip render` renders it: its turned
/// frames composited straight into the encoder's I420 planes (the raster cache's planar tiles turned)
/// against the same render with `MAPTRIP_FAST_PATHS=planar` (composited in BGRA and converted),
/// both decoded to their planes and compared.
@Suite("Turned frames rendered into I420")
struct TurnedPlanarRenderTests {
    /// Every frame of a 4:2:0 video, its Y, U and V planes one after the other (rows packed).
    static func planes(_ url: URL) throws -> [[UInt8]] {
        let reader = try VideoReader(path: url.path)
        var frames: [[UInt8]] = []
        while let frame = try reader.nextFrame() {
            #expect(frame.pixelFormat == PixelFormat(name: "yuv420p"))
            var bytes: [UInt8] = []
            for (plane, (w, h)) in [(frame.width, frame.height), (frame.width / 2, frame.height / 2),
                                    (frame.width / 2, frame.height / 2)].enumerated() {
                let data = try #require(frame.data(plane: plane)), stride = frame.linesize(plane: plane)
                for row in 0..<h { bytes += UnsafeBufferPointer(start: data + row * stride, count: w) }
            }
            frames.append(bytes)
        }
        return frames
    }

    @Test func aHeadingUpChaseComesOutAsItsFramesConverted() throws {
        try Trip.withDirectory("turned-planar") { dir in
            // A ride along the coast east of Helsinki, wandering a few degrees a fix: turned frames of
            // coast, sea and land, close enough (zoom 9) to be composited from the raster cache.
            let ride = TrackFixture.walk(seed: 5903, count: 80, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.5,
                                         turn: 6, heading: 90)
            try ride.gpx(start: TrackFixture.start).write(to: dir.appendingPathComponent("ride.gpx"), atomically: true,
                                                          encoding: .utf8)
            let json = """
                { "video": { "width": 640, "height": 360, "fps": 10 },
                  "tracks": [ { "file": "ride.gpx", "name": "ride", "color": "#e4572e" } ],
                  "playback": { "speed": 80 },
                  "camera": { "follow": "ride", "zoom": 9, "headingUp": true, "intro": 0 } }
                """
            let scene = dir.appendingPathComponent("ride.json")
            try json.write(to: scene, atomically: true, encoding: .utf8)
            LibraryLogging.configure(verbose: false)
            // Near lossless (CRF 1, still 4:2:0): the encoder's own error stays within a level or two.
            func render(_ name: String, planar: Bool) throws -> [[UInt8]] {
                var environment = RenderEnvironment(assets: Trip.assets)
                environment.fastPaths.planar = planar
                let out = dir.appendingPathComponent(name + ".mp4")
                _ = try RenderJob(scene: scene, output: OutputRequest(path: out.path, options: EncodingOptions(crf: 1)),
                                  environment: environment).run()
                return try Self.planes(out)
            }
            let fast = try render("fast", planar: true), converted = try render("converted", planar: false)
            #expect(fast.count == converted.count && fast.count > 30)
            let luma = 640 * 360
            var worstY = 0, mapWorst = 0, worstPSNR = Double.infinity, chroma = 0.0
            var differing = 0
            for (a, b) in zip(fast, converted) {
                if a != b { differing += 1 }
                var squared = 0.0, worst = 0, uv = 0
                for i in 0..<luma {
                    let d = Int(a[i]) - Int(b[i])
                    // The map, away from the mover's dot at the centre and its track running down from
                    // it (overlays, drawn into I420 their own way in both).
                    if abs(i % 640 - 320) > 64 || i / 640 < 180 - 24 { mapWorst = max(mapWorst, abs(d)) }
                    worst = max(worst, abs(d))
                    squared += Double(d * d)
                }
                for i in luma..<a.count { uv += abs(Int(a[i]) - Int(b[i])) }
                worstY = max(worstY, worst)
                worstPSNR = min(worstPSNR, 10 * log10(255 * 255 * Double(luma) / max(squared, 1e-9)))
                chroma = max(chroma, Double(uv) / Double(a.count - luma))
            }
            // Every frame went the I420 way (turned frames drawn in BGRA both times would encode alike).
            #expect(differing == fast.count, "\(differing) of \(fast.count) frames differ")
            // Measured: the map's worst |dY| 4 (composited alike within 1; the encoder's error on two
            // inputs apart), Y PSNR at least 64 dB, chroma 0.05 on average; the overlays' (the dot and
            // its track) worst 13.
            #expect(mapWorst <= 5, "the map's max |dY| \(mapWorst)")
            #expect(worstPSNR > 55, "least Y PSNR \(worstPSNR) (max |dY| \(worstY))")
            #expect(chroma < 0.2, "worst frame's mean |dU|, |dV| \(chroma)")
        }
    }
}
