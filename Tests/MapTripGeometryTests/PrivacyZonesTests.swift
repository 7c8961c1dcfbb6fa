import Foundation
import Testing
import TestSupport
@testable import MapTripGeometry

/// Privacy zones cut polylines exactly at each circle's edge (measured with haversine, not the
/// clipper's own tangent plane).
@Suite("Privacy zones")
struct PrivacyZonesTests {
    /// Metres from the zone's centre by haversine.
    static func metres(_ p: LonLat, _ zone: PrivacyZone) -> Double { Geodesy.distanceKm(p, zone.center) * 1000 }

    @Test func seededRandomLinesAreCutAtTheCircleAndNothingInsideIsKept() {
        var rng = SplitMix64(seed: 5903)
        for _ in 0..<200 {
            let centre = LonLat(lon: rng.unit() * 340 - 170, lat: rng.unit() * 140 - 70)
            let zone = PrivacyZone(center: centre, radius: 50 + rng.unit() * 2000)
            // A walk of 40 steps of up to 200 m through the neighbourhood of the zone.
            var p = LonLat(lon: centre.lon + (rng.unit() - 0.5) * 0.06, lat: centre.lat + (rng.unit() - 0.5) * 0.04)
            var line = [p]
            for _ in 0..<40 {
                p = LonLat(lon: p.lon + (rng.unit() - 0.5) * 0.004, lat: p.lat + (rng.unit() - 0.5) * 0.003)
                line.append(p)
            }
            let pieces = PrivacyClipping.visible(line, outside: [zone])
            for piece in pieces {
                #expect(piece.count >= 2)
                for (k, q) in piece.enumerated() {
                    // Every kept point is outside (an end made at the edge lies on it, within a millimetre
                    // per kilometre of radius).
                    #expect(Self.metres(q, zone) > zone.radius * (1 - 1e-4) - 0.01)
                    // And every kept segment's middle is outside too.
                    if k > 0 {
                        let a = piece[k - 1]
                        let mid = LonLat(lon: (a.lon + q.lon) / 2, lat: (a.lat + q.lat) / 2)
                        #expect(Self.metres(mid, zone) > zone.radius * (1 - 1e-4) - 0.01)
                    }
                }
            }
            // A line's first point outside starts the first piece; one inside never appears.
            if !zone.contains(line[0]) { #expect(pieces.first?.first == line[0]) }
            // The points inside are gone, those outside all kept.
            let kept = Set(pieces.flatMap { $0 }.map { "\($0.lon),\($0.lat)" })
            for q in line {
                #expect(kept.contains("\(q.lon),\(q.lat)") == !zone.contains(q) || line.count < 2)
            }
        }
    }

    @Test func aLineThroughTheMiddleEndsAndStartsOnTheEdge() throws {
        let zone = PrivacyZone(center: LonLat(lon: 10, lat: 50), radius: 500)
        let line = [LonLat(lon: 9.98, lat: 50), LonLat(lon: 10.02, lat: 50)]
        let pieces = PrivacyClipping.visible(line, outside: [zone])
        #expect(pieces.count == 2)
        let end = try #require(pieces.first?.last), start = try #require(pieces.last?.first)
        #expect(abs(Self.metres(end, zone) - 500) < 0.5)
        #expect(abs(Self.metres(start, zone) - 500) < 0.5)
        #expect(end.lon < 10 && start.lon > 10)
        // A line that stays clear comes back whole; one wholly inside vanishes.
        let clear = [LonLat(lon: 9.9, lat: 50.1), LonLat(lon: 10.1, lat: 50.1)]
        #expect(PrivacyClipping.visible(clear, outside: [zone]) == [clear])
        #expect(PrivacyClipping.visible([LonLat(lon: 10, lat: 50), LonLat(lon: 10.001, lat: 50)], outside: [zone]).isEmpty)
        #expect(PrivacyClipping.hides(LonLat(lon: 10.001, lat: 50.001), [zone]))
        #expect(!PrivacyClipping.hides(LonLat(lon: 10.1, lat: 50), [zone]))
    }

    @Test func aCutAtTheAntimeridianLandsOnTheShortSegment() throws {
        // A recording as a file holds it: 179.99 then -179.99, the zone on the 180th meridian between them.
        let zone = PrivacyZone(center: LonLat(lon: 180, lat: -17.45), radius: 500)
        let line = [LonLat(lon: 179.9, lat: -17.45), LonLat(lon: 179.999, lat: -17.45), LonLat(lon: -179.999, lat: -17.45),
                    LonLat(lon: -179.9, lat: -17.45)]
        let pieces = PrivacyClipping.visible(line, outside: [zone])
        #expect(pieces.count == 2)
        for piece in pieces {
            for (a, b) in zip(piece, piece.dropFirst()) { #expect(abs(b.lon - a.lon) < 0.2, "\(a) to \(b)") }
            // Each cut on the circle's edge, not half a world away.
            for p in piece where abs(p.lon) < 179.99 || abs(p.lon) > 180 {
                #expect(Geodesy.distanceKm(p, zone.center) < 12, "\(p)")
            }
        }
        let end = try #require(pieces.first?.last), start = try #require(pieces.last?.first)
        #expect(abs(Self.metres(end, zone) - 500) < 0.5)
        #expect(abs(Self.metres(start, zone) - 500) < 0.5)
    }
}
