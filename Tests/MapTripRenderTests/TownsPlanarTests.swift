import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Testing
import RasterKernels
@testable import MapTripRender

/// The embedded map's towns in a frame drawn into I420 (the map composited, the towns' marks blended)
/// are the towns of the frame drawn in BGRA and converted: the fast path shows them too.
@Suite(.enabled(if: Kernels.isAvailable, "the kernel needs AVX2"))
struct TownsPlanarTests {
    /// Towns scattered over Korea from a seeded generator: positions, sizes and names.
    static func towns(count: Int, seed: UInt64) -> TownsDatasource {
        var state = seed
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        return TownsDatasource(towns: (0..<count).map { i in
            Town(name: "Town \(i)", position: LonLat(lon: 126 + 4 * next(), lat: 34 + 4 * next()),
                 population: 20_000 + Int(2_000_000 * next() * next()))
        })
    }

    @Test func townsShowTheSameInI420() throws {
        let places = [Place(name: "Seoul", position: LonLat(lon: 126.978, lat: 37.5665), zoom: 8),
                      Place(name: "Busan", position: LonLat(lon: 129.0756, lat: 35.1796), zoom: 8)]
        let sc = scene(places)
        let timeline = Timeline(scene: sc)
        let renderers = try (0..<2).map { _ in try PlanarCompositeTests.cachingRenderer(sc, timeline: timeline) }
        for r in renderers {
            let map = try #require(r.baseMap as? ShapefileBaseMap)
            map.towns = TownsLayer(datasource: Self.towns(count: 60, seed: 58), style: TownsStyle(sc.style))
        }
        let towns = try #require(renderers[0].overlays.compactMap { $0 as? TownsOverlay }.first)
        var planarFrames = 0, townsSeen = 0
        for n in stride(from: 0, to: timeline.frameCount, by: 9) {
            let values = timeline.values(at: n)
            try renderers[0].render(values)
            let frame = FrameContext(scene: sc, values: values, viewport: renderers[0].viewport(values.camera),
                                     layout: renderers[0].layout, baseMap: renderers[0].baseMap, routes: timeline.routes,
                                     media: SceneMedia())
            let placed = try towns.placed(frame)
            let expected = try PlanarCompositeTests.Picture(converting: renderers[0].surface)
            let picture = PlanarCompositeTests.Picture(width: sc.video.width, height: sc.video.height)
            guard try picture.with({ try renderers[1].renderPlanar(values, into: $0) }) else { continue }
            planarFrames += 1
            townsSeen += placed.count
            // Within each town's box: the same pixels, within the conversion's rounding.
            for t in placed {
                let x0 = max(0, Int(t.box.minX)), x1 = min(sc.video.width, Int(t.box.maxX.rounded(.up)))
                let y0 = max(0, Int(t.box.minY)), y1 = min(sc.video.height, Int(t.box.maxY.rounded(.up)))
                guard x0 < x1, y0 < y1 else { continue }
                var worst = 0
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        worst = max(worst, abs(Int(picture.y[y * sc.video.width + x]) - Int(expected.y[y * sc.video.width + x])))
                    }
                }
                #expect(worst <= 8, "frame \(n): \(t.town.name) off by \(worst)")
            }
            let d = picture.difference(expected)
            #expect(d[0].mean < 0.1, "frame \(n): Y \(d[0])")
        }
        #expect(planarFrames >= 3)
        #expect(townsSeen >= planarFrames, "towns on the frames drawn into I420: \(townsSeen)")
    }
}
