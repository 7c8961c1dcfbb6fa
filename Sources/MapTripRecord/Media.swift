import Cairo
import Foundation
import MapTripSupport
import MapTripScene
import MapTripRender
import MapTripTiles
import Rsvg
import FFmpeg

/// A picture the scene names that cannot be used: which, where in the scene, and why.
public struct MediaError: Error, CustomStringConvertible, LocalizedError, DiagnosticConvertible {
    public let scene: String
    /// JSON path (`places[2].photo`).
    public let path: String
    public let file: String
    public let reason: String
    /// The file is a video (a clip, the presenter).
    public var video = false

    public init(scene: String, path: String, file: String, reason: String, video: Bool = false) {
        self.scene = scene
        self.path = path
        self.file = file
        self.reason = reason
        self.video = video
    }

    public var description: String { diagnostics[0].description }
    public var errorDescription: String? { description }

    /// `scene: places[2].photo: cannot use 'x.png': reason (use a PNG, JPEG or WebP image, or fix the path)`.
    public var diagnostics: [Diagnostic] {
        [Diagnostic(message: "cannot use '\(file)': \(reason)", file: scene, path: path,
                    hint: video ? "use a video file libavformat reads, or fix the path" : "use a PNG, JPEG or WebP image, or fix the path")]
    }
}

/// The loader's check of the pictures a scene names: each decoded as a render decodes it (strictly:
/// a JPEG cut short is an error), so `validate` and the start of a render say what is wrong with a
/// picture where the scene names it. One check serves one load: a file several places name (a
/// vehicle image) is decoded once.
public final class SceneImageCheck: ImageChecking, @unchecked Sendable {
    private let lock = NSLock()
    private var found: [URL: (message: String, hint: String?)?] = [:]

    public init() {}

    public func problem(with url: URL) -> (message: String, hint: String?)? {
        let key = url.standardizedFileURL
        if let known = lock.withLock({ found[key] }) { return known }
        let problem = decodeProblem(key)
        lock.withLock { found[key] = .some(problem) }
        return problem
    }

    public func video(at url: URL) -> VideoCheck? {
        let key = url.standardizedFileURL
        if let known = lock.withLock({ videos[key] }) { return known }
        let found = VideoClip.check(key)
        lock.withLock { videos[key] = found }
        return found
    }

    private var videos: [URL: VideoCheck] = [:]

    private func decodeProblem(_ url: URL) -> (message: String, hint: String?)? {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { return (error.localizedDescription, "check its permissions") }
        if url.pathExtension.lowercased() == "svg" {
            // Parsed as the render parses it (a watermark).
            do {
                _ = try SVGDocument(data: data)
                return nil
            } catch {
                return ("\(error)", "fix the SVG, or use a PNG, JPEG or WebP image")
            }
        }
        do {
            _ = try StandardTileDecoder(strict: true).decode(data)
            return nil
        } catch let error as TileDecodeError {
            return (error.message, nil)  // too large (it says what to do), or not a picture
        } catch {
            // Cairo 1.16 calls every libpng error "out of memory", which it is not: left unsaid.
            let kind = ImageKind(magic: data).map { $0.rawValue.uppercased() } ?? "picture"
            let said = error is CairoError ? "" : " (\((error as? FFmpegError)?.message ?? "\(error)"))"
            return ("the \(kind) is damaged or cut short\(said)",
                    "open it in an image editor and save it again, or use another picture")
        }
    }
}

extension SceneMedia {
    /// Decodes every picture the scene names before the first frame: photos (scaled once to the
    /// size they are shown at in frames of `format`; nil: the scene's own), vehicle icons (from
    /// `assets/icons`) and vehicle images.
    public static func load(for scene: Scene, format: FrameFormat? = nil, sceneFile: URL, assets: URL) throws -> SceneMedia {
        let directory = sceneFile.deletingLastPathComponent()
        let format = format ?? scene.video.format
        let layout = FrameLayout(width: format.width, height: format.height, safeZone: scene.video.safeZone)
        var media = SceneMedia()
        var icons: [BuiltInVehicle: SVGDocument] = [:]
        var images: [String: ImageSurface] = [:]
        /// A vehicle's picture, each icon and image decoded once (nil: none); `path` names it in the scene.
        func art(_ vehicle: Vehicle, path: String) throws -> VehicleArt? {
            switch vehicle {
            case .none:
                return nil
            case .icon(let kind):
                if let icon = icons[kind] { return .svg(icon) }
                let url = assets.appendingPathComponent("icons/\(kind.rawValue).svg")
                do {
                    icons[kind] = try SVGDocument(data: VehicleIcons.themed(Data(contentsOf: url), style: scene.style))
                } catch {
                    throw MediaError(scene: sceneFile.relativePath, path: path, file: url.path, reason: "\(error)")
                }
                return icons[kind].map(VehicleArt.svg)
            case .image(let file):
                if images[file] == nil { images[file] = try decode(file, relativeTo: directory, scene: sceneFile, path: path) }
                return images[file].map(VehicleArt.image)
            }
        }
        for (i, place) in scene.places.enumerated() {
            let placePath = "places[\(i)]"
            if let photo = place.photo {
                let image = try decode(photo, relativeTo: directory, scene: sceneFile, path: placePath + ".photo")
                media.photos[i] = try fitted(image, layout: layout)
            }
            let path = place.vehicle == nil ? "vehicle" : placePath + ".vehicle"
            media.vehicles[i] = try art(scene.vehicle(into: i), path: path)
        }
        for (i, track) in scene.tracks.enumerated() {
            media.movers[i] = try art(track.vehicle, path: "tracks[\(i)].vehicle")
        }
        for (k, photo) in (scene.photos?.photos ?? []).enumerated() {
            let image = try decode(photo.file, relativeTo: directory, scene: sceneFile, path: "photos")
            media.trackPhotos[k] = try fitted(upright(image, orientation: photo.orientation), layout: layout)
        }
        // Videos are opened (their first picture decoded) now; their frames are decoded as drawn.
        for (i, place) in scene.places.enumerated() {
            guard let clip = place.clip else { continue }
            media.clips[i] = try VideoClip.open(clip.file, relativeTo: directory, scene: sceneFile, path: "places[\(i)].clip") { aspect in
                let box = layout.photoBox(aspect: aspect), border = layout.size(10)
                return (box.maxX - box.minX - 2 * border, box.maxY - box.minY - 2 * border)
            }
        }
        if let presenter = scene.presenter {
            media.presenter = try VideoClip.open(presenter.file, relativeTo: directory, scene: sceneFile, path: "presenter.file") { aspect in
                let presented = FrameLayout(width: format.width, height: format.height, safeZone: scene.video.safeZone,
                                            presenter: presenter)
                guard let box = presented.presenter else { return (1, 1) }
                // Covering the box inside its ring: a wide picture as high as it, a tall one as wide.
                let w = box.maxX - box.minX - 2 * presented.presenterRing, h = box.maxY - box.minY - 2 * presented.presenterRing
                return w / h > aspect ? (w, w / aspect) : (h * aspect, h)
            }
        }
        if let mark = scene.furniture.watermark {
            media.watermark = try watermark(mark, layout: layout, directory: directory, sceneFile: sceneFile)
        }
        return media
    }

    /// The watermark drawn at the size it is shown (`FrameLayout.watermarkSize`): an SVG rendered there,
    /// a picture scaled there once.
    static func watermark(_ mark: Furniture.Watermark, layout: FrameLayout, directory: URL, sceneFile: URL) throws -> ImageSurface {
        let path = "watermark"
        if (mark.file as NSString).pathExtension.lowercased() == "svg" {
            let url = URL(fileURLWithPath: mark.file, relativeTo: directory)
            do {
                if let reason = FileKind(path: url.path).notAFile { throw MediaError(scene: sceneFile.relativePath, path: path, file: mark.file, reason: reason) }
                let svg = try SVGDocument(data: Data(contentsOf: url))
                let size = svg.intrinsicSize ?? (1, 1)
                let (w, h) = FrameLayout.watermarkSize(mark, aspect: size.width / max(size.height, 1e-9), layout: layout)
                let out = try ImageSurface(width: Int(w), height: Int(h))
                try out.withContext { cr in try svg.render(in: cr, x: 0, y: 0, width: w, height: h) }
                out.flush()
                return out
            } catch let error as MediaError {
                throw error
            } catch {
                let reason = FileManager.default.fileExists(atPath: url.path) ? "\(error)" : "no such file"
                throw MediaError(scene: sceneFile.relativePath, path: path, file: mark.file, reason: reason)
            }
        }
        let image = try decode(mark.file, relativeTo: directory, scene: sceneFile, path: path)
        let (w, h) = FrameLayout.watermarkSize(mark, aspect: Double(image.width) / Double(image.height), layout: layout)
        return try scaled(image, width: Int(w), height: Int(h))
    }

    static func decode(_ name: String, relativeTo directory: URL, scene: URL, path: String) throws -> ImageSurface {
        let url = URL(fileURLWithPath: name, relativeTo: directory)
        // Never opened unless a regular file: a FIFO would block the render beyond Ctrl-C.
        if let reason = FileKind(path: url.path).notAFile {
            throw MediaError(scene: scene.relativePath, path: path, file: name, reason: reason)
        }
        do {
            let data = try Data(contentsOf: url)
            return try StandardTileDecoder(strict: true).decode(data)
        } catch {
            let reason = FileManager.default.fileExists(atPath: url.path) ? "\(error)" : "no such file"
            throw MediaError(scene: scene.relativePath, path: path, file: name, reason: reason)
        }
    }

    /// The photo at the size of its card (a 24-megapixel photo is not rescaled every frame).
    static func fitted(_ image: ImageSurface, layout: FrameLayout) throws -> ImageSurface {
        let box = layout.photoBox(aspect: Double(image.width) / Double(image.height))
        let w = max(1, Int((box.maxX - box.minX).rounded())), h = max(1, Int((box.maxY - box.minY).rounded()))
        guard w < image.width || h < image.height else { return image }
        return try scaled(image, width: w, height: h)
    }

    /// `image` turned and mirrored as its EXIF Orientation says (1: as stored; 5 to 8 swap its sides).
    static func upright(_ image: ImageSurface, orientation: Int) throws -> ImageSurface {
        guard (2...8).contains(orientation) else { return image }
        let w = Double(image.width), h = Double(image.height)
        let swaps = orientation >= 5
        let out = try ImageSurface(width: swaps ? image.height : image.width, height: swaps ? image.width : image.height)
        try out.withContext { cr in
            // Stored pixel (x, y) to its place in the upright picture.
            switch orientation {
            case 2: cr.translate(w, 0); cr.scale(-1, 1)
            case 3: cr.translate(w, h); cr.rotate(.pi)
            case 4: cr.translate(0, h); cr.scale(1, -1)
            case 5: cr.rotate(-.pi / 2); cr.scale(-1, 1)
            case 6: cr.translate(h, 0); cr.rotate(.pi / 2)
            case 7: cr.translate(h, w); cr.rotate(.pi / 2); cr.scale(-1, 1)
            default: cr.translate(0, w); cr.rotate(-.pi / 2)
            }
            cr.setSource(image, x: 0, y: 0)
            cr.paint()
        }
        out.flush()
        return out
    }

    /// `image` scaled to `width` x `height` pixels.
    static func scaled(_ image: ImageSurface, width w: Int, height h: Int) throws -> ImageSurface {
        if image.width == w && image.height == h { return image }
        let out = try ImageSurface(width: w, height: h)
        try out.withContext { cr in
            cr.scale(Double(w) / Double(image.width), Double(h) / Double(image.height))
            cr.setSource(image, x: 0, y: 0)
            cr.setSourceFilter(.best)
            cr.setSourceExtendPad()
            cr.paint()
        }
        out.flush()
        return out
    }
}

/// A video the scene names, played by time through a `ClipPlayer` at the size it is shown, behind a
/// lock (frames may be drawn from several threads); its pictures are made once per frame of the file
/// and the last one kept.
final class VideoClip: ClipFrames, @unchecked Sendable {
    let aspect: Double
    private let player: ClipPlayer
    private let lock = NSLock()
    private var last: (picture: BGRAImage, surface: ImageSurface)?

    init(player: ClipPlayer) {
        self.player = player
        aspect = Double(player.width) / Double(player.height)
    }

    func picture(at seconds: Double) throws -> ImageSurface {
        try lock.withLock {
            let image = try player.image(at: seconds)
            if let last, last.picture == image { return last.surface }
            let surface = try image.pixels.withUnsafeBytes {
                try ImageSurface(width: image.width, height: image.height, bgra: $0, stride: image.stride)
            }
            last = (image, surface)
            return surface
        }
    }

    /// Opens `name` (relative to `directory`) to be shown at the size `size` gives for its aspect (as
    /// displayed); a file that cannot be played is a `MediaError` at `path`.
    static func open(_ name: String, relativeTo directory: URL, scene: URL, path: String,
                     size: (Double) -> (Double, Double)) throws -> VideoClip {
        let url = URL(fileURLWithPath: name, relativeTo: directory)
        func failure(_ reason: String) -> MediaError {
            MediaError(scene: scene.relativePath, path: path, file: name, reason: reason, video: true)
        }
        if let reason = FileKind(path: url.path).notAFile { throw failure(reason) }
        guard FileManager.default.fileExists(atPath: url.path) else { throw failure("no such file") }
        if case .problem(let message, _) = check(url) { throw failure(message) }
        do {
            let info = try VideoReader(path: url.path).info
            let shown = ClipPlayer.displaySize(info)
            let (w, h) = size(Double(shown.width) / Double(max(1, shown.height)))
            let player = try ClipPlayer(path: url.path, width: max(2, Int(w.rounded())), height: max(2, Int(h.rounded())))
            return VideoClip(player: player)
        } catch {
            throw failure("\((error as? FFmpegError)?.message ?? "\(error)")")
        }
    }

    /// What the scene's check says of a video: its size as shown, length and sound, or what is wrong
    /// (no video stream, damaged, a rotation tag that is not a quarter turn, no picture decoded). Only
    /// the file's header and first picture are read, however long it is.
    static func check(_ url: URL) -> VideoCheck {
        let reader: VideoReader
        do {
            reader = try VideoReader(path: url.path)
        } catch let error as FFmpegError where error.code == FFmpegError.streamNotFound {
            return .problem(message: "has no video stream", hint: "give a file with pictures; this one may be sound only")
        } catch let error as FFmpegError where error.code == FFmpegError.decoderNotFound {
            return .problem(message: "is in a video format this FFmpeg cannot decode (\(error.message))",
                            hint: "convert it, e.g. ffmpeg -i IN -c:v libx264 OUT.mp4")
        } catch {
            let said = (error as? FFmpegError)?.message ?? "\(error)"
            return .problem(message: "cannot be read as a video (\(said))",
                            hint: "it may be damaged or cut short: play it, or convert it again")
        }
        if let problem = ClipPlayer.rotationProblem(reader.info) {
            return .problem(message: problem, hint: "turn it with ffmpeg -i IN -vf transpose=1 OUT.mp4, or remove the tag")
        }
        do {
            guard try reader.nextFrame() != nil else {
                return .problem(message: "holds no picture that decodes", hint: "it may be damaged or cut short: play it, or convert it again")
            }
        } catch {
            let said = (error as? FFmpegError)?.message ?? "\(error)"
            return .problem(message: "is damaged: its first picture does not decode (\(said))",
                            hint: "it may be damaged or cut short: play it, or convert it again")
        }
        let shown = ClipPlayer.displaySize(reader.info)
        return .facts(VideoFacts(width: shown.width, height: shown.height, duration: reader.info.duration,
                                 hasSound: reader.info.hasAudio))
    }
}
