import FFmpeg
import Foundation
import MapTripGeometry
@testable import MapTripRecord
import MapTripRender
import MapTripScene
import MapTripSupport
import MapTripTime
import TestBasics
import Testing

/// Clips in place cards and the presenter (#57, the picture side): the player picks frames by their
/// timestamps, reads only what it shows of a long file, turns pictures as their tags say; renders
/// show the clip's own frame in the card and the presenter's in its corner, at the right times only,
/// through every output path.
@Suite("clips and the presenter", .serialized)
struct ClipTests {
    // MARK: The player

    @Test func playerShowsTheFrameWhoseTimestampCoversTheTime() throws {
        try Trip.withDirectory("clip-player") { dir in
            let url = dir.appendingPathComponent("c.mp4")
            try TestClips.write(url, width: 64, height: 48, fps: 25, frames: 50)
            guard let reference = try TestClips.ffmpegFrames(url, width: 64, height: 48) else { return }
            #expect(reference.count == 50)
            let player = try ClipPlayer(path: url.path, width: 64, height: 48)
            func expected(_ t: Double) -> Int { min(49, max(0, Int((t * 25 + 1e-6).rounded(.down)))) }
            // In order, at a 30 fps trip's frames: every frame decoded once, no seek.
            for n in 0..<66 {
                let t = Double(n) / 30
                let p = TestClips.psnr(try player.image(at: t), reference[expected(t)])
                #expect(p > 35, "t \(t): PSNR \(p) dB against frame \(expected(t))")
            }
            #expect(player.seeks == 0)
            #expect(player.framesDecoded <= 50)
            // Out of order (seeded): backwards and far ahead seek, and still give the frame of the time.
            var rng = SplitMix64(seed: 57)
            for _ in 0..<20 {
                let t = Double.random(in: -0.5...2.5, using: &rng)
                let p = TestClips.psnr(try player.image(at: t), reference[expected(t)])
                #expect(p > 35, "t \(t): PSNR \(p) dB against frame \(expected(t))")
            }
            // Past the end: the last frame held.
            #expect(TestClips.psnr(try player.image(at: 60), reference[49]) > 35)
        }
    }

    @Test func aTenHourClipCostsWhatItShows() throws {
        try Trip.withDirectory("clip-long") { dir in
            // 11 frames an hour apart: a file that lasts 10 hours.
            let url = dir.appendingPathComponent("long.mp4")
            try TestClips.write(url, width: 32, height: 32, fps: 1, frames: 11, ptsStep: 3600, gopSeconds: 1)
            guard case .facts(let facts) = VideoClip.check(url) else {
                Issue.record("the check refused a 10-hour clip")
                return
            }
            #expect((facts.duration ?? 0) > 36_000)
            let player = try ClipPlayer(path: url.path, width: 32, height: 32)
            let image = try player.image(at: 5 * 3600 + 10)
            let c = TestClips.color(5), px = image.pixel(x: 24, y: 24)
            #expect(abs(Int(px.r) - Int(c.r)) < 12 && abs(Int(px.g) - Int(c.g)) < 12 && abs(Int(px.b) - Int(c.b)) < 12,
                    "\(px) is not frame 5's \(c)")
            // Straight to hour 5: a seek, and only the frames about it decoded.
            #expect(player.seeks == 1)
            #expect(player.framesDecoded <= 4, "\(player.framesDecoded) frames decoded")
        }
    }

    @Test(arguments: [90.0, 180, 270])
    func aRotationTagTurnsThePictureAsFFmpegDoes(degrees: Double) throws {
        try Trip.withDirectory("clip-rotation") { dir in
            let url = dir.appendingPathComponent("r.mp4")
            try TestClips.write(url, width: 64, height: 32, fps: 10, frames: 3, rotation: degrees)
            let info = try VideoReader(path: url.path).info
            #expect(abs(info.rotation - degrees) < 0.01)
            let shown = ClipPlayer.displaySize(info)
            #expect(degrees == 180 ? shown == (64, 32) : shown == (32, 64))
            let player = try ClipPlayer(path: url.path, width: shown.width, height: shown.height)
            let image = try player.image(at: 0.15)
            // ffmpeg's command turns it by the tag too (autorotate).
            guard let reference = try TestClips.ffmpegFrames(url, width: shown.width, height: shown.height) else { return }
            #expect(TestClips.psnr(image, reference[1]) > 30)
            // The white square of the top-left corner went round with it.
            let (w, h) = (shown.width, shown.height)
            let corner = degrees == 90 ? (w - 3, 2) : degrees == 180 ? (w - 3, h - 3) : (2, h - 3)
            #expect(image.pixel(x: corner.0, y: corner.1).r > 230 && image.pixel(x: corner.0, y: corner.1).b > 230)
        }
    }

    @Test func theCheckSaysWhatIsWrongWithAVideo() throws {
        try Trip.withDirectory("clip-check") { dir in
            let good = dir.appendingPathComponent("good.mp4")
            try TestClips.write(good, width: 32, height: 32, fps: 10, frames: 5)
            #expect(VideoClip.check(good) == .facts(VideoFacts(width: 32, height: 32, duration: 0.5, hasSound: false)))
            let odd = dir.appendingPathComponent("odd.mp4")
            try TestClips.write(odd, width: 32, height: 32, fps: 10, frames: 2, rotation: 45)
            guard case .problem(let message, _) = VideoClip.check(odd) else {
                Issue.record("a 45-degree tag passed")
                return
            }
            #expect(message.contains("turning the picture 45 degrees"))
            let cut = dir.appendingPathComponent("cut.mp4")
            let bytes = try Data(contentsOf: good)
            try bytes.suffix(bytes.count * 2 / 3).write(to: cut)
            guard case .problem(let cutMessage, _) = VideoClip.check(cut) else {
                Issue.record("a headless MP4 passed")
                return
            }
            #expect(cutMessage.hasPrefix("cannot be read as a video"))
        }
    }

    // MARK: Renders

    /// A trip of three places at 30 fps, the middle one's card playing a 25 fps clip from 0.4 s; a
    /// 24 fps presenter (rounded, bottom-right) during the middle place's slot only.
    static let sceneJSON = """
    { "video": { "width": 640, "height": 360, "fps": 30 }, "opening": false, "closing": false, "flight": 0.5,
      "presenter": { "file": "me.mp4", "corner": "bottom-right", "size": 0.3, "shape": "rounded", "places": ["Berlin"], "from": 0.25 },
      "places": [
        { "name": "Paris", "lat": 48.8566, "lon": 2.3522, "zoom": 5, "dwell": 1 },
        { "name": "Berlin", "lat": 52.52, "lon": 13.405, "zoom": 5, "dwell": 2.5, "clip": "clip.mp4", "from": 0.4 },
        { "name": "Vienna", "lat": 48.2082, "lon": 16.3738, "zoom": 5, "dwell": 1 }
      ] }
    """

    struct Rendered {
        var frames: [BGRAImage]
        var scene: Scene
        var timeline: Timeline
        var clip: [BGRAImage]
        var presenter: [BGRAImage]
        var card: (x0: Int, y0: Int, x1: Int, y1: Int)
        var corner: (x0: Int, y0: Int, x1: Int, y1: Int)
    }

    /// Renders the scene to `output` (through the CLI) and decodes it with the project's reader; the
    /// clip and presenter decoded by ffmpeg's command at the sizes they show at. Nil without ffmpeg.
    static func render(_ dir: URL, output: String = "out.mp4", environment: [String] = [], more: [String] = []) throws -> Rendered? {
        try Data(sceneJSON.utf8).write(to: dir.appendingPathComponent("scene.json"))
        let clipURL = dir.appendingPathComponent("clip.mp4"), meURL = dir.appendingPathComponent("me.mp4")
        if !FileManager.default.fileExists(atPath: clipURL.path) {
            try TestClips.write(clipURL, width: 160, height: 90, fps: 25, frames: 75)
            try TestClips.write(meURL, width: 120, height: 90, fps: 24, frames: 120)
        }
        let result = try CLIProcess.run(["render", "scene.json", "-o", output, "-q"] + more, in: dir, timeout: 300,
                                        prefix: environment.isEmpty ? [] : ["/usr/bin/env"] + environment)
        #expect(result.status == 0, "\(result)")
        let scene = try SceneLoader.load(contentsOf: dir.appendingPathComponent("scene.json"), images: SceneImageCheck())
        let timeline = Timeline(scene: scene)
        let layout = FrameLayout(width: 640, height: 360, safeZone: .standard, presenter: scene.presenter)
        let presenterBox = try #require(layout.presenter)
        let box = layout.photoBox(aspect: 160.0 / 90.0, clearOf: presenterBox)
        let border = layout.size(10)
        // The card's picture, less 3 pixels at each edge (its rounding and the codec's edges).
        let card = (Int((box.minX + border).rounded()) + 3, Int((box.minY + border).rounded()) + 3,
                    Int((box.maxX - border).rounded()) - 3, Int((box.maxY - border).rounded()) - 3)
        // The presenter's picture inside its ring, less its rounded corners (8 pixels in).
        let corner = (Int(presenterBox.minX) + 8, Int(presenterBox.minY) + 8, Int(presenterBox.maxX) - 8, Int(presenterBox.maxY) - 8)
        let frames = try Trip.decode(dir.appendingPathComponent(output)).frames
        // The references: the card's picture spans the box inside its frame; the presenter's covers
        // the box inside its ring (a 4:3 picture in a 4:3 box: the whole picture).
        let cardW = Int((box.maxX - box.minX - 2 * border).rounded()), cardH = Int((box.maxY - box.minY - 2 * border).rounded())
        let inner = Self.presenterPicture(presenterBox, ring: layout.presenterRing, aspect: 120.0 / 90.0)
        guard let clip = try TestClips.ffmpegFrames(clipURL, width: cardW, height: cardH),
              let me = try TestClips.ffmpegFrames(meURL, width: inner.w, height: inner.h) else { return nil }
        return Rendered(frames: frames, scene: scene, timeline: timeline, clip: clip, presenter: me, card: card, corner: corner)
    }

    /// The presenter's picture as drawn: covering the box inside its ring, centred on whole pixels.
    static func presenterPicture(_ box: Box, ring: Double, aspect: Double) -> (w: Int, h: Int, x: Int, y: Int) {
        let w = box.maxX - box.minX - 2 * ring, h = box.maxY - box.minY - 2 * ring
        let (pw, ph) = w / h > aspect ? (w, w / aspect) : (h * aspect, h)
        let iw = max(2, Int(pw.rounded())), ih = max(2, Int(ph.rounded()))
        return (iw, ih, Int(((box.minX + box.maxX) / 2 - Double(iw) / 2).rounded()),
                Int(((box.minY + box.maxY) / 2 - Double(ih) / 2).rounded()))
    }

    /// The card's region of frame `n`, and the same region of the clip's frame `k` placed as the card
    /// places it.
    static func cardRegions(_ r: Rendered, frame n: Int, clipFrame k: Int, box: Box, border: Double) -> (BGRAImage, BGRAImage) {
        let shown = TestClips.crop(r.frames[n], r.card.x0, r.card.y0, r.card.x1, r.card.y1)
        let ox = Int((box.minX + border).rounded()), oy = Int((box.minY + border).rounded())
        let reference = TestClips.crop(r.clip[k], r.card.x0 - ox, r.card.y0 - oy, r.card.x1 - ox, r.card.y1 - oy)
        return (shown, reference)
    }

    @Test func theCardShowsTheClipsOwnFrameAtEachTimeAndOnlyThen() throws {
        try Trip.withDirectory("clip-render") { dir in
            guard let r = try Self.render(dir) else { return }
            let window = try #require(r.timeline.clipWindows[1])
            let start = Int((window.lowerBound * 30).rounded()), end = Int((window.upperBound * 30).rounded())
            #expect(r.frames.count == r.timeline.frameCount)
            let layout = FrameLayout(width: 640, height: 360, safeZone: .standard, presenter: r.scene.presenter)
            let box = layout.photoBox(aspect: 160.0 / 90.0, clearOf: layout.presenter)
            let fade = Int((Timeline.cardFade * 30).rounded()) + 1
            var changes = 0
            for n in (start + fade)..<(end - fade) {
                // Trip time t shows the clip's frame whose pts covers from + (t - rest start).
                let t = 0.4 + Double(n - start) / 30
                let k = min(74, Int((t * 25 + 1e-6).rounded(.down)))
                let (shown, reference) = Self.cardRegions(r, frame: n, clipFrame: k, box: box, border: layout.size(10))
                let p = TestClips.psnr(shown, reference)
                #expect(p > 30, "frame \(n): PSNR \(p) dB against clip frame \(k)")
                // Not its neighbour: the card changes as the clip does.
                let (_, neighbour) = Self.cardRegions(r, frame: n, clipFrame: k + 1 < 75 ? k + 1 : k - 1, box: box, border: layout.size(10))
                #expect(p > TestClips.psnr(shown, neighbour) + 8, "frame \(n): as near clip frame \(k)'s neighbour")
                if n > start + fade, TestClips.psnr(shown, TestClips.crop(r.frames[n - 1], r.card.x0, r.card.y0, r.card.x1, r.card.y1)) < 30 {
                    changes += 1
                }
            }
            // 25 clip frames a second over a 30 fps trip: the card changes on 5 frames of 6.
            let span = end - 2 * fade - start - 1
            #expect(Double(changes) > 0.7 * Double(span), "\(changes) changes over \(span) frames")
            // Outside the rest: none of the clip's frames in the card.
            for n in [start - 2, 5, end + 2, r.frames.count - 1] {
                let shown = TestClips.crop(r.frames[n], r.card.x0, r.card.y0, r.card.x1, r.card.y1)
                let best = (0..<75).map { k in TestClips.psnr(shown, Self.cardRegions(r, frame: n, clipFrame: k, box: box, border: layout.size(10)).1) }.max()!
                #expect(best < 20, "frame \(n): the card region looks like a clip frame (PSNR \(best) dB)")
            }
        }
    }

    @Test func thePresenterShowsItsFramesInItsCornerDuringItsPlacesOnly() throws {
        try Trip.withDirectory("clip-presenter") { dir in
            guard let r = try Self.render(dir) else { return }
            let track = try #require(r.timeline.presenterTrack)
            #expect(track.windows == [r.timeline.slots[1].startFrame..<r.timeline.slots[1].endFrame])
            let layout = FrameLayout(width: 640, height: 360, safeZone: .standard, presenter: r.scene.presenter)
            let box = try #require(layout.presenter)
            let picture = Self.presenterPicture(box, ring: layout.presenterRing, aspect: 120.0 / 90.0)
            let (ox, oy) = (picture.x, picture.y)
            let c = r.corner
            let fade = Int((Timeline.cardFade * 30).rounded()) + 1
            let w = track.windows[0]
            for n in (w.lowerBound + fade)..<(w.upperBound - fade) {
                let t = 0.25 + Double(n) / 30
                let k = min(119, Int((t * 24 + 1e-6).rounded(.down)))
                let shown = TestClips.crop(r.frames[n], c.x0, c.y0, c.x1, c.y1)
                let reference = TestClips.crop(r.presenter[k], c.x0 - ox, c.y0 - oy, c.x1 - ox, c.y1 - oy)
                let p = TestClips.psnr(shown, reference)
                // 27.3-30 dB measured: the picture is scaled up by a fifth (120x90 to 141x106) by two
                // scalers (swscale's accurate bilinear, ffmpeg's command's default), which differ at
                // the white square's edges; the neighbouring frame is 10 dB and more further off.
                #expect(p > 26, "frame \(n): PSNR \(p) dB against presenter frame \(k)")
                let other = TestClips.crop(r.presenter[k + 1 < 120 ? k + 1 : k - 1], c.x0 - ox, c.y0 - oy, c.x1 - ox, c.y1 - oy)
                #expect(p > TestClips.psnr(shown, other) + 8, "frame \(n): as near presenter frame \(k)'s neighbour")
            }
            for n in [w.lowerBound - 1, 3, w.upperBound, r.frames.count - 1] {
                let shown = TestClips.crop(r.frames[n], c.x0, c.y0, c.x1, c.y1)
                let best = (0..<120).map { k in
                    TestClips.psnr(shown, TestClips.crop(r.presenter[k], c.x0 - ox, c.y0 - oy, c.x1 - ox, c.y1 - oy))
                }.max()!
                #expect(best < 20, "frame \(n): the corner looks like a presenter frame (PSNR \(best) dB)")
            }
        }
    }

    /// Every output path shows the clip, fast paths on and off.
    @Test(arguments: [("out.webm", [String]()), ("out.mov", []), ("out.gif", []), ("off.mp4", ["MAPTRIP_FAST_PATHS=off"])])
    func everyOutputShowsTheClip(output: String, environment: [String]) throws {
        try Trip.withDirectory("clip-outputs") { dir in
            // A GIF is made at 15 fps (its default): its own timeline.
            let gif = output.hasSuffix(".gif")
            let fps = gif ? 15 : 30
            guard let r = try Self.render(dir, output: output, environment: environment, more: gif ? ["--width", "640"] : []) else { return }
            let timeline = Timeline(scene: r.scene, format: FrameFormat(width: 640, height: 360, fps: fps))
            #expect(r.frames.count == timeline.frameCount, "\(output): \(r.frames.count) frames")
            let window = try #require(timeline.clipWindows[1])
            let start = Int((window.lowerBound * Double(fps)).rounded())
            let layout = FrameLayout(width: 640, height: 360, safeZone: .standard, presenter: r.scene.presenter)
            let box = layout.photoBox(aspect: 160.0 / 90.0, clearOf: layout.presenter)
            for n in [start + fps * 2 / 3, start + fps * 4 / 3] where n < r.frames.count {
                let t = 0.4 + Double(n - start) / Double(fps)
                let k = Int((t * 25 + 1e-6).rounded(.down))
                let (shown, reference) = Self.cardRegions(r, frame: n, clipFrame: k, box: box, border: layout.size(10))
                let p = TestClips.psnr(shown, reference)
                #expect(p > (gif ? 18 : 30), "\(output) frame \(n): PSNR \(p) dB against clip frame \(k)")
            }
        }
    }
}
