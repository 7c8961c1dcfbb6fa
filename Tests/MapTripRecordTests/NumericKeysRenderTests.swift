import Foundation
import MapTripScene
import MapTripTime
import Testing
import TestSupport

/// The numeric keys' accepted extremes, drawn: every numeric key of the scene format (walked from
/// `SceneFormat`, as NumericKeysTests does) at each limit its rule takes, previewed at the first
/// place and in the middle of the trip by the real command, under a cap on memory (4 GB of address
/// space) and a time limit (the process is killed and the test fails past it). A graticule of 1e-9
/// degrees once took gigabytes: every such value is now refused, or drawn within those bounds.
@Suite("Numeric keys, drawn")
struct NumericKeysRenderTests {
    /// The accepted values worth drawing for `key`: its rule's limits, a hair inside an exclusive one,
    /// and a huge value where the rule sets no maximum (1 when it has no rule).
    static func extremes(_ key: NumericKey) -> [Double] {
        var candidates = key.limits
        if let m = key.rule?.schema["exclusiveMinimum"] { candidates += [m.nextUp, m + 0.001] }
        if let rule = key.rule, rule.schema["maximum"] == nil, rule.schemaEnum == nil { candidates.append(1e6) }
        if key.rule == nil { candidates.append(1) }
        return candidates.filter { v in (key.rule?.accepts(v) ?? true) && (!key.integer || v == v.rounded()) }
    }

    static let cases: [(NumericKey, Double)] = NumericKey.all.flatMap { key in extremes(key).map { (key, $0) } }

    @Test func everyKeyWithARuleHasAnExtremeDrawn() {
        let drawn = Set(Self.cases.map(\.0.loaderPath))
        #expect(drawn.count == NumericKey.all.count, "not drawn: \(Set(NumericKey.all.map(\.loaderPath)).subtracting(drawn))")
    }

    @Test(arguments: cases.indices)
    func anAcceptedExtremeIsDrawnWithinBounds(_ index: Int) throws {
        let (key, value) = Self.cases[index]
        let text = JSONText.number(value)
        try Trip.withDirectory("numeric") { dir in
            let url = dir.appendingPathComponent("scene.json")
            try Data(key.probeScene(text).utf8).write(to: url)
            let scene: Scene
            do {
                scene = try SceneLoader.load(contentsOf: url)
            } catch {
                // A value its own rule takes may break another key's (a minZoom above the default
                // maxZoom): positioned, as NumericKeysTests checks; nothing to draw.
                #expect("\(error)".contains("scene.json:1:"), "\(key) = \(text): \(error)")
                return
            }
            let middle = Timeline(scene: scene).duration / 2
            for at in [nil, middle] {
                let arguments = ["preview", "scene.json", "-o", "p.png"] + (at.map { ["--at", String(format: "%.3f", $0)] } ?? [])
                let result = try CLIProcess.run(arguments, in: dir, timeout: 120, prefix: ["/usr/bin/prlimit", "--as=4294967296", "--"])
                // The sound track the probe names for `audio.*` is not there: that error is the one allowed.
                if key.path[0] == "audio" {
                    #expect(result.stderr.contains("music.mp3") || result.status == 0, "\(key) = \(text): \(result)")
                } else {
                    // Drawn; or refused in one line (a place whose dwell is shorter than a frame is
                    // never at rest on screen to preview): never a crash, never past the limit.
                    let refused = result.status == 1 && result.stderrLines.count == 1
                        && result.stderrLines[0].hasPrefix("maptrip: error: ")
                    #expect(result.reason == .exit && (result.status == 0 || refused),
                            "\(key) = \(text), at \(at.map { "\($0)" } ?? "the first place"): \(result)")
                }
            }
        }
    }
}
