import Cairo
import Foundation
import MapTripGeometry
import MapTripTiles

/// A styled map on the globe and on PROJ planes: its Web Mercator tiles, drawn from the style (the
/// background, fills and lines, as the raster cache draws them), reprojected as raster tiles are
/// (`TileBaseMap`'s reprojection: the same mesh, levels and sampling). The style's labels are set
/// over the reprojected frame (`ReprojectedLabelView`).
///
/// The tiles reach the reprojection as a tile source whose "bytes" name the tile, and a decoder that
/// draws the tile they name: each drawn once and kept in the reprojection's tile cache.
final class StyledTileSource: TileSource {
    var label: String { "the style's tiles" }

    let info = TileSetInfo.drawn(maxZoom: 22, tileSize: 256)

    func tiles(for keys: [TileKey]) -> [TileKey: Result<Data, Error>] {
        Dictionary(uniqueKeysWithValues: keys.map { ($0, .success(Self.name($0))) })
    }

    /// A tile's key as the bytes that stand for it.
    static func name(_ key: TileKey) -> Data {
        var words = [Int32(key.z), Int32(key.x), Int32(key.y)]
        return Data(bytes: &words, count: 12)
    }

    static func key(_ data: Data) -> TileKey? {
        guard data.count == 12 else { return nil }
        let words = data.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        return TileKey(z: Int(words[0]), x: Int(words[1]), y: Int(words[2]))
    }
}

/// Draws the tile a `StyledTileSource` names, from the styled map's vector tiles.
struct StyledTileDecoder: TileDecoding {
    unowned let map: StyledMap

    func decode(_ data: Data) throws -> ImageSurface {
        guard let key = StyledTileSource.key(data) else { throw TileError.undecodable(TileKey(z: 0, x: 0, y: 0), "not a tile's name") }
        let size = 256, n = Double(1 << key.z)
        let tile = try ImageSurface(width: size, height: size)
        // The unit world placed so that this tile fills the surface.
        let world = PixelTransform(scale: Double(size) * n, offsetX: -Double(key.x * size), offsetY: -Double(key.y * size))
        try map.tileDrawing(scale: 1)(tile, [world], Double(key.z), 0)
        return tile
    }
}

extension StyledMap {
    /// The vector tiles each reprojected raster tile is drawn from (the style zoom is a tile's zoom
    /// less one: one vector tile, or an ancestor, covers it).
    func vectorKeys(forRasterTiles keys: [TileKey], in set: StyledTiles) -> [TileKey] {
        var seen = Set<TileKey>()
        return keys.compactMap { key in
            let z = set.tileZoom(styleZoom: Double(key.z) - 1)
            let v = z >= key.z ? key : key.ancestor(levels: key.z - z)
            return seen.insert(v).inserted ? v : nil
        }
    }
}
