import Foundation
import MapTripGeometry
import MapTripScene
import Proj
import MapTripSupport

/// Why a scene's projection cannot be used.
public enum ProjectionError: Error, CustomStringConvertible, Equatable, DiagnosticConvertible {
    /// PROJ does not know the definition (its own message).
    case unknown(definition: String, message: String)
    /// A place lies outside the CRS's area of use.
    case outsideArea(place: String, index: Int, position: LonLat, crs: String, area: String)
    /// The CRS does not put positions on a map (geocentric, vertical): `kind` says what it is.
    case notAMap(definition: String, kind: String)
    /// A place the projection cannot show (the far side of `+proj=ortho`).
    case hidden(place: String, index: Int, position: LonLat, crs: String)

    public var description: String {
        switch self {
        case .unknown(let definition, let message):
            return "map.projection: PROJ does not know '\(definition)' (\(message)); "
                + "use \"globe\", an EPSG/ESRI code such as \"EPSG:3035\", or a PROJ string such as \"+proj=robin\""
        case .outsideArea(let place, let index, let position, let crs, let area):
            return "places[\(index)]: '\(place)' (\(String(format: "%.4f, %.4f", position.lat, position.lon))) lies outside "
                + "\(crs)'s area of use, \(area); choose a projection that covers every place (\"globe\", \"+proj=robin\")"
        case .notAMap(let definition, let kind):
            return "map.projection: '\(definition)' is \(kind), not a map projection; "
                + ProjectionError.mapAdvice
        case .hidden(let place, let index, let position, let crs):
            return "places[\(index)]: '\(place)' (\(String(format: "%.4f, %.4f", position.lat, position.lon))) "
                + "is on the side of the Earth \(crs) does not show; " + ProjectionError.hiddenAdvice
        }
    }

    /// What to use instead of a CRS that is not a map.
    public static let mapAdvice = "use \"globe\", an EPSG code of a projected CRS such as \"EPSG:3035\", or a PROJ "
        + "map projection such as \"+proj=robin\""
    /// What to do about a place a projection cannot show.
    public static let hiddenAdvice = "centre the projection nearer the trip (+lon_0, +lat_0), or use \"globe\", "
        + "which turns to face each place"

    /// The places (by index) a plane cannot put on its map.
    static func hidden(_ places: [LonLat], on plane: ProjPlane) -> [Int] {
        var xs = places.map(\.lon), ys = places.map(\.lat)
        plane.project(xs: &xs, ys: &ys)
        return places.indices.filter { !(xs[$0].isFinite && ys[$0].isFinite) }
    }
}

/// A PROJ projection as the view's plane: positions (EPSG:4326) to the CRS's metres and back, with
/// the seam where a world projection cuts the Earth found by probing, once, when first asked for (a
/// plane made only to check a scene never needs it). PROJ objects are not
/// thread-safe: calls are serialised (each render makes its own).
public final class ProjPlane: PlaneProjector, @unchecked Sendable {
    public let definition: String
    /// The CRS's name (e.g. "ETRS89-extended / LAEA Europe").
    public let name: String
    /// Where the CRS may be used (nil: PROJ knows no area, as for a bare `+proj=` string).
    public let area: (west: Double, south: Double, east: Double, north: Double, name: String)?
    public var seam: Double? {
        seamLock.withLock {
            if let found = foundSeam { return found }
            let s = findSeam()
            foundSeam = .some(s)
            return s
        }
    }
    private var foundSeam: Double??
    /// Probed when first asked for (only frames need it), and only for a plane without a seam.
    public var rim: PlaneRim? {
        if seam != nil { return nil }
        return seamLock.withLock {
            if let found = foundRim { return found }
            let r = PlaneRim.find(self)
            foundRim = .some(r)
            return r
        }
    }
    private var foundRim: PlaneRim??
    /// Guards `foundSeam` and `foundRim` (probing takes `lock` for each PROJ call, so it needs a lock of its own).
    private let seamLock = NSLock()
    private let lock = NSLock()
    private let context: ProjContext
    private let transformation: Transformation
    /// The CRS as PROJ was given it, and a second transformation on a context of its own, made when
    /// two threads first want the inverse at once (a reprojected frame's planning halves).
    private let target: String
    private var spare: Transformation?
    private let spareLock = NSLock()
    /// For a geographic CRS (degrees), metres per degree along the equator (a plate carrée).
    private let degreeMeters: Double?

    public init(_ definition: String) throws {
        self.definition = definition
        context = try ProjContext()
        // A bare "+proj=..." string is a conversion; make it a CRS.
        var text = definition
        if text.hasPrefix("+") && !text.contains("+type=crs") { text += " +type=crs" }
        target = text
        let crs: CRS
        do {
            crs = try CRS(text, context: context)
            guard crs.isCRS else {
                throw ProjectionError.unknown(definition: definition, message: "not a coordinate reference system")
            }
            if let kind = crs.notAMap { throw ProjectionError.notAMap(definition: definition, kind: kind) }
            transformation = try Transformation(from: "EPSG:4326", to: text, context: context)
        } catch let error as ProjError {
            throw ProjectionError.unknown(definition: definition, message: error.message)
        }
        name = crs.name ?? definition
        area = crs.areaOfUse
        degreeMeters = crs.isGeographic ? Projection.worldMeters / 360 : nil
    }

    public func project(xs: inout [Double], ys: inout [Double]) {
        lock.withLock { transformation.forwardAllowingFailures(xs: &xs, ys: &ys) }
        if let k = degreeMeters {
            for i in xs.indices {
                xs[i] *= k
                ys[i] *= k
            }
        }
    }

    public func unproject(x: Double, y: Double) -> LonLat? {
        let k = degreeMeters ?? 1
        let found: (x: Double, y: Double)?
        if lock.try() {
            found = transformation.inverse(x: x / k, y: y / k)
            lock.unlock()
        } else {
            spareLock.lock()
            if spare == nil { spare = try? Transformation(from: "EPSG:4326", to: target, context: ProjContext()) }
            if let other = spare {
                found = other.inverse(x: x / k, y: y / k)
                spareLock.unlock()
            } else {
                spareLock.unlock()
                found = lock.withLock { transformation.inverse(x: x / k, y: y / k) }
            }
        }
        guard let p = found else { return nil }
        guard p.x.isFinite, p.y.isFinite, abs(p.y) <= 90.000001 else { return nil }
        return LonLat(lon: p.x, lat: p.y)
    }

    /// Whether a position lies inside the CRS's area of use (always, when it has none).
    public func covers(_ p: LonLat) -> Bool {
        guard let a = area else { return true }
        let margin = 1e-6
        guard p.lat >= a.south - margin, p.lat <= a.north + margin else { return false }
        if a.west <= a.east { return p.lon >= a.west - margin && p.lon <= a.east + margin }
        return p.lon >= a.west - margin || p.lon <= a.east + margin
    }

    /// The area of use, for messages: its name and box.
    public var areaDescription: String {
        guard let a = area else { return "anywhere" }
        // PROJ's area names can run to a paragraph listing every country: its first sentence will do.
        var name = a.name
        if let stop = name.range(of: ". ") { name = String(name[..<stop.lowerBound]) }
        if name.count > 80 { name = String(name.prefix(79)) + "…" }
        return "\(name) (\(String(format: "%g", a.west)) to \(String(format: "%g", a.east)) E, "
            + "\(String(format: "%g", a.south)) to \(String(format: "%g", a.north)) N)"
    }

    /// The meridian where the projection puts the world's east and west edges: a meridian where two
    /// positions a hair apart land a quarter of the world apart, at most latitudes. Nil for
    /// projections without one (azimuthal, regional).
    private func findSeam() -> Double? {
        let latitudes = [-60.0, -30, 0, 30, 60]
        func gap(_ lon: Double, _ half: Double, _ lat: Double) -> Double {
            var xs = [lon - half, lon + half], ys = [lat, lat]
            project(xs: &xs, ys: &ys)
            guard xs[0].isFinite, xs[1].isFinite else { return 0 }
            return hypot(xs[1] - xs[0], ys[1] - ys[0])
        }
        let far = Projection.worldMeters / 4
        var best: (lon: Double, count: Int)? = nil
        var lon = -179.75
        while lon < 180 {
            let count = latitudes.filter { gap(lon, 0.26, $0) > far }.count
            if count >= 3, count > (best?.count ?? 0) { best = (lon, count) }
            lon += 0.5
        }
        guard var (lo, hi) = best.map({ ($0.lon - 0.26, $0.lon + 0.26) }) else { return nil }
        // Narrow it down at the equator.
        for _ in 0..<40 {
            let mid = (lo + hi) / 2
            if gap((lo + mid) / 2, (mid - lo) / 2, 0) > far { hi = mid } else { lo = mid }
        }
        return WebMercator.wrapLongitude((lo + hi) / 2)
    }
}

extension Projection {
    /// The projection a scene asks for, made: PROJ planes are created (and PROJ's own message
    /// reported for a definition it does not know) and every place is checked against the CRS's
    /// area of use.
    public static func make(for scene: Scene) throws -> Projection {
        switch scene.projection {
        case .webMercator: return .webMercator
        case .globe: return .globe
        case .proj(let definition):
            let plane = try ProjPlane(definition)
            for (i, place) in scene.places.enumerated() where !plane.covers(place.position) {
                throw ProjectionError.outsideArea(place: place.name, index: i, position: place.position,
                                                  crs: definition, area: plane.areaDescription)
            }
            if let i = ProjectionError.hidden(scene.places.map(\.position), on: plane).first {
                let place = scene.places[i]
                throw ProjectionError.hidden(place: place.name, index: i, position: place.position, crs: definition)
            }
            return .plane(plane)
        }
    }
}

/// The loader's projection check over PROJ: an unknown definition with PROJ's message, places outside
/// the CRS's area of use.
public struct ProjChecker: ProjectionChecking {
    public init() {}

    public func check(_ definition: String, places: [LonLat]) -> ProjectionCheck {
        do {
            let plane = try ProjPlane(definition)
            let outside = places.indices.filter { !plane.covers(places[$0]) }
            if !outside.isEmpty { return .outside(outside, area: plane.areaDescription) }
            let hidden = ProjectionError.hidden(places, on: plane)
            return hidden.isEmpty ? .fine : .hidden(hidden, hint: ProjectionError.hiddenAdvice)
        } catch let ProjectionError.unknown(_, message) {
            return .unknown(message)
        } catch let ProjectionError.notAMap(_, kind) {
            return .notAMap(kind, hint: ProjectionError.mapAdvice)
        } catch {
            return .unknown("\(error)")
        }
    }
}
