import Foundation
import FuzzSupport
import MapTripScene
import MapTripRender

/// The base map's shapefile reading over any bytes: the input is split into a `.shx` and a `.shp`
/// (see `Fuzz.split`), read through shapelib, projected to Web Mercator and generalised for two zooms,
/// as a render does. Errors are fine; crashes, hangs and leaks are not.
@_cdecl("FuzzShapefile_main")
func fuzzShapefileMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Fuzz.run(argc, argv) { bytes, count in
        let (shx, shp) = Fuzz.split(Fuzz.data(bytes, count))
        _ = Fuzz.file("layer.shx", shx)
        let url = Fuzz.file("layer.shp", shp)
        if let source = try? ShapefileDatasource(path: url.path) {
            _ = try? source.levels.geometry(zoom: 1, scale: 1)
            _ = try? source.levels.geometry(zoom: 9, scale: 1)
        }
        return 0
    }
}
