import Cairo
import Foundation
import MapTripScene
import MapTripTiles

/// A style's sprite: the icons its symbol layers name (`icon-image`), each cut out of the sprite's
/// picture as its own, with its pixel ratio. MapLibre's layout: `<base>.json` lists each icon's
/// rectangle in `<base>.png` (`x`, `y`, `width`, `height`, `pixelRatio`, `sdf`), `<base>@2x.json` and
/// `.png` the same at twice the pixels; the base is the style's `sprite`, a URL or a path relative to
/// the style file (as MapLibre resolves it against the style's URL), or several as `[{"id", "url"}]`,
/// whose icons are named `id:name` (the `default` one's by their name alone).
final class StyleSprite {
    struct Icon {
        let surface: ImageSurface
        /// Sprite pixels per CSS pixel.
        let pixelRatio: Double
        /// A signed distance field (drawn in `icon-color`): maptrip draws it as its alpha, in black.
        let sdf: Bool
        /// Its size in CSS pixels (at icon-size 1).
        var width: Double { Double(surface.width) / pixelRatio }
        var height: Double { Double(surface.height) / pixelRatio }
    }

    /// The icons at pixel ratio 1 and 2 (either may be empty when its files are missing).
    private(set) var icons: [Double: [String: Icon]] = [:]
    /// Why the sprite could not be read (nil: it was, at one ratio at least).
    private(set) var problem: String?

    /// The icon `name` for a frame at pixel ratio `scale`: the @2x sprite's from 1.5 up, when it has it.
    func icon(_ name: String, scale: Double) -> Icon? {
        if scale >= 1.5, let i = icons[2]?[name] { return i }
        return icons[1]?[name] ?? icons[2]?[name]
    }

    var isEmpty: Bool { icons.values.allSatisfy(\.isEmpty) }

    /// The names of its icons (at either ratio): what `["image", name]` finds available.
    private(set) var names: Set<String> = []

    /// Seconds a sprite file over HTTP may take (connecting included), tried once: offline, or with a
    /// server that does not answer, the map is built after at most this wait, its icons left out
    /// (a copy in the tile cache is used when the server cannot be reached).
    static let timeout = 4.0

    /// Reads the sprite `sprite` (the style's value: a URL or path, or a JSON array of `{id, url}`)
    /// of a style file, over HTTP with `http` when it is a URL (see `timeout`).
    init(sprite: String, styleFile: String?, http: HTTPTileOptions) {
        var http = http
        http.timeout = min(http.timeout, Self.timeout)
        http.retries = 0
        let client = HTTPTileClient(options: http)
        var bases: [(id: String, url: String)] = [("default", sprite)]
        if sprite.hasPrefix("["), let list = try? JSONSerialization.jsonObject(with: Data(sprite.utf8)) as? [[String: Any]] {
            bases = list.compactMap { e in (e["id"] as? String).flatMap { id in (e["url"] as? String).map { (id, $0) } } }
        }
        var problems: [String] = []
        for base in bases {
            for ratio in [1.0, 2.0] {
                let suffix = ratio == 2 ? "@2x" : ""
                do {
                    let json = try Self.read(base.url + suffix + ".json", styleFile: styleFile, client: client)
                    let png = try Self.read(base.url + suffix + ".png", styleFile: styleFile, client: client)
                    let cut = try Self.icons(json: json, png: png)
                    for (name, icon) in cut { icons[ratio, default: [:]][base.id == "default" ? name : "\(base.id):\(name)"] = icon }
                } catch let e as Failure where e.unreachable {
                    // The server is not there: its @2x files are not waited for either.
                    if ratio == 1 { problems.append(e.description) }
                    break
                } catch let e as Failure where e.url {
                    if ratio == 1 { problems.append(e.description) }
                } catch {
                    if ratio == 1 { problems.append("its sprite could not be read (\(base.url): \(error))") }
                }
            }
        }
        if isEmpty { problem = problems.first ?? "its sprite could not be read (it lists no icons)" }
        names = Set(icons.values.flatMap(\.keys))
    }

    /// An SDF icon in a colour: its alpha a distance from the outline, the outline at 0.75 (MapLibre's
    /// cut-off), ramped over a tenth either side.
    static func tint(_ sdf: ImageSurface, _ color: Color) throws -> ImageSurface {
        let out = try ImageSurface(width: sdf.width, height: sdf.height)
        sdf.flush()
        out.flush()
        let c = [color.blue, color.green, color.red]
        for y in 0..<sdf.height {
            let from = sdf.data + y * sdf.stride, to = out.data + y * out.stride
            for x in 0..<sdf.width {
                let d = Double(from[4 * x + 3]) / 255
                let a = min(max((d - 0.65) / 0.2, 0), 1) * color.alpha
                for k in 0..<3 { to[4 * x + k] = UInt8((min(max(c[k], 0), 1) * a * 255).rounded()) }
                to[4 * x + 3] = UInt8((a * 255).rounded())
            }
        }
        out.markDirty()
        return out
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// A file over HTTP that could not be fetched (`description` says so, whole).
        var url = false
        /// Its server could not be reached, or did not answer in time.
        var unreachable = false
    }

    /// A sprite file's bytes: a URL's over HTTP (through the tile cache), a path's (relative to the
    /// style's folder) from disk.
    static func read(_ location: String, styleFile: String?, client: HTTPTileClient) throws -> Data {
        let lower = location.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            guard let url = URL(string: location) else { throw Failure(description: "not a URL") }
            switch client.fetchResource(url) {
            case .success(let data): return data
            case .failure(let error):
                var unreachable = false
                switch error {
                case .timeout, .transport: unreachable = true
                default: break
                }
                throw Failure(description: "cannot fetch sprite URL \(location): \(error)", url: true, unreachable: unreachable)
            }
        }
        var path = lower.hasPrefix("file://") ? String(location.dropFirst(7)) : (location as NSString).expandingTildeInPath
        if !path.hasPrefix("/"), let styleFile {
            path = ((styleFile as NSString).deletingLastPathComponent as NSString).appendingPathComponent(path)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "no such file (looked for \(path))")
        }
        return data
    }

    /// The icons a sprite's JSON lists, cut out of its PNG (rectangles outside the picture left out).
    static func icons(json: Data, png: Data) throws -> [String: Icon] {
        guard let list = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw Failure(description: "its JSON is not an object of icons")
        }
        let sheet: ImageSurface
        do { sheet = try ImageSurface(pngData: png) } catch { throw Failure(description: "its PNG could not be read") }
        var out: [String: Icon] = [:]
        for (name, value) in list {
            guard let e = value as? [String: Any], let x = (e["x"] as? NSNumber)?.intValue, let y = (e["y"] as? NSNumber)?.intValue,
                  let w = (e["width"] as? NSNumber)?.intValue, let h = (e["height"] as? NSNumber)?.intValue,
                  x >= 0, y >= 0, w > 0, h > 0, x + w <= sheet.width, y + h <= sheet.height
            else { continue }
            let ratio = (e["pixelRatio"] as? NSNumber)?.doubleValue ?? 1
            let surface = try ImageSurface(width: w, height: h)
            try surface.withContext { cr in
                cr.setOperator(.source)
                cr.setSource(sheet, x: -Double(x), y: -Double(y))
                cr.paint()
            }
            out[name] = Icon(surface: surface, pixelRatio: ratio > 0 && ratio.isFinite ? ratio : 1,
                             sdf: (e["sdf"] as? Bool) ?? false)
        }
        return out
    }
}
