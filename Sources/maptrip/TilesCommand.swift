import ArgumentParser
import Foundation
import MapTripGeometry
import MapTripRecord
import MapTripRender
import MapTripTiles

/// `maptrip tiles`: renders the embedded base map as a tile pyramid (a `{z}/{x}/{y}.png` folder or
/// an `.mbtiles` file) that any web map, or maptrip's own `map.tiles`, can show.
struct TilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "Render the built-in base map as map tiles: a {z}/{x}/{y}.png folder or an .mbtiles file.",
        discussion: """
            The output is an MBTiles file when its name ends in .mbtiles, otherwise a folder \
            (created if needed; existing tiles are overwritten). An MBTiles file is written under a \
            temporary name and only replaces the destination once complete.
            """)

    @Argument(help: "The output: a folder, or a file ending in .mbtiles.")
    var output: String

    @Option(help: "The shallowest zoom to render.")
    var minZoom: Int = 0

    @Option(help: "The deepest zoom to render.")
    var maxZoom: Int = 5

    @Option(help: "Only tiles touching this box: west,south,east,north in degrees (west > east crosses the antimeridian).")
    var bounds: String?

    @Option(help: "Tile size in pixels: 256, or 512 (each 512-px tile shows what four 256-px tiles of the next zoom show).")
    var tileSize: TileSize = .standard

    @Option(help: "The tile set's name in its metadata (default: the output's name).")
    var name: String?

    @Option(help: "The folder of maptrip's embedded data (default: found beside the program).")
    var assets: String?

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        guard !output.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("the output is empty: name a folder (tiles/) or a file ending in .mbtiles")
        }
        guard minZoom >= 0, maxZoom <= 24, minZoom <= maxZoom else {
            throw ValidationError("need 0 <= --min-zoom <= --max-zoom <= 24 (got \(minZoom) and \(maxZoom))")
        }
        if let bounds, GeoBounds(parsing: bounds) == nil {
            throw ValidationError("--bounds must be west,south,east,north in degrees with south <= north, e.g. 124.5,33,131,38.9 (got '\(bounds)')")
        }
    }

    func run() throws {
        let progress = ProgressLine(enabled: quiet ? false : nil, unit: "tile", rate: "tiles/s")
        let signals = SignalCancellation()
        do {
            let outputURL = URL(fileURLWithPath: output)
            let target = TilePyramidOutput(path: outputURL)
            let options = TilePyramidOptions(
                minZoom: minZoom, maxZoom: maxZoom, bounds: bounds.flatMap(GeoBounds.init(parsing:)) ?? .world,
                tileSize: tileSize.rawValue, name: name ?? outputURL.deletingPathExtension().lastPathComponent)
            let writer = try TilePyramidWriter(baseMap: try makeBaseMap(), options: options)
            let total = writer.tileCount
            let started = Date()
            let summary = try writer.write(to: target) { done, total in
                if let sig = signals.cancellation.signalNumber { throw CancelledError(signal: sig) }
                progress.update(RenderProgress(frame: done, frameCount: total, elapsed: Date().timeIntervalSince(started)),
                                label: "maptrip tiles")
            }
            progress.finish()
            for w in summary.warnings { warn(w) }
            if !quiet {
                let what: String
                switch target {
                case .folder: what = "folder"
                case .mbtiles: what = "MBTiles"
                }
                print(String(format: "wrote %@ (%@): %d tiles, zooms %d-%d, %.1f MB in %.1f s", outputURL.relativePath, what,
                             total, minZoom, maxZoom, Double(summary.bytes) / 1_048_576, Date().timeIntervalSince(started)))
            }
        } catch {
            progress.finish()
            throw fail(error)
        }
    }

    /// The base map the tiles are rendered from: the embedded shapefile map.
    /// INTEGRATION POINT (lead): the one place that builds it; change here for styles, layers or
    /// another BaseMap.
    func makeBaseMap() throws -> BaseMap {
        let assetsURL = try AssetLocator.locate(explicit: assets, environment: ProcessInfo.processInfo.environment)
        return try ShapefileBaseMap(assets: assetsURL)
    }
}
