import Foundation
import MapTripScene
import MapTripStyle
import MapTripSupport
import MapTripTiles

/// The MapLibre style maptrip draws OpenMapTiles vector tiles with when a scene gives a theme rather
/// than a style file: `Assets/styles/openmaptiles.json`, its `@` words filled in from the scene's
/// style (its land, sea, borders, labels and font), so that streets take the look of the rest of
/// the video.
public enum ThemeStyles {
    /// The template's file under the assets folder.
    public static func template(assets: URL) -> URL {
        assets.appendingPathComponent("styles/openmaptiles.json")
    }

    /// The template's text with the theme's colours and font in place of its `@` words.
    public static func text(template: String, style: Style) -> String {
        let land = style.land, water = style.lakes
        let dark = land.luminance < 0.35
        let white = Color(red: 1, green: 1, blue: 1), black = Color(red: 0, green: 0, blue: 0)
        let warm = Color(red: 0.99, green: 0.84, blue: 0.52)
        let green = Color(red: 0.55, green: 0.75, blue: 0.45)
        let words: [(String, Color)] = [
            ("@land", land),
            ("@water", water),
            ("@park", land.mixed(with: green, dark ? 0.18 : 0.28)),
            ("@residential", land.mixed(with: dark ? white : black, 0.03)),
            ("@building", land.mixed(with: dark ? white : black, dark ? 0.12 : 0.1)),
            ("@roadCasing", land.mixed(with: black, dark ? 0.35 : 0.16)),
            ("@road", dark ? land.mixed(with: white, 0.22) : white),
            ("@majorCasing", dark ? land.mixed(with: black, 0.4) : land.mixed(with: Color(red: 0.6, green: 0.45, blue: 0.2), 0.45)),
            ("@major", dark ? land.mixed(with: warm, 0.35) : white.mixed(with: warm, 0.55)),
            ("@rail", land.mixed(with: dark ? white : black, 0.4)),
            ("@border", style.borders.color),
            ("@waterLabel", water.mixed(with: dark ? white : black, 0.55)),
            ("@labelHalo", style.label.halo),
            ("@label", style.label.color),
        ]
        var text = template.replacingOccurrences(of: "@theme", with: style.theme)
        // Longer words first: "@majorCasing" before "@major".
        for (word, color) in words.sorted(by: { $0.0.count > $1.0.count }) {
            text = text.replacingOccurrences(of: "\"\(word)\"", with: "\"\(color.cssString)\"")
        }
        return text.replacingOccurrences(of: "@font", with: style.font)
    }

    /// The style for a scene's theme, checked like a style file.
    public static func document(assets: URL, style: Style) throws -> StyleDocument {
        let (data, file) = try json(assets: assets, style: style)
        return try StyleDocument(data: data, file: file)
    }

    /// The style JSON for a scene's theme, and the template it is made from.
    static func json(assets: URL, style: Style) throws -> (data: Data, file: String) {
        let url = template(assets: assets)
        let template = try String(contentsOf: url, encoding: .utf8)
        return (Data(text(template: template, style: style).utf8), url.path)
    }
}

extension Color {
    /// Relative luminance (sRGB, as WCAG defines it), 0 for black to 1 for white.
    var luminance: Double {
        func linear(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }
}

/// The styled map a scene's `map` asks for: its vector tiles (`map.tiles`) drawn with `map.style`, a
/// MapLibre GL style file (relative to the scene) or a theme's name; without one, with the scene's
/// theme (its colours and font, overrides included). Every vector source of the style is served by
/// the scene's tiles; a raster source of the style is drawn from the tiles its `tiles` list names
/// (or its `url`, an `mbtiles://` or `pmtiles://` one).
public enum StyledMaps {
    public static func make(tiles: TileSource, map: MapSource, scene: Scene, sceneDirectory: URL, assets: URL,
                            http: HTTPTileOptions = HTTPTileOptions(),
                            caching: MapCaching = MapCaching(cachesRasters: false, holdsStills: false)) throws -> StyledMap {
        let document: StyleDocument
        var styleFile: String?
        // The style's JSON as read: what the drawn tile cache's tiles are drawn from (`StyledMap.tileRecipe`).
        let json: Data
        if let name = map.style, !Style.themes.contains(name) {
            var path = (name as NSString).expandingTildeInPath
            if !path.hasPrefix("/") { path = sceneDirectory.appendingPathComponent(path).path }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Diagnostic.error("map.style: no such style file (looked for \(path))",
                                       hint: "give a MapLibre GL style JSON file, or a theme: " + Style.themes.joined(separator: ", "))
            }
            document = try StyleDocument(data: data, file: path)
            styleFile = path
            json = data
        } else {
            var style = scene.style
            if let name = map.style, name != style.theme, let theme = Style.theme(name) { style = theme }
            let theme = try ThemeStyles.json(assets: assets, style: style)
            document = try StyleDocument(data: theme.data, file: theme.file)
            json = theme.data
        }
        let set = StyledTiles(set: try VectorTileSet(source: tiles))
        var vector: [String: StyledTiles] = [:]
        var raster: [String: TileBaseMap] = [:]
        for (name, source) in document.sources {
            switch source.type {
            case "vector":
                vector[name] = set
            case "raster":
                guard let url = source.tiles.first ?? source.url.flatMap(tiles(url:)) else { continue }
                let rasterSource = try TileSources.make(MapSource(tiles: url, attribution: source.attribution,
                                                                  tileSize: source.tileSize == 512 ? 512 : 256),
                                                        http: http, sceneDirectory: sceneDirectory)
                raster[name] = TileBaseMap(source: rasterSource, attribution: source.attribution)
            default:
                continue
            }
        }
        let styled = StyledMap(style: document, vectorSources: vector, rasterMaps: raster, attribution: map.attribution,
                               caching: caching, styleIdentity: "\(json.count):\(CacheKeys.fnv1a([UInt8](json)))")
        // Icons: the sprite read once, if a layer names icons (without it, labels are drawn alone).
        if document.layers.contains(where: { $0.type == .symbol && $0.visible && $0.sets("icon-image") }) {
            if let name = document.sprite {
                let sprite = StyleSprite(sprite: name, styleFile: styleFile, http: http)
                if let problem = sprite.problem {
                    styled.labels.spriteProblem = problem
                } else {
                    styled.labels.sprite = sprite
                }
            } else {
                styled.labels.spriteProblem = "the style names no sprite"
            }
        }
        styled.outside = scene.style.polar
        styled.reprojection.polar = scene.style.polar
        styled.reprojection.background = scene.style.polar
        styled.reprojection.space = scene.style.space
        styled.reprojection.atmosphere = scene.style.atmosphere
        return styled
    }

    /// The tiles a raster source's `url` names with MapLibre's protocols for tile files,
    /// `mbtiles://` and `pmtiles://` (a file, relative to the scene, or a PMTiles URL); nil for a
    /// TileJSON URL, which is not read.
    static func tiles(url: String) -> String? {
        ["mbtiles://", "pmtiles://"].first { url.lowercased().hasPrefix($0) }.map { String(url.dropFirst($0.count)) }
    }
}
