import FFmpeg
import Foundation
import MapTripGeometry
import MapTripRecord
import MapTripScene
import MapTripTime
import Testing

/// Label placement (issue 56) as a viewer sees it: scenes rendered to MP4 through `RenderJob`, decoded,
/// each label found in the pixels alone. Places are named by digits ("0000"): a render with one name's
/// zeros made eights draws every label where it was (the same sizes), and the pixels that differ
/// from the plain render are that label's text, in every frame. The routes' pixels are found the same
/// way, from a render with the routes in another colour (their colour does not move a label).
@Suite("Label placement render")
struct LabelPlacementRenderTests {
    /// A dense tour of the Rhine and Benelux, at 640x360 and 10 fps: nine places near one another,
    /// a route between each two.
    static let cities: [(lat: Double, lon: Double)] = [
        (48.857, 2.352), (50.847, 4.357), (52.370, 4.895), (50.938, 6.960), (50.110, 8.682),
        (49.612, 6.130), (48.573, 7.752), (49.441, 7.769), (50.633, 5.567),
    ]

    static func name(_ k: Int, swapped: Int?) -> String {
        String(repeating: k == swapped ? "8" : "0", count: 4 + k % 3)
    }

    static func json(places: [(lat: Double, lon: Double)], names: [String], routeColor: String = "#e4572e") -> String {
        let list = zip(places, names).map { p, n in #"{"name": "\#(n)", "lat": \#(p.lat), "lon": \#(p.lon), "dwell": 1.2, "zoom": 5.5}"# }
        return """
            {"video": {"width": 640, "height": 360, "fps": 10}, "flight": 0.8,
             "route": {"color": "\(routeColor)", "travelled": {"color": "\(routeColor)"}},
             "places": [\(list.joined(separator: ",\n"))]}
            """
    }

    static func render(_ text: String, _ name: String, in dir: URL) throws -> [BGRAImage] {
        try OpeningClosingRenderTests.render(text, name, in: dir).frames
    }

    /// A box of pixels, inclusive.
    struct Ink: Equatable {
        var minX: Int, minY: Int, maxX: Int, maxY: Int
        var count: Int
        /// Pixels that differ faintly, away from the box: a copy of the label fading in or out elsewhere.
        var faint = 0
        var centre: (x: Double, y: Double) { (Double(minX + maxX) / 2, Double(minY + maxY) / 2) }
        var width: Int { maxX - minX + 1 }
        var height: Int { maxY - minY + 1 }

        func meets(_ o: Ink) -> Bool { minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY }
        func contains(_ x: Int, _ y: Int) -> Bool { x >= minX && x <= maxX && y >= minY && y <= maxY }
        /// Shrunk by `k` pixels on each side (the encoder's ringing round a changed glyph).
        func inset(_ k: Int) -> Ink { Ink(minX: minX + k, minY: minY + k, maxX: maxX - k, maxY: maxY - k, count: count) }
    }

    /// Where two decoded frames differ by more than `threshold` (the sum of |dR|, |dG|, |dB|).
    static func differences(_ a: BGRAImage, _ b: BGRAImage, threshold: Int) -> [(x: Int, y: Int)] {
        var out: [(x: Int, y: Int)] = []
        a.pixels.withUnsafeBufferPointer { p in
            b.pixels.withUnsafeBufferPointer { q in
                for y in 0..<a.height {
                    var i = y * a.stride, j = y * b.stride
                    for x in 0..<a.width {
                        let d = abs(Int(p[i]) - Int(q[j])) + abs(Int(p[i + 1]) - Int(q[j + 1])) + abs(Int(p[i + 2]) - Int(q[j + 2]))
                        if d > threshold { out.append((x, y)) }
                        i += 4
                        j += 4
                    }
                }
            }
        }
        return out
    }

    /// The box round the pixels that differ strongly (a glyph's 0 against its 8), nil where none do;
    /// with the faint differences more than 3 px away from it (a copy of the label fading elsewhere).
    static func ink(_ a: BGRAImage, _ b: BGRAImage) -> Ink? {
        let points = differences(a, b, threshold: 150)
        guard points.count >= 3 else { return nil }
        var ink = Ink(minX: points.map(\.x).min()!, minY: points.map(\.y).min()!, maxX: points.map(\.x).max()!,
                      maxY: points.map(\.y).max()!, count: points.count)
        let near = ink.inset(-3)
        ink.faint = differences(a, b, threshold: 40).filter { !near.contains($0.x, $0.y) }.count
        return ink
    }

    @Test func inEveryFrameNoLabelMeetsARouteOrAnotherLabel() throws {
        try Trip.withDirectory("label-placement") { dir in
            let n = Self.cities.count
            let plain = try Self.render(Self.json(places: Self.cities, names: (0..<n).map { Self.name($0, swapped: nil) }),
                                        "plain", in: dir)
            let blue = try Self.render(Self.json(places: Self.cities, names: (0..<n).map { Self.name($0, swapped: nil) },
                                                 routeColor: "#2040ff"), "blue", in: dir)
            #expect(plain.count == blue.count && plain.count > 80)
            var inks: [[Ink?]] = []
            for k in 0..<n {
                let swapped = try Self.render(Self.json(places: Self.cities, names: (0..<n).map { Self.name($0, swapped: k) }),
                                              "swap\(k)", in: dir)
                #expect(swapped.count == plain.count)
                inks.append(plain.indices.map { Self.ink(plain[$0], swapped[$0]) })
            }
            Trip.dump(plain[plain.count - 1], "labels-placed-last")
            var checked = 0, routePixels = 0
            for f in plain.indices {
                let shown = (0..<n).compactMap { k in inks[k][f].map { (k: k, ink: $0) } }
                // Each label against every other.
                for i in shown.indices {
                    for j in shown.indices where j > i {
                        let a = shown[i].ink.inset(1), b = shown[j].ink.inset(1)
                        #expect(!a.meets(b), "frame \(f): label \(shown[i].k) \(a) meets label \(shown[j].k) \(b)")
                    }
                }
                // The routes' pixels (red in one render, blue in the other) against every label's text.
                let route = Self.differences(plain[f], blue[f], threshold: 200)
                routePixels += route.count
                for (k, ink) in shown {
                    let inside = route.filter { ink.inset(1).contains($0.x, $0.y) }
                    #expect(inside.isEmpty, "frame \(f): label \(k) \(ink) covers \(inside.count) route pixels")
                }
                checked += shown.count
            }
            // The test saw labels and routes in most frames.
            #expect(checked > plain.count * 3, "\(checked) labels seen")
            #expect(routePixels > plain.count * 100, "\(routePixels) route pixels seen")

            // A label moves with its pin, frame to frame, by under 2 px, unless it is fading (its ink
            // changing by more than a fifth, or a faint copy of it elsewhere: fading across sides).
            let scene = try SceneLoader.load(contentsOf: dir.appendingPathComponent("plain.json"))
            let t = Timeline(scene: scene)
            let format = try #require(t.format)
            func pin(_ k: Int, frame f: Int) -> (x: Double, y: Double)? {
                Viewport(camera: t.camera(at: f), width: format.width, height: format.height, scale: format.scale,
                         projection: t.projection).pixel(scene.places[k].position)
            }
            var steps = 0
            for k in 0..<n {
                for f in 1..<plain.count {
                    guard let a = inks[k][f - 1], let b = inks[k][f], let p = pin(k, frame: f - 1), let q = pin(k, frame: f)
                    else { continue }
                    guard abs(a.count - b.count) * 5 <= max(a.count, b.count), a.faint < 8, b.faint < 8 else { continue }
                    let dx = (b.centre.x - q.x) - (a.centre.x - p.x), dy = (b.centre.y - q.y) - (a.centre.y - p.y)
                    #expect(abs(dx) < 2 && abs(dy) < 2, "label \(k), frame \(f - 1) -> \(f): moved (\(dx), \(dy)) off its pin")
                    steps += 1
                }
            }
            #expect(steps > plain.count, "\(steps) steps compared")
        }
    }

    @Test func aPlaceVisitedTwiceShowsOneLabel() throws {
        try Trip.withDirectory("label-twice") { dir in
            // London, Paris, Brussels, London again: its label once, in every frame after the return.
            let places: [(lat: Double, lon: Double)] = [(51.507, -0.128), (48.857, 2.352), (50.847, 4.357), (51.507, -0.128)]
            let plainNames = ["00000", "0000", "000000", "00000"], swappedNames = ["88888", "0000", "000000", "88888"]
            let plain = try Self.render(Self.json(places: places, names: plainNames), "plain", in: dir)
            let swapped = try Self.render(Self.json(places: places, names: swappedNames), "swapped", in: dir)
            #expect(plain.count == swapped.count)
            // The label's size where London was visited once (its first rest), against its box after the return.
            let scene = try SceneLoader.load(contentsOf: dir.appendingPathComponent("plain.json"))
            let t = Timeline(scene: scene)
            let once = try #require(Self.ink(plain[t.slots[0].endFrame - 1], swapped[t.slots[0].endFrame - 1]))
            var seen = 0, after = 0
            for f in plain.indices {
                guard let ink = Self.ink(plain[f], swapped[f]) else { continue }
                #expect(ink.width <= once.width + 2 && ink.height <= once.height + 2,
                        "frame \(f): London's text spans \(ink), once \(once)")
                seen += 1
                if f >= t.slots[3].startFrame { after += 1 }
            }
            Trip.dump(plain[plain.count - 1], "label-twice-last")
            #expect(seen > plain.count / 2 && after >= 10, "London's label seen in \(seen) frames, \(after) on the way back")
        }
    }
}
