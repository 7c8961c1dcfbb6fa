import Foundation
import MapTripCore
import MapTripOutput
import MapTripRender

/// Writes a poster: one frame of the trip as a JPEG or PNG (atomically: a temporary file renamed).
public enum PosterWriter {
    /// Checks a poster path before rendering: a .jpg/.jpeg/.png, not an input, not a folder.
    public static func check(_ url: URL, inputs: [URL]) throws {
        guard StillImage.Format(path: url.path) != nil else {
            throw OutputError.invalidOption("poster \(url.path): use a .jpg or .png file name")
        }
        for input in inputs where OutputPlan.sameFile(url, input) {
            throw OutputError.wouldOverwriteInput(output: url.path, input: input.path)
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw OutputError.isDirectory(url.path)
        }
        try OutputPlan.createFolder(url.deletingLastPathComponent(), label: url.deletingLastPathComponent().path)
    }

    /// The default poster frame: the first place at rest, the last frame before the first flight
    /// (the last frame for a trip of one place) or, with a title, the last one where the title card
    /// is fully shown (not caught half-faded).
    public static func defaultFrame(_ timeline: Timeline) -> Int {
        let end = timeline.slots.count > 1 ? timeline.slots[1].startFrame : timeline.frameCount
        var n = max(0, end - 1)
        if timeline.hasTitle {
            while n > 0 && timeline.titleOpacity(at: n) < 1 { n -= 1 }
        }
        return n
    }

    /// Draws frame `time` (seconds; nil: `defaultFrame`) and writes it to `url`.
    public static func write(scene: Scene, renderer: FrameRenderer, timeline: Timeline, time: Double?,
                             to url: URL) throws {
        let n = time.map { min(timeline.frameCount - 1, max(0, Int(($0 * Double(timeline.fps)).rounded()))) }
            ?? defaultFrame(timeline)
        try renderer.render(timeline.state(at: n), into: 0)
        let surface = renderer.surfaces[0]
        let data = try StillImage.encode(bgra: surface.data, stride: surface.stride, width: surface.width,
                                         height: surface.height, format: StillImage.Format(path: url.path) ?? .jpeg,
                                         transparent: scene.background == .transparent)
        try data.write(to: url, options: .atomic)
    }
}
