import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripStyle
import Pango

/// The point labels of a styled map's symbol layers, placed against each other as MapLibre places
/// them: layers higher in the style first, features in their order within a layer; a label whose
/// box (its halo included, plus `text-padding`) meets one already placed is left out, unless its
/// layer allows overlap. Each frame collects (`collect`) then draws (`draw`) them, over the map.
final class StyledLabels {
    struct Candidate {
        var text: String
        var style: TextStyle
        var x: Double, y: Double
        var anchor: String
        var offset: (x: Double, y: Double)
        var padding: Double
        var allowOverlap: Bool
        var ignorePlacement: Bool
        var layerIndex: Int
    }

    private var candidates: [Candidate] = []
    private var layerIndex = 0
    private let text = TextCache()
    /// The frame's pixel ratio and size (the context may be a band of it).
    private var scale = 1.0, width = 0.0, height = 0.0
    /// Labels placed in the last frame drawn, and the boxes they keep clear.
    private(set) var placed = 0
    private(set) var boxes: [Box] = []

    func begin(_ viewport: Viewport) {
        candidates.removeAll(keepingCapacity: true)
        layerIndex = 0
        scale = viewport.scale
        width = Double(viewport.width)
        height = Double(viewport.height)
    }

    /// The labels of one symbol layer's features in one tile (`t`: tile units to frame pixels).
    func collect(_ layer: StyleLayer, _ features: [StyledFeature], zoom: Double, transform t: PixelTransform, extent: Double) {
        layerIndex += 1
        for f in features where layer.matches(zoom: zoom, feature: f.style) {
            // Points only (a line's or an area's label is not placed yet); each point counted by the
            // one tile that holds it, not by its neighbours' buffers.
            guard f.kind == .point else { continue }
            let label = layer.string("text-field", zoom: zoom, feature: f.style).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !label.isEmpty else { continue }
            var color = layer.color("text-color", zoom: zoom, feature: f.style)
            color.alpha *= layer.number("text-opacity", zoom: zoom, feature: f.style)
            guard color.alpha > 0 else { continue }
            let size = layer.number("text-size", zoom: zoom, feature: f.style)
            let halo = layer.color("text-halo-color", zoom: zoom, feature: f.style)
            let haloWidth = layer.number("text-halo-width", zoom: zoom, feature: f.style)
            let (family, weight) = Self.font(layer.strings("text-font", zoom: zoom, feature: f.style))
            let style = TextStyle(family: family, weight: weight, size: size, color: color, halo: halo,
                                  haloWidth: halo.alpha > 0 ? 2 * haloWidth : 0)
            let offset = layer.numbers("text-offset", zoom: zoom, feature: f.style)
            let anchor = layer.textAnchor(zoom: zoom, feature: f.style).rawValue
            for part in f.parts {
                guard let p = part.first, p.x >= 0, p.y >= 0, p.x < extent, p.y < extent else { continue }
                candidates.append(Candidate(
                    text: label, style: style, x: t.x(p.x, p.y), y: t.y(p.x, p.y), anchor: anchor,
                    offset: (offset.count == 2 ? offset[0] * size : 0, offset.count == 2 ? offset[1] * size : 0),
                    padding: layer.number("text-padding", zoom: zoom, feature: f.style),
                    allowOverlap: layer.bool("text-allow-overlap", zoom: zoom),
                    ignorePlacement: layer.bool("text-ignore-placement", zoom: zoom), layerIndex: layerIndex))
            }
        }
    }

    /// Places the labels collected for this frame and draws them.
    func draw(in cr: Context) throws {
        boxes.removeAll(keepingCapacity: true)
        placed = 0
        // Higher layers first; within a layer, the features' order.
        let order = candidates.indices.sorted { (candidates[$0].layerIndex, $1) > (candidates[$1].layerIndex, $0) }
        for i in order {
            let c = candidates[i]
            let l = try text.layout(c.text, c.style, scale: scale, in: cr)
            let (w, h) = l.size
            var x = c.x + c.offset.x * scale - w / 2, y = c.y + c.offset.y * scale - h / 2
            if c.anchor.contains("left") { x += w / 2 } else if c.anchor.contains("right") { x -= w / 2 }
            if c.anchor.hasPrefix("top") { y += h / 2 } else if c.anchor.hasPrefix("bottom") { y -= h / 2 }
            let pad = c.padding * scale + c.style.haloWidth * scale / 2
            let box = Box(minX: x - pad, minY: y - pad, maxX: x + w + pad, maxY: y + h + pad)
            guard box.maxX > 0, box.maxY > 0, box.minX < width, box.minY < height else { continue }
            if !c.allowOverlap, boxes.contains(where: { $0.intersects(box) }) { continue }
            if !c.ignorePlacement { boxes.append(box) }
            text.draw(l, c.style, x: x, y: y, scale: scale, in: cr)
            placed += 1
        }
    }

    /// A Pango family and weight from a style's font stack ("Noto Sans Bold", "Open Sans Italic"):
    /// the first font's name less its style words; fontconfig finds the nearest installed family.
    static func font(_ stack: [String]) -> (family: String, weight: String) {
        let name = stack.first ?? "Noto Sans Regular"
        var words = name.split(separator: " ").map(String.init)
        var styleWords: [String] = []
        let known: Set<String> = ["regular", "bold", "italic", "medium", "light", "semibold", "semi-bold", "black", "thin",
                                  "oblique", "extrabold", "heavy"]
        while let last = words.last, known.contains(last.lowercased()), words.count > 1 {
            styleWords.insert(words.removeLast(), at: 0)
        }
        var weight = styleWords.filter { $0.lowercased() != "regular" }.joined(separator: " ")
        if weight.lowercased() == "semibold" { weight = "Semi-Bold" }
        return (words.joined(separator: " "), weight.isEmpty ? "Regular" : weight)
    }
}
