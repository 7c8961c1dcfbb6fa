import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripStyle
import Testing
import TestSupport
import VectorTile
@testable import MapTripRender
@testable import MapTripTiles

/// Labels along lines and of areas on Helsinki's vector tiles: street names set glyph by glyph
/// along the streets the tiles hold (decoded here), apart from each other, inked inside their
/// boxes, and steady as the camera moves.
@Suite("Styled map labels")
struct StyledLabelTests {
    /// Street zoom over the centre (style zoom 16: the z14 tiles enlarged 4 times).
    static let camera = Camera(center: LonLat(lon: 24.9465, lat: 60.1690), zoom: 17)
    static let size = 12.0
    static let white = ##"{"id": "bg", "type": "background", "paint": {"background-color": "#ffffff"}},"##

    /// Street names along `transportation_name`'s lines, over `extra` layers (nothing: a
    /// transparent frame).
    static func streetStyle(background: Bool = true, extra: String = "") -> String {
        let bg = background ? Self.white : ""
        return """
        {"version": 8, "sources": {"osm": {"type": "vector"}}, "layers": [
          \(bg)
          \(extra)
          {"id": "streets", "type": "symbol", "source": "osm", "source-layer": "transportation_name",
           "layout": {"symbol-placement": "line", "text-field": ["coalesce", ["get", "name:latin"], ["get", "name"]],
                      "text-size": \(size), "text-font": ["Noto Sans Regular"]},
           "paint": {"text-color": "#000000", "text-halo-color": "#ffffff", "text-halo-width": 1.5}}
        ]}
        """
    }

    /// The features of a layer of the set's z14 tiles, each its properties and its parts in frame pixels.
    static func decoded(_ layer: String, in v: Viewport) throws -> [(properties: [String: VectorValue], parts: [[(x: Double, y: Double)]])] {
        let set = try VectorTileSet(source: try PMTilesSource(file: StyledMapTests.pmtiles))
        var out: [(properties: [String: VectorValue], parts: [[(x: Double, y: Double)]])] = []
        for x in 9326...9327 {
            for y in 4741...4742 {
                let key = TileKey(z: 14, x: x, y: y)
                guard let view = try set.tiles(for: [key])[key]?.get(), let l = view.tile.layer(named: layer) else { continue }
                let e = Double(l.extent), n = Double(1 << key.z)
                for f in l.features {
                    out.append((f.properties, f.geometry.map { part in
                        part.map { v.pixel(WorldPoint(x: (Double(key.x) + Double($0.x) / e) / n, y: (Double(key.y) + Double($0.y) / e) / n)) }
                    }))
                }
            }
        }
        return out
    }

    /// The set's named lines of a layer in frame pixels, by name.
    static func lines(_ layer: String, in v: Viewport) throws -> [String: [LinePath]] {
        var out: [String: [LinePath]] = [:]
        for f in try decoded(layer, in: v) {
            guard case .string(let name)? = f.properties["name:latin"] ?? f.properties["name"] else { continue }
            for part in f.parts { out[name, default: []].append(LinePath(xs: part.map(\.x), ys: part.map(\.y))) }
        }
        return out
    }

    static func render(_ map: StyledMap, camera: Camera = camera) throws -> (ImageSurface, Viewport) {
        try StyledMapTests.render(map, camera: camera, width: 1280, height: 720)
    }

    @Test("Street names are set along their streets, upright, and apart")
    func streetNamesAlongStreets() throws {
        try TemporaryFolder.with("labels") { dir in
            let map = try StyledMapTests.map(style: Self.streetStyle(), in: dir)
            let (_, v) = try Self.render(map)
            let streets = map.labels.placements.filter { $0.kind == .line }
            #expect(streets.count >= 10, "street names placed: \(streets.count)")
            let decoded = try Self.lines("transportation_name", in: v)
            for label in streets {
                let lines = try #require(decoded[label.text], "\(label.text) is no street of the tiles")
                // A glyph a character, or a ligature's two ("fi" in Sofiankatu).
                #expect(label.glyphs.count <= label.text.count && label.glyphs.count >= label.text.count / 2,
                        "\(label.text): \(label.glyphs.count) glyphs")
                for g in label.glyphs {
                    let d = lines.map { $0.distance(from: g.x, g.y) }.min() ?? .infinity
                    #expect(d < Self.size, "\(label.text): a glyph \(d) px from its street")
                }
                // Upright: read left to right, no glyph upside down.
                if let first = label.glyphs.first, let last = label.glyphs.last, label.glyphs.count > 1 {
                    #expect(last.x >= first.x - 0.01, "\(label.text) runs right to left")
                }
                for g in label.glyphs { #expect(cos(g.angle) > -0.2, "\(label.text): a glyph upside down") }
            }
            // No two labels' boxes meet (a label's own glyphs' boxes may).
            let all = map.labels.placements
            for i in all.indices {
                for j in all.indices where j > i {
                    let hit = all[i].boxes.contains { a in all[j].boxes.contains { a.intersects($0) } }
                    #expect(!hit, "\(all[i].text) meets \(all[j].text)")
                }
            }
            // One name is not repeated close by (seams between tiles included).
            for i in streets.indices {
                for j in streets.indices where j > i && streets[i].text == streets[j].text {
                    #expect(hypot(streets[i].x - streets[j].x, streets[i].y - streets[j].y) > 100, "\(streets[i].text) twice")
                }
            }
        }
    }

    @Test("A street name's ink lies inside its glyphs' boxes")
    func inkInsideBoxes() throws {
        try TemporaryFolder.with("labels") { dir in
            let map = try StyledMapTests.map(style: Self.streetStyle(background: false), in: dir)
            map.outside = Color(red: 0, green: 0, blue: 0, alpha: 0)
            let (s, _) = try Self.render(map)
            let boxes = map.labels.placements.flatMap(\.boxes)
            #expect(map.labels.placements.count >= 10)
            var ink = 0, outside = 0
            for y in 0..<s.height {
                for x in 0..<s.width where s.pixel(x: x, y: y).a > 24 {
                    ink += 1
                    let px = Double(x) + 0.5, py = Double(y) + 0.5
                    if !boxes.contains(where: { $0.minX - 1 <= px && px <= $0.maxX + 1 && $0.minY - 1 <= py && py <= $0.maxY + 1 }) {
                        outside += 1
                    }
                }
            }
            #expect(ink > 2000, "ink: \(ink)")
            #expect(outside == 0, "\(outside) of \(ink) inked pixels outside the boxes")
        }
    }

    @Test("Street names stay put as the camera moves a pixel")
    func steadyAcrossFrames() throws {
        try TemporaryFolder.with("labels") { dir in
            let map = try StyledMapTests.map(style: Self.streetStyle(), in: dir)
            let v0 = Viewport(camera: Self.camera, width: 1280, height: 720)
            var moved = Self.camera
            moved.center = try #require(v0.location(atPixel: 641, 360))
            let v1 = Viewport(camera: moved, width: 1280, height: 720)
            let p0 = try #require(v0.pixel(Self.camera.center)), p1 = try #require(v1.pixel(Self.camera.center))
            let (dx, dy) = (p1.x - p0.x, p1.y - p0.y)
            #expect(abs(dx + 1) < 0.01 && abs(dy) < 0.01)
            _ = try Self.render(map)
            let before = map.labels.placements.filter { $0.kind == .line }
            _ = try Self.render(map, camera: moved)
            let after = map.labels.placements.filter { $0.kind == .line }
            #expect(before.count >= 10)
            // Moving the camera a pixel east moves the map a pixel west.
            var same = 0
            for b in before {
                if after.contains(where: { $0.text == b.text && hypot($0.x - (b.x + dx), $0.y - (b.y + dy)) < 0.05 }) { same += 1 }
            }
            #expect(Double(same) >= 0.9 * Double(before.count) && abs(after.count - before.count) <= 1,
                    "\(same) of \(before.count) kept their place; \(after.count) placed after")
        }
    }

    @Test("An area's label sits inside it, once")
    func areaLabels() throws {
        try TemporaryFolder.with("labels") { dir in
            let style = """
                {"version": 8, "sources": {"osm": {"type": "vector"}}, "layers": [
                  {"id": "areas", "type": "symbol", "source": "osm", "source-layer": "landuse",
                   "layout": {"text-field": ["get", "class"], "text-size": 10, "text-allow-overlap": true}, "paint": {"text-color": "#000000"}}
                ]}
                """
            let map = try StyledMapTests.map(style: style, in: dir)
            let camera = Camera(center: LonLat(lon: 24.9465, lat: 60.1700), zoom: 15)
            let (_, v) = try Self.render(map, camera: camera)
            let areas = map.labels.placements.filter { $0.kind == .area }
            #expect(areas.count >= 3, "area labels: \(areas.count)")
            // Each at a point of a landuse polygon of its class.
            let polygons = try Self.polygons("landuse", in: v)
            for a in areas {
                let rings = polygons[a.text] ?? []
                #expect(rings.contains { AreaLabels.signedDistance(a.x, a.y, $0) > 0 }, "\(a.text) at \(a.x), \(a.y)")
            }
        }
    }

    /// The set's polygons of a layer in frame pixels (each its rings), by class.
    static func polygons(_ layer: String, in v: Viewport) throws -> [String: [[[(x: Double, y: Double)]]]] {
        var out: [String: [[[(x: Double, y: Double)]]]] = [:]
        for f in try decoded(layer, in: v) {
            guard case .string(let c)? = f.properties["class"] else { continue }
            out[c, default: []].append(f.parts)
        }
        return out
    }

    @Test("Line labels: anchors, bends, joined lines, and an area's pole")
    func geometry() {
        // Anchors: the middle first, then every spacing either side.
        #expect(LineLabels.anchors(length: 1000, spacing: 300, centreOnly: false) == [500, 200, 800])
        #expect(LineLabels.anchors(length: 1000, spacing: 300, centreOnly: true) == [500])
        // Pieces of one line joined head to tail, whatever their order.
        let pieces: [[(x: Double, y: Double)]] = [[(2, 0), (3, 0)], [(0, 0), (1, 0)], [(1, 0), (2, 0)], [(5, 5), (6, 6)]]
        let merged = LineLabels.merge(pieces)
        #expect(merged.count == 2)
        #expect(merged.contains { $0.count == 4 && $0.first! == (0, 0) && $0.last! == (3, 0) })
        // A zigzag under the text is refused, a gentle curve is not.
        let zigzag = LinePath(xs: [0, 10, 20, 30, 40, 50], ys: [0, 10, 0, 10, 0, 10])
        #expect(!LineLabels.bendsWithin(zigzag, from: 0, to: zigzag.length, window: 10, maxAngle: .pi / 4))
        let gentle = LinePath(xs: [0, 10, 20, 30, 40], ys: [0, 1, 3, 6, 10])
        #expect(LineLabels.bendsWithin(gentle, from: 0, to: gentle.length, window: 10, maxAngle: .pi / 4))
        // The pole of an L: in its wider arm, inside.
        let l: [(x: Double, y: Double)] = [(0, 0), (100, 0), (100, 20), (20, 20), (20, 100), (0, 100), (0, 0)]
        let pole = AreaLabels.pole([l], precision: 0.5)!
        #expect(AreaLabels.signedDistance(pole.x, pole.y, [l]) > 9)
        // A square with a hole: the pole keeps off the hole.
        let outer: [(x: Double, y: Double)] = [(0, 0), (100, 0), (100, 100), (0, 100)]
        let hole: [(x: Double, y: Double)] = [(30, 30), (70, 30), (70, 70), (30, 70)]
        let p = AreaLabels.pole([outer, hole], precision: 0.5)!
        #expect(p.distance > 14 && AreaLabels.signedDistance(p.x, p.y, [outer, hole]) > 14)
    }

    @Test("A street placed along a line reads left to right either way it was drawn")
    func uprightEitherWay() throws {
        let run = GlyphRun(clusters: (0..<5).map { GlyphRun.Cluster(center: Double($0) * 10 + 5, advance: 10, contours: []) },
                           width: 50, height: 14)
        let east = LinePath(xs: [0, 200], ys: [100, 100]), west = east.reversed()
        for line in [east, west] {
            let glyphs = try #require(LineLabels.place(run, on: line, at: 100, maxAngle: .pi / 4, pad: 2))
            #expect(zip(glyphs.map(\.x), [80.0, 90, 100, 110, 120]).allSatisfy { abs($0 - $1) < 1e-9 })
            #expect(glyphs.allSatisfy { abs($0.angle) < 1e-9 })
        }
        // Too short for the text, or the anchor too near an end.
        #expect(LineLabels.place(run, on: LinePath(xs: [0, 40], ys: [0, 0]), at: 20, maxAngle: .pi / 4, pad: 2) == nil)
        #expect(LineLabels.place(run, on: east, at: 10, maxAngle: .pi / 4, pad: 2) == nil)
    }
}
