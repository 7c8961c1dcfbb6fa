import Foundation
import MapTripGeometry
import MapTripScene

/// Where the map's furniture (`Scene.furniture`) sits: each piece in its corner of the safe area,
/// past what the corner already holds (the presenter, the counter at the top left, a playback's clock
/// at the bottom left, a coloured route's legend at the top right, the readouts at the bottom right,
/// the credit where it sits in the safe area), pieces sharing a corner stacked
/// toward the frame's middle. Cards, the counter's neighbours and labels keep clear of these boxes.
public struct FurnitureBoxes: Equatable, Sendable {
    public var scaleBar: Box?
    public var northArrow: Box?
    public var watermark: Box?

    public var all: [Box] { [watermark, scaleBar, northArrow].compactMap { $0 } }
}

extension FrameLayout {
    /// The longest scale bar, in layout units; a bar crossfading to the next step may run 20% longer.
    public static let scaleBarLength = 220.0
    /// The room a scale bar takes: its longest bar (and the crossfade's), its label above it.
    var scaleBarSize: (width: Double, height: Double) { (size(Self.scaleBarLength * 1.2 + 16), size(58)) }
    /// The north arrow's disc.
    var northArrowSize: Double { size(76) }

    /// The furniture's boxes for `scene` in this frame. `watermark`: the watermark's picture's size in
    /// pixels (`SceneMedia.watermark`), nil: as the scene's size says for a square picture.
    public func furniture(_ scene: Scene, watermark: (width: Int, height: Int)? = nil) -> FurnitureBoxes {
        let f = scene.furniture
        var out = FurnitureBoxes()
        guard !f.isEmpty else { return out }
        let gap = size(16)
        /// How far from the corner's edge the next piece starts (from the top, or from the bottom).
        var used: [Furniture.Corner: Double] = [:]
        for corner in Furniture.Corner.allCases {
            let top = corner == .topLeft || corner == .topRight
            var reserved: [Box] = []
            if let p = presenter, p.overlaps(cornerBox(corner)) { reserved.append(p) }
            if corner == .topLeft, scene.distance { reserved.append(counterBox(clearOf: presenter)) }
            if corner == .bottomLeft, scene.isPlayback, scene.playback.clock != .none { reserved.append(clockBox) }
            if corner == .topRight, scene.hasRouteLegend { reserved.append(legendBox) }
            if corner == .bottomRight, scene.isPlayback, let panel = readoutBox(scene.shownReadouts, clearOf: presenter) {
                reserved.append(panel)
            }
            if corner == .bottomRight, creditBottom < height {
                reserved.append(Box(minX: safe.maxX - size(300), minY: safe.maxY - size(44), maxX: safe.maxX, maxY: safe.maxY))
            }
            used[corner] = reserved.map { top ? $0.maxY - safe.minY + gap : safe.maxY - $0.minY + gap }.max() ?? 0
        }
        func place(_ corner: Furniture.Corner, _ w: Double, _ h: Double) -> Box {
            let left = corner == .topLeft || corner == .bottomLeft, top = corner == .topLeft || corner == .topRight
            let x = left ? safe.minX : safe.maxX - w
            let offset = used[corner] ?? 0
            let y = top ? safe.minY + offset : safe.maxY - offset - h
            used[corner] = offset + h + gap
            return Box(minX: x, minY: y, maxX: x + w, maxY: y + h)
        }
        if let mark = f.watermark {
            let (w, h) = watermark.map { (Double($0.width), Double($0.height)) } ?? Self.watermarkSize(mark, aspect: 1, layout: self)
            out.watermark = place(mark.corner, w, h)
        }
        if let bar = f.scaleBar { out.scaleBar = place(bar.corner, scaleBarSize.width, scaleBarSize.height) }
        if let arrow = f.northArrow { out.northArrow = place(arrow.corner, northArrowSize, northArrowSize) }
        return out
    }

    /// The box a playback's clock takes at most, at the bottom left of the safe area.
    public var clockBox: Box {
        Box(minX: safe.minX, minY: safe.maxY - size(64), maxX: safe.minX + size(250), maxY: safe.maxY)
    }

    /// A watermark's size in pixels: its longer side `size` of the frame's shorter side.
    public static func watermarkSize(_ mark: Furniture.Watermark, aspect: Double, layout: FrameLayout) -> (Double, Double) {
        let a = aspect.isFinite && aspect > 0 ? aspect : 1
        let long = (mark.size * min(layout.width, layout.height)).rounded()
        return a >= 1 ? (long, max(1, (long / a).rounded())) : (max(1, (long * a).rounded()), long)
    }

    /// A quarter of the safe area at `corner`.
    private func cornerBox(_ corner: Furniture.Corner) -> Box {
        let midX = (safe.minX + safe.maxX) / 2, midY = (safe.minY + safe.maxY) / 2
        switch corner {
        case .topLeft: return Box(minX: safe.minX, minY: safe.minY, maxX: midX, maxY: midY)
        case .topRight: return Box(minX: midX, minY: safe.minY, maxX: safe.maxX, maxY: midY)
        case .bottomLeft: return Box(minX: safe.minX, minY: midY, maxX: midX, maxY: safe.maxY)
        case .bottomRight: return Box(minX: midX, minY: midY, maxX: safe.maxX, maxY: safe.maxY)
        }
    }

    /// Where a caption card goes, centred, clear of the boxes in the bottom corners (the presenter's,
    /// the furniture's): as wide as keeps clear of those beside its band of rows, or, where that would
    /// leave it narrower than `size(560)`, raised above them. Its width and its bottom edge.
    public func captionPlacement(clearOf boxes: [Box]) -> (width: Double, bottom: Double) {
        var width = textWidth, bottom = captionBottom
        let gap = size(20), narrowest = min(textWidth, size(560))
        for _ in 0..<8 {
            var changed = false
            for box in boxes where box.maxY > bottom - size(200) && box.minY < bottom {
                // Half the width a centred card may take beside the box (on the side it sits).
                let half = max(self.width / 2 - box.maxX, box.minX - self.width / 2) - gap
                guard 2 * half < width else { continue }
                if 2 * half >= narrowest {
                    width = 2 * half
                } else {
                    bottom = box.minY - gap
                }
                changed = true
            }
            if !changed { break }
        }
        return (width, bottom)
    }
}

extension FrameContext {
    /// The furniture's boxes on this frame (see `FrameLayout.furniture`).
    public var furnitureBoxes: FurnitureBoxes {
        layout.furniture(scene, watermark: media.watermark.map { ($0.width, $0.height) })
    }

    /// What cards keep clear of: the presenter (while it shows) and the furniture.
    public var cornerBoxes: [Box] { [presenterBox].compactMap { $0 } + furnitureBoxes.all }

    /// What sits over the map in its own place on this frame, for the map's labels to keep clear of:
    /// the distance counter, a playback's clock, the readout panel, a coloured route's legend, the
    /// presenter and the furniture (the credit is its overlay's to tell).
    var overlayBoxes: [Box] {
        var boxes = cornerBoxes
        if values.distanceKm != nil { boxes.append(layout.counterBox(clearOf: presenterBox)) }
        if let clock = values.clock, clock.opacity > 0 {
            var box = layout.clockBox
            let bottom = clockBottom(width: box.maxX - box.minX)
            box.minY -= box.maxY - bottom
            box.maxY = bottom
            boxes.append(box)
        }
        if let panel = readoutBox { boxes.append(panel) }
        if let legend = legendBox { boxes.append(legend) }
        return boxes
    }
}
