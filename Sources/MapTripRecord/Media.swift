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

    public var description: String { diagnostics[0].description }
    public var errorDescription: String? { description }

    /// `scene: places[2].photo: cannot use 'x.png': reason (use a PNG, JPEG or WebP image, or fix the path)`.
    public var diagnostics: [Diagnostic] {
        [Diagnostic(message: "cannot use '\(file)': \(reason)", file: scene, path: path,
                    hint: "use a PNG, JPEG or WebP image, or fix the path")]
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

    private func decodeProblem(_ url: URL) -> (message: String, hint: String?)? {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { return (error.localizedDescription, "check its permissions") }
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
        return media
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
