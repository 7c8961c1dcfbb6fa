import MapTripGeometry

/// Places and camera comparisons the tests of several modules share.
extension Camera {
    public func isClose(to other: Camera, tolerance: Double = 1e-9) -> Bool {
        abs(center.lon - other.center.lon) <= tolerance && abs(center.lat - other.center.lat) <= tolerance
            && abs(zoom - other.zoom) <= tolerance
    }
}

public let tokyo = LonLat(lon: 139.69, lat: 35.69)
public let sanFrancisco = LonLat(lon: -122.42, lat: 37.77)
public let seoul = LonLat(lon: 126.978, lat: 37.5665)
public let busan = LonLat(lon: 129.0756, lat: 35.1796)
public let paris = LonLat(lon: 2.3522, lat: 48.8566)
public let newYork = LonLat(lon: -74.006, lat: 40.7128)

extension Camera {
    /// Whether this camera shows `other`'s centre within a pixel of its own, at nearly its zoom (the
    /// world's width within half a pixel of the same), at pixel ratio `scale`.
    public func isWithinAPixel(of other: Camera, scale: Double) -> Bool {
        let size = WebMercator.worldSize(zoom: zoom) * scale
        let p = WebMercator.project(center), q = WebMercator.project(other.center)
        return abs(size - WebMercator.worldSize(zoom: other.zoom) * scale) <= 0.5
            && abs(p.x - q.x) * size <= 1.0001 && abs(p.y - q.y) * size <= 1.0001 && bearing == other.bearing
    }
}
