import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import MapTripRender
import Testing

/// Two surfaces of one size compared: alpha summed over 4x4 blocks (where a line or a mark lies,
/// without asking every edge pixel's antialiasing to agree), or byte for byte.
enum AlphaBlocks {
    /// The largest difference of a block, the difference of the totals, and the second's total.
    static func difference(_ a: ImageSurface, _ b: ImageSurface) -> (block: Int, total: Int, ink: Int) {
        var worst = 0, totalA = 0, totalB = 0
        for by in stride(from: 0, to: a.height, by: 4) {
            for bx in stride(from: 0, to: a.width, by: 4) {
                var inkA = 0, inkB = 0
                for y in by..<min(by + 4, a.height) {
                    for x in bx..<min(bx + 4, a.width) {
                        inkA += Int(a.data[y * a.stride + x * 4 + 3])
                        inkB += Int(b.data[y * b.stride + x * 4 + 3])
                    }
                }
                worst = max(worst, abs(inkA - inkB))
                totalA += inkA
                totalB += inkB
            }
        }
        return (worst, abs(totalA - totalB), totalB)
    }

    /// Byte for byte: how many bytes differ, by how much at most, and the pixels the second inks.
    static func bytes(_ a: ImageSurface, _ b: ImageSurface) -> (differing: Int, worst: Int, drawn: Int) {
        var differing = 0, worst = 0, drawn = 0
        for y in 0..<a.height {
            for i in 0..<(a.width * 4) {
                let p = Int(a.data[y * a.stride + i]), q = Int(b.data[y * b.stride + i])
                if p != q { differing += 1; worst = max(worst, abs(p - q)) }
                if i % 4 == 3 && q > 0 { drawn += 1 }
            }
        }
        return (differing, worst, drawn)
    }
}

/// Routes stroked the fast way (cut to the frame, thinned to the pixel grid) against the whole line.
@Suite struct RouteStrokeTests {
    /// London to Auckland to Sydney, close up: legs thousands of kilometres long, most of them off a
    /// 640x360 frame at rest, long stretches of them on it in the middle of the flights.
    static let scene = Scene(flight: 1, video: Video(width: 640, height: 360, fps: 24), places: [
        Place(name: "London", position: LonLat(lon: -0.1278, lat: 51.5074), dwell: 1, zoom: 6),
        Place(name: "Auckland", position: LonLat(lon: 174.7633, lat: -36.8485), dwell: 1, zoom: 6),
        Place(name: "Sydney", position: LonLat(lon: 151.2093, lat: -33.8688), dwell: 1, zoom: 6),
    ])

    static func renderer(_ overlay: RouteOverlay) throws -> FrameRenderer {
        try FrameRenderer(scene: scene, baseMap: TransparentBaseMap(), overlays: [overlay])
    }

    /// Stroking only the part the frame shows draws the same line (Cairo's own rounding aside: a
    /// level or two on a few edge pixels).
    @Test func aRouteCutToTheFrameLooksTheSame() throws {
        let timeline = Timeline(scene: Self.scene)
        let cut = try Self.renderer(RouteOverlay(culls: true, thins: false))
        let whole = try Self.renderer(RouteOverlay(culls: false, thins: false))
        // At rest on Auckland, then on Sydney: the whole first leg, ending in the frame, runs off it.
        for n in [timeline.frameCount / 2 - 2, timeline.frameCount - 1] {
            let values = timeline.values(at: n)
            try cut.render(values)
            try whole.render(values)
            let (differing, worst, drawn) = AlphaBlocks.bytes(cut.surface, whole.surface)
            #expect(drawn > 200, "the route is in the frame (\(drawn) pixels)")
            #expect(worst <= 2 && differing <= drawn / 20, "frame \(n): \(differing) bytes differ, by up to \(worst)")
        }
    }

    /// Drawn a band of rows at a time, as frames drawn into I420 pictures draw their overlays (each
    /// band clipped to its rows), a route cut to the frame draws the same line as the whole line
    /// stroked over the whole frame, across the bands' edges too.
    @Test func aRouteDrawnInBandsLooksTheSameAsWhole() throws {
        let timeline = Timeline(scene: Self.scene)
        let banded = try FrameRenderer(scene: Self.scene, baseMap: TransparentBaseMap(),
                                       overlays: [InBands(RouteOverlay(culls: true, thins: false), bands: 4)])
        let whole = try Self.renderer(RouteOverlay(culls: false, thins: false))
        var compared = 0
        for n in stride(from: 0, to: timeline.frameCount, by: 3) {
            let values = timeline.values(at: n)
            try banded.render(values)
            try whole.render(values)
            let (differing, worst, drawn) = AlphaBlocks.bytes(banded.surface, whole.surface)
            guard drawn > 200 else { continue }
            compared += 1
            // Cairo's rounding aside: a level or two, on at most a twentieth of the route's bytes.
            #expect(worst <= 2 && differing <= drawn * 4 / 20, "frame \(n): \(differing) bytes differ, by up to \(worst), \(drawn) pixels drawn")
        }
        #expect(compared > 10, "frames with a route: \(compared)")
    }

    /// An overlay drawn band by band, each band clipped to its rows of the frame.
    final class InBands: Overlay {
        let inner: Overlay
        let bands: Int
        init(_ inner: Overlay, bands: Int) {
            self.inner = inner
            self.bands = bands
        }

        func draw(_ frame: FrameContext, in cr: Context) throws {
            let h = frame.viewport.height
            for k in 0..<bands {
                let top = h * k / bands, bottom = h * (k + 1) / bands
                cr.save()
                cr.rectangle(0, Double(top), Double(frame.viewport.width), Double(bottom - top))
                cr.clip()
                try inner.draw(frame, in: cr)
                cr.restore()
            }
        }
    }

    /// Without the vertices that lie within a twentieth of a pixel of the line, over every other frame
    /// of the trip that shows a route: every 4x4 block holds the same ink within what a 4-pixel edge
    /// moved by a tenth of a pixel changes (102 alpha units), the frame the same ink in all. (Pixel
    /// for pixel, an edge moved by a twentieth of a pixel can cross one of Cairo's 15 sample rows: a
    /// coverage step of a fifteenth, about 17 levels, which no eye sees. Thinned at half a pixel, a
    /// block differs by 487.)
    @Test func aRouteThinnedToThePixelGridDrawsTheSameLine() throws {
        let timeline = Timeline(scene: Self.scene)
        let thin = try Self.renderer(RouteOverlay())
        let full = try Self.renderer(RouteOverlay(culls: false, thins: false))
        var compared = 0, worstBlock = 0, worstTotal = 0.0
        for n in stride(from: 0, to: timeline.frameCount, by: 2) {
            let values = timeline.values(at: n)
            try thin.render(values)
            try full.render(values)
            let d = AlphaBlocks.difference(thin.surface, full.surface)
            worstBlock = max(worstBlock, d.block)
            guard d.ink > 200 * 255 else { continue }
            compared += 1
            worstTotal = max(worstTotal, Double(d.total) / Double(d.ink))
        }
        #expect(compared > 20, "frames with a route: \(compared)")
        #expect(worstBlock <= 102, "a 4x4 block's ink differs by up to \(worstBlock) (an edge a tenth of a pixel off: 102)")
        #expect(worstTotal < 0.005, "a frame's ink differs by up to \(worstTotal * 100)%")
    }
}

/// A dashed route as the scene gives it: each dash as long as `dash` says, with round ends, each gap too.
extension RouteStrokeTests {
    /// The ink along the row through a level line from `start`: for each run of inked pixels, where
    /// its ink's middle lies and how long it is (its pixels' cover summed).
    static func inkRuns(_ s: ImageSurface, row: Int, from start: Int) -> [(middle: Double, length: Double)] {
        var runs: [(middle: Double, length: Double)] = [], ink = 0.0, moment = 0.0
        for x in start..<s.width {
            let a = Double(s.pixel(x: x, y: row).a) / 255
            if a > 0 {
                ink += a
                moment += a * (Double(x) + 0.5)
            } else if ink > 0 {
                runs.append((moment / ink, ink))
                ink = 0
                moment = 0
            }
        }
        return runs
    }

    @Test(arguments: [true, false])
    func aDashInksItsLengthAndAGapItsOwnAlongALevelLine(strokesItself: Bool) throws {
        // Along the equator (a level line on the map), 1080p (a layout unit a pixel), 4 wide: dashes
        // of 10 and gaps of 6, the first from the line's start; then dashes of 2, shorter than the
        // width: dots 4 across at their middles. Through maptrip's stroker (its pieces, the dots
        // zero-length ones) and through Cairo's dashes (the fallback), alike.
        for (dash, ink) in [([10.0, 6], 10.0), ([2, 14], 4)] {
            let places = [Place(name: "A", position: LonLat(lon: 0, lat: 0), dwell: 1, zoom: 10),
                          Place(name: "B", position: LonLat(lon: 1, lat: 0), dwell: 1, zoom: 10,
                                route: RouteStyle(path: .straight, color: Color(hex: "#202020")!, width: 4, dash: dash,
                                                  outline: nil))]
            let sc = Scene(flight: 1, video: Video(width: 1920, height: 1080, fps: 10), places: places)
            let timeline = Timeline(scene: sc)
            let renderer = try FrameRenderer(scene: sc, baseMap: TransparentBaseMap(),
                                             overlays: [RouteOverlay(strokesItself: strokesItself)])
            let values = timeline.values(at: timeline.frameCount - 1)
            try renderer.render(values)
            let viewport = renderer.viewport(values.camera)
            let a = try #require(viewport.pixel(places[0].position)), b = try #require(viewport.pixel(places[1].position))
            #expect(a.x > 20 && b.x < 1900 && abs(a.y - b.y) < 1e-6, "\(a) to \(b)")
            let runs = Self.inkRuns(renderer.surface, row: Int(a.y), from: 0)
            let unit = renderer.layout.size(1)
            #expect(unit == 1)
            let period = (dash[0] + dash[1]) * unit, whole = Int((b.x - a.x) / period)
            #expect(runs.count == whole + 1, "\(runs.count) runs for \(whole) whole periods and a part")
            // The first dash begins its ink at the line's start (a dot reaches half its width less its
            // length's half before it).
            let begins = runs[0].middle - runs[0].length / 2
            #expect(abs(begins - (a.x + (dash[0] - ink) / 2 * unit)) < 0.5, "the first ink from \(begins), the line from \(a.x)")
            for (k, run) in runs.dropLast().enumerated() {
                // Each within a pixel of its length, the middles a period apart (the gaps as given).
                #expect(abs(run.length - ink * unit) < 1, "\(dash) dash \(k): \(run.length) of ink")
                #expect(abs(run.middle - (a.x + Double(k) * period + dash[0] / 2 * unit)) < 0.5, "\(dash) dash \(k) at \(run.middle)")
            }
        }
    }
}
