import Foundation

/// How a trip looks, kept apart from what it shows (as Mapnik keeps styles apart from layers): the
/// base map's colours, the font, pins and labels, caption and title cards, and the route defaults.
/// A scene names a ready theme (`Assets/themes/`) and overrides any part of it. Sizes are in layout
/// units: pixels of a frame whose shorter side is 1080.
public struct Style: Equatable, Sendable {
    /// A line on the base map.
    public struct Stroke: Equatable, Sendable {
        public var color: Color
        public var width: Double
        /// Dash lengths (in layout units); empty: solid.
        public var dash: [Double]

        public init(color: Color, width: Double, dash: [Double] = []) {
            self.color = color
            self.width = width
            self.dash = dash
        }
    }

    /// Text drawn on the map, with a halo so it reads over any ground.
    public struct Label: Equatable, Sendable {
        public var color: Color
        public var halo: Color
        public var size: Double
    }

    /// A card: text on a rounded panel.
    public struct Card: Equatable, Sendable {
        public var color: Color
        public var background: Color
        public var size: Double
    }

    /// The theme the style starts from.
    public var theme: String
    public var sea: Color
    public var land: Color
    public var lakes: Color
    public var borders: Stroke
    public var provinces: Stroke
    /// The font family of every text (Pango picks fallbacks for scripts it lacks).
    public var font: String
    public var pin: Color
    /// The pin of the place the camera is on.
    public var currentPin: Color
    public var label: Label
    /// The label of the place the camera is on.
    public var currentLabel: Label
    /// Lower-third captions, the distance counter and photo frames.
    public var caption: Card
    /// The title and end cards.
    public var card: Card
    /// The line of every leg unless the scene says otherwise.
    public var route: RouteStyle
    /// Around the globe: space, and the atmosphere's glow at the limb.
    public var space: Color
    public var atmosphere: Color
    /// Meridians and parallels, when the scene asks for a graticule.
    public var graticule: Stroke
    /// Where a tiled map has no tiles: beyond Web Mercator's 85.05 degrees, north and south.
    public var polar: Color

    public init(theme: String, sea: Color, land: Color, lakes: Color, borders: Stroke, provinces: Stroke,
                font: String, pin: Color, currentPin: Color, label: Label, currentLabel: Label, caption: Card,
                card: Card, route: RouteStyle, space: Color = Color(hex: "#05070d")!,
                atmosphere: Color = Color(hex: "#8fc3ff")!,
                graticule: Stroke = Stroke(color: Color(hex: "#ffffff73")!, width: 0.8),
                polar: Color = Color(hex: "#eef2f5")!) {
        self.theme = theme
        self.space = space
        self.atmosphere = atmosphere
        self.graticule = graticule
        self.polar = polar
        self.sea = sea
        self.land = land
        self.lakes = lakes
        self.borders = borders
        self.provinces = provinces
        self.font = font
        self.pin = pin
        self.currentPin = currentPin
        self.label = label
        self.currentLabel = currentLabel
        self.caption = caption
        self.card = card
        self.route = route
    }

    /// The names of the ready themes (files in `Assets/themes/`).
    public static let themes = ["light", "dark", "atlas", "relief", "satellite"]

    /// The light theme, built in (`Assets/themes/light.json` says the same; a test keeps them equal):
    /// soft blue water, warm paper land, plum borders, quiet under pins and labels.
    public static let standard = Style(
        theme: "light",
        sea: Color(hex: "#a9d3ea")!, land: Color(hex: "#f3efe4")!, lakes: Color(hex: "#a9d3ea")!,
        borders: Stroke(color: Color(hex: "#9b7fa6")!, width: 1.1, dash: [4, 2.5]),
        provinces: Stroke(color: Color(hex: "#c2b2c6")!, width: 0.6, dash: [2, 2]),
        font: "Noto Sans",
        pin: Color(hex: "#d9412b")!, currentPin: Color(hex: "#c0262d")!,
        label: Label(color: Color(hex: "#2b2b2b")!, halo: Color(hex: "#ffffffeb")!, size: 22),
        currentLabel: Label(color: Color(hex: "#1c1c1c")!, halo: Color(hex: "#ffffffeb")!, size: 28),
        caption: Card(color: Color(hex: "#ffffff")!, background: Color(hex: "#17213385")!, size: 34),
        card: Card(color: Color(hex: "#ffffff")!, background: Color(hex: "#172133b8")!, size: 54),
        route: RouteStyle())

    /// Night: slate land on deep blue water, warm pins and an amber route. Land and sea are 20 apart
    /// in CIE Lab (ΔE76; they were 9.5, and coasts were faint).
    public static let dark = Style(
        theme: "dark",
        sea: Color(hex: "#141c2a")!, land: Color(hex: "#3d4859")!, lakes: Color(hex: "#141c2a")!,
        borders: Stroke(color: Color(hex: "#8a7fa0")!, width: 1.1, dash: [4, 2.5]),
        provinces: Stroke(color: Color(hex: "#4a5468")!, width: 0.6, dash: [2, 2]),
        font: "Noto Sans",
        pin: Color(hex: "#ff6b4a")!, currentPin: Color(hex: "#ff8c42")!,
        label: Label(color: Color(hex: "#e6e9ef")!, halo: Color(hex: "#17202ee0")!, size: 22),
        currentLabel: Label(color: Color(hex: "#ffffff")!, halo: Color(hex: "#17202ee0")!, size: 28),
        caption: Card(color: Color(hex: "#ffffff")!, background: Color(hex: "#0b1220c8")!, size: 34),
        card: Card(color: Color(hex: "#ffffff")!, background: Color(hex: "#0b1220d8")!, size: 54),
        route: RouteStyle(color: Color(hex: "#ffb347")!, outline: Color(hex: "#17202e")!),
        space: Color(hex: "#020308")!, atmosphere: Color(hex: "#4f7fd1")!,
        graticule: Stroke(color: Color(hex: "#8a9ab859")!, width: 0.8), polar: Color(hex: "#1f2736")!)

    /// An old atlas: parchment land, sea-green water, sienna borders, a serif and a dashed route.
    public static let atlas = Style(
        theme: "atlas",
        sea: Color(hex: "#c4dcd6")!, land: Color(hex: "#efe2c4")!, lakes: Color(hex: "#c4dcd6")!,
        borders: Stroke(color: Color(hex: "#a0522d")!, width: 1.3),
        provinces: Stroke(color: Color(hex: "#c8a27a")!, width: 0.7, dash: [2, 2]),
        font: "Noto Serif",
        pin: Color(hex: "#8b1e1e")!, currentPin: Color(hex: "#b22222")!,
        label: Label(color: Color(hex: "#3b2f2f")!, halo: Color(hex: "#f7efdcd0")!, size: 22),
        currentLabel: Label(color: Color(hex: "#2a1f1f")!, halo: Color(hex: "#f7efdcd0")!, size: 28),
        caption: Card(color: Color(hex: "#3b2f2f")!, background: Color(hex: "#f7efdceb")!, size: 34),
        card: Card(color: Color(hex: "#3b2f2f")!, background: Color(hex: "#f7efdcf2")!, size: 54),
        route: RouteStyle(color: Color(hex: "#8b1e1e")!, width: 3.5, dash: [10, 7], outline: Color(hex: "#f7efdc")!),
        space: Color(hex: "#2a2118")!, atmosphere: Color(hex: "#e9d9b0")!,
        graticule: Stroke(color: Color(hex: "#a0522d66")!, width: 0.7, dash: [3, 3]), polar: Color(hex: "#f4ead2")!)

    /// A physical map: Natural Earth's shaded relief (a world picture, `Assets/pictures/relief.jpg`)
    /// up to zoom 5, then vector land of its mean colour; its sea is the picture's. The light theme's
    /// text and cards, in the picture's tones.
    public static let relief: Style = {
        var s = standard
        s.theme = "relief"
        (s.sea, s.lakes, s.land) = (Color(hex: "#77a7cd")!, Color(hex: "#77a7cd")!, Color(hex: "#c2bca4")!)
        s.borders = Stroke(color: Color(hex: "#6e5a4c")!, width: 1.0, dash: [4, 2.5])
        s.provinces.color = Color(hex: "#9c8c7c")!
        (s.pin, s.currentPin) = (Color(hex: "#c62828")!, Color(hex: "#b71c1c")!)
        s.route = RouteStyle(color: Color(hex: "#d7301f")!, outline: Color(hex: "#ffffff")!)
        s.caption.background = Color(hex: "#1f2d3ab8")!
        (s.card.background, s.atmosphere, s.polar) = (Color(hex: "#1f2d3ad0")!, Color(hex: "#9cc8ee")!, Color(hex: "#e8eef3")!)
        return s
    }()

    /// The Earth from space: NASA's Blue Marble (`Assets/pictures/satellite.jpg`) up to zoom 5, then
    /// vector land of its mean colour on its deep ocean. The dark theme's text and cards.
    public static let satellite: Style = {
        var s = dark
        s.theme = "satellite"
        s.land = Color(hex: "#4a4b30")!
        s.sea = Color(hex: "#0a1733")!
        s.lakes = s.sea
        s.polar = s.sea
        s.borders = Stroke(color: Color(hex: "#e8e2c8a0")!, width: 0.9, dash: [4, 2.5])
        s.provinces = Stroke(color: Color(hex: "#c8c2a870")!, width: 0.5, dash: [2, 2])
        s.route.color = Color(hex: "#ffc14d")!
        (s.space, s.atmosphere) = (Color(hex: "#010204")!, Color(hex: "#5b8fe0")!)
        return s
    }()

    /// A ready theme by name.
    public static func theme(_ name: String) -> Style? {
        switch name {
        case "light": standard
        case "dark": dark
        case "atlas": atlas
        case "relief": relief
        case "satellite": satellite
        default: nil
        }
    }

    /// The vehicle's body: the labels' ink (dark on light maps, light on dark ones), so that it reads
    /// as a solid shape on the theme's land and sea.
    public var vehicleFill: Color { label.color.withAlpha(1) }
    /// The vehicle's outline and trim (windows, stripes): the labels' halo, opaque.
    public var vehicleOutline: Color { label.halo.withAlpha(1) }
}

extension Style {
    /// The style as a scene's `"style"` object says it, every key spelt out: what
    /// `Assets/themes/NAME.json` holds (a test keeps the files equal to the built-in themes), for a
    /// designer to copy into a scene and change.
    public func json() -> String {
        func stroke(_ s: Stroke) -> [String: Any] { ["color": s.color.description, "width": s.width, "dash": s.dash] }
        func label(_ l: Label) -> [String: Any] { ["color": l.color.description, "halo": l.halo.description, "size": l.size] }
        func card(_ c: Card) -> [String: Any] {
            ["color": c.color.description, "background": c.background.description, "size": c.size]
        }
        var route: [String: Any] = ["path": self.route.path.rawValue, "color": self.route.color.description,
                                    "width": self.route.width, "dash": self.route.dash,
                                    "outline": (self.route.outline ?? Color(red: 0, green: 0, blue: 0, alpha: 0)).description]
        if let t = self.route.travelledColor { route["travelled"] = ["color": t.description] }
        let object: [String: Any] = [
            "theme": theme, "sea": sea.description, "land": land.description, "lakes": lakes.description,
            "borders": stroke(borders), "provinces": stroke(provinces), "font": font,
            "pin": pin.description, "currentPin": currentPin.description,
            "label": label(self.label), "currentLabel": label(currentLabel),
            "caption": card(caption), "card": card(self.card), "route": route,
            "space": space.description, "atmosphere": atmosphere.description, "graticule": stroke(graticule),
            "polar": polar.description,
        ]
        let data = try! JSONSerialization.data(withJSONObject: ["style": object],
                                               options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
