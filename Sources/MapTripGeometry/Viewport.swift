import Foundation

/// The view: a camera seen through a frame of a given size, through a projection. It maps positions
/// to frame pixels and back, tells what part of the Earth shows, and cuts lines where the projection
/// ends (the globe's horizon, a world map's seam). Base maps, overlays, routes and labels all draw
/// through it; Web Mercator is one projection among others.
///
/// All of a view's pixel maths is one affine map, `transform` (as Mapbox GL keeps its viewport maths
/// in one transform): from the projection's plane (the unit world of a flat projection; on the globe,
/// the view plane of a unit sphere seen from above the camera's centre) to frame pixels, turned by the
/// bearing. Positions to pixels, pixels back to positions, the part of the world a frame shows, the
/// clipper's transforms and the pixel grid of resting cameras all read it.
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
    /// The projection's plane to frame pixels (see the type's summary).
    public let transform: PixelTransform

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
        let (cos, sin) = camera.bearing == 0 ? (1.0, 0.0) : (Foundation.cos(b), Foundation.sin(b))
        let frameX = Double(width) / 2, frameY = Double(height) / 2
        let size = WebMercator.worldSize(zoom: camera.zoom) * scale
        if case .globe = projection {
            // The view plane has y north (up): offsets in map axes (x east, y south) are (x k, -y k),
            // k the globe's radius in pixels, then turned by the bearing.
            let k = size / (2 * .pi)
            transform = PixelTransform(a: k * cos, b: -k * sin, c: -k * sin, d: -k * cos, offsetX: frameX, offsetY: frameY,
                                       scale: k)
        } else {
            transform = PixelTransform(scale: size, cos: cos, sin: sin, centerX: center.x, centerY: center.y,
                                       frameX: frameX, frameY: frameY)
        }
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
    public var isRotated: Bool { transform.isRotated }

    /// Frame pixel of a unit-world point of a planar projection (no wrapping).
    @inline(__always)
    public func pixel(_ w: WorldPoint) -> (x: Double, y: Double) {
        transform.pixel(w.x, w.y)
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
            return transform.pixel(v.x, v.y)
        case .plane:
            return projection.planePoint(p).map { pixel($0) }
        }
    }

    /// The position under a frame pixel; nil off the map (beyond the globe's limb, outside the
    /// projection's domain).
    public func location(atPixel x: Double, _ y: Double) -> LonLat? {
        let q = transform.plane(atPixel: x, y)
        switch projection {
        case .globe:
            return orthographic!.location(x: q.x, y: q.y)
        case .webMercator, .plane:
            guard var p = projection.location(planePoint: WorldPoint(x: q.x, y: q.y)) else { return nil }
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

    /// The Web Mercator unit-world point under a frame pixel, latitudes capped at ±`latitudeCap`
    /// degrees so that it stays finite (y runs past [0, 1] beyond ±85.05); nil off the map. On the
    /// globe it comes straight from the point's vector (the sine of its latitude is its z), without
    /// going through degrees.
    public func unitWorld(atPixel x: Double, _ y: Double, latitudeCap: Double) -> WorldPoint? {
        if case .globe = projection {
            let q = transform.plane(atPixel: x, y)
            guard let v = orthographic!.vector(x: q.x, y: q.y) else { return nil }
            let cap = sin(latitudeCap * .pi / 180)
            let s = min(max(v.z, -cap), cap)
            return WorldPoint(x: atan2(v.y, v.x) / (2 * .pi) + 0.5, y: 0.5 - atanh(s) / (2 * .pi))
        }
        guard let p = location(atPixel: x, y), p.lat.isFinite, p.lon.isFinite else { return nil }
        let lat = min(max(p.lat, -latitudeCap), latitudeCap) * .pi / 180
        return WorldPoint(x: (p.lon + 180) / 360, y: 0.5 - atanh(sin(lat)) / (2 * .pi))
    }

    /// The unit-world rectangle the frame covers (x may run outside [0, 1) near the antimeridian);
    /// a turned frame's bounding rectangle. Planar projections only.
    public var worldBounds: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let b = transform.worldBox(ofPixels: Box(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height)))
        return (b.minX, b.minY, b.maxX, b.maxY)
    }

    /// The width in pixels of the Web Mercator world this north-up view shows on its pixel grid
    /// (`Camera.onPixelGrid`): a whole number of pixels wide, the frame's corner on an even pixel of
    /// it; nil for any other view.
    public var pixelGridWidth: Int? {
        guard case .webMercator = projection, !isRotated else { return nil }
        let size = worldSize, whole = size.rounded()
        guard whole >= 1, whole < 1e15, abs(size - whole) < 1e-6 else { return nil }
        guard Self.isOnGrid(center.x, frame: width, world: whole), Self.isOnGrid(center.y, frame: height, world: whole) else {
            return nil
        }
        return Int(whole)
    }

    /// The world coordinate `u` (0-1 across the world) moved to the nearest centre from which a frame
    /// `frame` pixels long starts on an even pixel of a world `world` pixels wide.
    static func snapToGrid(_ u: Double, frame: Int, world: Double) -> Double {
        let half = Double(frame) / 2
        return (((u * world - half) / 2).rounded() * 2 + half) / world
    }

    /// Whether a frame centred at `u` starts on an even pixel of that world already (within 1e-6 px).
    static func isOnGrid(_ u: Double, frame: Int, world: Double) -> Bool {
        let p = (u * world - Double(frame) / 2) / 2
        return abs(p - p.rounded()) <= 1e-6
    }
}

extension Camera {
    /// This camera on the Web Mercator pixel grid of a frame `width` x `height` pixels at pixel ratio
    /// `scale`: its zoom moved so that the world is a whole number of pixels wide (by less than half a
    /// pixel over the world's width) and its centre so that the frame's pixels fall on whole pixels of
    /// that world, its corner on an even one (by a pixel at most: 4:2:0 chroma's 2x2 blocks then
    /// fall on the world's too). A camera resting there shows the raster cache's tiles of that width
    /// one for one: its picture is a copy of them, exact, not a resampling (`Viewport.pixelGridWidth`).
    public func onPixelGrid(width: Int, height: Int, scale: Double) -> Camera {
        let size = WebMercator.worldSize(zoom: zoom) * scale
        guard size.isFinite, size >= 1, size < 1e15, scale > 0 else { return self }
        let whole = size.rounded()
        let p = WebMercator.project(center)
        let c = WebMercator.unproject(WorldPoint(x: Viewport.snapToGrid(p.x, frame: width, world: whole),
                                                 y: Viewport.snapToGrid(p.y, frame: height, world: whole)))
        return Camera(center: c, zoom: log2(whole / (WebMercator.tileSize * scale)), bearing: bearing)
    }
}

/// A plane to frame pixels: `px = x * a + y * b + offsetX`, `py = x * c + y * d + offsetY`: a scale,
/// turned by the view's bearing. North up on a flat map, `b` and `c` are 0 and this is
/// `x * scale + offsetX`. A viewport's (`Viewport.transform`), a raster tile's, or one copy of the
/// world's (`copies(for:)`).
public struct PixelTransform: Equatable, Sendable {
    /// Pixels per unit of the plane.
    public var scale: Double
    public var a: Double, b: Double, c: Double, d: Double
    public var offsetX: Double
    public var offsetY: Double

    public init(scale: Double, offsetX: Double, offsetY: Double) {
        self.init(a: scale, b: 0, c: 0, d: scale, offsetX: offsetX, offsetY: offsetY, scale: scale)
    }

    public init(a: Double, b: Double, c: Double, d: Double, offsetX: Double, offsetY: Double, scale: Double) {
        self.scale = scale
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.offsetX = offsetX
        self.offsetY = offsetY
    }

    /// The unit world scaled by `scale` about (centerX, centerY), turned by the bearing (cos, sin)
    /// and placed at frame pixel (frameX, frameY).
    public init(scale s: Double, cos: Double, sin: Double, centerX: Double, centerY: Double, frameX: Double,
                frameY: Double) {
        if sin == 0 && cos == 1 {
            self.init(scale: s, offsetX: frameX - centerX * s, offsetY: frameY - centerY * s)
        } else {
            let a = s * cos, b = s * sin, c = -s * sin, d = s * cos
            self.init(a: a, b: b, c: c, d: d, offsetX: frameX - (centerX * a + centerY * b),
                      offsetY: frameY - (centerX * c + centerY * d), scale: s)
        }
    }

    /// This transform moved `dx` unit worlds east (another copy of the world).
    public func shifted(worlds dx: Double) -> PixelTransform {
        var t = self
        t.offsetX += dx * a
        t.offsetY += dx * c
        return t
    }

    /// The same map for a plane measured in finer units, `n` of them across the unit (a raster
    /// level's pixels, say, `n` of them across the world).
    public func inUnits(_ n: Double) -> PixelTransform {
        PixelTransform(a: a / n, b: b / n, c: c / n, d: d / n, offsetX: offsetX, offsetY: offsetY, scale: scale / n)
    }

    /// This transform applied to `g`'s fixed-point vertices.
    public func folding(_ g: IndexedGeometry) -> FoldedTransform {
        let s = g.step
        return FoldedTransform(a: a * s, b: b * s, c: c * s, d: d * s, offsetX: x(g.originX, g.originY),
                               offsetY: y(g.originX, g.originY))
    }

    /// Whether the map turns.
    public var isRotated: Bool { b != 0 || c != 0 }

    @inline(__always) public func x(_ x: Double, _ y: Double) -> Double { x * a + y * b + offsetX }
    @inline(__always) public func y(_ x: Double, _ y: Double) -> Double { x * c + y * d + offsetY }
    /// The frame pixel of a point of the plane.
    @inline(__always) public func pixel(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        (self.x(x, y), self.y(x, y))
    }

    /// The point of the plane under a frame pixel (the transform undone).
    public func plane(atPixel px: Double, _ py: Double) -> (x: Double, y: Double) {
        let u = px - offsetX, v = py - offsetY
        if !isRotated { return (u / a, v / d) }
        let det = a * d - b * c
        return ((d * u - b * v) / det, (-c * u + a * v) / det)
    }

    /// The map back from frame pixels to the plane (what `plane(atPixel:)` computes, as a transform).
    public var inverted: PixelTransform {
        let det = a * d - b * c
        return PixelTransform(a: d / det, b: -b / det, c: -c / det, d: a / det, offsetX: (b * offsetY - d * offsetX) / det,
                              offsetY: (c * offsetX - a * offsetY) / det, scale: 1 / scale)
    }

    /// The transforms for a Web Mercator viewport: one per copy of the world it shows (several near
    /// the antimeridian or when zoomed far out).
    public static func copies(for viewport: Viewport) -> [PixelTransform] {
        let b = viewport.worldBounds
        let t = viewport.transform
        let first = Int((b.minX).rounded(.down)), last = Int((b.maxX).rounded(.down))
        return (first...last).map { k in t.shifted(worlds: Double(k)) }
    }

    /// The plane's box that maps onto a pixel box (the bounding box of it, when turned).
    public func worldBox(ofPixels p: Box) -> Box {
        if !isRotated {
            let (x0, y0) = plane(atPixel: p.minX, p.minY), (x1, y1) = plane(atPixel: p.maxX, p.maxY)
            return Box(minX: min(x0, x1), minY: min(y0, y1), maxX: max(x0, x1), maxY: max(y0, y1))
        }
        var box = Box.empty
        for (px, py) in [(p.minX, p.minY), (p.maxX, p.minY), (p.minX, p.maxY), (p.maxX, p.maxY)] {
            let q = plane(atPixel: px, py)
            box.add(q.x, q.y)
        }
        return box
    }
}

/// A `PixelTransform` with a geometry's fixed point folded in: fixed-point vertex to frame pixels.
public struct FoldedTransform: Sendable {
    public var a: Double, b: Double, c: Double, d: Double, offsetX: Double, offsetY: Double

    @inline(__always) public func x(_ qx: Int32, _ qy: Int32) -> Double { Double(qx) * a + Double(qy) * b + offsetX }
    @inline(__always) public func y(_ qx: Int32, _ qy: Int32) -> Double { Double(qx) * c + Double(qy) * d + offsetY }
}
