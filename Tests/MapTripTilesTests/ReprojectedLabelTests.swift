import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import Testing
import TestSupport
import VectorTile
@testable import MapTripRender
@testable import MapTripTiles

/// A styled map's labels on the globe and a PROJ plane (EPSG:3067, Finland's own): each point label
/// at its feature's position taken through the frame's projection, inked there, upright; street names
/// along their streets as the projection draws them; none over another, no ink outside them.
@Suite("Styled map labels on the globe and PROJ planes")
struct ReprojectedLabelTests {
    static let lon = 24.9465, lat = 60.1695
    /// Style zoom 15 (the z14 tiles): the globe and the plane show true scale, Web Mercator's is
    /// 1 / cos(latitude) larger, so their camera zoom is Web Mercator's 16 plus log2 of that.
    static let trueZoom = 16 + log2(1 / cos(lat * .pi / 180))

    static let style = """
        {"version": 8, "sources": {"osm": {"type": "vector"}}, "layers": [
          {"id": "bg", "type": "background", "paint": {"background-color": "#ffffff"}},
          {"id": "poi", "type": "symbol", "source": "osm", "source-layer": "poi",
           "layout": {"text-field": "{name}", "text-size": 13, "text-font": ["Noto Sans Regular"]},
           "paint": {"text-color": "#000000"}},
          {"id": "streets", "type": "symbol", "source": "osm", "source-layer": "transportation_name",
           "layout": {"symbol-placement": "line", "text-field": "{name}", "text-size": 12}, "paint": {"text-color": "#000000"}}
        ]}
        """

    /// The named points of the set's `poi` layer (its z14 tiles, decoded here), by name.
    static func points() throws -> [String: [LonLat]] {
        let set = try VectorTileSet(source: try PMTilesSource(file: VectorData.pmtiles))
        var out: [String: [LonLat]] = [:]
        for x in 9326...9327 {
            for y in 4741...4742 {
                let key = TileKey(z: 14, x: x, y: y)
                guard let view = try set.tiles(for: [key])[key]?.get(), let layer = view.tile.layer(named: "poi") else { continue }
                for f in layer.features where f.type == .point {
                    guard case .string(let name)? = f.properties["name"] else { continue }
                    for part in f.geometry {
                        for p in part {
                            let q = VectorData.lonLat(p, key: key, extent: Int(layer.extent))
                            out[name, default: []].append(LonLat(lon: q.lon, lat: q.lat))
                        }
                    }
                }
            }
        }
        return out
    }

    /// The set's named streets (`transportation_name`, its z14 tiles) in a frame's pixels, by name:
    /// each line's points taken through the frame's projection (lines with a point it does not show
    /// left out).
    static func streets(in v: Viewport) throws -> [String: [LinePath]] {
        let set = try VectorTileSet(source: try PMTilesSource(file: VectorData.pmtiles))
        var out: [String: [LinePath]] = [:]
        for x in 9326...9327 {
            for y in 4741...4742 {
                let key = TileKey(z: 14, x: x, y: y)
                guard let view = try set.tiles(for: [key])[key]?.get(), let layer = view.tile.layer(named: "transportation_name")
                else { continue }
                for f in layer.features {
                    guard case .string(let name)? = f.properties["name"] else { continue }
                    for part in f.geometry {
                        let pixels = part.compactMap { p -> (x: Double, y: Double)? in
                            let q = VectorData.lonLat(p, key: key, extent: Int(layer.extent))
                            return v.pixel(LonLat(lon: q.lon, lat: q.lat))
                        }
                        if pixels.count == part.count, pixels.count > 1 {
                            out[name, default: []].append(LinePath(xs: pixels.map(\.x), ys: pixels.map(\.y)))
                        }
                    }
                }
            }
        }
        return out
    }

    @Test("Labels on the globe and EPSG:3067: at their projected points and along their streets, inked there, apart")
    func pointLabels() throws {
        try TemporaryFolder.with("reprojected-labels") { dir in
            let points = try Self.points()
            #expect(points.count > 20, "named points: \(points.count)")
            for (name, projection) in [("globe", Projection.globe), ("EPSG:3067", Projection.plane(try ProjPlane("EPSG:3067")))] {
                let map = try TileTest.styledMap(tiles: VectorData.pmtiles, style: Self.style, in: dir)
                let v = Viewport(camera: Camera(center: LonLat(lon: Self.lon, lat: Self.lat), zoom: Self.trueZoom), width: 1280,
                                 height: 720, projection: projection)
                #expect(abs(ReprojectedLabelView(v).styleZoom - 15) < 0.02, "\(name): \(ReprojectedLabelView(v).styleZoom)")
                try map.prepare(for: [v])
                let s = try TileTest.render(map, v)
                if let out = ProcessInfo.processInfo.environment["MAPTRIP_TEST_PNG"] { try s.writePNG(to: "\(out)-\(name).png") }
                let placed = map.labels.placements
                let pointLabels = placed.filter { $0.kind == .point }, streets = placed.filter { $0.kind == .line }
                print("\(name): \(pointLabels.count) point labels and \(streets.count) street names placed")
                #expect(pointLabels.count >= 8, "\(name): \(pointLabels.count) point labels placed")
                #expect(streets.count >= 5, "\(name): \(streets.count) street names placed")
                #expect(!placed.contains { $0.kind == .area })
                // Each street name's glyphs along its street, its points taken through the projection.
                let lines = try Self.streets(in: v)
                for label in streets {
                    let mine = lines[label.text] ?? []
                    #expect(!mine.isEmpty, "\(name): \(label.text) is no street of the tiles")
                    for g in label.glyphs {
                        let d = mine.map { $0.distance(from: g.x, g.y) }.min() ?? .infinity
                        #expect(d < 12, "\(name): \(label.text): a glyph \(d) px from its street")
                    }
                }
                func dark(_ x: Int, _ y: Int) -> Bool { s.pixel(x: x, y: y).g < 96 }
                for label in pointLabels {
                    // At its feature's point, through the projection (within a pixel).
                    let nearest = (points[label.text] ?? []).compactMap { v.pixel($0) }
                        .map { hypot($0.x - label.x, $0.y - label.y) }.min() ?? .infinity
                    #expect(nearest < 1, "\(name): \(label.text) \(nearest) px from its point")
                    // Inked in its box, the ink centred on the anchor (text-anchor center), upright:
                    // wider than tall.
                    let b = label.boxes[0]
                    var ink = 0, sx = 0.0, sy = 0.0, inkBox = Box.empty
                    for y in max(0, Int(b.minY))..<min(720, Int(b.maxY.rounded(.up))) {
                        for x in max(0, Int(b.minX))..<min(1280, Int(b.maxX.rounded(.up))) where dark(x, y) {
                            ink += 1
                            sx += Double(x) + 0.5
                            sy += Double(y) + 0.5
                            inkBox.add(Double(x), Double(y))
                        }
                    }
                    guard b.minX >= 0, b.minY >= 0, b.maxX <= 1280, b.maxY <= 720 else { continue }
                    #expect(ink > 15, "\(name): \(label.text) has \(ink) ink pixels")
                    guard ink > 15 else { continue }
                    let cx = (inkBox.minX + inkBox.maxX + 1) / 2, cy = (inkBox.minY + inkBox.maxY + 1) / 2
                    #expect(abs(cx - label.x) < 4 && abs(cy - label.y) < 6,
                            "\(name): \(label.text)'s ink centred at \(cx), \(cy), its anchor \(label.x), \(label.y)")
                    if label.text.count >= 4 { #expect(inkBox.maxX - inkBox.minX > inkBox.maxY - inkBox.minY, "\(name): \(label.text)") }
                }
                // No label over another (a street name's own glyphs' boxes may meet); no ink outside the labels' boxes.
                for i in placed.indices {
                    for j in placed.indices where j > i {
                        #expect(!placed[i].boxes.contains { a in placed[j].boxes.contains { a.intersects($0) } },
                                "\(name): \(placed[i].text) meets \(placed[j].text)")
                    }
                }
                let boxes = placed.flatMap(\.boxes)
                var stray = 0
                for y in 0..<720 {
                    for x in 0..<1280 where dark(x, y) {
                        if !boxes.contains(where: { $0.minX - 1 <= Double(x) && Double(x) <= $0.maxX + 1
                                && $0.minY - 1 <= Double(y) && Double(y) <= $0.maxY + 1 }) { stray += 1 }
                    }
                }
                #expect(stray == 0, "\(name): \(stray) dark pixels outside the labels")
                #expect(map.warnings.isEmpty, "\(name): \(map.warnings)")
            }
        }
    }

    @Test("A label's anchor on the globe's far side or rim is not shown; at the centre, the frame's middle")
    func farSide() {
        let v = Viewport(camera: Camera(center: LonLat(lon: Self.lon, lat: Self.lat), zoom: 4), width: 640, height: 360,
                         projection: .globe)
        let view = ReprojectedLabelView(v)
        func plane(_ p: LonLat) -> (Double, Double) {
            let w = WebMercator.project(p)
            return (w.x * view.pixelsPerWorld, w.y * view.pixelsPerWorld)
        }
        let centre = plane(LonLat(lon: Self.lon, lat: Self.lat))
        let p = view.project(centre.0, centre.1, in: v)
        #expect(p.map { abs($0.x - 320) < 0.01 && abs($0.y - 180) < 0.01 } == true, "\(String(describing: p))")
        let far = plane(LonLat(lon: Self.lon - 180, lat: -Self.lat))
        #expect(view.project(far.0, far.1, in: v) == nil)
        // 88 degrees from the centre: on the disc, but at its rim.
        let rim = plane(LonLat(lon: Self.lon, lat: Self.lat - 88))
        #expect(v.pixel(LonLat(lon: Self.lon, lat: Self.lat - 88)) != nil)
        #expect(view.project(rim.0, rim.1, in: v) == nil)
    }
}
