import Foundation

/// The map's furniture (`scaleBar`, `northArrow`, `watermark`): pieces that sit in the corners of the
/// safe area on every frame of place trips and playbacks alike, registered with the layout so that
/// cards, readouts and labels keep clear of them.
public struct Furniture: Equatable, Sendable {
    public var scaleBar: ScaleBar?
    public var northArrow: NorthArrow?
    public var watermark: Watermark?

    public init(scaleBar: ScaleBar? = nil, northArrow: NorthArrow? = nil, watermark: Watermark? = nil) {
        self.scaleBar = scaleBar
        self.northArrow = northArrow
        self.watermark = watermark
    }

    public var isEmpty: Bool { scaleBar == nil && northArrow == nil && watermark == nil }

    /// The corners pieces sit in (the presenter's four).
    public typealias Corner = Presenter.Corner

    /// A bar of a round ground length (1, 2 or 5 times a power of ten of metres, kilometres, feet or
    /// miles), its pixel length the camera's scale at the bar's place in the frame.
    public struct ScaleBar: Equatable, Sendable {
        public enum Units: String, CaseIterable, Sendable { case metric, imperial }
        public static let defaultCorner = Corner.bottomLeft
        public var corner: Corner
        public var units: Units

        public init(corner: Corner = ScaleBar.defaultCorner, units: Units = .metric) {
            self.corner = corner
            self.units = units
        }
    }

    /// An arrow that points to true north at the frame's centre, turning with the map.
    public struct NorthArrow: Equatable, Sendable {
        public static let defaultCorner = Corner.topRight
        public var corner: Corner
        /// Hidden (faded) while the map is north-up.
        public var auto: Bool

        public init(corner: Corner = NorthArrow.defaultCorner, auto: Bool = false) {
            self.corner = corner
            self.auto = auto
        }
    }

    /// A picture (PNG, JPEG, WebP or SVG) in a corner at an opacity.
    public struct Watermark: Equatable, Sendable {
        public static let defaultCorner = Corner.topRight
        public static let defaultSize = 0.12
        public static let defaultOpacity = 0.6
        public var file: String
        public var corner: Corner
        /// Its longer side as a share of the frame's shorter side.
        public var size: Double
        public var opacity: Double

        public init(file: String, corner: Corner = Watermark.defaultCorner, size: Double = Watermark.defaultSize,
                    opacity: Double = Watermark.defaultOpacity) {
            self.file = file
            self.corner = corner
            self.size = size
            self.opacity = opacity
        }
    }
}
