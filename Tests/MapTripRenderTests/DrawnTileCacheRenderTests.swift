import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport
@testable import MapTripRender
import Testing
import RasterKernels

/// The raster cache's tiles kept on disk between renders (`DrawnTileCache`): a second render of the
/// same map reads every tile back instead of drawing it, and its frames are byte for byte the first
/// render's; a map drawn otherwise (another style, another pixel ratio) never reads them.
@Suite struct DrawnTileCacheRenderTests {
    /// A flight across a level boundary and the antimeridian, every frame composited.
    let cameras = RasterCacheTests().flight(Camera(center: LonLat(lon: 176, lat: -38), zoom: 4.2),
                                            Camera(center: LonLat(lon: -176, lat: -40), zoom: 4.4), count: 5)
    let width = 320, height = 180

    func withCache(_ body: (DrawnTileCache) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-drawn-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try body(DrawnTileCache(directory: dir))
    }

    /// A map planned over the flight (every frame composited), its tiles kept in `cache`.
    func map(_ cache: DrawnTileCache?, style: MapStyle = .standard, scale: Double = 1) throws -> ShapefileBaseMap {
        let map = try ShapefileBaseMap(assets: assets, style: style, caching: MapCaching(drawnTiles: cache))
        map.caching.rasterBreakEven = .infinity
        try map.prepare(for: cameras.map { Viewport(camera: $0, width: width, height: height, scale: scale) })
        map.plan(frames: cameras, format: FrameFormat(width: width, height: height, fps: 30, scale: scale))
        return map
    }

    /// The flight's frames in BGRA, as bytes.
    func frames(_ map: ShapefileBaseMap, scale: Double = 1) throws -> [[UInt8]] {
        try cameras.map { camera in
            let surface = try ImageSurface(width: width, height: height)
            try surface.withContext { try map.draw(Viewport(camera: camera, width: width, height: height, scale: scale), in: $0) }
            surface.flush()
            return Array(UnsafeBufferPointer(start: surface.data, count: surface.stride * height))
        }
    }

    @Test func aSecondRenderReadsEveryTileBackAndDrawsTheSameFrames() throws {
        try withCache { cache in
            let first = try map(cache)
            let drawn = try frames(first)
            let s1 = try #require(first.rasterCacheStatistics)
            #expect(s1.framesComposited == cameras.count && s1.tilesDrawn > 10 && s1.tilesRead == 0)
            let second = try map(cache)
            #expect(try frames(second) == drawn)
            let s2 = try #require(second.rasterCacheStatistics)
            #expect(s2.tilesDrawn == 0 && s2.tilesRead == s1.tilesDrawn)
            // And what no cache at all draws.
            #expect(try frames(try map(nil)) == drawn)
        }
    }

    @Test(.enabled(if: Kernels.isAvailable, "the kernel needs AVX2"))
    func aSecondRenderIntoI420ReadsItsPlanarTilesBack() throws {
        try withCache { cache in
            func planar(_ map: ShapefileBaseMap) throws -> [[UInt8]] {
                let scratch = try ImageSurface(width: width, height: 64)
                return try cameras.map { camera in
                    let picture = PlanarCompositeTests.Picture(width: width, height: height)
                    let painted = try picture.with {
                        try map.drawPlanar(Viewport(camera: camera, width: width, height: height), into: $0, scratch: scratch)
                    }
                    #expect(painted)
                    return picture.y + picture.u + picture.v
                }
            }
            let first = try map(cache)
            let drawn = try planar(first)
            let second = try map(cache)
            #expect(try planar(second) == drawn)
            let s1 = try #require(first.rasterCacheStatistics), s2 = try #require(second.rasterCacheStatistics)
            #expect(s1.tilesDrawn > 10 && s2.tilesDrawn == 0 && s2.tilesRead == s1.tilesDrawn)
            // The open sea's tiles, kept as their samples, read back as them (and whole tiles whole).
            #expect(s1.flatTiles > 0 && s1.flatTiles < s1.tilesDrawn && s2.flatTiles == s1.flatTiles)
            // The BGRA tiles of the same map are tiles of their own (another border, another form).
            let bgra = try map(cache)
            _ = try frames(bgra)
            #expect(bgra.rasterCacheStatistics?.tilesRead == 0)
        }
    }

    @Test func aMapDrawnOtherwiseReadsNone() throws {
        try withCache { cache in
            _ = try frames(try map(cache))
            // Another land colour; another pixel ratio (lines drawn wider): none of the tiles kept.
            var style = MapStyle.standard
            style.land = Color(red: 0.9, green: 0.2, blue: 0.2, alpha: 1)
            let restyled = try map(cache, style: style)
            _ = try frames(restyled)
            #expect(restyled.rasterCacheStatistics?.tilesRead == 0)
            let wider = try map(cache, scale: 2)
            _ = try frames(wider, scale: 2)
            #expect(wider.rasterCacheStatistics?.tilesRead == 0)
            #expect((wider.rasterCacheStatistics?.tilesDrawn ?? 0) > 0)
        }
    }

    @Test func aDamagedTileIsDrawnAgain() throws {
        try withCache { cache in
            let drawn = try frames(try map(cache))
            // A pixel of the pack's first tile changed, as a disk might leave it.
            let folders = try FileManager.default.contentsOfDirectory(at: cache.directory, includingPropertiesForKeys: nil)
            let folder = try #require(folders.first)
            let pack = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".pack") })
            let url = folder.appendingPathComponent(pack)
            var bytes = try Data(contentsOf: url)
            bytes[1000] ^= 0x40
            try bytes.write(to: url)
            let second = try map(cache)
            #expect(try frames(second) == drawn)
            let s = try #require(second.rasterCacheStatistics)
            #expect(s.tilesDrawn == 1)
            // Written again whole: a third render reads it.
            let third = try map(cache)
            _ = try frames(third)
            #expect(third.rasterCacheStatistics?.tilesDrawn == 0)
        }
    }
}
