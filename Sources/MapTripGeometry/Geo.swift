import Foundation

/// A geographic position in degrees (WGS 84).
public struct LonLat: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var lon: Double
    public var lat: Double
    public init(lon: Double, lat: Double) {
        self.lon = lon
        self.lat = lat
    }
    public var description: String { String(format: "%.5f,%.5f", lat, lon) }
}

/// A point in the unit Web Mercator world: x in [0, 1) east from -180 degrees, y in [0, 1] south
/// from +85.0511 degrees. Multiply by the world size in pixels (256 * 2^zoom) to get pixels.
public struct WorldPoint: Equatable, Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// Spherical Web Mercator (EPSG:3857) in the web-map convention. Pure maths, used by the camera;
/// base-map data is projected with PROJ and mapped to the same unit world by `fromMeters`.
public enum WebMercator {
    /// The latitude where the square Web Mercator world ends (atan(sinh(pi)) in degrees).
    public static let maxLatitude = 85.05112877980659
    /// Half the width of the world in EPSG:3857 metres (pi * 6378137).
    public static let halfWorldMeters = 20037508.342789244
    /// The world is `tileSize * 2^zoom` pixels wide.
    public static let tileSize = 256.0

    public static func clampLatitude(_ lat: Double) -> Double {
        min(max(lat, -maxLatitude), maxLatitude)
    }

    public static func project(_ p: LonLat) -> WorldPoint {
        let lat = clampLatitude(p.lat) * .pi / 180
        let x = (p.lon + 180) / 360
        let y = (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2
        return WorldPoint(x: x, y: y)
    }

    public static func unproject(_ w: WorldPoint) -> LonLat {
        let lon = w.x * 360 - 180
        let n = Double.pi * (1 - 2 * w.y)
        let lat = atan(sinh(n)) * 180 / .pi
        return LonLat(lon: lon, lat: lat)
    }

    /// EPSG:3857 metres to the unit world.
    @inline(__always)
    public static func fromMeters(x: Double, y: Double) -> WorldPoint {
        WorldPoint(x: (x + halfWorldMeters) / (2 * halfWorldMeters),
                   y: (halfWorldMeters - y) / (2 * halfWorldMeters))
    }

    /// World width in pixels at a zoom (for a pixel ratio of 1).
    public static func worldSize(zoom: Double) -> Double { tileSize * pow(2, zoom) }

    /// Wraps a longitude into [-180, 180).
    public static func wrapLongitude(_ lon: Double) -> Double {
        var l = (lon + 180).truncatingRemainder(dividingBy: 360)
        if l < 0 { l += 360 }
        return l - 180
    }
}

/// Where the camera looks: a centre, a web-map zoom (the world is 256 x 2^zoom logical pixels wide at
/// the equator) and a bearing (degrees clockwise from north that point up the frame).
public struct Camera: Equatable, Hashable, Sendable {
    public var center: LonLat
    public var zoom: Double
    public var bearing: Double
    public init(center: LonLat, zoom: Double, bearing: Double = 0) {
        self.center = center
        self.zoom = zoom
        self.bearing = bearing
    }
}

