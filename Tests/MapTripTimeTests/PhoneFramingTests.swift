import Foundation
import Testing
import TestSupport
@testable import MapTripGeometry
@testable import MapTripScene
@testable import MapTripSupport
@testable import MapTripTime

/// Upright frames laid out for phones (issue 56): a place at rest sits at the centre of the
/// platform's safe area, and an automatic zoom fills the tall frame with the trip.
@Suite("Phone framing")
struct PhoneFramingTests {
    static func scene(width: Int, height: Int, safeZone: String? = nil, places: [(lon: Double, lat: Double)]) throws -> Scene {
        let zone = safeZone.map { #", "safeZone": "\#($0)""# } ?? ""
        let list = places.enumerated().map { #"{"name": "p\#($0.offset)", "lon": \#($0.element.lon), "lat": \#($0.element.lat)}"# }
        let json = #"{"video": {"width": \#(width), "height": \#(height)\#(zone)}, "opening": false, "closing": false, "places": [\#(list.joined(separator: ", "))]}"#
        return try SceneLoader.decode(Data(json.utf8), file: "phone.json")
    }

    /// Random places, seeded: near each other, anywhere but the poles.
    static func randomTrip(_ rng: inout SplitMix64, count: Int) -> [(lon: Double, lat: Double)] {
        let lon0 = Double.random(in: -170...170, using: &rng), lat0 = Double.random(in: -60...60, using: &rng)
        return (0..<count).map { _ in (lon0 + Double.random(in: -3...3, using: &rng), lat0 + Double.random(in: -3...3, using: &rng)) }
    }

    @Test(arguments: ["reels", "shorts", "tiktok", "social"])
    func aRestingPlaceSitsAtTheSafeAreasCentre(_ zone: String) throws {
        var rng = SplitMix64(seed: 56)
        let scene = try Self.scene(width: 1080, height: 1920, safeZone: zone, places: Self.randomTrip(&rng, count: 4))
        let t = Timeline(scene: scene)
        let f = try #require(t.format)
        let safe = SafeArea.box(width: 1080, height: 1920, insets: scene.video.safeZone.insets)
        for slot in t.slots {
            let p = try #require(OpeningClosingTests.pixel(t, slot.place.position, at: slot.arriveFrame))
            // Within the pixel of the grid the camera rests on (its corner on an even pixel) and the
            // half pixel the shift is rounded to.
            #expect(abs(p.x - (safe.minX + safe.maxX) / 2) <= 1.5 && abs(p.y - (safe.minY + safe.maxY) / 2) <= 1.5,
                    "\(zone) \(slot.place.name): \(p) in \(safe) of \(f.width)x\(f.height)")
        }
    }

    @Test func withoutAPlatformsZoneThePlaceIsAtTheFramesCentre() throws {
        let scene = try Self.scene(width: 1080, height: 1920, places: [(10, 50), (12, 51)])
        let t = Timeline(scene: scene)
        for slot in t.slots {
            let p = try #require(OpeningClosingTests.pixel(t, slot.place.position, at: slot.arriveFrame))
            // Within the pixel of the grid the camera rests on.
            #expect(abs(p.x - 540) <= 1 && abs(p.y - 960) <= 1, "\(p)")
        }
    }

    @Test func anUprightFrameComesCloserWhereTheNeighbourIsAboveOrBelow() throws {
        // About 700 km north-south and east-west (automatic zooms below the embedded map's limit of
        // 7): the tall frame fills with the north-south one.
        let north = try Self.scene(width: 1080, height: 1920, places: [(10, 50), (10, 56.3)])
        let east = try Self.scene(width: 1080, height: 1920, places: [(10, 50), (19.8, 50)])
        let wideNorth = try Self.scene(width: 1920, height: 1080, places: [(10, 50), (10, 56.3)])
        let wideEast = try Self.scene(width: 1920, height: 1080, places: [(10, 50), (19.8, 50)])
        #expect(north.places[0].zoom > east.places[0].zoom + 0.2)
        // A wide frame keeps the span's zoom whichever way the neighbour lies; an east-west
        // neighbour in a tall frame too.
        #expect(abs(wideNorth.places[0].zoom - wideEast.places[0].zoom) < 0.05)
        #expect(abs(east.places[0].zoom - wideEast.places[0].zoom) < 1e-9)
        // The neighbour stays inside the safe area, near its top.
        let t = Timeline(scene: north)
        let safe = SafeArea.box(width: 1080, height: 1920)
        let p = try #require(OpeningClosingTests.pixel(t, north.places[1].position, at: 0))
        #expect(p.y > safe.minY && p.y < safe.minY + 0.25 * (safe.maxY - safe.minY), "\(p) in \(safe)")
    }

    @Test func randomTallTripsKeepEachNearerNeighbourInsideTheSafeArea() throws {
        var rng = SplitMix64(seed: 916)
        for _ in 0..<20 {
            let places = Self.randomTrip(&rng, count: 3)
            let scene = try Self.scene(width: 1080, height: 1920, places: places)
            let t = Timeline(scene: scene)
            let safe = SafeArea.box(width: 1080, height: 1920)
            for slot in t.slots {
                let i = slot.index
                let near = [i - 1, i + 1].filter { scene.places.indices.contains($0) }.min {
                    Geodesy.distanceKm(scene.places[$0].position, slot.place.position)
                        < Geodesy.distanceKm(scene.places[$1].position, slot.place.position)
                }
                guard let j = near else { continue }
                let p = try #require(OpeningClosingTests.pixel(t, scene.places[j].position, at: slot.arriveFrame))
                #expect(p.x > -1 && p.x < 1081 && p.y > safe.minY - 1 && p.y < safe.maxY + 1, "\(places) \(i)->\(j): \(p)")
            }
        }
    }
}
