import Foundation

/// The frame's title-safe area and where the end card sits, shared by the layout that draws the cards
/// (`FrameLayout`) and the timeline that frames the trip under them (`Closing`).
public enum SafeArea {
    /// The title-safe area of a frame `width` by `height` pixels: 5% in from each edge; a tall frame
    /// keeps more clear at the top and bottom, where phone apps put their buttons; and at least
    /// `insets` (fractions of the width and height: a platform's interface, `SafeZone`).
    public static func box(width: Double, height: Double,
                           insets: (left: Double, top: Double, right: Double, bottom: Double) = (0, 0, 0, 0)) -> Box {
        let portrait = height > width * 1.2
        let left = max(0.05, insets.left) * width, right = max(0.05, insets.right) * width
        let top = max(portrait ? 0.10 : 0.05, insets.top) * height
        let bottom = max(portrait ? 0.14 : 0.05, insets.bottom) * height
        return Box(minX: left, minY: top, maxX: width - right, maxY: height - bottom)
    }

    /// Frame pixels per layout unit: the shorter side over 1080, times `upright`.
    public static func unit(width: Double, height: Double) -> Double {
        min(width, height) / 1080 * upright(width: width, height: height)
    }

    /// How much larger a frame's text and pins are for being upright: 1 for 16:9 and wider, growing
    /// with the height over the width to 1.4 at 9:16 (1.14 for a square), 1.4 beyond.
    public static func upright(width w: Double, height h: Double) -> Double {
        let landscape = 9.0 / 16, phone = 16.0 / 9
        return 1 + 0.4 * min(1, max(0, (h / w - landscape) / (phone - landscape)))
    }

    /// The share of the frame's height where the end card's top edge sits at the lowest (it rises
    /// when it is too tall to fit above the safe area's bottom).
    public static let endCardTop = 0.58
}
