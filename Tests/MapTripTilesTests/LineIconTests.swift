import Cairo
import Foundation
import MapTripGeometry
import Testing
import TestSupport
@testable import MapTripRender
@testable import MapTripTiles

/// Icons along lines (road shields: `symbol-placement: line` with `icon-image`) on Helsinki's
/// streets: the test sprite's blue 24 x 12 icon at anchors along the streets the tiles hold (decoded
/// here), upright, every `symbol-spacing`, no blue off them; with a text, the icon stretched about it
/// (`icon-text-fit`) and the text over it.
@Suite("Styled map icons along lines")
struct LineIconTests {
    /// `transportation_name`'s lines with the sprite's "wide" icon (named through `coalesce` of
    /// images: the first the sprite has), and their names over it when `text`; upright, or turned
    /// with the line (`icon-rotation-alignment` auto) when not `upright`; the text upright too (as a
    /// shield's) unless `textAlong`.
    static func style(spacing: Double, text: Bool, upright: Bool = true, keepUpright: Bool = false, textAlong: Bool = false) -> String {
        let alignment = (upright ? #", "icon-rotation-alignment": "viewport""# : keepUpright ? #", "icon-keep-upright": true"# : "")
            + (textAlong ? "" : #", "text-rotation-alignment": "viewport""#)
        let textKeys = text ? #", "text-field": "{name}", "text-size": 10, "text-font": ["Noto Sans Regular"], "icon-text-fit": "both", "icon-text-fit-padding": [2, 3, 2, 3]"# : ""
        return """
            {"version": 8, "sprite": "sprites/test", "sources": {"osm": {"type": "vector"}}, "layers": [
              \(StyledLabelTests.white)
              {"id": "shields", "type": "symbol", "source": "osm", "source-layer": "transportation_name",
               "layout": {"symbol-placement": "line", "symbol-spacing": \(spacing),
                          "icon-image": ["coalesce", ["image", "no-such-icon"], ["image", "wide"]] \(textKeys) \(alignment)},
               "paint": {"text-color": "#000000"}}
            ]}
            """
    }

    static func render(_ style: String, in dir: URL) throws -> (StyledMap, ImageSurface, Viewport) {
        let map = try StyleIconTests.map(style, in: dir)
        let (s, v) = try StyledLabelTests.render(map)
        if let out = ProcessInfo.processInfo.environment["MAPTRIP_TEST_PNG"] {
            try s.writePNG(to: "\(out)-line-icons-\(StyleIconTests.counter.next()).png")
        }
        return (map, s, v)
    }

    static func isBlue(_ s: ImageSurface, _ x: Int, _ y: Int) -> Bool {
        let p = s.pixel(x: x, y: y)
        return p.b > 200 && p.r < 60 && p.g < 60
    }

    @Test("Each icon sits upright on its street, symbol-spacing apart, and no blue is off them")
    func iconsOnTheStreets() throws {
        try TemporaryFolder.with("line-icons") { dir in
            let (map, s, v) = try Self.render(Self.style(spacing: 120, text: false), in: dir)
            #expect(map.warnings.isEmpty, "\(map.warnings)")
            let icons = map.labels.placements.compactMap(\.icon)
            #expect(icons.count >= 8, "icons placed: \(icons.count)")
            let streets = try StyledLabelTests.decoded("transportation_name", in: v).flatMap(\.parts)
                .map { LinePath(xs: $0.map(\.x), ys: $0.map(\.y)) }
            for icon in icons {
                // Upright and unstretched: the sprite's 24 x 12, centred on a point of a street.
                #expect(abs(icon.maxX - icon.minX - 24) < 1e-9 && abs(icon.maxY - icon.minY - 12) < 1e-9)
                let cx = (icon.minX + icon.maxX) / 2, cy = (icon.minY + icon.maxY) / 2
                let d = streets.map { $0.distance(from: cx, cy) }.min() ?? .infinity
                #expect(d < 0.5, "an icon \(d) px from any street")
                if icon.minX >= 0, icon.minY >= 0, icon.maxX <= 1280, icon.maxY <= 720 {
                    #expect(Self.isBlue(s, Int(cx), Int(cy)))
                }
            }
            // symbol-spacing (120 CSS pixels at the style's whole zoom, 1 frame pixel each here): no two
            // icons nearer than half of it.
            for i in icons.indices {
                for j in icons.indices where j > i {
                    let d = hypot((icons[i].minX + icons[i].maxX - icons[j].minX - icons[j].maxX) / 2,
                                  (icons[i].minY + icons[i].maxY - icons[j].minY - icons[j].maxY) / 2)
                    #expect(d >= 60, "two icons \(d) px apart")
                }
            }
            // Every blue pixel is an icon's.
            var blue = 0, stray = 0
            for y in 0..<s.height {
                for x in 0..<s.width where Self.isBlue(s, x, y) {
                    blue += 1
                    let px = Double(x) + 0.5, py = Double(y) + 0.5
                    if !icons.contains(where: { px >= $0.minX - 1 && px <= $0.maxX + 1 && py >= $0.minY - 1 && py <= $0.maxY + 1 }) {
                        stray += 1
                    }
                }
            }
            print("line icons: \(icons.count) placed, \(blue) blue pixels, \(stray) off them")
            #expect(blue >= icons.count * 100 / 2 && stray == 0)
            // A wider spacing places fewer.
            let (sparse, _, _) = try Self.render(Self.style(spacing: 400, text: false), in: dir)
            let fewer = sparse.labels.placements.compactMap(\.icon).count
            #expect(fewer < icons.count && fewer > 0, "\(fewer) icons at spacing 400, \(icons.count) at 120")
        }
    }

    @Test("Icons turned with their lines (icon-rotation-alignment auto, as one-way arrows)")
    func iconsTurnedWithTheLine() throws {
        try TemporaryFolder.with("line-icons") { dir in
            let (map, s, v) = try Self.render(Self.style(spacing: 120, text: false, upright: false), in: dir)
            #expect(map.warnings.isEmpty, "\(map.warnings)")
            let placed = map.labels.placements.filter { $0.icon != nil }
            #expect(placed.count >= 8, "icons placed: \(placed.count)")
            let streets = try StyledLabelTests.decoded("transportation_name", in: v).flatMap(\.parts)
            var turned = 0
            for p in placed {
                // A segment of a street through the anchor runs the way the icon is turned (its direction, not reversed).
                var matches = false
                for part in streets where part.count > 1 {
                    for i in part.indices.dropLast() {
                        let a = part[i], b = part[i + 1]
                        guard LineLabels.segmentDistance(p.x, p.y, a.x, a.y, b.x, b.y) < 0.5 else { continue }
                        let d = atan2(b.y - a.y, b.x - a.x) - p.iconRotation
                        if abs(sin(d)) < 0.02 && cos(d) > 0 { matches = true }
                    }
                }
                #expect(matches, "an icon at \(p.x), \(p.y) turned \(p.iconRotation * 180 / .pi)° along no street there")
                if abs(sin(p.iconRotation)) > 0.3 { turned += 1 }
                // Its pixels: blue 9 px along its turn either side of the anchor, white 9 px across it.
                let icon = p.icon!
                guard icon.minX > 12, icon.minY > 12, icon.maxX < 1268, icon.maxY < 708 else { continue }
                let (c, n) = (cos(p.iconRotation), sin(p.iconRotation))
                for k in [-9.0, 9] {
                    #expect(Self.isBlue(s, Int(p.x + k * c), Int(p.y + k * n)), "not blue along an icon at \(p.x), \(p.y)")
                    let across = s.pixel(x: Int(p.x - k * n), y: Int(p.y + k * c))
                    #expect(across.r > 200 && across.g > 200, "not white across an icon at \(p.x), \(p.y)")
                }
            }
            #expect(turned >= 3, "\(turned) icons turned more than 17°")
        }
    }

    @Test("With icon-keep-upright, no icon turned with its line points left; each still lies along it")
    func iconsKeptUpright() throws {
        try TemporaryFolder.with("line-icons") { dir in
            let (plain, _, _) = try Self.render(Self.style(spacing: 120, text: false, upright: false), in: dir)
            let (map, _, v) = try Self.render(Self.style(spacing: 120, text: false, upright: false, keepUpright: true), in: dir)
            #expect(map.warnings.isEmpty, "\(map.warnings)")
            // Some streets run leftwards as drawn: turned with them, their icons point left.
            #expect(plain.labels.placements.contains { $0.icon != nil && cos($0.iconRotation) < -0.1 })
            let placed = map.labels.placements.filter { $0.icon != nil }
            #expect(placed.count == plain.labels.placements.filter { $0.icon != nil }.count)
            let streets = try StyledLabelTests.decoded("transportation_name", in: v).flatMap(\.parts)
            for p in placed {
                #expect(cos(p.iconRotation) >= -1e-9, "an icon at \(p.x), \(p.y) turned \(p.iconRotation * 180 / .pi)°")
                let along = streets.contains { part in
                    part.indices.dropLast().contains { i in
                        let a = part[i], b = part[i + 1]
                        return LineLabels.segmentDistance(p.x, p.y, a.x, a.y, b.x, b.y) < 0.5
                            && abs(sin(atan2(b.y - a.y, b.x - a.x) - p.iconRotation)) < 0.02
                    }
                }
                #expect(along, "an icon at \(p.x), \(p.y) along no street there")
            }
        }
    }

    @Test("A text the map aligns (text-rotation-alignment auto) is set along the line, over its icon")
    func textAlongTheLineOverTheIcon() throws {
        try TemporaryFolder.with("line-icons") { dir in
            let (map, s, v) = try Self.render(Self.style(spacing: 250, text: true, upright: false, textAlong: true), in: dir)
            #expect(map.warnings.isEmpty, "\(map.warnings)")
            let symbols = map.labels.placements.filter { $0.icon != nil && !$0.text.isEmpty }
            #expect(symbols.count >= 4, "symbols placed: \(symbols.count)")
            #expect(!map.labels.placements.contains { !$0.text.isEmpty && $0.kind != .line }, "a text set upright")
            let streets = try StyledLabelTests.decoded("transportation_name", in: v).flatMap(\.parts)
                .map { LinePath(xs: $0.map(\.x), ys: $0.map(\.y)) }
            var turned = 0
            for p in symbols {
                // Its glyphs along a street through the anchor, one a character or cluster, and the icon at the anchor.
                #expect(p.kind == .line && p.glyphs.count >= p.text.count / 2, "\(p.text): \(p.kind), \(p.glyphs.count) glyphs")
                for g in p.glyphs {
                    let d = streets.map { $0.distance(from: g.x, g.y) }.min() ?? .infinity
                    #expect(d < 1, "\(p.text): a glyph \(d) px from any street")
                }
                let icon = p.icon!
                #expect(abs((icon.minX + icon.maxX) / 2 - p.x) < 1e-6 && abs((icon.minY + icon.maxY) / 2 - p.y) < 1e-6)
                if p.glyphs.contains(where: { abs(sin($0.angle)) > 0.3 }) { turned += 1 }
                // The text's boxes and the icon's, one symbol: each in the placed boxes.
                #expect(p.boxes.count == p.glyphs.count + 1 && p.boxes.last!.contains(icon), "\(p.text): \(p.boxes.count) boxes")
                guard icon.minX > 0, icon.minY > 0, icon.maxX < 1280, icon.maxY < 720 else { continue }
                #expect(Self.isBlue(s, Int(icon.minX + 2), Int(p.y)) || Self.isBlue(s, Int(icon.maxX - 2), Int(p.y))
                        || (0..<Int(icon.maxX - icon.minX)).contains { Self.isBlue(s, Int(icon.minX) + $0, Int(p.y)) },
                        "\(p.text): no blue across its icon")
            }
            // Set along the streets, not upright: some run steeply.
            #expect(turned >= 1, "\(turned) texts along a steep street")
            // No two symbols' boxes meet (a symbol's own glyphs lie over its icon).
            let placed = map.labels.placements
            for i in placed.indices {
                for j in placed.indices where j > i {
                    #expect(!placed[i].boxes.contains { a in placed[j].boxes.contains { a.intersects($0) } })
                }
            }
        }
    }

    @Test("A shield's text over its icon, the icon fitted about it, the two one box")
    func textOverTheIcon() throws {
        try TemporaryFolder.with("line-icons") { dir in
            let (map, s, _) = try Self.render(Self.style(spacing: 250, text: true), in: dir)
            #expect(map.warnings.isEmpty, "\(map.warnings)")
            let shields = map.labels.placements.filter { $0.icon != nil && !$0.text.isEmpty }
            #expect(shields.count >= 4, "shields placed: \(shields.count)")
            for p in shields {
                let icon = p.icon!, box = p.boxes[0]
                // The text's box less its padding: the icon holds it, centred (text-anchor center).
                #expect(abs((icon.minX + icon.maxX) - (box.minX + box.maxX)) < 1e-6 && abs((icon.minY + icon.maxY) - (box.minY + box.maxY)) < 1e-6,
                        "\(p.text): icon \(icon), box \(box)")
                #expect(icon.maxX - icon.minX > Double(p.text.count) * 3, "\(p.text): icon \(icon.maxX - icon.minX) px wide")
                guard icon.minX >= 0, icon.minY >= 0, icon.maxX <= 1280, icon.maxY <= 720 else { continue }
                var ink = 0, blue = 0
                for y in Int(icon.minY + 1)..<Int(icon.maxY - 1) {
                    for x in Int(icon.minX + 1)..<Int(icon.maxX - 1) {
                        let c = s.pixel(x: x, y: y)
                        if c.b < 100 && c.r < 100 && c.g < 100 { ink += 1 }
                        if Self.isBlue(s, x, y) { blue += 1 }
                    }
                }
                #expect(ink > 10 && blue > 20, "\(p.text): \(ink) text pixels, \(blue) blue in its icon")
            }
            // No two shields' boxes meet.
            let boxes = map.labels.placements.flatMap(\.boxes)
            for i in boxes.indices { for j in boxes.indices where j > i { #expect(!boxes[i].intersects(boxes[j])) } }
        }
    }
}
