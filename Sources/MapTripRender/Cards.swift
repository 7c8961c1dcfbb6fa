import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import Pango

/// Pictures a scene names, decoded before the first frame (a missing or broken file is an error
/// before rendering, never mid-video): each place's photo, each leg's vehicle.
public struct SceneMedia {
    /// Photo of place i, premultiplied.
    public var photos: [Int: ImageSurface]
    /// The vehicle of the leg into place i.
    public var vehicles: [Int: VehicleArt]

    public init(photos: [Int: ImageSurface] = [:], vehicles: [Int: VehicleArt] = [:]) {
        self.photos = photos
        self.vehicles = vehicles
    }
}

/// A lower-third card with a place's caption while the camera rests there.
public final class CaptionOverlay: Overlay {
    private let text = TextCache()

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        let layout = frame.layout, card = frame.scene.style.caption
        for value in frame.values.cards {
            guard case .caption(let i) = value.cue, let caption = frame.scene.places[i].caption, !caption.isEmpty else {
                continue
            }
            var style = TextStyle(family: frame.scene.style.font, weight: "Semi-Bold", size: card.size,
                                  color: card.color, haloWidth: 0)
            let padX = layout.size(28), padY = layout.size(16)
            let wrap = layout.textWidth - 2 * padX, tallest = layout.safe.maxY - layout.safe.minY - 2 * padY
            var l = try text.layout(caption, style, scale: layout.unit, width: wrap, in: cr)
            // Pango wraps at word boundaries only: a word longer than a line (a long compound, a long
            // name) runs past the card's sides and out of the frame, and a very long caption grows
            // above the safe area. Such a caption's text is made smaller until the card fits.
            for _ in 0..<4 {
                let ink = l.inkRect
                // (Ink may overhang a wrapped line's logical width by a hair; that is no overflow.)
                guard ink.width > wrap + layout.size(2) || ink.height > tallest else { break }
                style.size *= min(wrap / ink.width, tallest / ink.height, 1) * 0.97
                l = try text.layout(caption, style, scale: layout.unit, width: wrap, in: cr)
            }
            let captionCard = TextCard([(l, style)], padX: padX, padY: padY, radius: layout.size(12))
            captionCard.draw(centerX: layout.width / 2, top: layout.captionBottom - captionCard.height,
                             background: card.background, alpha: value.opacity, unit: layout.unit, text: text, in: cr)
        }
    }
}

/// A framed photo card while the camera rests on its place, scaled to fit the layout's photo box.
public final class PhotoOverlay: Overlay {
    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        let layout = frame.layout
        for value in frame.values.cards {
            guard case .photo(let i) = value.cue, let image = frame.media.photos[i] else { continue }
            let border = layout.size(10)
            let box = layout.photoBox(aspect: Double(image.width) / Double(image.height))
            let inner = Box(minX: box.minX + border, minY: box.minY + border, maxX: box.maxX - border,
                            maxY: box.maxY - border)
            let shadow = layout.size(6)
            cr.save()
            // The group bounded to the card and its shadow (whole pixels): a group's extents are
            // otherwise the clip's, the whole frame, and a frame drawn into I420 blends all of it.
            cr.rectangle(whole: Box(minX: box.minX, minY: box.minY, maxX: box.maxX + shadow / 2, maxY: box.maxY + shadow))
            cr.clip()
            cr.pushGroup()
            // A soft shadow, the white frame, then the picture.
            cr.roundedRectangle(box.minX + shadow / 2, box.minY + shadow, box.maxX - box.minX, box.maxY - box.minY,
                                radius: layout.size(8))
            cr.setSource(Color(red: 0, green: 0, blue: 0, alpha: 0.28))
            cr.fill()
            cr.roundedRectangle(box.minX, box.minY, box.maxX - box.minX, box.maxY - box.minY, radius: layout.size(8))
            cr.setSource(Color(red: 1, green: 1, blue: 1))
            cr.fill()
            let w = inner.maxX - inner.minX, h = inner.maxY - inner.minY
            cr.save()
            cr.rectangle(inner.minX, inner.minY, w, h)
            cr.clip()
            cr.translate(inner.minX, inner.minY)
            cr.scale(w / Double(image.width), h / Double(image.height))
            cr.setSource(image, x: 0, y: 0)
            cr.setSourceFilter(.good)
            cr.paint()
            cr.restore()
            cr.popGroupToSource()
            cr.paint(alpha: value.opacity)
            cr.restore()
        }
    }
}

/// Kilometres travelled so far, counting up during flights, in the top-left of the safe area.
public final class DistanceOverlay: Overlay {
    private let text = TextCache()

    public init() {}

    /// `1,234 km`: whole kilometres, grouped by thousands.
    public static func format(_ km: Double) -> String {
        let n = Int(km.rounded(.down))
        var digits = String(n), out = ""
        while digits.count > 3 {
            out = "," + digits.suffix(3) + out
            digits.removeLast(3)
        }
        return digits + out + " km"
    }

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        guard let km = frame.values.distanceKm else { return }
        let layout = frame.layout, card = frame.scene.style.caption
        let style = TextStyle(family: frame.scene.style.font + " Mono", weight: "Bold", size: card.size * 0.85,
                              color: card.color, haloWidth: 0)
        let l = try text.layout(Self.format(km), style, scale: layout.unit, in: cr)
        let counter = TextCard([(l, style)], padX: layout.size(20), padY: layout.size(12), radius: layout.size(10))
        let (x, y) = layout.counterOrigin
        counter.draw(centerX: x + counter.width / 2, top: y, background: card.background, unit: layout.unit, text: text,
                     in: cr)
    }
}
