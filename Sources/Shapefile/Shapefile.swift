import CShapelib
import Foundation

/// A shapelib failure. shapelib reports through NULL returns and its error hook, whose message (kept,
/// not printed: see shim.h) becomes part of this one; the message names the file.
public struct ShapefileError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let message: String
    public var description: String { "shapefile \(path): \(message)" }

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}

/// The geometry kinds maptrip reads.
public enum ShapeKind: Sendable {
    case point, polyline, polygon, multipoint, other(Int32)
}

/// All the vertices of a shapefile in flat arrays: part k runs from `partStarts[k]` to
/// `partStarts[k + 1]` (or the end). Flat storage keeps large layers (Natural Earth 10m) compact.
public struct ShapeGeometry: Sendable {
    public var kind: ShapeKind
    public var xs: [Double] = []
    public var ys: [Double] = []
    public var partStarts: [Int] = []
    /// For each part, the index of the shape (record) it belongs to.
    public var partShape: [Int32] = []

    public var partCount: Int { partStarts.count }
    public func partRange(_ k: Int) -> Range<Int> {
        partStarts[k]..<(k + 1 < partStarts.count ? partStarts[k + 1] : xs.count)
    }
}

/// An open .shp/.shx pair, read with shapelib.
public final class ShapefileReader {
    private let handle: SHPHandle
    public let path: String
    public let entityCount: Int
    public let kind: ShapeKind
    /// Bounds (minX, minY, maxX, maxY) from the header.
    public let bounds: (Double, Double, Double, Double)

    public init(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ShapefileError(path: path, message: "no such file (a base map folder needs every layer's .shp "
                                 + "and .shx: restore the folder, or pass another)")
        }
        errno = 0
        var hooks = SAHooks()
        maptrip_shapelib_hooks(&hooks)
        maptrip_shapelib_clear_message()
        guard let h = SHPOpenLL(path, "rb", &hooks) else {
            let said = Self.lastMessage()
            let reason = said ?? (errno != 0 ? String(cString: strerror(errno)) : "unreadable")
            throw ShapefileError(path: path, message: "not a readable shapefile: \(reason) (a .shp needs the .shx "
                                 + "made with it beside it: restore both from the same copy)")
        }
        handle = h
        self.path = path
        var count: Int32 = 0, type: Int32 = 0
        var minB = [Double](repeating: 0, count: 4), maxB = [Double](repeating: 0, count: 4)
        SHPGetInfo(h, &count, &type, &minB, &maxB)
        entityCount = Int(count)
        bounds = (minB[0], minB[1], maxB[0], maxB[1])
        switch type {
        case SHPT_POINT, SHPT_POINTZ, SHPT_POINTM: kind = .point
        case SHPT_ARC, SHPT_ARCZ, SHPT_ARCM: kind = .polyline
        case SHPT_POLYGON, SHPT_POLYGONZ, SHPT_POLYGONM: kind = .polygon
        case SHPT_MULTIPOINT, SHPT_MULTIPOINTZ, SHPT_MULTIPOINTM: kind = .multipoint
        default: kind = .other(type)
        }
    }

    deinit { SHPClose(handle) }

    /// shapelib's last message on this thread, on one line (nil: none).
    private static func lastMessage() -> String? {
        let m = String(cString: maptrip_shapelib_last_message())
            .split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        return m.isEmpty ? nil : m
    }

    /// Reads every shape into flat arrays.
    public func readAll() throws -> ShapeGeometry {
        var g = ShapeGeometry(kind: kind)
        for i in 0..<entityCount {
            maptrip_shapelib_clear_message()
            guard let obj = SHPReadObject(handle, Int32(i)) else {
                let said = Self.lastMessage().map { ": \($0)" } ?? ""
                throw ShapefileError(path: path, message: "cannot read shape \(i) of \(entityCount)\(said) (the file is "
                                     + "truncated or damaged, or not the one its .shx was made with: restore both from the same copy)")
            }
            defer { SHPDestroyObject(obj) }
            let o = obj.pointee
            let n = Int(o.nVertices)
            if n == 0 { continue }
            let parts = max(Int(o.nParts), 1)
            for p in 0..<parts {
                let start = o.nParts == 0 ? 0 : Int(o.panPartStart[p])
                let end = p + 1 < parts ? Int(o.panPartStart[p + 1]) : n
                guard start >= 0, start <= end, end <= n else {
                    throw ShapefileError(path: path, message: "shape \(i) has a corrupt part table")
                }
                if end == start { continue }
                g.partStarts.append(g.xs.count)
                g.partShape.append(Int32(i))
                g.xs.append(contentsOf: UnsafeBufferPointer(start: o.padfX + start, count: end - start))
                g.ys.append(contentsOf: UnsafeBufferPointer(start: o.padfY + start, count: end - start))
            }
        }
        return g
    }
}
