import Foundation

/// The frame's title-safe area and where the end card sits, shared by the layout that draws the cards
/// (`FrameLayout`) and the timeline that frames the trip under them (`Closing`).
public enum SafeArea {
    /// The title-safe area of a frame `width` by `height` pixels: 5% in from each edge; a tall frame
    /// keeps more clear at the top and bottom, where phone apps put their buttons.
    public static func box(width: Double, height: Double) -> Box {
        let side = 0.05 * width
        let portrait = height > width * 1.2
        let top = (portrait ? 0.10 : 0.05) * height, bottom = (portrait ? 0.14 : 0.05) * height
        return Box(minX: side, minY: top, maxX: width - side, maxY: height - bottom)
    }

    /// The share of the frame's height where the end card's top edge sits at the lowest (it rises
    /// when it is too tall to fit above the safe area's bottom).
    public static let endCardTop = 0.58
}
