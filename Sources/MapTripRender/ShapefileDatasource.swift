import Foundation
import MapTripGeometry
import MapTripSupport
import Proj
import Shapefile

/// A shapefile read with shapelib and projected once with PROJ (EPSG:4326 to Web Mercator) into
/// the unit world, with the boxes that let each frame touch only what it shows. The globe takes the
/// same levels of detail onto the sphere.
public final class ShapefileDatasource: @unchecked Sendable {
    public let path: String
    /// The geometry generalised per zoom level, built on first use. The full geometry is let go
    /// once a render has built its levels (`prepare`), and read again from the file if needed.
    public let levels: DetailLevels
    private var spheres: [Int: SphereGeometry] = [:]
    private let lock = NSLock()

    /// The level of detail for a zoom, on the sphere (built on first use).
    public func sphere(zoom: Double, scale: Double) throws -> SphereGeometry {
        let level = min(DetailLevels.level(zoom: zoom, scale: scale), DetailLevels.finest + 1)
        if let s = lock.withLock({ spheres[level] }) { return s }
        let s = SphereGeometry(try levels.geometry(zoom: zoom, scale: scale))
        lock.withLock { spheres[level] = s }
        return s
    }

    /// EPSG:4326 (longitude first) to EPSG:3857: the pipeline PROJ itself picks for these two CRSs
    /// (`projinfo -s EPSG:4326 -t EPSG:3857 -o PROJ`, axes in map order), built without its database.
    public static let toWebMercator = "+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad "
        + "+step +proj=webmerc +lat_0=0 +lon_0=0 +x_0=0 +y_0=0 +ellps=WGS84"

    /// How `load` makes the full geometry, for the geometry cache (change it when `load` changes).
    static let recipe = DetailLevels.recipe + "; load/1 clamped, wrapped, " + toWebMercator

    /// The file is read when a level is first needed that `cache` (nil: none) does not hold; the
    /// levels built are written to it.
    public init(path: String, cache: GeometryCache? = nil) {
        self.path = path
        let base = (path as NSString).deletingPathExtension
        let store = cache?.store(path: path, recipe: Self.recipe,
                                 identity: CacheKeys.identity(of: [path, base + ".shx", base + ".prj"]))
        levels = DetailLevels(store: store) { try Self.load(path: path) }
    }

    /// The shapefile at `path` in the Web Mercator unit world. With a PROJ context of its own, let go
    /// after: loads may run on several threads, and a context kept would hold its memory for nothing.
    static func load(path: String) throws -> IndexedGeometry {
        let transformation = try Transformation(pipeline: toWebMercator, context: ProjContext())
        let layer = try DegreeLayer.read(path: path)
        var g = layer.geometry
        // Web Mercator sends the poles to infinity without complaint: clamp first.
        for i in g.ys.indices {
            g.ys[i] = WebMercator.clampLatitude(g.ys[i])
        }
        let longitudes = g.xs
        try transformation.forward(xs: &g.xs, ys: &g.ys)
        for i in g.xs.indices {
            // PROJ wraps longitude 180 to -180: keep each vertex on the side of the world it came
            // from, or an edge ending on the antimeridian would cross the whole map.
            var x = g.xs[i]
            if longitudes[i] > 90 && x < 0 { x += 2 * WebMercator.halfWorldMeters }
            if longitudes[i] < -90 && x > 0 { x -= 2 * WebMercator.halfWorldMeters }
            let w = WebMercator.fromMeters(x: x, y: g.ys[i])
            g.xs[i] = w.x
            g.ys[i] = w.y
        }
        return IndexedGeometry(xs: g.xs, ys: g.ys, partStarts: g.partStarts, isPolygon: layer.isPolygon)
    }
}

/// A shapefile projected with PROJ into a planar projection's unit world, cut along its seam first.
public final class PlaneDatasource: @unchecked Sendable {
    public let levels: DetailLevels

    public init(path: String, plane: any PlaneProjector) throws {
        let (g, isPolygon) = try DegreeLayer.read(path: path)
        var parts = SeamCut.Parts(lons: g.xs, lats: g.ys, partStarts: g.partStarts)
        if let seam = plane.seam { parts = SeamCut.cut(parts, seam: seam, polygons: isPolygon) }
        var xs = parts.lons, ys = parts.lats
        plane.project(xs: &xs, ys: &ys)
        // Rings around an azimuthal projection's singular point need its rim (see PlaneRim).
        let rim = isPolygon && plane.seam == nil ? plane.rim : nil
        // Points the projection cannot show are left out: a ring joins its neighbours, a line breaks.
        var outX: [Double] = [], outY: [Double] = [], starts: [Int] = []
        outX.reserveCapacity(xs.count)
        outY.reserveCapacity(xs.count)
        for k in parts.partStarts.indices {
            let r = parts.partStarts[k]..<(k + 1 < parts.partStarts.count ? parts.partStarts[k + 1] : xs.count)
            var start = outX.count
            for i in r {
                if xs[i].isFinite && ys[i].isFinite {
                    let w = Projection.unit(x: xs[i], y: ys[i])
                    outX.append(w.x)
                    outY.append(w.y)
                } else if !isPolygon {
                    if outX.count - start >= 2 { starts.append(start) } else { outX.removeSubrange(start...); outY.removeSubrange(start...) }
                    start = outX.count
                }
            }
            if outX.count - start >= (isPolygon ? 3 : 2) {
                starts.append(start)
                // A ring around an azimuthal projection's singular point: the rim closes its picture.
                if let rim {
                    // The ring as kept (the points the plane can show), in plane metres.
                    let kept = r.filter { xs[$0].isFinite && ys[$0].isFinite }
                    let px = kept.map { xs[$0] }[...], py = kept.map { ys[$0] }[...]
                    if PlaneRim.enclosesSingularPoint(lons: parts.lons[r], lats: parts.lats[r], xs: px, ys: py) {
                        starts.append(outX.count)
                        for p in rim.ring(against: PlaneRim.signedArea(xs: px, ys: py)) {
                            let w = Projection.unit(x: p.x, y: p.y)
                            outX.append(w.x)
                            outY.append(w.y)
                        }
                    }
                }
            } else {
                outX.removeSubrange(start...)
                outY.removeSubrange(start...)
            }
        }
        levels = DetailLevels(IndexedGeometry(xs: outX, ys: outY, partStarts: starts, isPolygon: isPolygon))
    }
}

/// Shapefiles loaded once and shared by several base maps (the renders of a batch, on several
/// threads): each file is read and projected by the first map that needs it.
public final class ShapefileStore: @unchecked Sendable {
    private let lock = NSLock()
    private var sources: [String: ShapefileDatasource] = [:]
    private var planes: [String: PlaneDatasource] = [:]
    /// Where levels are kept between runs (nil: built by each run).
    public let cache: GeometryCache?

    public init(cache: GeometryCache? = nil) {
        self.cache = cache
    }

    /// The shapefile at `path`, loaded on first use.
    public func datasource(path: String) -> ShapefileDatasource {
        lock.withLock {
            if let d = sources[path] { return d }
            let d = ShapefileDatasource(path: path, cache: cache)
            sources[path] = d
            return d
        }
    }

    /// The shapefile at `path` in a planar projection (shared by every projection of the same definition).
    public func datasource(path: String, plane: any PlaneProjector) throws -> PlaneDatasource {
        try lock.withLock {
            let key = plane.definition + "\u{0}" + path
            if let d = planes[key] { return d }
            let d = try PlaneDatasource(path: path, plane: plane)
            planes[key] = d
            return d
        }
    }
}

