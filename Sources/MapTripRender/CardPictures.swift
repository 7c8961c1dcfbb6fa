import Cairo
import Foundation
import MapTripGeometry

/// Cards as marks (a place's photo or clip, the presenter): each card drawn in a picture of its
/// whole-pixel bounds, its frame (shadow, white border) under its picture, and painted at the card's
/// opacity, as a group of the same drawing would be. The frame of a card is drawn once for its
/// geometry and copied under each new picture of a clip; a photo's whole card is drawn once. `draw`
/// and a frame drawn into I420 paint the same marks, so every output shows the same card; and a
/// frame at rest with a clip playing costs a copy and the picture, not the card's paths again.
final class CardPictures: @unchecked Sendable {
    private struct Key: Hashable {
        /// The card's geometry, as drawn (fractional: the frame's antialiasing depends on it).
        var geometry: [Double]
        /// What is drawn (nil: the frame alone, under a picture that changes).
        var still: AnyHashable?
    }

    private var kept: [Key: (surface: ImageSurface, tick: UInt64)] = [:]
    private var tick: UInt64 = 0
    private let lock = NSLock()
    /// Pictures kept: a card's frame and a photo card each, for the cards a frame shows at once and
    /// the next place's.
    static let limit = 6

    /// The card drawn within `bounds` (rounded out to whole pixels) by `under` (its frame, the same for
    /// the same `geometry`) and then `picture`, both drawing in the frame's coordinates, painted at
    /// `alpha`. `still`: what the picture shows when it is the same every time for this key (a photo):
    /// the whole card is kept, not only its frame.
    func mark(bounds: Box, geometry: [Double], still: AnyHashable?, alpha: Double,
              under: (Context) -> Void, picture: (Context) throws -> Void) throws -> Mark {
        let x0 = Int(bounds.minX.rounded(.down)), y0 = Int(bounds.minY.rounded(.down))
        let width = max(1, Int(bounds.maxX.rounded(.up)) - x0), height = max(1, Int(bounds.maxY.rounded(.up)) - y0)
        let geometry = geometry + [Double(x0), Double(y0), Double(width), Double(height)]
        if let still, let card = cached(Key(geometry: geometry, still: still)) {
            return Mark(picture: card, x: x0, y: y0, alpha: alpha)
        }
        let frameKey = Key(geometry: geometry, still: nil)
        let frame: ImageSurface
        if let made = cached(frameKey) {
            frame = made
        } else {
            frame = try ImageSurface(width: width, height: height)
            try frame.withContext { cr in
                cr.translate(-Double(x0), -Double(y0))
                under(cr)
            }
            frame.flush()
            keep(frame, as: frameKey)
        }
        // The frame copied (the same bytes as drawing it there), the picture drawn over it.
        let card = try ImageSurface(width: width, height: height)
        memcpy(card.data, frame.data, card.stride * height)
        card.markDirty()
        try card.withContext { cr in
            cr.translate(-Double(x0), -Double(y0))
            try picture(cr)
        }
        card.flush()
        if let still { keep(card, as: Key(geometry: geometry, still: still)) }
        return Mark(picture: card, x: x0, y: y0, alpha: alpha)
    }

    private func cached(_ key: Key) -> ImageSurface? {
        lock.withLock {
            guard let entry = kept[key] else { return nil }
            tick &+= 1
            kept[key]!.tick = tick
            return entry.surface
        }
    }

    private func keep(_ surface: ImageSurface, as key: Key) {
        lock.withLock {
            tick &+= 1
            kept[key] = (surface, tick)
            while kept.count > Self.limit, let oldest = kept.min(by: { $0.value.tick < $1.value.tick }) {
                kept[oldest.key] = nil
            }
        }
    }
}
