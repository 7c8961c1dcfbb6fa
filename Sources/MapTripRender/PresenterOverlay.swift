import Cairo
import Foundation
import MapTripGeometry
import MapTripScene

/// The presenter's video in its corner (`Scene.presenter`): a circle cut from the middle of the
/// picture, or the whole picture with rounded corners, ringed in white over a soft shadow, its picture
/// at the second the frame's value says.
public final class PresenterOverlay: OverlayFastPaths {
    private let cards = CardPictures()

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        for mark in try marks(frame) ?? [] { mark.paint(in: cr) }
    }

    /// The presenter as one picture: its shadow and white ring drawn once, the video's picture inside.
    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        guard let value = frame.values.presenter, let box = frame.layout.presenter, let clip = frame.media.presenter,
              let presenter = frame.scene.presenter else { return [] }
        let image = try clip.picture(at: value.seconds)
        let layout = frame.layout
        let w = box.maxX - box.minX, h = box.maxY - box.minY
        let ring = layout.presenterRing, shadow = layout.size(5), corner = layout.size(18)
        let circle = presenter.shape == .circle
        func outline(_ cr: Context, _ inset: Double) {
            if circle {
                cr.arc(x: (box.minX + box.maxX) / 2, y: (box.minY + box.maxY) / 2, radius: w / 2 - inset)
            } else {
                cr.roundedRectangle(box.minX + inset, box.minY + inset, w - 2 * inset, h - 2 * inset,
                                    radius: max(0, corner - inset))
            }
        }
        // The picture and its shadow.
        let bounds = Box(minX: box.minX - shadow, minY: box.minY - shadow, maxX: box.maxX + shadow, maxY: box.maxY + 2 * shadow)
        let mark = try cards.mark(bounds: bounds, geometry: [box.minX, box.minY, box.maxX, box.maxY, ring, shadow, corner, circle ? 1 : 0],
                                  still: nil, alpha: value.opacity, under: { cr in
            cr.save()
            cr.translate(0, shadow)
            outline(cr, -shadow / 2)
            cr.setSource(Color(red: 0, green: 0, blue: 0, alpha: 0.28))
            cr.fill()
            cr.restore()
            outline(cr, 0)
            cr.setSource(Color(red: 1, green: 1, blue: 1))
            cr.fill()
        }, picture: { cr in
            // The picture covers the box inside the ring, its middle kept (a wide picture in a circle).
            outline(cr, ring)
            cr.clip()
            let inner = (w: w - 2 * ring, h: h - 2 * ring)
            var k = max(inner.w / Double(image.width), inner.h / Double(image.height))
            var x = (box.minX + box.maxX) / 2 - Double(image.width) * k / 2, y = (box.minY + box.maxY) / 2 - Double(image.height) * k / 2
            // A picture made at its size (`SceneMedia`) is drawn on whole pixels, not resampled.
            if abs(k - 1) < 0.02 {
                k = 1
                x = x.rounded()
                y = y.rounded()
            }
            cr.paintPicture(image, x: x, y: y, scaleX: k, scaleY: k)
        })
        return [mark]
    }
}
