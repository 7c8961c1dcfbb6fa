import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport
import Testing
import TestSupport
@testable import MapTripRender
@testable import MapTripTiles

/// The styled map's raster cache tiles kept on disk between renders (`DrawnTileCache`), as the
/// embedded map's are: a second render of the same style over the same tiles reads every tile back
/// and draws the same frames; a style file changed in one colour, or the tile file touched, draws
/// them again (no stale tile is ever read).
@Suite("Styled map drawn tiles")
struct StyledDrawnTilesTests {
    /// A flight across central Helsinki, every frame composited from the raster cache.
    let cameras: [Camera] = (0..<5).map { k in
        let f = Double(k) / 4
        return Camera(center: LonLat(lon: 24.940 + 0.010 * f, lat: 60.168 + 0.003 * f), zoom: 16 + 0.3 * f)
    }
    let width = 320, height = 180

    /// The styled map of the Helsinki tiles (`tiles`, a copy in `dir`) with `style`, planned over the
    /// flight with its tiles kept in `cache`.
    func map(style: String, tiles: URL, in dir: URL, cache: DrawnTileCache?) throws -> StyledMap {
        try Data(style.utf8).write(to: dir.appendingPathComponent("style.json"))
        var source = MapSource(tiles: tiles.path, attribution: "© OpenStreetMap contributors")
        let set = try TileSources.make(source, sceneDirectory: dir)
        source.style = "style.json"
        let map = try StyledMaps.make(tiles: set, map: source, scene: Scene(places: []), sceneDirectory: dir,
                                      assets: StyledMapTests.assets, caching: MapCaching(drawnTiles: cache))
        map.caching.rasterBreakEven = .infinity
        try map.prepare(for: cameras.map { Viewport(camera: $0, width: width, height: height) })
        map.plan(frames: cameras, format: FrameFormat(width: width, height: height, fps: 30, scale: 1))
        return map
    }

    /// The flight's frames in BGRA, as bytes; the recording then ended (the pack's index written).
    func frames(_ map: StyledMap) throws -> [[UInt8]] {
        defer { map.endRecording() }
        return try cameras.map { camera in
            let surface = try ImageSurface(width: width, height: height)
            try surface.withContext { try map.draw(Viewport(camera: camera, width: width, height: height), in: $0) }
            surface.flush()
            return Array(UnsafeBufferPointer(start: surface.data, count: surface.stride * height))
        }
    }

    @Test func aSecondRenderReadsTheTilesBackAndAnyChangeDrawsThemAgain() throws {
        try TemporaryFolder.with("styled-drawn-tiles") { dir in
            let cache = DrawnTileCache(directory: dir.appendingPathComponent("drawn"))
            let tiles = dir.appendingPathComponent("helsinki.pmtiles")
            try FileManager.default.copyItem(at: StyledMapTests.pmtiles, to: tiles)
            let style = StyledMapTests.style()
            let first = try map(style: style, tiles: tiles, in: dir, cache: cache)
            let drawn = try frames(first)
            let s1 = try #require(first.rasterCacheStatistics)
            #expect(s1.framesComposited == cameras.count && s1.tilesDrawn > 4 && s1.tilesRead == 0, "\(s1)")
            // Again: every tile read back, the same frames, and the same as no cache at all.
            let second = try map(style: style, tiles: tiles, in: dir, cache: cache)
            let again = try frames(second)
            let equal = again == drawn
            #expect(equal)
            let s2 = try #require(second.rasterCacheStatistics)
            #expect(s2.tilesDrawn == 0 && s2.tilesRead == s1.tilesDrawn, "\(s2)")
            let plain = try frames(try map(style: style, tiles: tiles, in: dir, cache: nil))
            let uncached = plain == drawn
            #expect(uncached)
            // The buildings' colour changed in the style file: drawn again, in the new colour.
            let recoloured = try map(style: style.replacingOccurrences(of: "#00ff00", with: "#008800"), tiles: tiles, in: dir,
                                     cache: cache)
            let changed = try frames(recoloured)
            #expect(recoloured.rasterCacheStatistics?.tilesRead == 0)
            let same = changed == drawn
            #expect(!same)
            // The tile file rewritten (the same bytes, a new file): drawn again too.
            try FileManager.default.removeItem(at: tiles)
            try FileManager.default.copyItem(at: StyledMapTests.pmtiles, to: tiles)
            let rewritten = try map(style: style, tiles: tiles, in: dir, cache: cache)
            let redrawn = try frames(rewritten) == drawn
            #expect(redrawn)
            #expect(rewritten.rasterCacheStatistics?.tilesRead == 0)
        }
    }
}
