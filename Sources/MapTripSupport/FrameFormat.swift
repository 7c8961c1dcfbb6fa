/// The frames a render makes: their size, rate and pixel ratio, and the pixels the drawing writes.
/// Resolved once, before anything is built, from the scene and the output (an output may ask for
/// another width or rate: the same view, more or fewer pixels); the timeline, the renderer and the
/// output are all made from it, and the loaded scene is never changed to carry it.
public struct FrameFormat: Hashable, Sendable, CustomStringConvertible {
    /// What the drawing writes each frame into.
    public enum Pixels: Hashable, Sendable {
        /// Premultiplied BGRA pictures (Cairo's ARGB32), converted by the output if it needs to.
        case bgra
        /// The output's own 8-bit I420 planes (4:2:0, BT.601/709 as the output says), drawn into
        /// straight where the renderer can (a frame composited from rasters, a held picture), through
        /// BGRA bands elsewhere.
        case i420
    }

    public var width: Int
    public var height: Int
    /// Frames per second.
    public var fps: Int
    /// Pixel ratio: logical (web-map) pixels to frame pixels.
    public var scale: Double
    public var pixels: Pixels

    public init(width: Int, height: Int, fps: Int, scale: Double = 1, pixels: Pixels = .bgra) {
        self.width = width
        self.height = height
        self.fps = fps
        self.scale = scale
        self.pixels = pixels
    }

    public var description: String {
        "\(width)x\(height) at \(fps) fps, pixel ratio \(scale), \(pixels == .i420 ? "I420" : "BGRA")"
    }
}
