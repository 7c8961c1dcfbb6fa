import Foundation
import MapTripScene

/// The built-in vehicle icons (`Assets/icons/*.svg`) in a theme's colours. The icons are drawn in two
/// inks: the body `#1f2a37` and the trim `#ffffff` (the outline, windows, stripes); the body takes
/// the style's `vehicleFill`, the trim its `vehicleOutline`, and the outline is widened so that the
/// shape reads at a glance on the theme's land and sea (a dark body with a hairline outline read as
/// a hollow wireframe on the dark theme).
public enum VehicleIcons {
    public static let body = "#1f2a37"
    public static let trim = "#ffffff"
    /// The outline's width, in the icons' 64-unit view box.
    public static let outlineWidth = 2.5

    /// The icon's SVG text with its inks replaced by the style's.
    public static func themed(_ svg: Data, style: Style) -> Data {
        let fill = style.vehicleFill.description, outline = style.vehicleOutline.description
        let text = String(decoding: svg, as: UTF8.self)
            .replacingOccurrences(of: "\"\(body)\"", with: "\"\u{1}\"")
            .replacingOccurrences(of: "\"\(trim)\"", with: "\"\(outline)\"")
            .replacingOccurrences(of: "\"\u{1}\"", with: "\"\(fill)\"")
            .replacingOccurrences(of: "stroke-width=\"1.5\"", with: "stroke-width=\"\(outlineWidth)\"")
        return Data(text.utf8)
    }
}
