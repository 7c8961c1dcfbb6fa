import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripStyle
import Pango

/// The labels of a styled map's symbol layers, placed against each other as MapLibre places them:
/// layers higher in the style first, features in their order within a layer; a label whose boxes
/// (its halo included, plus `text-padding`) meet one already placed is left out, unless its layer
/// allows overlap. Points are labelled at the point, areas (polygons) at their pole of
/// inaccessibility, once however many tiles hold them; `symbol-placement: line` and `line-center`
/// set the text along the line, glyph by glyph (`LineLabels`), every `symbol-spacing` or at its
/// middle. Each frame collects (`collect`) then draws (`draw`) them, over the map.
final class StyledLabels {
    struct Candidate {
        var text: String
        var style: TextStyle
        /// The anchor in frame pixels (a line label's: the point its text is centred on).
        var x: Double, y: Double
        var anchor: SymbolAnchor
        var offset: (x: Double, y: Double)
        var padding: Double
        var allowOverlap: Bool
        var ignorePlacement: Bool
        var layerIndex: Int
        /// A line label's line, its anchor's distance along it (pixels), the largest turn under a
        /// character (radians), and how near another label of the same text may be (pixels).
        var line: (path: LinePath, at: Double, maxAngle: Double, repeatDistance: Double)?
        /// Whether it labels an area (at its pole).
        var area = false
        /// Its text's picture's name, made once with the candidate (a tile's labels serve many frames).
        var sprite: SpriteName?
        /// Its icon (`icon-image`), drawn at the anchor, the text beside it by `text-anchor` and
        /// `text-offset`; the two collide as one box.
        var icon: SymbolIcon?
        /// An icon's symbol along a line (drawn upright at its anchor, as a point's): how near another
        /// of the same text and icon may be (pixels; 0: no limit).
        var repeatDistance = 0.0
    }

    /// A symbol's icon: its name in the style's sprite, `icon-size`, `icon-anchor`, `icon-offset`
    /// (CSS pixels, `icon-size` applied), `icon-opacity`, `icon-color` (for SDF icons), and
    /// `icon-text-fit` with its padding (CSS pixels: top, right, bottom, left).
    struct SymbolIcon {
        var name: String
        var size: Double
        var anchor: SymbolAnchor
        var offset: (x: Double, y: Double)
        var opacity: Double
        var color: Color
        var textFit = "none"
        var fitPadding = [0.0, 0, 0, 0]
        /// Clockwise turn about the anchor (radians): `icon-rotate`, plus the line's direction for an
        /// icon along a line aligned with the map (`icon-rotation-alignment` map, or auto).
        var rotation = 0.0
    }

    /// A label placed in the last frame: its kind, anchor and boxes (one a glyph along a line), and
    /// for a line label its line and glyphs.
    struct Placement {
        enum Kind { case point, area, line }
        var kind: Kind
        var text: String
        var layerIndex: Int
        var x: Double, y: Double
        var boxes: [Box]
        var path: LinePath?
        var glyphs: [LineLabels.Glyph] = []
        /// Where its icon was drawn (frame pixels, the box around it when turned; nil: none), and
        /// its turn (radians, clockwise).
        var icon: Box?
        var iconRotation = 0.0
    }

    private var candidates: [Candidate] = []
    /// Area labels already collected, by layer and text: their outlines' boxes (frame pixels), their
    /// pole's distance from the outline, and where they are in `candidates`.
    private var areas: [AreaKey: [(box: Box, distance: Double, index: Int)]] = [:]
    private struct AreaKey: Hashable { var layer: Int, text: String }
    private var layerIndex = 0
    /// Layouts, and each point label's text and halo drawn once as a picture (see `paint`): room for a
    /// few hundred labels at each of their four half-pixel phases.
    private let text = TextCache(spriteLimit: StyledLabels.spriteLimit)
    static let spriteLimit = 24 << 20
    private let runs = GlyphRuns()
    /// The line labels' glyphs drawn once as pictures (see `GlyphPictures`).
    let glyphPictures = GlyphPictures()
    /// The frame's pixel ratio and size (the context may be a band of it).
    private var scale = 1.0, width = 0.0, height = 0.0
    /// Labels placed in the last frame drawn, and the boxes they keep clear.
    private(set) var placed = 0
    private(set) var boxes: [Box] = []
    private(set) var placements: [Placement] = []
    /// Boxes (frame pixels) no label may cover: the trip's pins and labels on the frame being drawn.
    var obstacles: [Box] = []
    /// On the globe and PROJ planes: labels are collected in a Web Mercator plane and each point or
    /// area label's anchor is taken to the frame by this (nil: not shown there, as on the globe's far
    /// side); a line label's line is taken there point by point, its glyphs set along it in the frame.
    private var project: ((Double, Double) -> (x: Double, y: Double)?)?
    /// The style's sprite (its icons), and why it has none when its layers name icons.
    var sprite: StyleSprite?
    var spriteProblem: String?
    /// Icons the layers named that the sprite does not have.
    private(set) var missingIcons: Set<String> = []
    /// SDF icons in a colour, by the icon's picture and the colour.
    private var tinted: [TintKey: ImageSurface] = [:]
    private struct TintKey: Hashable { var surface: ObjectIdentifier, color: Color }

    /// What the labels leave out: icons.
    var warnings: [String] {
        var out: [String] = []
        if let spriteProblem {
            out.append("the style's icons (icon-image) are not drawn: \(spriteProblem); its labels are")
        } else if !missingIcons.isEmpty {
            let names = missingIcons.sorted()
            out.append("\(names.count) icon\(names.count == 1 ? "" : "s") the style names \(names.count == 1 ? "is" : "are") not in its "
                       + "sprite (\(names.prefix(3).joined(separator: ", "))\(names.count > 3 ? ", ..." : "")): drawn without")
        }
        return out
    }

    /// Starts a frame's labels; `project` (a reprojected frame's) takes anchors to frame pixels.
    func begin(_ viewport: Viewport, project: ((Double, Double) -> (x: Double, y: Double)?)? = nil) {
        self.project = project
        candidates.removeAll(keepingCapacity: true)
        areas.removeAll(keepingCapacity: true)
        layerIndex = 0
        scale = viewport.scale
        width = Double(viewport.width)
        height = Double(viewport.height)
    }

    /// A feature's label text in a layer ("" when it shows none).
    private func labelText(_ layer: StyleLayer, _ f: StyledFeature, zoom: Double) -> String {
        let label = layer.string("text-field", zoom: zoom, feature: f.style).trimmingCharacters(in: .whitespacesAndNewlines)
        switch layer.textTransform(zoom: zoom, feature: f.style) {
        case .uppercase: return label.uppercased()
        case .lowercase: return label.lowercased()
        case .none: return label
        }
    }

    /// A feature's text style in a layer; nil when its text is not seen.
    private func textStyle(_ layer: StyleLayer, _ f: StyledFeature, zoom: Double) -> TextStyle? {
        var color = layer.color("text-color", zoom: zoom, feature: f.style)
        color.alpha *= layer.number("text-opacity", zoom: zoom, feature: f.style)
        guard color.alpha > 0 else { return nil }
        // In half frame pixels, as glyphs' pictures are drawn (`GlyphPictures.sizeStep`): a flight's
        // labels keep their layouts and pictures while the size moves within a step (a quarter pixel
        // at most off), rather than being laid out and drawn again at each eighth of a zoom.
        var size = layer.number("text-size", zoom: zoom, feature: f.style)
        guard size > 0 else { return nil }
        if scale > 0 { size = max(GlyphPictures.sizeStep, (size * scale / GlyphPictures.sizeStep).rounded() * GlyphPictures.sizeStep) / scale }
        let halo = layer.color("text-halo-color", zoom: zoom, feature: f.style)
        let haloWidth = layer.number("text-halo-width", zoom: zoom, feature: f.style)
        let stack = layer.strings("text-font", zoom: zoom, feature: f.style)
        let font: (family: String, weight: String)
        if let known = fonts[stack] { font = known } else {
            font = Self.font(stack)
            fonts[stack] = font
        }
        return TextStyle(family: font.family, weight: font.weight, size: size, color: color, halo: halo,
                         haloWidth: halo.alpha > 0 ? 2 * haloWidth : 0)
    }

    /// A feature's label text and text style in a layer; nil when it shows none.
    private func label(_ layer: StyleLayer, _ f: StyledFeature, zoom: Double) -> (text: String, style: TextStyle)? {
        let text = labelText(layer, f, zoom: zoom)
        guard !text.isEmpty, let style = textStyle(layer, f, zoom: zoom) else { return nil }
        return (text, style)
    }

    /// The zoom a point layer's labels are worked out at: the style zoom rounded down to an eighth.
    /// A flight's frames share a tile's labels, their layouts and their pictures for a step's worth of
    /// zoom (a text size read from the zoom moves by a fraction of a pixel a step), rather than each
    /// frame evaluating every feature and laying out its texts at a size of its own.
    static func labelZoom(_ zoom: Double) -> Double { (zoom * 8).rounded(.down) / 8 }

    /// The labels of one symbol layer's features in one tile (`t`: tile units to frame pixels).
    func collect(_ layer: StyleLayer, _ features: [StyledFeature], zoom frameZoom: Double, transform t: PixelTransform,
                 extent: Double) {
        layerIndex += 1
        let placement = layer.symbolPlacement(zoom: frameZoom)
        let zoom = placement == .point ? Self.labelZoom(frameZoom) : frameZoom
        let padding = layer.number("text-padding", zoom: zoom)
        let allowOverlap = layer.bool("text-allow-overlap", zoom: zoom)
        let ignorePlacement = layer.bool("text-ignore-placement", zoom: zoom)
        if placement != .point {
            collectLines(layer, features, zoom: zoom, transform: t, extent: extent, centreOnly: placement == .lineCenter)
            return
        }
        // The layer's labels in this tile at this zoom, worked out once: frames at one zoom (a walk, a
        // pan) place them again from here, with no expression evaluated.
        let key = LinesKey(layer: layer.id, storage: features.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) },
                           count: features.count, zoom: zoom, extent: extent)
        let labels: [TileLabel]
        if let known = tilePoints[key] { labels = known } else {
            labels = pointLabels(layer, features, shown: pointFeatures(layer, features, key: key), zoom: zoom, padding: padding,
                                 allowOverlap: allowOverlap, ignorePlacement: ignorePlacement)
            if tilePoints.count >= Self.tileLinesLimit { tilePoints.removeAll(keepingCapacity: true) }
            tilePoints[key] = labels
        }
        for label in labels {
            var c = label.candidate
            c.layerIndex = layerIndex
            if features[label.feature].kind == .polygon {
                collectArea(c, features[label.feature], transform: t, extent: extent)
                continue
            }
            // Each point counted by the one tile that holds it, not by its neighbours' buffers.
            for part in features[label.feature].parts {
                guard let p = part.first, p.x >= 0, p.y >= 0, p.x < extent, p.y < extent else { continue }
                c.x = t.x(p.x, p.y)
                c.y = t.y(p.x, p.y)
                candidates.append(c)
            }
        }
    }

    /// A tile's point or area label of a layer: its candidate (placed per frame) and its feature.
    struct TileLabel {
        var candidate: Candidate
        var feature: Int
    }
    private var tilePoints: [LinesKey: [TileLabel]] = [:]

    /// A tile's features a point layer may label (not lines) that pass the layer's filter at a zoom:
    /// found once per tile and layer when the filter does not read the zoom (a moving camera's frames
    /// each have a zoom of their own, and most of a tile's features fail most filters).
    private func pointFeatures(_ layer: StyleLayer, _ features: [StyledFeature], key: LinesKey) -> [Int] {
        let zoom = key.zoom
        func select() -> [Int] {
            features.indices.filter { features[$0].kind != .lineString && layer.matches(zoom: zoom, feature: features[$0].style) }
        }
        guard layer.filter?.expression.isZoomConstant ?? true else { return select() }
        var anyZoom = key
        anyZoom.zoom = -1
        if let known = tileFiltered[anyZoom] { return known.indices }
        let indices = select()
        if tileFiltered.count >= Self.tileLinesLimit { tileFiltered.removeAll(keepingCapacity: true) }
        // The features kept with them: their storage names the tile while the entry lives.
        tileFiltered[anyZoom] = (features, indices)
        return indices
    }
    private var tileFiltered: [LinesKey: (features: [StyledFeature], indices: [Int])] = [:]

    /// A feature's icon in a layer; nil when it shows none.
    private func icon(_ layer: StyleLayer, _ f: StyledFeature, zoom: Double) -> SymbolIcon? {
        let name = iconName(layer, f, zoom: zoom)
        let size = layer.number("icon-size", zoom: zoom, feature: f.style)
        let opacity = layer.number("icon-opacity", zoom: zoom, feature: f.style)
        guard !name.isEmpty, size > 0, opacity > 0 else { return nil }
        let offset = layer.numbers("icon-offset", zoom: zoom, feature: f.style)
        let anchor = layer.enumValue("icon-anchor", as: SymbolAnchor.self, zoom: zoom, feature: f.style) ?? .center
        let padding = layer.numbers("icon-text-fit-padding", zoom: zoom, feature: f.style)
        return SymbolIcon(name: name, size: size, anchor: anchor,
                          offset: offset.count == 2 ? (offset[0] * size, offset[1] * size) : (0, 0), opacity: opacity,
                          color: layer.color("icon-color", zoom: zoom, feature: f.style),
                          textFit: layer.string("icon-text-fit", zoom: zoom, feature: f.style),
                          fitPadding: padding.count == 4 ? padding : [0, 0, 0, 0],
                          rotation: layer.number("icon-rotate", zoom: zoom, feature: f.style) * .pi / 180)
    }

    /// A feature's `icon-image` in a layer ("" for none): `["image", ...]` and `coalesce` of images
    /// see which icons the sprite has.
    private func iconName(_ layer: StyleLayer, _ f: StyledFeature, zoom: Double) -> String {
        layer.image("icon-image", zoom: zoom, feature: f.style, available: sprite?.names ?? [])
    }

    /// The point and area labels of a layer's features in a tile, at a zoom: of the features `shown` (see `pointFeatures`).
    private func pointLabels(_ layer: StyleLayer, _ features: [StyledFeature], shown: [Int], zoom: Double, padding: Double,
                             allowOverlap: Bool, ignorePlacement: Bool) -> [TileLabel] {
        var out: [TileLabel] = []
        let icons = sprite != nil && layer.sets("icon-image")
        let iconOverlap = layer.bool("icon-allow-overlap", zoom: zoom), iconIgnore = layer.bool("icon-ignore-placement", zoom: zoom)
        for i in shown {
            let f = features[i]
            let icon = icons ? self.icon(layer, f, zoom: zoom) : nil
            let text = self.label(layer, f, zoom: zoom)
            guard text != nil || icon != nil else { continue }
            // Icon and text are one box: it may overlap others (or be left out of the collisions) when
            // both of them may.
            let allowOverlap = (text == nil || allowOverlap) && (icon == nil || iconOverlap)
            let ignorePlacement = (text == nil || ignorePlacement) && (icon == nil || iconIgnore)
            let style = text?.style ?? TextStyle(size: 0, color: Color(red: 0, green: 0, blue: 0, alpha: 0), haloWidth: 0)
            let size = style.size
            let offset = layer.numbers("text-offset", zoom: zoom, feature: f.style)
            var candidate = Candidate(
                text: text?.text ?? "", style: style, x: 0, y: 0, anchor: layer.textAnchor(zoom: zoom, feature: f.style),
                offset: (offset.count == 2 ? offset[0] * size : 0, offset.count == 2 ? offset[1] * size : 0),
                padding: padding, allowOverlap: allowOverlap, ignorePlacement: ignorePlacement, layerIndex: 0, icon: icon)
            if let text { candidate.sprite = SpriteName(text.text, text.style) }
            out.append(TileLabel(candidate: candidate, feature: i))
        }
        return out
    }

    /// An area's label, at the pole of the tile's part of it. An area in several tiles is labelled
    /// once: where the tile holding most of it around its pole puts it (the parts of one area, of one
    /// layer and text, overlap in the tiles' buffers).
    private func collectArea(_ candidate: Candidate, _ f: StyledFeature, transform t: PixelTransform, extent: Double) {
        var units = Box.empty
        for ring in f.parts { for p in ring { units.add(p.x, p.y) } }
        var box = Box.empty
        for (x, y) in [(units.minX, units.minY), (units.maxX, units.minY), (units.minX, units.maxY), (units.maxX, units.maxY)] {
            box.add(t.x(x, y), t.y(x, y))
        }
        let k = hypot(t.a, t.c)
        // (A reprojected frame's plane is not the frame's: its anchors are checked when placed.)
        let shows = project != nil || (box.maxX > 0 && box.maxY > 0 && box.minX < width && box.minY < height)
        guard k > 0, shows,
              let pole = AreaLabels.pole(f.parts, precision: max(0.5 * scale / k, min(units.maxX - units.minX, units.maxY - units.minY) / 50)),
              // Only the tile's own square counts: a pole in the buffer is its neighbour's to give.
              pole.x >= 0, pole.y >= 0, pole.x < extent, pole.y < extent
        else { return }
        let distance = pole.distance * k
        var c = candidate
        c.x = t.x(pole.x, pole.y)
        c.y = t.y(pole.x, pole.y)
        c.area = true
        let key = AreaKey(layer: layerIndex, text: c.text)
        if let i = areas[key]?.firstIndex(where: { $0.box.intersects(box) }), let seen = areas[key]?[i] {
            guard distance > seen.distance else { return }
            candidates[seen.index] = c
            let both = Box(minX: min(box.minX, seen.box.minX), minY: min(box.minY, seen.box.minY),
                           maxX: max(box.maxX, seen.box.maxX), maxY: max(box.maxY, seen.box.maxY))
            areas[key]?[i] = (both, distance, seen.index)
            return
        }
        areas[key, default: []].append((box, distance, candidates.count))
        candidates.append(c)
    }

    /// A line layer's labels in one tile, worked out once per tile and whole style zoom (as MapLibre
    /// lays a tile's symbols out at its zoom): its features' texts, its lines of one text joined where
    /// they meet, and their anchors in tile units (the tile's own square only). A frame evaluates the
    /// style once per text rather than per feature.
    private final class TileLines {
        /// The layer's features, kept: their array's storage names the tile (see `LinesKey`).
        let features: [StyledFeature]
        struct Line {
            var points: [(x: Double, y: Double)]
            /// Each anchor: the segment it is on, how far along it, and the point.
            var anchors: [(segment: Int, fraction: Double, x: Double, y: Double)]
            var length: Double
        }
        /// Lines of one text and icon (the icon "" but in a layer with icons).
        var groups: [(text: String, icon: String, feature: Int, lines: [Line])] = []
        /// Each group's text style (nil: no text, or not seen) at the label zoom (`labelZoom`) the last
        /// frame asked for: frames at one zoom (a walk, a pan) evaluate the style once, not each frame.
        var styleZoom = Double.nan
        var styles: [TextStyle?] = []
        init(features: [StyledFeature]) { self.features = features }
    }

    /// A tile's features by their array's storage (kept alive by the entry, so never another's), the
    /// layer, and the whole zoom.
    private struct LinesKey: Hashable {
        var layer: String, storage: UnsafeRawPointer?, count: Int, zoom: Double, extent: Double
    }

    private var tileLines: [LinesKey: TileLines] = [:]
    /// Tiles' line labels kept at most (a frame shows a few tiles, each a few line layers).
    static let tileLinesLimit = 256
    private var fonts: [[String]: (family: String, weight: String)] = [:]

    /// A line layer's labels in one tile: its lines of one text joined where they meet, each
    /// anchored at distances along it chosen in tile units (see `LineLabels.anchors`), the anchors
    /// in the tile's own square only (a line in two tiles is labelled by each along its part).
    private func collectLines(_ layer: StyleLayer, _ features: [StyledFeature], zoom: Double, transform t: PixelTransform,
                              extent: Double, centreOnly: Bool) {
        // Frame pixels a tile unit, and CSS pixels a tile unit at the style's whole zoom: spacing is
        // measured there, so that the anchors stay put as the camera zooms within it.
        let k = hypot(t.a, t.c)
        guard k > 0 else { return }
        let whole = zoom.rounded(.down)
        let nominal = k / scale / pow(2, zoom - whole)
        let spacing = layer.number("symbol-spacing", zoom: whole) / nominal
        let key = LinesKey(layer: layer.id, storage: features.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) },
                           count: features.count, zoom: whole, extent: extent)
        // Icons along a line (road shields): each drawn upright at its anchor, its text over it.
        let icons = sprite != nil && layer.sets("icon-image")
        let lines: TileLines
        if let known = tileLines[key] { lines = known } else {
            lines = Self.lines(layer, features, zoom: whole, extent: extent, spacing: spacing, centreOnly: centreOnly,
                               label: { (self.labelText(layer, $0, zoom: whole), icons ? self.iconName(layer, $0, zoom: whole) : "") })
            if tileLines.count >= Self.tileLinesLimit { tileLines.removeAll(keepingCapacity: true) }
            tileLines[key] = lines
        }
        let maxAngle = layer.number("text-max-angle", zoom: zoom) * .pi / 180
        let padding = layer.number("text-padding", zoom: zoom)
        let allowOverlap = layer.bool("text-allow-overlap", zoom: zoom)
        let ignorePlacement = layer.bool("text-ignore-placement", zoom: zoom)
        if icons {
            collectLineIcons(layer, lines, zoom: zoom, transform: t, padding: padding, allowOverlap: allowOverlap,
                             ignorePlacement: ignorePlacement, repeatDistance: spacing * k / 2, maxAngle: maxAngle)
            return
        }
        // At the zoom point labels are worked out at (an eighth's step): a flight's frames evaluate the
        // style once a step, not each frame, and its glyphs' pictures serve the step's frames.
        let styleZoom = Self.labelZoom(zoom)
        if lines.styleZoom != styleZoom {
            lines.styles = lines.groups.map { $0.text.isEmpty ? nil : textStyle(layer, lines.features[$0.feature], zoom: styleZoom) }
            lines.styleZoom = styleZoom
        }
        for (group, style) in zip(lines.groups, lines.styles) {
            guard let style else { continue }
            // How far a label's glyphs may reach from its anchor, at most (for leaving out the frame's far side).
            let reach = Double(group.text.count) * style.size * scale
            for line in group.lines where line.length * k > style.size * scale {
                var path: LinePath?
                for a in line.anchors {
                    guard let (x, y) = pixel(t, a.x, a.y), x > -reach, y > -reach, x < width + reach, y < height + reach
                    else { continue }
                    if path == nil { path = linePath(line, t) }
                    // On a reprojected frame, a line with a point not shown (past the globe's rim) is not labelled.
                    guard let p = path else { break }
                    let at = p.along[a.segment] + a.fraction * (p.along[a.segment + 1] - p.along[a.segment])
                    candidates.append(Candidate(
                        text: group.text, style: style, x: x, y: y, anchor: .center, offset: (0, 0),
                        padding: padding, allowOverlap: allowOverlap, ignorePlacement: ignorePlacement, layerIndex: layerIndex,
                        line: (p, at, maxAngle, spacing * k / 2)))
                }
            }
        }
    }

    /// A line layer's icons (and their texts) in one tile: at each anchor, as a point's symbol: the
    /// icon at the anchor, the text over it by `text-anchor` and `text-offset`, one box; but text the
    /// layer aligns with the map (`text-rotation-alignment` map, or auto as a line's is) is set along
    /// the line through the anchor, glyph by glyph, as MapLibre sets it, over the icon.
    private func collectLineIcons(_ layer: StyleLayer, _ lines: TileLines, zoom: Double, transform t: PixelTransform,
                                  padding: Double, allowOverlap: Bool, ignorePlacement: Bool, repeatDistance: Double,
                                  maxAngle: Double) {
        let iconOverlap = layer.bool("icon-allow-overlap", zoom: zoom), iconIgnore = layer.bool("icon-ignore-placement", zoom: zoom)
        // Turned with the line (its direction, as drawn), unless held upright to the frame; with
        // `icon-keep-upright`, one that would point left is turned the other way along its line.
        let alongLine = layer.string("icon-rotation-alignment", zoom: zoom) != "viewport"
        let keepUpright = layer.bool("icon-keep-upright", zoom: zoom)
        let textAlong = layer.string("text-rotation-alignment", zoom: zoom) != "viewport"
        for group in lines.groups {
            let f = lines.features[group.feature]
            var icon = group.icon.isEmpty ? nil : self.icon(layer, f, zoom: zoom)
            icon?.name = group.icon
            let style = group.text.isEmpty ? nil : textStyle(layer, f, zoom: zoom)
            guard icon != nil || style != nil else { continue }
            let size = style?.size ?? 0
            let offset = layer.numbers("text-offset", zoom: zoom, feature: f.style)
            let c = Candidate(
                text: style == nil ? "" : group.text,
                style: style ?? TextStyle(size: 0, color: Color(red: 0, green: 0, blue: 0, alpha: 0), haloWidth: 0),
                x: 0, y: 0, anchor: layer.textAnchor(zoom: zoom, feature: f.style),
                offset: (offset.count == 2 ? offset[0] * size : 0, offset.count == 2 ? offset[1] * size : 0), padding: padding,
                allowOverlap: (style == nil || allowOverlap) && (icon == nil || iconOverlap),
                ignorePlacement: (style == nil || ignorePlacement) && (icon == nil || iconIgnore),
                layerIndex: layerIndex, icon: icon, repeatDistance: repeatDistance)
            for line in group.lines {
                var path: LinePath?
                for a in line.anchors {
                    var at = c
                    at.x = t.x(a.x, a.y)
                    at.y = t.y(a.x, a.y)
                    if textAlong, style != nil {
                        if path == nil { path = linePath(line, t) }
                        // On a reprojected frame, a line with a point not shown is not labelled.
                        guard let p = path, let q = pixel(t, a.x, a.y) else { break }
                        // (In the frame, as a line label's anchor is: placing it does not project it again.)
                        (at.x, at.y) = q
                        at.line = (p, p.along[a.segment] + a.fraction * (p.along[a.segment + 1] - p.along[a.segment]), maxAngle,
                                   repeatDistance)
                    }
                    if alongLine, icon != nil {
                        let p = line.points[a.segment], q = line.points[a.segment + 1]
                        if let from = pixel(t, p.x, p.y), let to = pixel(t, q.x, q.y), from != to {
                            let angle = atan2(to.y - from.y, to.x - from.x)
                            at.icon?.rotation += keepUpright && cos(angle) < 0 ? angle + .pi : angle
                        }
                    }
                    candidates.append(at)
                }
            }
        }
    }

    /// A tile's line in the frame (nil: a point of it is not shown).
    private func linePath(_ line: TileLines.Line, _ t: PixelTransform) -> LinePath? {
        let points = line.points.compactMap { pixel(t, $0.x, $0.y) }
        guard points.count == line.points.count else { return nil }
        return LinePath(xs: points.map(\.x), ys: points.map(\.y))
    }

    /// A point of a tile (units `t` takes to the frame, or to a reprojected frame's plane) in the frame;
    /// nil when the projection does not show it.
    private func pixel(_ t: PixelTransform, _ x: Double, _ y: Double) -> (x: Double, y: Double)? {
        let px = t.x(x, y), py = t.y(x, y)
        guard let project else { return (px, py) }
        return project(px, py)
    }

    /// A tile's lines of a layer grouped by text, joined, and anchored (tile units).
    private static func lines(_ layer: StyleLayer, _ features: [StyledFeature], zoom: Double, extent: Double, spacing: Double,
                              centreOnly: Bool, label: (StyledFeature) -> (text: String, icon: String)) -> TileLines {
        let out = TileLines(features: features)
        var byLabel: [String: Int] = [:]
        var parts: [[[(x: Double, y: Double)]]] = []
        for (i, f) in features.enumerated() where f.kind != .point && layer.matches(zoom: zoom, feature: f.style) {
            let (text, icon) = label(f)
            guard !text.isEmpty || !icon.isEmpty else { continue }
            let key = icon.isEmpty ? text : text + "\u{1F}" + icon
            let g: Int
            if let known = byLabel[key] { g = known } else {
                g = out.groups.count
                byLabel[key] = g
                out.groups.append((text, icon, i, []))
                parts.append([])
            }
            parts[g] += f.parts.filter { $0.count > 1 }
        }
        for g in out.groups.indices {
            for points in LineLabels.merge(parts[g]) {
                var along = [0.0]
                along.reserveCapacity(points.count)
                for i in points.indices.dropFirst() {
                    along.append(along[i - 1] + hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y))
                }
                var line = TileLines.Line(points: points, anchors: [], length: along[along.count - 1])
                var i = 0
                for d in LineLabels.anchors(length: line.length, spacing: spacing, centreOnly: centreOnly).sorted() {
                    while i < along.count - 2, along[i + 1] < d { i += 1 }
                    let l = along[i + 1] - along[i], f = l > 0 ? (d - along[i]) / l : 0
                    let x = points[i].x + f * (points[i + 1].x - points[i].x), y = points[i].y + f * (points[i + 1].y - points[i].y)
                    guard x >= 0, y >= 0, x < extent, y < extent else { continue }
                    line.anchors.append((i, f, x, y))
                }
                // The middle first: it is the one kept when the others do not fit.
                line.anchors.sort { abs(along[$0.segment] + $0.fraction * (along[$0.segment + 1] - along[$0.segment]) - line.length / 2)
                    < abs(along[$1.segment] + $1.fraction * (along[$1.segment + 1] - along[$1.segment]) - line.length / 2) }
                if !line.anchors.isEmpty { out.groups[g].lines.append(line) }
            }
        }
        return out
    }

    /// Places the labels collected for this frame and draws them.
    func draw(in cr: Context) throws {
        try place(in: cr)
        paint(painted.indices, in: cr)
    }

    /// A label placed and ready to paint: a point or area label's icon and text, or a line label's
    /// glyphs' pictures; and the box its ink stays within (frame pixels: halos and antialiasing in).
    struct Painted {
        enum Kind {
            case point(icon: PaintedIcon?, text: (layout: Layout, x: Double, y: Double, sprite: SpriteName)?)
            case along(Along)
        }
        var kind: Kind
        var style: TextStyle
        var ink: Box
    }

    /// A line label's glyphs as pictures placed (`GlyphPictures`): their halos in one pen, their texts in another.
    struct Along {
        var halos: [Mark], texts: [Mark]
        var halo: GlyphPictures.Pen, text: GlyphPictures.Pen
    }

    /// The pictures of a line label's glyphs where `glyphs` places them (the run's clusters).
    private func glyphMarks(_ run: GlyphRun, _ glyphs: [LineLabels.Glyph], style: TextStyle) throws -> Along {
        let size = style.size * scale
        let halo = GlyphPictures.Pen(color: style.halo, width: style.haloWidth * scale)
        let text = GlyphPictures.Pen(color: style.color, width: 0)
        let haloPen = halo.width > 0 ? glyphPictures.pen(halo) : nil, textPen = glyphPictures.pen(text)
        var out = Along(halos: [], texts: [], halo: halo, text: text)
        out.halos.reserveCapacity(haloPen == nil ? 0 : glyphs.count)
        out.texts.reserveCapacity(glyphs.count)
        for (cluster, g) in zip(run.clusters, glyphs) {
            if let haloPen { out.halos.append(try glyphPictures.mark(cluster, at: g, size: size, pen: haloPen)) }
            out.texts.append(try glyphPictures.mark(cluster, at: g, size: size, pen: textPen))
        }
        return out
    }

    /// What names a point label's picture (`TextCache.movingMark` adds its size and halo width).
    /// (Its hash worked out once, when the label is collected: a frame looks up every label's picture,
    /// and hashing four strings for each was most of the look-up.)
    struct SpriteName: Hashable {
        let text: String, family: String, weight: String, features: String, color: Color, halo: Color
        private let hash: Int

        init(_ text: String, _ style: TextStyle) {
            self.text = text
            (family, weight, features, color, halo) = (style.family, style.weight, style.features, style.color, style.halo)
            var h = Hasher()
            h.combine(text)
            h.combine(family)
            h.combine(weight)
            h.combine(features)
            h.combine(color)
            h.combine(halo)
            hash = h.finalize()
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    /// An icon placed: its picture, its rectangle unturned, and how it is painted.
    struct PaintedIcon {
        var image: StyleSprite.Icon
        var rect: Box
        var opacity: Double, color: Color
        /// Its turn (radians, clockwise) about `anchor`.
        var rotation: Double, anchor: (x: Double, y: Double)

        init(_ placed: PlacedIcon, _ icon: SymbolIcon, anchor: (x: Double, y: Double)) {
            (image, rect, opacity, color, rotation, self.anchor) = (placed.image, placed.rect, icon.opacity, icon.color, icon.rotation,
                                                                   anchor)
        }
    }

    /// A symbol's icon where its anchor puts it: its picture, its rectangle unturned, the box around it turned.
    typealias PlacedIcon = (image: StyleSprite.Icon, rect: Box, box: Box)

    /// An icon with its anchor at a point of the frame (nil, and counted missing: not in the sprite).
    private func placedIcon(_ i: SymbolIcon, at a: (x: Double, y: Double)) -> PlacedIcon? {
        guard let image = sprite?.icon(i.name, scale: scale) else {
            missingIcons.insert(i.name)
            return nil
        }
        let w = image.width * i.size * scale, h = image.height * i.size * scale
        let (x, y) = Self.corner(i.anchor, x: a.x + i.offset.x * scale, y: a.y + i.offset.y * scale, width: w, height: h)
        let rect = Box(minX: x, minY: y, maxX: x + w, maxY: y + h)
        return (image, rect, Self.turned(rect, i.rotation, about: a))
    }

    /// The labels `place` placed in the last frame, in the order they are painted.
    private(set) var painted: [Painted] = []

    /// Places the labels collected for this frame (`painted`, `placements`, `boxes`); `cr`: the
    /// context they will be drawn on (their text is laid out for it).
    func place(in cr: Context) throws {
        boxes.removeAll(keepingCapacity: true)
        placements.removeAll(keepingCapacity: true)
        painted.removeAll(keepingCapacity: true)
        placed = 0
        var grid = CollisionGrid(width: width, height: height)
        // The trip's pins and labels: no label covers them, even one allowed to overlap others.
        var blocked = CollisionGrid(width: width, height: height)
        for b in obstacles { blocked.add(b) }
        /// Where each line label's text was placed, to keep repeats apart.
        var shown: [String: [(x: Double, y: Double)]] = [:]
        // Higher layers first; within a layer, the features' order.
        let order = candidates.indices.sorted { (candidates[$0].layerIndex, $1) > (candidates[$1].layerIndex, $0) }
        for i in order {
            let c = candidates[i]
            let pad = c.padding * scale + c.style.haloWidth * scale / 2
            if let line = c.line {
                guard c.x > -width / 2, c.y > -height / 2, c.x < 1.5 * width, c.y < 1.5 * height else { continue }
                if let near = shown[c.text], near.contains(where: { hypot($0.x - c.x, $0.y - c.y) < line.repeatDistance }) { continue }
                let (run, factor) = try runs.run(c.text, c.style, scale: scale, layouts: text)
                guard let glyphs = LineLabels.place(run, scale: factor, on: line.path, at: line.at, maxAngle: line.maxAngle, pad: pad),
                      glyphs.contains(where: { $0.box.maxX > 0 && $0.box.maxY > 0 && $0.box.minX < width && $0.box.minY < height })
                else { continue }
                // An icon at the anchor (turned with the line), under the glyphs: one symbol, its boxes all placed or none.
                let icon = c.icon.flatMap { placedIcon($0, at: (c.x, c.y)) }
                let glyphBoxes = glyphs.map(\.box) + (icon.map { [Self.widened($0.box, by: pad)] } ?? [])
                if glyphBoxes.contains(where: { blocked.hits($0) }) { continue }
                if !c.allowOverlap, glyphBoxes.contains(where: { grid.hits($0) }) { continue }
                if !c.ignorePlacement { for b in glyphBoxes { grid.add(b) } }
                boxes += glyphBoxes
                if let icon, let i = c.icon {
                    painted.append(Painted(kind: .point(icon: PaintedIcon(icon, i, anchor: (c.x, c.y)), text: nil), style: c.style,
                                           ink: Self.widened(icon.box, by: 1)))
                }
                shown[c.text, default: []].append((c.x, c.y))
                // Each glyph's halo and text as pictures, drawn once (`GlyphPictures`); the ink within them.
                let along = try glyphMarks(run, glyphs, style: c.style)
                let ink = [along.halos, along.texts].joined().reduce(Box.empty) { $0.union($1.box) }
                painted.append(Painted(kind: .along(along), style: c.style, ink: ink))
                placements.append(Placement(kind: .line, text: c.text, layerIndex: c.layerIndex, x: c.x, y: c.y,
                                            boxes: glyphBoxes, path: line.path, glyphs: glyphs, icon: icon?.box,
                                            iconRotation: icon == nil ? 0 : c.icon?.rotation ?? 0))
                placed += 1
                continue
            }
            var (ax, ay) = (c.x, c.y)
            if let project {
                guard let p = project(c.x, c.y) else { continue }
                (ax, ay) = p
            }
            // (Made only for a symbol with a repeat distance: most labels have none.)
            let repeatKey = c.repeatDistance > 0 ? c.text + "\u{1F}" + (c.icon?.name ?? "") : ""
            if c.repeatDistance > 0, let near = shown[repeatKey],
               near.contains(where: { hypot($0.x - ax, $0.y - ay) < c.repeatDistance }) { continue }
            // The icon at the anchor, the text beside it: one box, padded, around both.
            // (`rect` unturned, `box` around it as turned about the anchor.)
            var icon = c.icon.flatMap { placedIcon($0, at: (ax, ay)) }
            let l = c.text.isEmpty ? nil : try text.layout(c.text, c.style, scale: scale, in: cr)
            guard l != nil || icon != nil else { continue }
            var ink = icon?.box ?? Box.empty, at = (x: 0.0, y: 0.0)
            if let l {
                let (w, h) = l.size
                at = Self.corner(c.anchor, x: ax + c.offset.x * scale, y: ay + c.offset.y * scale, width: w, height: h)
                if let i = c.icon, let fitted = icon, i.textFit != "none" {
                    let rect = Self.fit(fitted.rect, text: Box(minX: at.x, minY: at.y, maxX: at.x + w, maxY: at.y + h),
                                        i.textFit, padding: i.fitPadding.map { $0 * scale })
                    icon = (fitted.image, rect, Self.turned(rect, i.rotation, about: (ax, ay)))
                    ink = icon!.box
                }
                ink.add(at.x, at.y)
                ink.add(at.x + w, at.y + h)
            }
            let box = Box(minX: ink.minX - pad, minY: ink.minY - pad, maxX: ink.maxX + pad, maxY: ink.maxY + pad)
            guard box.maxX > 0, box.maxY > 0, box.minX < width, box.minY < height else { continue }
            if blocked.hits(box) { continue }
            if !c.allowOverlap, grid.hits(box) { continue }
            if !c.ignorePlacement { grid.add(box) }
            boxes.append(box)
            if c.repeatDistance > 0 { shown[repeatKey, default: []].append((ax, ay)) }
            let paintedIcon = icon.flatMap { icon in c.icon.map { PaintedIcon(icon, $0, anchor: (ax, ay)) } }
            // (The picture's filter reaches a pixel beyond its rectangle.)
            var paintedInk = icon.map { Self.widened($0.box, by: 1) } ?? Box.empty
            if let l {
                // As `TextCache.movingMark` bounds a label's picture: its logical and ink boxes, the halo round them.
                let (w, h) = l.size, r = l.inkRect, halo = c.style.haloWidth * scale / 2 + 1
                paintedInk.add(at.x + min(0, r.x) - halo, at.y + min(0, r.y) - halo)
                paintedInk.add(at.x + max(w, r.x + r.width) + halo, at.y + max(h, r.y + r.height) + halo)
            }
            painted.append(Painted(kind: .point(icon: paintedIcon, text: l.map { ($0, at.x, at.y, c.sprite ?? SpriteName(c.text, c.style)) }),
                                   style: c.style,
                                   ink: paintedInk))
            placements.append(Placement(kind: c.area ? .area : .point, text: c.text, layerIndex: c.layerIndex, x: ax, y: ay, boxes: [box],
                                        icon: icon?.box, iconRotation: icon == nil ? 0 : c.icon?.rotation ?? 0))
            placed += 1
        }
    }

    /// Paints the labels `place` placed (`painted`'s indices, in order): point and area labels one by
    /// one, then the line labels' glyphs together (see `drawAlong`).
    func paint(_ indices: some Sequence<Int>, in cr: Context) {
        var along: [Along] = []
        for p in indices.map({ painted[$0] }) {
            switch p.kind {
            case .along(let glyphs):
                along.append(glyphs)
            case .point(let icon, let l):
                if let icon {
                    if icon.rotation == 0 {
                        drawIcon(icon.image, in: icon.rect, opacity: icon.opacity, color: icon.color, cr)
                    } else {
                        // Its rectangle drawn turned about the anchor.
                        cr.save()
                        cr.translate(icon.anchor.x, icon.anchor.y)
                        cr.rotate(icon.rotation)
                        cr.translate(-icon.anchor.x, -icon.anchor.y)
                        drawIcon(icon.image, in: icon.rect, opacity: icon.opacity, color: icon.color, cr)
                        cr.restore()
                    }
                }
                guard let l else { continue }
                // The text and its halo drawn once (at each half-pixel phase its top left takes) and
                // painted every frame after: the same picture on every path, preview's included.
                if let mark = try? text.movingMark(l.layout, p.style, key: l.sprite, x: l.x, y: l.y, scale: scale) {
                    mark.paint(in: cr)
                } else {
                    text.draw(l.layout, p.style, x: l.x, y: l.y, scale: scale, in: cr)
                }
            }
        }
        drawAlong(along, in: cr)
    }

    private static func widened(_ b: Box, by d: Double) -> Box {
        Box(minX: b.minX - d, minY: b.minY - d, maxX: b.maxX + d, maxY: b.maxY + d)
    }

    /// The top left corner of a box `width` x `height` whose `anchor` (`text-anchor`, `icon-anchor`)
    /// is at (x, y).
    static func corner(_ anchor: SymbolAnchor, x: Double, y: Double, width w: Double, height h: Double) -> (x: Double, y: Double) {
        var x = x - w / 2, y = y - h / 2
        // (An enum, not its name searched: a frame asks for every point label's corner.)
        switch anchor {
        case .left, .topLeft, .bottomLeft: x += w / 2
        case .right, .topRight, .bottomRight: x -= w / 2
        case .center, .top, .bottom: break
        }
        switch anchor {
        case .top, .topLeft, .topRight: y += h / 2
        case .bottom, .bottomLeft, .bottomRight: y -= h / 2
        case .center, .left, .right: break
        }
        return (x, y)
    }

    /// An icon's box stretched about the text's (`icon-text-fit`: `width`, `height` or `both`), padded
    /// (top, right, bottom, left).
    static func fit(_ icon: Box, text: Box, _ fit: String, padding p: [Double]) -> Box {
        var b = icon
        if fit == "width" || fit == "both" { b.minX = text.minX - p[3]; b.maxX = text.maxX + p[1] }
        if fit == "height" || fit == "both" { b.minY = text.minY - p[0]; b.maxY = text.maxY + p[2] }
        return b
    }

    /// The box around `box` turned by `angle` (radians, clockwise in the frame) about a point.
    static func turned(_ box: Box, _ angle: Double, about p: (x: Double, y: Double)) -> Box {
        guard angle != 0 else { return box }
        let cx = (box.minX + box.maxX) / 2 - p.x, cy = (box.minY + box.maxY) / 2 - p.y
        let x = p.x + cx * cos(angle) - cy * sin(angle), y = p.y + cx * sin(angle) + cy * cos(angle)
        let w = (box.maxX - box.minX) / 2, h = (box.maxY - box.minY) / 2
        let hw = abs(w * cos(angle)) + abs(h * sin(angle)), hh = abs(w * sin(angle)) + abs(h * cos(angle))
        return Box(minX: x - hw, minY: y - hh, maxX: x + hw, maxY: y + hh)
    }

    /// Paints an icon into its box (an SDF icon in its colour).
    private func drawIcon(_ icon: StyleSprite.Icon, in box: Box, opacity: Double, color: Color, _ cr: Context) {
        var surface = icon.surface
        if icon.sdf {
            let key = TintKey(surface: ObjectIdentifier(icon.surface), color: color)
            if let t = tinted[key] { surface = t } else if let t = try? StyleSprite.tint(icon.surface, color) {
                tinted[key] = t
                surface = t
            }
        }
        cr.save()
        cr.translate(box.minX, box.minY)
        cr.scale((box.maxX - box.minX) / Double(surface.width), (box.maxY - box.minY) / Double(surface.height))
        cr.setSource(surface, x: 0, y: 0)
        cr.setSourceFilter(.good)
        if opacity >= 1 { cr.paint() } else { cr.paint(alpha: opacity) }
        cr.restore()
    }

    /// Paints the glyphs placed along lines: every halo, then every text, each colour's as one layer
    /// (the halos of neighbouring letters meet: painted once where they do, not darkened).
    private func drawAlong(_ labels: [Along], in cr: Context) {
        guard !labels.isEmpty else { return }
        var halos: [GlyphPictures.Pen: [Mark]] = [:], haloOrder: [GlyphPictures.Pen] = []
        var texts: [GlyphPictures.Pen: [Mark]] = [:], textOrder: [GlyphPictures.Pen] = []
        for l in labels {
            if !l.halos.isEmpty {
                if halos[l.halo] == nil { haloOrder.append(l.halo) }
                halos[l.halo, default: []] += l.halos
            }
            if texts[l.text] == nil { textOrder.append(l.text) }
            texts[l.text, default: []] += l.texts
        }
        for pen in haloOrder { GlyphPictures.paint(halos[pen] ?? [], alpha: pen.color.alpha, in: cr) }
        for pen in textOrder { GlyphPictures.paint(texts[pen] ?? [], alpha: pen.color.alpha, in: cr) }
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

/// The boxes labels keep clear, by cells of the frame (a box outside it in the edge cells): a
/// label's boxes are checked against those in the cells they cover, not every box placed.
struct CollisionGrid {
    static let cell = 64.0
    private let columns: Int, rows: Int
    private var cells: [[Box]]

    init(width: Double, height: Double) {
        columns = max(1, Int((width / Self.cell).rounded(.up)))
        rows = max(1, Int((height / Self.cell).rounded(.up)))
        cells = Array(repeating: [], count: columns * rows)
    }

    private func range(_ b: Box) -> (ClosedRange<Int>, ClosedRange<Int>) {
        func clamp(_ v: Double, _ n: Int) -> Int { v.isFinite ? min(max(Int((v / Self.cell).rounded(.down)), 0), n - 1) : (v > 0 ? n - 1 : 0) }
        return (clamp(b.minX, columns)...clamp(b.maxX, columns), clamp(b.minY, rows)...clamp(b.maxY, rows))
    }

    func hits(_ b: Box) -> Bool {
        let (xs, ys) = range(b)
        for y in ys {
            for x in xs where cells[y * columns + x].contains(where: { $0.intersects(b) }) { return true }
        }
        return false
    }

    mutating func add(_ b: Box) {
        let (xs, ys) = range(b)
        for y in ys { for x in xs { cells[y * columns + x].append(b) } }
    }
}

/// The fonts a style names, as fontconfig has them.
public enum StyleFonts {
    /// The family a style's font stack asks for (its first font's, as the labels read it) when
    /// fontconfig does not have it, and the family the labels are drawn in instead; nil when installed.
    @Sendable public static func missing(_ stack: [String]) -> (asked: String, found: String)? {
        let font = StyledLabels.font(stack)
        guard let found = FontMatch.family("\(font.family) \(font.weight)"),
              found.lowercased() != font.family.lowercased() else { return nil }
        return (font.family, found)
    }
}
