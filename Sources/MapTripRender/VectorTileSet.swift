import Foundation
import MapTripGeometry
import MapTripStyle
import MapTripTiles
import VectorTile

/// A feature of a vector tile as the styled map draws it: its kind, its parts (rings, lines or
/// points) in tile units, and what the style's expressions read of it (converted once, when the tile
/// is decoded, not per frame).
struct StyledFeature {
    var kind: GeometryType
    var parts: [[(x: Double, y: Double)]]
    var style: StyleFeature
}

/// One decoded vector tile: its layers' features by layer name, and its extent (tile units across).
final class StyledTile: @unchecked Sendable {
    let layers: [String: [StyledFeature]]
    let extent: Double
    /// The features each style layer draws (indices into its source layer's features), by the style
    /// layer's index, for filters that do not read the zoom: worked out once per tile, not once per
    /// raster painted (painting threads share it, under `lock`).
    private var selections: [Int: [Int]] = [:]
    private let lock = NSLock()

    /// The features style layer `index` draws from this tile, made by `select` the first time.
    func selection(_ index: Int, _ select: () -> [Int]) -> [Int] {
        if let held = lock.withLock({ selections[index] }) { return held }
        let made = select()
        lock.withLock { selections[index] = made }
        return made
    }

    init(_ data: VectorTileData) {
        var layers: [String: [StyledFeature]] = [:]
        var extent = 4096.0
        for layer in data.layers {
            extent = Double(layer.extent)
            layers[layer.name, default: []] += layer.features.compactMap { f in
                let kind: GeometryType
                switch f.type {
                case .point: kind = .point
                case .lineString: kind = .lineString
                case .polygon: kind = .polygon
                case .unknown: return nil
                }
                var properties: [String: StyleValue] = [:]
                properties.reserveCapacity(f.properties.count)
                for (k, v) in f.properties { properties[k] = StyledTile.value(v) }
                let parts = f.geometry.map { $0.map { (x: Double($0.x), y: Double($0.y)) } }
                let multi = f.type == .polygon ? f.polygons.count > 1 : f.geometry.count > 1
                let type: GeometryType = switch kind {
                case .point: multi ? .multiPoint : .point
                case .lineString: multi ? .multiLineString : .lineString
                default: multi ? .multiPolygon : .polygon
                }
                return StyledFeature(kind: kind, parts: parts,
                                     style: StyleFeature(properties: properties, id: f.id.map { .number(Double($0)) } ?? .null,
                                                         geometryType: type))
            }
        }
        self.layers = layers
        self.extent = extent
    }

    static func value(_ v: VectorValue) -> StyleValue {
        switch v {
        case .string(let s): .string(s)
        case .double(let d): .number(d)
        case .int(let i): .number(Double(i))
        case .uint(let u): .number(Double(u))
        case .bool(let b): .bool(b)
        }
    }
}

/// A vector tile set as the styled map draws it: the set (`VectorTileSet`: its source, each tile
/// fetched and decoded once) and each tile a render shows in the form the style reads, converted
/// once (`load`), before the first frame.
public final class StyledTiles {
    public let vectorSet: VectorTileSet
    private var tiles: [TileKey: StyledTile] = [:]
    private var failed: [TileKey: String] = [:]

    public init(set: VectorTileSet) {
        vectorSet = set
    }

    public var attribution: String? { vectorSet.info.attribution }

    /// The tile zoom a style zoom is drawn from: its integer part, within the source's zooms (deeper
    /// views enlarge the deepest tiles).
    func tileZoom(styleZoom: Double) -> Int {
        min(max(Int(styleZoom.rounded(.down)), vectorSet.info.minZoom), vectorSet.info.maxZoom)
    }

    /// Fetches, decodes and converts the tiles not held yet. A tile the set does not have is drawn
    /// empty (sets are often sparse: an extract of a city); one that fails is drawn empty and reported.
    /// A source that cannot be read on at all (a PMTiles archive changing on its server) throws.
    func load(_ keys: [TileKey]) throws {
        let wanted = keys.filter { tiles[$0] == nil && failed[$0] == nil }
        guard !wanted.isEmpty else { return }
        for (key, result) in vectorSet.tiles(for: wanted) {
            switch result {
            case .success(let view):
                tiles[key] = StyledTile(view.tile)
            case .failure(let error):
                // Missing or outside the set's zooms: nothing to draw there, nothing to report.
                switch error as? TileError {
                case .missing?, .outOfRange?: failed[key] = ""
                case let e? where e.endsSource: throw e
                default: failed[key] = "\(error)"
                }
            }
        }
    }

    /// A loaded tile (nil: outside the set, failed, or not loaded).
    func tile(_ key: TileKey) -> StyledTile? { tiles[key] }

    var warnings: [String] {
        let bad = failed.filter { !$0.value.isEmpty }
        guard !bad.isEmpty else { return [] }
        let examples = bad.keys.sorted { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }.prefix(3).map { bad[$0]! }
        return ["\(bad.count) vector tile\(bad.count == 1 ? "" : "s") from \(vectorSet.source.label) could not be read and "
                + "\(bad.count == 1 ? "was" : "were") left empty (e.g. \(examples.joined(separator: "; ")))"]
    }
}
