import Foundation
import Testing
import MapTripScene

/// The scene's furniture keys: each form read into `Scene.furniture`, the defaults filled in, and a
/// wrong value refused at its JSON path.
@Suite("Furniture in scenes")
struct FurnitureSceneTests {
    static let place = #""places": [{"lat": 60.17, "lon": 24.94}]"#

    static func furniture(_ keys: String) throws -> Furniture {
        try SceneLoader.decode(Data("{\(keys) \(place)}".utf8), file: "t.json").furniture
    }

    @Test func everyFormIsRead() throws {
        #expect(try Self.furniture("").isEmpty)
        #expect(try Self.furniture(#""scaleBar": false, "northArrow": false,"#).isEmpty)
        let on = try Self.furniture(#""scaleBar": true, "northArrow": true, "watermark": "logo.svg","#)
        #expect(on.scaleBar == Furniture.ScaleBar(corner: .bottomLeft, units: .metric))
        #expect(on.northArrow == Furniture.NorthArrow(corner: .topRight, auto: false))
        #expect(on.watermark == Furniture.Watermark(file: "logo.svg", corner: .topRight, size: 0.12, opacity: 0.6))
        let auto = try Self.furniture(#""northArrow": "auto","#)
        #expect(auto.northArrow == Furniture.NorthArrow(corner: .topRight, auto: true))
        let long = try Self.furniture("""
            "scaleBar": {"corner": "top-left", "units": "imperial"}, "northArrow": {"corner": "bottom-right", "auto": true},
            "watermark": {"file": "logo.png", "corner": "bottom-left", "size": 0.2, "opacity": 0.35},
            """)
        #expect(long.scaleBar == Furniture.ScaleBar(corner: .topLeft, units: .imperial))
        // The scene's units, unless the bar names its own.
        #expect(try Self.furniture(#""units": "imperial", "scaleBar": true,"#).scaleBar?.units == .imperial)
        #expect(try Self.furniture(#""units": "imperial", "scaleBar": {"units": "metric"},"#).scaleBar?.units == .metric)
        #expect(long.northArrow == Furniture.NorthArrow(corner: .bottomRight, auto: true))
        #expect(long.watermark == Furniture.Watermark(file: "logo.png", corner: .bottomLeft, size: 0.2, opacity: 0.35))
    }

    @Test func wrongValuesAreRefusedAtTheirPaths() throws {
        let cases: [(String, String, String)] = [
            (#""northArrow": "always","#, "northArrow", "unknown northArrow 'always'"),
            (#""scaleBar": "auto","#, "scaleBar", "unknown scaleBar 'auto'"),
            (#""scaleBar": 3,"#, "scaleBar", "expected true, false or an object"),
            (#""scaleBar": {"corner": "middle"},"#, "scaleBar.corner", "unknown corner 'middle'"),
            (#""northArrow": {"auto": "yes"},"#, "northArrow.auto", "expected true or false"),
            (#""watermark": {"corner": "top-left"},"#, "watermark", "missing required key 'file'"),
            (#""watermark": {"file": "a.png", "opacity": 1.5},"#, "watermark.opacity", "opacity 1.5 is outside [0, 1]"),
            (#""watermark": {"file": "a.png", "size": 0},"#, "watermark.size", "size 0 is outside [0.02, 0.5]"),
        ]
        for (keys, path, message) in cases {
            do {
                _ = try Self.furniture(keys)
                Issue.record("\(keys) was accepted")
            } catch {
                #expect("\(error)".contains("\(path): \(message)"), "\(keys): \(error)")
            }
        }
    }
}
