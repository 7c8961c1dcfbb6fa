import FFmpeg
import Foundation
import MapTripScene
import Testing

/// HD video was converted with BT.601 and tagged so, while players that ignore tags assume BT.709 for
/// HD: the route's red (228, 87, 46) showed as about (241, 98, 43). Now HD and larger (1280 wide or
/// 720 high, portrait too) are converted with BT.709 and tagged BT.709; SD stays BT.601, tagged
/// smpte170m. Each output is probed and decoded back, and a frame filled with one known colour (every
/// layer of the map that colour) comes back as that colour, by its tags and by the matrix a player
/// assumes for its size.
struct ColorMatrixTests {
    static let red = (r: 228, g: 87, b: 46)

    struct Case: CustomTestStringConvertible, Sendable {
        var width: Int, height: Int, output: String, hd: Bool
        var testDescription: String { "\(width)x\(height) \(output)" }
    }

    static let cases = [
        Case(width: 1280, height: 720, output: "out.mp4", hd: true),
        Case(width: 1080, height: 1920, output: "out.mp4", hd: true),
        Case(width: 640, height: 360, output: "out.mp4", hd: false),
        Case(width: 1280, height: 720, output: "out.webm", hd: true),
        Case(width: 1280, height: 720, output: "out.mov", hd: true),
        Case(width: 854, height: 480, output: "out.mov", hd: false),
    ]

    @Test(arguments: cases)
    func aKnownColourComesBackInTheMatrixTheSizeCallsFor(_ c: Case) throws {
        try Trip.withDirectory("colour") { dir in
            let hex = String(format: "#%02x%02x%02x", Self.red.r, Self.red.g, Self.red.b)
            let scene = """
                { "video": { "width": \(c.width), "height": \(c.height), "fps": 10 }, "dwell": 1,
                  "style": { "sea": "\(hex)", "land": "\(hex)", "lakes": "\(hex)", "polar": "\(hex)",
                             "borders": { "color": "\(hex)" }, "provinces": { "color": "\(hex)" } },
                  "places": [ { "lat": 0, "lon": -30, "zoom": 3 } ] }
                """
            try Data(scene.utf8).write(to: dir.appendingPathComponent("scene.json"))
            let result = try CLIProcess.run(["render", "scene.json", "-o", c.output, "-q"], in: dir)
            try #require(result.status == 0, "\(result)")
            let reader = try VideoReader(path: dir.appendingPathComponent(c.output).path)
            let tags = reader.info.colorTags
            let expected = c.hd ? "bt709" : "smpte170m"
            // ProRes carries the matrix in its own frame header, which FFmpeg maps to the same names.
            #expect(tags.spaceName == expected, "\(c): \(tags)")
            #expect(tags.rangeName == "tv" && tags.primariesName == "bt709" && tags.transferName == "bt709", "\(c): \(tags)")
            let decoded = try Trip.decode(dir.appendingPathComponent(c.output))
            let frame = try #require(decoded.frames.first)
            for (x, y) in [(frame.width / 5, frame.height / 3), (frame.width * 3 / 4, frame.height / 4)] {
                let p = frame.pixel(x: x, y: y)
                let off = [abs(Int(p.r) - Self.red.r), abs(Int(p.g) - Self.red.g), abs(Int(p.b) - Self.red.b)].max()!
                #expect(off <= 4, "\(c) at \(x),\(y): decoded (\(p.r), \(p.g), \(p.b)), drawn \(Self.red)")
            }
        }
    }
}
