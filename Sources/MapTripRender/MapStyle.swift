import Cairo
import MapTripScene

/// How the embedded base map looks. Kept apart from the data (Mapnik's layer / style split).
public struct MapStyle: Sendable {
    /// A line on the map: the core style's stroke (colour, width in logical pixels, dashes).
    public typealias Stroke = Style.Stroke

    public var water: Color
    /// Land is a fill, with no outline: its edge against the water is the coastline.
    public var land: Color
    public var lakes: Color
    public var border: Stroke
    public var province: Stroke
    /// Around the globe, and its glow at the limb.
    public var space = Style.standard.space
    public var atmosphere = Style.standard.atmosphere
    /// Where there is no map (outside a world projection's outline).
    public var polar = Style.standard.polar

    public init(water: Color, land: Color, lakes: Color? = nil, border: Stroke, province: Stroke) {
        self.water = water
        self.land = land
        self.lakes = lakes ?? water
        self.border = border
        self.province = province
    }

    /// The base-map part of a trip's style.
    public init(_ style: Style) {
        self.init(water: style.sea, land: style.land, lakes: style.lakes, border: style.borders, province: style.provinces)
        space = style.space
        atmosphere = style.atmosphere
        polar = style.polar
    }

    /// The light theme's map: soft blue water, warm paper land, plum borders.
    public static let standard = MapStyle(Style.standard)
}

/// What a layer paints with.
public enum Symbolizer: Sendable {
    case fill(Color)
    case stroke(MapStyle.Stroke)
}

/// One layer of the base map: a datasource (a shapefile under the assets folder), the zooms it
/// shows at (`minZoom` inclusive, `maxZoom` exclusive) and how it is painted. A layer can fade in
/// over the `fadeIn` zoom levels below `minZoom` and fade out over the `fadeOut` levels below
/// `maxZoom`, so that nothing pops in or out while the camera zooms through.
public struct MapLayer: Sendable {
    public var name: String
    /// Path relative to the assets' `basemap` folder, without extension.
    public var source: String
    public var minZoom: Double = 0
    public var maxZoom: Double = 99
    public var fadeIn: Double = 0
    public var fadeOut: Double = 0
    public var symbolizer: Symbolizer
    /// Whether the raster cache draws the layer's fades level by level (a level's tiles at the opacity
    /// of its zoom, so on moving frames the fade steps a quarter of a zoom level at a time) instead of
    /// drawing every frame of a level inside the fade from the vectors. For the province lines' five
    /// fades and the border alternates': faint lines, where a step does not show and whole-vector
    /// levels would cost half a zoom level of frames each.
    public var fadesByLevel = false

    /// Whether the layer strokes dashed lines.
    public var isDashed: Bool {
        if case .stroke(let stroke) = symbolizer { !stroke.dash.isEmpty } else { false }
    }

    public func shows(zoom: Double) -> Bool { opacity(zoom: zoom) > 0 }

    /// 1 inside the layer's zooms, ramping linearly through its fades, 0 outside.
    public func opacity(zoom: Double) -> Double {
        guard zoom >= minZoom - fadeIn, zoom < maxZoom else { return 0 }
        var o = 1.0
        if fadeIn > 0 { o = min(o, (zoom - (minZoom - fadeIn)) / fadeIn) }
        if fadeOut > 0 { o = min(o, (maxZoom - zoom) / fadeOut) }
        return max(0, min(1, o))
    }

    /// Below this zoom the coarse 1:110m data is drawn, at and above it the detailed 1:10m data.
    public static let detailZoom = 3.5

    /// Province lines by importance: the zoom each file of them is shown from (`..._zN`, made by
    /// `tools/borders-by-importance.py` from how densely the lines lie, as Natural Earth's own
    /// `min_zoom` would place them), with its width and opacity as shares of the style's: the later a
    /// line shows, the thinner and lighter it is drawn.
    public static let provinceTiers: [(zoom: Double, width: Double, opacity: Double)] =
        [(5, 1, 1), (6, 0.9, 0.9), (7, 0.8, 0.8), (8, 0.75, 0.7), (9, 0.7, 0.6)]

    /// From this zoom on, border lines that run beside another border (the northern and southern
    /// limits of Korea's DMZ beside the demarcation line) are drawn too; below it, one line each.
    public static let alternateBordersZoom = 9.0

    /// The embedded map: Natural Earth 1:110m for world views, 1:10m for close-ups.
    public static func standard(_ style: MapStyle) -> [MapLayer] {
        let z = detailZoom, f = 0.5
        // Land switches scale at once (two half-transparent lands would let the water through; the
        // scales differ by a pixel or two there); lakes, provinces and borders fade.
        let provinces = provinceTiers.map { tier in
            var stroke = style.province
            stroke.width *= tier.width
            stroke.color = stroke.color.withAlpha(stroke.color.alpha * tier.opacity)
            return MapLayer(name: "provinces", source: "10m/ne_10m_admin_1_states_provinces_lines_z\(Int(tier.zoom))",
                            minZoom: tier.zoom, fadeIn: f, symbolizer: .stroke(stroke), fadesByLevel: true)
        }
        return [
            MapLayer(name: "land", source: "110m/ne_110m_admin_0_countries", maxZoom: z, symbolizer: .fill(style.land)),
            MapLayer(name: "land", source: "10m/ne_10m_land", minZoom: z, symbolizer: .fill(style.land)),
            MapLayer(name: "lakes", source: "10m/ne_10m_lakes", minZoom: z, fadeIn: f, symbolizer: .fill(style.lakes)),
        ] + provinces + [
            MapLayer(name: "borders", source: "110m/ne_110m_admin_0_boundary_lines_land", maxZoom: z, fadeOut: f,
                     symbolizer: .stroke(style.border)),
            MapLayer(name: "borders", source: "10m/ne_10m_admin_0_boundary_lines_land", minZoom: z, fadeIn: f,
                     symbolizer: .stroke(style.border)),
            MapLayer(name: "border alternates", source: "10m/ne_10m_admin_0_boundary_lines_land_alternates",
                     minZoom: alternateBordersZoom, fadeIn: f, symbolizer: .stroke(style.border), fadesByLevel: true),
        ]
    }
}
