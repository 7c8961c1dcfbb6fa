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

extension Camera {
    /// This camera on the Web Mercator pixel grid of a frame `width` x `height` pixels at pixel ratio
    /// `scale`: its zoom moved so that the world is a whole number of pixels wide (by less than half a
    /// pixel over the world's width) and its centre so that the frame's pixels fall on whole pixels of
    /// that world, its corner on an even one (by a pixel at most: 4:2:0 chroma's 2x2 blocks then
    /// fall on the world's too). A camera resting there shows the raster cache's tiles of that width
    /// one for one: its picture is a copy of them, exact, not a resampling.
    public func onPixelGrid(width: Int, height: Int, scale: Double) -> Camera {
        let size = WebMercator.worldSize(zoom: zoom) * scale
        guard size.isFinite, size >= 1, size < 1e15, scale > 0 else { return self }
        let whole = size.rounded()
        let p = WebMercator.project(center)
        let c = WebMercator.unproject(WorldPoint(x: PixelGrid.snap(p.x, frame: width, world: whole),
                                                 y: PixelGrid.snap(p.y, frame: height, world: whole)))
        return Camera(center: c, zoom: log2(whole / (WebMercator.tileSize * scale)), bearing: bearing)
    }
}

/// Where a frame falls on the pixels of a Web Mercator world a whole number of pixels wide: the rule
/// `Camera.onPixelGrid` snaps a resting camera to, and the raster cache checks a view against.
public enum PixelGrid {
    /// The world coordinate `u` (0-1 across the world) moved to the nearest centre from which a frame
    /// `frame` pixels long starts on an even pixel of a world `world` pixels wide.
    public static func snap(_ u: Double, frame: Int, world: Double) -> Double {
        let half = Double(frame) / 2
        return (((u * world - half) / 2).rounded() * 2 + half) / world
    }

    /// Whether a frame centred at `u` starts on an even pixel of that world already (within 1e-6 px).
    public static func isOn(_ u: Double, frame: Int, world: Double) -> Bool {
        let p = (u * world - Double(frame) / 2) / 2
        return abs(p - p.rounded()) <= 1e-6
    }
}

/// The view: a camera seen through a frame of a given size, through a projection. It maps positions
/// to frame pixels and back, tells what part of the Earth shows, and cuts lines where the projection
/// ends (the globe's horizon, a world map's seam). Base maps, overlays, routes and labels all draw
/// through it; Web Mercator is one projection among others.
/// `scale` is the pixel ratio (2 renders a 3840x2160 frame with the view of a 1920x1080 one).
public struct Viewport: Equatable, Sendable {
    public let camera: Camera
    public let width: Int
    public let height: Int
    public let scale: Double
    public let projection: Projection
    /// The camera centre in the projection's unit world (the globe's own plane: (0.5, 0.5)).
    public let center: WorldPoint
    /// The globe's view frame (nil for planar projections).
    public let orthographic: Orthographic?
    /// The bearing's rotation (cos, sin); (1, 0) when north is up.
    let rotation: (cos: Double, sin: Double)

    public init(camera: Camera, width: Int, height: Int, scale: Double = 1, projection: Projection = .webMercator) {
        self.camera = camera
        self.width = width
        self.height = height
        self.scale = scale
        self.projection = projection
        switch projection {
        case .webMercator:
            center = WebMercator.project(camera.center)
            orthographic = nil
        case .globe:
            center = WorldPoint(x: 0.5, y: 0.5)
            orthographic = Orthographic(center: camera.center)
        case .plane:
            center = projection.planePoint(camera.center) ?? WorldPoint(x: 0.5, y: 0.5)
            orthographic = nil
        }
        let b = camera.bearing * .pi / 180
        rotation = camera.bearing == 0 ? (1, 0) : (cos(b), sin(b))
    }

    public static func == (a: Viewport, b: Viewport) -> Bool {
        a.camera == b.camera && a.width == b.width && a.height == b.height && a.scale == b.scale
            && a.projection == b.projection
    }

    /// World width in frame pixels (the equator's length at the frame's scale).
    public var worldSize: Double { WebMercator.worldSize(zoom: camera.zoom) * scale }
    /// The camera centre in the Web Mercator unit world (what tiles are placed by).
    public var centerWorld: WorldPoint { WebMercator.project(camera.center) }
    /// Whether the map turns (a bearing other than north up).
    public var isRotated: Bool { rotation.sin != 0 || rotation.cos != 1 }

    /// The unit world to frame pixels, for planar projections: scale, turn by the bearing, centre.
    public var transform: PixelTransform {
        let s = worldSize
        return PixelTransform(scale: s, cos: rotation.cos, sin: rotation.sin,
                              centerX: center.x, centerY: center.y,
                              frameX: Double(width) / 2, frameY: Double(height) / 2)
    }

    /// Frame pixel of a unit-world point of a planar projection (no wrapping).
    public func pixel(_ w: WorldPoint) -> (x: Double, y: Double) {
        let c = center, s = worldSize
        if !isRotated {
            return ((w.x - c.x) * s + Double(width) / 2, (w.y - c.y) * s + Double(height) / 2)
        }
        return turned((w.x - c.x) * s, (w.y - c.y) * s)
    }

    /// A pixel offset from the frame's centre (map axes: x east, y south) turned by the bearing.
    @inline(__always)
    func turned(_ dx: Double, _ dy: Double) -> (x: Double, y: Double) {
        (Double(width) / 2 + rotation.cos * dx + rotation.sin * dy,
         Double(height) / 2 - rotation.sin * dx + rotation.cos * dy)
    }

    /// Radius of the globe's disc in frame pixels (the Earth's radius in the unit world is 1 / 2π).
    public var globeRadius: Double { worldSize / (2 * .pi) }

    /// Frame pixel of a position; nil when the projection does not show it (the far side of the
    /// globe, outside a projection's domain). On Web Mercator, the copy of the world nearest the
    /// centre (a pin east of the antimeridian shows beside a camera west of it).
    public func pixel(_ p: LonLat) -> (x: Double, y: Double)? {
        switch projection {
        case .webMercator:
            var w = WebMercator.project(p)
            w.x -= (w.x - center.x).rounded()
            return pixel(w)
        case .globe:
            let v = orthographic!.view(p)
            guard v.z >= 0 else { return nil }
            let k = globeRadius
            return turned(v.x * k, -v.y * k)
        case .plane:
            return projection.planePoint(p).map { pixel($0) }
        }
    }

    /// The position under a frame pixel; nil off the map (beyond the globe's limb, outside the
    /// projection's domain).
    public func location(atPixel x: Double, _ y: Double) -> LonLat? {
        let (dx, dy) = mapOffset(atPixel: x, y)
        switch projection {
        case .globe:
            let k = globeRadius
            return orthographic!.location(x: dx / k, y: -dy / k)
        case .webMercator, .plane:
            let s = worldSize
            let w = WorldPoint(x: center.x + dx / s, y: center.y + dy / s)
            guard var p = projection.location(planePoint: w) else { return nil }
            if case .webMercator = projection { p.lon = WebMercator.wrapLongitude(p.lon) }
            return p
        }
    }

    /// How squarely a position faces the viewer, 0...1: on the globe, fading to 0 over the last
    /// `band` (the cosine of the angle from the view's centre, 1 there and 0 at the limb) so that
    /// what stands on the map (pins, labels) fades out as the Earth turns it away instead of popping
    /// off at the horizon; 1 on flat projections.
    public func facing(_ p: LonLat, band: Double = 0.12) -> Double {
        guard case .globe = projection, let o = orthographic else { return 1 }
        let z = o.view(p).z
        guard z < band else { return 1 }
        guard z > 0 else { return 0 }
        let t = z / band
        return t * t * (3 - 2 * t)
    }

    /// A frame pixel's offset from the centre in map axes (the bearing undone).
    @inline(__always)
    private func mapOffset(atPixel x: Double, _ y: Double) -> (x: Double, y: Double) {
        let fx = x - Double(width) / 2, fy = y - Double(height) / 2
        return (rotation.cos * fx - rotation.sin * fy, rotation.sin * fx + rotation.cos * fy)
    }

    /// The Web Mercator unit-world point under a frame pixel, latitudes capped at ±`latitudeCap`
    /// degrees so that it stays finite (y runs past [0, 1] beyond ±85.05); nil off the map. On the
    /// globe it comes straight from the point's vector (the sine of its latitude is its z), without
    /// going through degrees.
    public func unitWorld(atPixel x: Double, _ y: Double, latitudeCap: Double) -> WorldPoint? {
        if case .globe = projection {
            let (dx, dy) = mapOffset(atPixel: x, y)
            let k = globeRadius
            guard let v = orthographic!.vector(x: dx / k, y: -dy / k) else { return nil }
            let cap = sin(latitudeCap * .pi / 180)
            let s = min(max(v.z, -cap), cap)
            return WorldPoint(x: atan2(v.y, v.x) / (2 * .pi) + 0.5, y: 0.5 - atanh(s) / (2 * .pi))
        }
        guard let p = location(atPixel: x, y), p.lat.isFinite, p.lon.isFinite else { return nil }
        let lat = min(max(p.lat, -latitudeCap), latitudeCap) * .pi / 180
        return WorldPoint(x: (p.lon + 180) / 360, y: 0.5 - atanh(sin(lat)) / (2 * .pi))
    }

    /// The unit-world rectangle the frame covers (x may run outside [0, 1) near the antimeridian);
    /// a turned frame's bounding rectangle.
    public var worldBounds: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let c = center, s = worldSize
        let w = Double(width) / 2, h = Double(height) / 2
        let ac = abs(rotation.cos), asn = abs(rotation.sin)
        let hw = (ac * w + asn * h) / s, hh = (asn * w + ac * h) / s
        return (c.x - hw, c.y - hh, c.x + hw, c.y + hh)
    }
}
