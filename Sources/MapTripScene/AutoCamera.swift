import Foundation
import MapTripGeometry

/// The camera choices a scene may leave to maptrip: a zoom from a span in kilometres, a zoom that
/// frames a place and its neighbours, a flight's length from its distance. All relative to the
/// frame's shorter side, so a 9:16 trip shows the same region as a 16:9 one.
public enum AutoCamera {
    /// The Earth's equatorial circumference in metres (the Web Mercator world's width at the equator).
    static let circumference = 40_075_016.686

    /// The zoom at which `spanKm` kilometres fill the frame's shorter side at `latitude`.
    public static func zoom(spanKm: Double, latitude: Double, video: Video) -> Double {
        let side = Double(min(video.width, video.height)) / video.scale  // logical pixels
        let metresPerPixel = spanKm * 1000 / side
        let lat = WebMercator.clampLatitude(latitude) * .pi / 180
        let z = log2(circumference * cos(lat) / (WebMercator.tileSize * metresPerPixel))
        return min(max(z, SceneFormat.zoomRange.lowerBound), SceneFormat.zoomRange.upperBound)
    }

    /// An automatic zoom for an upright frame (taller than wide), where the trip fills the frame: the
    /// span puts the nearer neighbour near the sides; where it lies up or down the frame instead, the
    /// camera comes closer, until that neighbour is as far inside the safe area's top or bottom
    /// (`SafeArea`, with the scene's `safeZone`) as the span puts it inside the sides, never
    /// further out than `zoom`. A wide frame keeps `zoom`.
    public static func upright(_ zoom: Double, for i: Int, positions: [LonLat], video: Video) -> Double {
        let w = Double(video.width), h = Double(video.height)
        guard h > w, positions.indices.contains(i) else { return zoom }
        guard let j = nearerNeighbour(of: i, positions: positions)?.index else { return zoom }
        let a = WebMercator.project(positions[i]), b = WebMercator.project(positions[j])
        var dx = abs(b.x - a.x)
        dx = min(dx, 1 - dx)
        let dy = abs(b.y - a.y)
        guard dx > 0 || dy > 0 else { return zoom }
        // Logical pixels the neighbour may be from the centre: across, as the span places it; up or
        // down, the same share of the safe area's half height.
        let share = 1 / spanPerNeighbour
        let safe = SafeArea.box(width: w, height: h, insets: video.safeZone.insets)
        let across = share * w / video.scale
        let along = share * 2 * min(safe.maxY - h / 2, h / 2 - safe.minY) / video.scale
        var fit = Double.infinity
        if dx > 0 { fit = min(fit, log2(across / (dx * WebMercator.tileSize))) }
        if dy > 0 { fit = min(fit, log2(along / (dy * WebMercator.tileSize))) }
        guard fit.isFinite, fit > zoom else { return zoom }
        return min(fit, SceneFormat.zoomRange.upperBound)
    }

    /// Kilometres across the shorter side for a place with no zoom: about twice the distance to its
    /// nearer neighbour (so the place it came from or goes to is near the frame's edge), between a
    /// city's and a subcontinent's; a trip of one place shows a region.
    public static let spanRange = 30.0...6000.0
    public static let loneSpanKm = 1000.0

    /// The span over the distance to the nearer neighbour.
    static let spanPerNeighbour = 2.2

    public static func span(for i: Int, positions: [LonLat]) -> Double {
        guard let nearest = nearerNeighbour(of: i, positions: positions)?.km, nearest.isFinite, nearest > 0 else {
            return loneSpanKm
        }
        return min(max(spanPerNeighbour * nearest, spanRange.lowerBound), spanRange.upperBound)
    }

    /// Place i's nearer neighbour in the trip (the place before it or after it) and the kilometres to
    /// it, the one before on a tie; nil for a trip of one place.
    static func nearerNeighbour(of i: Int, positions: [LonLat]) -> (index: Int, km: Double)? {
        [i - 1, i + 1].filter { positions.indices.contains($0) }
            .map { j in (index: j, km: Geodesy.distanceKm(positions[min(i, j)], positions[max(i, j)])) }
            .min { $0.km < $1.km }
    }

    /// Seconds of an automatic flight over `distanceKm`: about a second for a hop, four across an
    /// ocean (growing with the logarithm of the distance), and never more than 85% of the slot, so the
    /// place is seen at rest.
    /// The most of its slot an automatic flight takes (the rest is the place's rest).
    public static let flightShare = 0.85

    public static func flight(distanceKm: Double, dwell: Double) -> Double {
        let seconds = 0.8 + 0.45 * log2(1 + max(0, distanceKm) / 50)
        let rounded = (seconds * 20).rounded() / 20  // on a 0.05 s grid, so plans read well
        return min(min(max(rounded, 1), 6), flightShare * dwell)
    }
}
