import Foundation

/// The projection a scene asks for (`map.projection`): Web Mercator (the default), the globe, or any
/// CRS or projection string PROJ accepts.
public enum ProjectionSpec: Equatable, Hashable, Sendable, CustomStringConvertible {
    case webMercator
    case globe
    /// A PROJ definition as written: `EPSG:3035`, `ESRI:54030`, `+proj=robin`, ...
    case proj(String)

    public init(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        switch t.lowercased() {
        case "globe": self = .globe
        case "epsg:3857": self = .webMercator
        default: self = .proj(t)
        }
    }

    public var description: String {
        switch self {
        case .webMercator: return "EPSG:3857"
        case .globe: return "globe"
        case .proj(let s): return s
        }
    }
}

/// A planar map projection served from outside Core (PROJ, in the `Proj` wrapper): positions to the
/// projection's plane in metres, x east and y north, and back.
public protocol PlaneProjector: AnyObject, Sendable {
    /// The definition as the scene wrote it.
    var definition: String { get }
    /// Projects positions in place, longitudes in `xs` and latitudes in `ys` (degrees), to plane
    /// metres. A position the projection cannot show becomes NaN.
    func project(xs: inout [Double], ys: inout [Double])
    /// The position of a point of the plane (metres); nil outside the projection's domain.
    func unproject(x: Double, y: Double) -> LonLat?
    /// The meridian along which the projection cuts the world (a world map's edge, opposite its
    /// central meridian); nil for projections with no such seam (azimuthal, conic of a region...).
    var seam: Double? { get }
    /// The rim of an azimuthal projection's domain and the point it stands for; nil for others
    /// (`PlaneRim.find` probes for it).
    var rim: PlaneRim? { get }
}

/// How a view turns positions into a flat picture. Every projection shares one unit plane, the
/// "unit world": Web Mercator's square, in which the equator is 1 wide (40,075,016.686 m), y down.
/// So a zoom means the same everywhere: at the frame's centre a pixel covers 1 / (256 x 2^zoom) of it.
public enum Projection: Sendable, Equatable, CustomStringConvertible {
    /// Spherical Web Mercator (EPSG:3857), drawn with today's exact arithmetic; the world repeats east
    /// and west.
    case webMercator
    /// An orthographic view of the Earth centred on the camera: only the near hemisphere shows.
    case globe
    /// Any PROJ projection: a fixed plane, positions projected once.
    case plane(any PlaneProjector)

    /// The Earth's equator in metres: one unit of the unit world.
    public static let worldMeters = 2 * WebMercator.halfWorldMeters

    /// The projection a scene asks for, when Core can make it alone (nil for PROJ definitions).
    public init?(builtIn spec: ProjectionSpec) {
        switch spec {
        case .webMercator: self = .webMercator
        case .globe: self = .globe
        case .proj: return nil
        }
    }

    public static func == (a: Projection, b: Projection) -> Bool {
        switch (a, b) {
        case (.webMercator, .webMercator), (.globe, .globe): return true
        case (.plane(let p), .plane(let q)): return p === q
        default: return false
        }
    }

    public var spec: ProjectionSpec {
        switch self {
        case .webMercator: return .webMercator
        case .globe: return .globe
        case .plane(let p): return ProjectionSpec(p.definition)
        }
    }

    public var description: String { spec.description }

    /// Whether the map repeats east and west (copies of the world side by side).
    public var wraps: Bool { if case .webMercator = self { return true } else { return false } }

    /// Plane metres (x east, y north) to the unit world.
    @inline(__always)
    public static func unit(x: Double, y: Double) -> WorldPoint {
        WorldPoint(x: x / worldMeters + 0.5, y: 0.5 - y / worldMeters)
    }

    /// The unit world back to plane metres.
    @inline(__always)
    public static func meters(_ w: WorldPoint) -> (x: Double, y: Double) {
        ((w.x - 0.5) * worldMeters, (0.5 - w.y) * worldMeters)
    }

    /// A position in the unit world of a planar projection (nil on the globe, whose plane turns with
    /// the camera, and where the projection has no value).
    public func planePoint(_ p: LonLat) -> WorldPoint? {
        switch self {
        case .webMercator: return WebMercator.project(p)
        case .globe: return nil
        case .plane(let projector):
            var xs = [p.lon], ys = [p.lat]
            projector.project(xs: &xs, ys: &ys)
            guard xs[0].isFinite, ys[0].isFinite else { return nil }
            return Self.unit(x: xs[0], y: ys[0])
        }
    }

    /// The position of a unit-world point of a planar projection.
    public func location(planePoint w: WorldPoint) -> LonLat? {
        switch self {
        case .webMercator: return WebMercator.unproject(w)
        case .globe: return nil
        case .plane(let projector):
            let m = Self.meters(w)
            return projector.unproject(x: m.x, y: m.y)
        }
    }
}

/// The orthographic view of the unit sphere seen from above `center`: X east, Y north and Z towards the
/// viewer, so a point shows when Z >= 0 and the horizon (the limb) is Z = 0. Pure maths for the globe.
public struct Orthographic: Equatable, Sendable {
    public let center: LonLat
    /// The view's axes as unit vectors of the Earth (x towards 0°E, y towards 90°E, z north).
    let east: Geodesy.Vector, north: Geodesy.Vector, axis: Geodesy.Vector

    public init(center: LonLat) {
        self.center = center
        let lat = center.lat * .pi / 180, lon = center.lon * .pi / 180
        axis = Geodesy.Vector(x: cos(lat) * cos(lon), y: cos(lat) * sin(lon), z: sin(lat))
        east = Geodesy.Vector(x: -sin(lon), y: cos(lon), z: 0)
        north = Geodesy.Vector(x: -sin(lat) * cos(lon), y: -sin(lat) * sin(lon), z: cos(lat))
    }

    /// The view coordinates of a unit vector of the Earth.
    @inline(__always)
    public func view(x: Double, y: Double, z: Double) -> (x: Double, y: Double, z: Double) {
        (x * east.x + y * east.y + z * east.z,
         x * north.x + y * north.y + z * north.z,
         x * axis.x + y * axis.y + z * axis.z)
    }

    /// The view coordinates of a position (on the unit sphere).
    public func view(_ p: LonLat) -> (x: Double, y: Double, z: Double) {
        let v = Geodesy.unitVector(p)
        return view(x: v.x, y: v.y, z: v.z)
    }

    /// The position under view coordinates (x, y) on the near hemisphere; nil off the disc.
    public func location(x: Double, y: Double) -> LonLat? {
        vector(x: x, y: y).map(Geodesy.lonLat)
    }

    /// The unit vector (Earth-centred) under a view position; nil beyond the limb.
    @inline(__always)
    func vector(x: Double, y: Double) -> Geodesy.Vector? {
        let r2 = x * x + y * y
        guard r2 <= 1 + 1e-12 else { return nil }
        let z = max(0, 1 - r2).squareRoot()
        return Geodesy.Vector(x: x * east.x + y * north.x + z * axis.x,
                              y: x * east.y + y * north.y + z * axis.y,
                              z: x * east.z + y * north.z + z * axis.z)
    }
}

/// What PROJ says of a scene's projection, for the loader (which has no PROJ itself): implemented over
/// PROJ outside Core, so that `validate` reports an unknown CRS or a place outside a CRS's area of use
/// at its line and column, before anything is drawn.
public protocol ProjectionChecking: Sendable {
    func check(_ definition: String, places: [LonLat]) -> ProjectionCheck
}

public enum ProjectionCheck: Equatable, Sendable {
    case fine
    /// PROJ does not know the definition (its own message).
    case unknown(String)
    /// These places lie outside the CRS's area of use (described for messages).
    case outside([Int], area: String)
    /// The CRS is not a map (what it is, and what to use instead).
    case notAMap(String, hint: String)
    /// The projection cannot show these places (the far side of an orthographic view), and what to do.
    case hidden([Int], hint: String)
}
