import Foundation
import Testing
@testable import MapTripScene
@testable import MapTripTime
import TestSupport

/// Every numeric key of the scene format, found by walking `SceneFormat` (a key added later is tried
/// too), at and beyond its bounds: 0, tiny, huge, negative, the rule's own limits and a hair past
/// them. Each value either gives an error positioned at that key, or a scene whose work is bounded
/// (a frame count within the limit, finite camera positions). `NumericKeysRenderTests` draws the
/// accepted extremes.
@Suite("Numeric keys")
struct NumericKeysTests {
    typealias Key = NumericKey
    static let all = NumericKey.all
    static func values(for key: Key) -> [Double] { key.probeValues }
    static func scene(_ key: Key, _ value: String) -> String { key.probeScene(value) }

    @Test func theWalkFindsTheKeysItShould() {
        let names = Set(Self.all.map(\.loaderPath))
        for expected in ["dwell", "flight", "outro", "video.width", "video.fps", "video.scale", "map.graticule",
                         "map.maxZoom", "audio.volume", "places[0].zoom", "places[0].curve", "route.dash[0]",
                         "style.label.size", "style.borders.width"] {
            #expect(names.contains(expected), "\(expected) not found among \(names.sorted())")
        }
    }

    @Test(arguments: all)
    func eachValueIsAPositionedErrorOrABoundedScene(_ key: Key) throws {
        for value in Self.values(for: key) {
            let text = JSONText.number(value)
            let json = Self.scene(key, text)
            let report = SceneLoader.check(Data(json.utf8), file: "probe.json")
            let ruled = key.rule.map { $0.accepts(value) } ?? true
            let integral = !key.integer || value == value.rounded()
            if let scene = report.scene, report.errors.isEmpty {
                #expect(ruled && integral, "\(key.loaderPath) = \(text) passed though its rule refuses it")
                let timeline = Timeline(scene: scene)
                #expect(timeline.frameCount >= 1 && timeline.frameCount <= SceneLoader.maxFrames,
                        "\(key.loaderPath) = \(text): \(timeline.frameCount) frames")
                for n in [0, timeline.frameCount / 2, timeline.frameCount - 1] {
                    let camera = timeline.camera(at: n)
                    #expect(camera.center.lon.isFinite && camera.center.lat.isFinite && camera.zoom.isFinite,
                            "\(key.loaderPath) = \(text): camera \(camera) at frame \(n)")
                }
            } else {
                #expect(!report.errors.isEmpty)
                // The value's own error, at its position; or (a value its rule takes) another key's
                // rule it breaks, positioned too.
                let own = report.errors.first { $0.path == key.loaderPath }
                if !(ruled && integral) {
                    #expect(own != nil, "\(key.loaderPath) = \(text): \(report.errors.map(\.description))")
                }
                for error in report.errors {
                    #expect(error.line == 1 && error.column > 1, "\(key.loaderPath) = \(text): \(error)")
                }
            }
        }
    }
}
