import Cairo
import Foundation
import MapTripScene
import MapTripTime
import MapTripOutput
import MapTripRender

/// Writes a poster: one frame of the trip as a JPEG or PNG (atomically: a temporary file renamed).
public enum PosterWriter {
    /// Checks a poster path before rendering: a .jpg/.jpeg/.png, not an input, not a folder.
    /// `label` names the picture in the error (a poster, a preview).
    public static func check(_ url: URL, inputs: [URL], label: String = "poster") throws {
        guard StillImage.Format(path: url.path) != nil else {
            throw OutputError.invalidOption("\(label) \(url.path): use a .jpg or .png file name")
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

    /// The frame shown at `time` seconds: the nearest on the frame grid, clamped into the video.
    public static func frame(at time: Double, in timeline: Timeline) -> Int {
        min(timeline.frameCount - 1, max(0, Int((time * Double(timeline.fps)).rounded())))
    }

    /// Draws frame `time` (seconds; nil: `defaultFrame`) and writes it to `url`.
    public static func write(scene: Scene, renderer: FrameRenderer, timeline: Timeline, time: Double?,
                             to url: URL) throws {
        let n = time.map { frame(at: $0, in: timeline) } ?? defaultFrame(timeline)
        try renderer.render(timeline.values(at: n), frame: n, into: 0)
        try write(renderer.surfaces[0], transparent: scene.background == .transparent, to: url)
    }

    /// Encodes a drawn surface as the file name asks (.png, else JPEG) and writes it atomically (a
    /// temporary file renamed onto `url`). `transparent`: keep alpha (PNG only).
    public static func write(_ surface: ImageSurface, transparent: Bool, to url: URL) throws {
        let data = try StillImage.encode(bgra: surface.data, stride: surface.stride, width: surface.width,
                                         height: surface.height, format: StillImage.Format(path: url.path) ?? .jpeg,
                                         transparent: transparent)
        try TemporaryFiles.write(data, to: url)
    }
}
