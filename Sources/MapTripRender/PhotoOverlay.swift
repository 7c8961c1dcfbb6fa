import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import Pango

/// A framed photo card while the camera rests on its place, scaled to fit the layout's photo box; or
/// the place's clip on the same card, its picture at the second the card's value says.
public final class PhotoOverlay: OverlayFastPaths {
    private let cards = CardPictures()
    private let text = TextCache()

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        for mark in try marks(frame) ?? [] { mark.paint(in: cr) }
    }

    /// Each card as one picture: a soft shadow, the white frame, then the photo or the clip's picture,
    /// painted at the card's opacity.
    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        let layout = frame.layout
        var marks: [Mark] = []
        for value in frame.values.cards {
            let image: ImageSurface, aspect: Double, still: AnyHashable?, i: Int
            var clear: [Box] = []
            switch value.cue {
            case .photo(let place):
                guard let photo = frame.media.photos[place] else { continue }
                i = place
                image = photo
                aspect = Double(photo.width) / Double(photo.height)
                still = place
            case .trackPhoto(let k):
                // Kept clear of the title (as the first place's card is), all through the playback.
                guard let photo = frame.media.trackPhotos[k] else { continue }
                i = 0
                image = photo
                aspect = Double(photo.width) / Double(photo.height)
                still = "photos[\(k)]"
                clear = frame.trackPhotoPlace(k).map { [$0] } ?? []
            case .clip(let place):
                guard let clip = frame.media.clips[place] else { continue }
                i = place
                image = try clip.picture(at: value.seconds ?? 0)
                aspect = clip.aspect
                still = nil
            default:
                continue
            }
            let border = layout.size(10)
            let box = frame.photoBox(aspect: aspect, place: i, text: text, clearOf: clear)
            let inner = Box(minX: box.minX + border, minY: box.minY + border, maxX: box.maxX - border,
                            maxY: box.maxY - border)
            let shadow = layout.size(6), radius = layout.size(8)
            // The card and its shadow.
            let bounds = Box(minX: box.minX, minY: box.minY, maxX: box.maxX + shadow / 2, maxY: box.maxY + shadow)
            let mark = try cards.mark(bounds: bounds, geometry: [box.minX, box.minY, box.maxX, box.maxY, shadow, radius],
                                      still: still, alpha: value.opacity, under: { cr in
                cr.roundedRectangle(box.minX + shadow / 2, box.minY + shadow, box.maxX - box.minX, box.maxY - box.minY,
                                    radius: radius)
                cr.setSource(Color(red: 0, green: 0, blue: 0, alpha: 0.28))
                cr.fill()
                cr.roundedRectangle(box.minX, box.minY, box.maxX - box.minX, box.maxY - box.minY, radius: radius)
                cr.setSource(Color(red: 1, green: 1, blue: 1))
                cr.fill()
            }, picture: { cr in
                let w = inner.maxX - inner.minX, h = inner.maxY - inner.minY
                cr.rectangle(inner.minX, inner.minY, w, h)
                cr.clip()
                let sx = w / Double(image.width), sy = h / Double(image.height)
                if case .clip = value.cue, abs(sx - 1) < 0.02, abs(sy - 1) < 0.02 {
                    // A clip's picture is made at the card's size (`SceneMedia`): drawn on whole pixels,
                    // not resampled every frame.
                    cr.paintPicture(image, x: inner.minX.rounded(), y: inner.minY.rounded(), scaleX: 1, scaleY: 1)
                } else {
                    cr.paintPicture(image, x: inner.minX, y: inner.minY, scaleX: sx, scaleY: sy)
                }
            })
            marks.append(mark)
        }
        return marks
    }
}

extension Context {
    /// `image` painted with its top-left corner at (x, y), scaled (a card's picture, the presenter's).
    func paintPicture(_ image: ImageSurface, x: Double, y: Double, scaleX: Double, scaleY: Double) {
        translate(x, y)
        scale(scaleX, scaleY)
        setSource(image, x: 0, y: 0)
        setSourceFilter(.good)
        paint()
    }

    /// Ends a card's group: what was drawn in it painted at `alpha`, the state before it restored.
    func paintGroup(alpha: Double) {
        popGroupToSource()
        paint(alpha: alpha)
        restore()
    }
}

extension FrameContext {
    /// Where the card of place `i`'s photo or clip goes (`FrameLayout.photoBox`): clear of the
    /// presenter and the furniture, and the first place's, which shows while the title card does,
    /// below the title card too (the same box all through its rest: the card does not jump as the
    /// title fades). `text`: the caller's cache, to lay the title out; `extra`: more boxes to keep clear of.
    func photoBox(aspect: Double, place i: Int, text: TextCache, clearOf extra: [Box] = []) -> Box {
        var others = furnitureBoxes.all + extra
        if i == 0, let title = try? TitleOverlay.titleBox(scene, layout: layout, text: text) { others.append(title) }
        return layout.photoBox(aspect: aspect, clearOf: presenterBox, and: others)
    }

    /// Where photo k along the track (`Scene.photos`) was taken, with room around its dot and the mover
    /// there as the card appears: kept clear by the card under a camera that holds still (a playback's
    /// own), where the box is the same all through the card; nil under a directed camera or off screen.
    func trackPhotoPlace(_ k: Int) -> Box? {
        guard scene.camera == nil, let photos = scene.photos, photos.photos.indices.contains(k),
              let p = viewport.pixel(photos.photos[k].position) else { return nil }
        let r = layout.size(MoverOverlay.iconSize)
        return Box(minX: p.x - r, minY: p.y - r, maxX: p.x + r, maxY: p.y + r)
    }
}
