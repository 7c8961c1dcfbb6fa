import Foundation
import Testing
import FFmpeg
import MapTripGeometry
import MapTripRecord
import MapTripScene
import MapTripTime
import TestSupport

/// Recordings across the antimeridian rendered as `maptrip render` renders them, decoded: framed the
/// short way across 180 degrees, never across the whole world.
@Suite("Antimeridian renders")
struct AntimeridianRenderTests {
    @Test func tracksEitherSideOfTheAntimeridianAreFramedAcrossIt() throws {
        try Trip.withDirectory("antimeridian-render") { dir in
            // One boat from Fiji's side eastward, one from Samoa's side westward: each crosses 180 degrees,
            // and their files start on opposite signs of longitude.
            let east = TrackFixture.walk(seed: 5901, count: 120, start: LonLat(lon: 179.6, lat: -17.0), stepKm: 0.9,
                                         turn: 4, heading: 90)
            let west = TrackFixture.walk(seed: 5902, count: 120, start: LonLat(lon: -179.6, lat: -17.4), stepKm: 0.9,
                                         turn: 4, heading: 270)
            #expect(east.points.contains { $0.lon < 0 } && west.points.contains { $0.lon > 0 })
            let (scene, t, frames) = try PlaybackRenderTests.render(
                [("east", east, TrackFixture.start), ("west", west, TrackFixture.start)], playback: #"{ "speed": 120 }"#, in: dir)
            #expect(frames.count == t.frameCount)
            // Framed as a few degrees, not the world.
            #expect(t.values(at: 0).camera.zoom > 6, "zoom \(t.values(at: 0).camera.zoom)")
            // While they run (a finished mover is drawn faded): each its colour where its recording is.
            let n = 4 * t.frameCount / 5
            for i in 0..<2 {
                let p = try PlaybackRenderTests.pixel(t, scene, frame: n, mover: i)
                let color = try #require(Color(hex: PlaybackRenderTests.colors[i]))
                #expect(p.x > 0 && p.x < Double(scene.video.width) && p.y > 0 && p.y < Double(scene.video.height))
                #expect(Trip.looks(frames[n], p, like: color, tolerance: 40), "mover \(i): \(Trip.describe(frames[n], p))")
            }
            Trip.dump(frames[n], "antimeridian-\(n)")
            let last = t.frameCount - 1
            let a = try PlaybackRenderTests.pixel(t, scene, frame: last, mover: 0)
            let b = try PlaybackRenderTests.pixel(t, scene, frame: last, mover: 1)
            // Each has run past the other's start: the eastward boat now right of the westward one, far apart.
            #expect(a.x - b.x > 300, "movers at x \(a.x) and \(b.x)")
        }
    }
}
