import Foundation
import Shapefile

/// A base map layer as maptrip reads it: a shapefile in longitude/latitude degrees (WGS 84), checked
/// before anything is projected. A `.prj` that says the data is projected, or a vertex outside the
/// degrees' range (a projected file without its .prj, a corrupt record), is an error that says which.
enum DegreeLayer {
    /// Longitudes as far as ±360 (some data counts 0...360); latitudes to the poles, with rounding.
    static let longitudes = -360.0...360.0
    static let latitudes = -90.000_001...90.000_001

    static func read(path: String) throws -> (geometry: ShapeGeometry, isPolygon: Bool) {
        try checkProjectionFile(of: path)
        let reader = try ShapefileReader(path: path)
        let g = try reader.readAll()
        for k in 0..<g.partCount {
            for i in g.partRange(k) {
                let x = g.xs[i], y = g.ys[i]
                // Not-a-number vertices (a damaged record) are tolerated: IndexedGeometry centres them.
                guard x.isFinite, y.isFinite, !longitudes.contains(x) || !latitudes.contains(y) else { continue }
                let record = k < g.partShape.count ? Int(g.partShape[k]) : k
                throw ShapefileError(path: path, message: "shape \(record) has a vertex at (\(x), \(y)), which is not "
                                     + "longitude/latitude in degrees (the base map's layers are WGS 84 degrees: "
                                     + "reproject the layer, e.g. ogr2ogr -t_srs EPSG:4326 out.shp in.shp)")
            }
        }
        if case .polygon = reader.kind { return (g, true) }
        return (g, false)
    }

    /// The layer's `.prj`, when it has one, must describe a geographic (degrees) coordinate system.
    static func checkProjectionFile(of path: String) throws {
        let prj = (path as NSString).deletingPathExtension + ".prj"
        guard let data = FileManager.default.contents(atPath: prj) else { return }
        let text = String(decoding: data.prefix(65_536), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let upper = text.uppercased()
        if upper.hasPrefix("GEOGCS[") || upper.hasPrefix("GEOGCRS[") || upper.hasPrefix("GEODCRS[") { return }
        if upper.hasPrefix("PROJCS[") || upper.hasPrefix("PROJCRS[") {
            let name = text.split(separator: "\"", maxSplits: 2, omittingEmptySubsequences: false)
            let label = name.count > 2 ? " \"\(name[1])\"" : ""
            throw ShapefileError(path: path, message: "its .prj describes a projected coordinate system\(label), but the "
                                 + "base map's layers are longitude/latitude degrees (WGS 84): reproject the layer, "
                                 + "e.g. ogr2ogr -t_srs EPSG:4326 out.shp in.shp")
        }
        throw ShapefileError(path: path, message: "its .prj is not a coordinate system in WKT (remove it, or restore "
                             + "it from the same copy as the .shp)")
    }
}
