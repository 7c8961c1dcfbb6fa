import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime

/// A recording's line coloured by a value (`route.colorBy`): each segment's colour step (the value
/// at its middle, the mean of its ends), found once per scene.
struct ColoredLine: Equatable {
    let coloring: RouteColoring
    let range: ClosedRange<Double>
    /// The step of segment k (from point k to k + 1 of the recording).
    let buckets: [Int]

    /// The pieces of a line's start (`RouteLine.prefix`, whose point k is the recording's) grouped by
    /// colour step: runs of consecutive segments of one step, each run sharing its end points with its
    /// neighbours (their round ends meet).
    func runs(_ prefix: [LonLat]) -> [Int: [[LonLat]]] {
        guard prefix.count >= 2, !buckets.isEmpty else { return [:] }
        var out: [Int: [[LonLat]]] = [:]
        var run = [prefix[0]], step = buckets[0]
        for k in 1..<prefix.count {
            let b = buckets[min(k - 1, buckets.count - 1)]
            if b != step {
                out[step, default: []].append(run)
                run = [prefix[k - 1]]
                step = b
            }
            run.append(prefix[k])
        }
        out[step, default: []].append(run)
        return out
    }
}

/// Every coloured line of a scene: the playback's tracks (the scene's `route.colorBy`) and the legs
/// that follow a recording (their route's). Lines coloured alike share one range (the scene's, or
/// the 2nd to 98th percentile of all their values), so one legend reads for all of them.
struct SceneRouteColors {
    /// By track of the playback.
    var tracks: [ColoredLine?] = []
    /// By place whose leg follows a recording.
    var legs: [Int: ColoredLine] = [:]
    /// What the legend shows: the first coloured line's colouring and range.
    var legend: (coloring: RouteColoring, range: ClosedRange<Double>)?

    init(_ scene: Scene) {
        var wanted: [(key: Int, coloring: RouteColoring, values: [Double])] = []  // key: track i, or -1 - place
        if let coloring = scene.route.coloring {
            for (i, t) in scene.tracks.enumerated() {
                if let v = coloring.values(t.geometry, units: scene.units) { wanted.append((i, coloring, v)) }
            }
        }
        for (i, place) in scene.places.enumerated() {
            if let track = place.track, let coloring = scene.route(into: i)?.coloring,
               let v = coloring.values(track.geometry, units: scene.units) {
                wanted.append((-1 - i, coloring, v))
            }
        }
        tracks = scene.tracks.map { _ in nil }
        var ranges: [(RouteColoring, ClosedRange<Double>)] = []
        for w in wanted {
            let range = ranges.first { $0.0 == w.coloring }?.1 ?? {
                let r = w.coloring.range(for: wanted.filter { $0.coloring == w.coloring }.flatMap(\.values))
                ranges.append((w.coloring, r))
                return r
            }()
            let v = w.values
            let buckets = v.count < 2 ? [RouteColoring.bucket(v.first ?? 0, in: range)]
                : (1..<v.count).map { RouteColoring.bucket((v[$0 - 1] + v[$0]) / 2, in: range) }
            let line = ColoredLine(coloring: w.coloring, range: range, buckets: buckets)
            if w.key >= 0 { tracks[w.key] = line } else { legs[-1 - w.key] = line }
            if legend == nil { legend = (w.coloring, range) }
        }
    }

    /// The colours for a scene, made once and kept while frames show the same scene.
    final class Cache {
        private var last: (scene: Scene, colors: SceneRouteColors)?

        func colors(_ scene: Scene) -> SceneRouteColors {
            if let last, last.scene == scene { return last.colors }
            let made = SceneRouteColors(scene)
            last = (scene, made)
            return made
        }
    }
}

extension FrameContext {
    /// A line's positions as frame-pixel polylines, the parts inside the scene's privacy zones cut out.
    func visibleLines(_ points: [LonLat]) -> [[(x: Double, y: Double)]] {
        if scene.privacy.isEmpty { return viewport.lines(points) }
        return PrivacyClipping.visible(points, outside: scene.privacy).flatMap { viewport.lines($0) }
    }

    /// Solid lines cut down to the runs a stroke `width` pixels wide can ink on the frame (the caps and
    /// joins left out fall outside it, see `PolylineCulling`): the stroker's set-up walks every segment
    /// once per band of rows, and a recorded track may run far off the frame.
    func strokedLines(_ lines: [[(x: Double, y: Double)]], width: Double) -> [[(x: Double, y: Double)]] {
        let box = strokeBox(width: width)
        return lines.flatMap { PolylineCulling.runs($0, meeting: box) }
    }

    /// The frame grown by more than half a stroke's width: what a line beyond it cannot ink.
    func strokeBox(width: Double) -> Box {
        let m = width / 2 + 2
        return Box(minX: -m, minY: -m, maxX: Double(viewport.width) + m, maxY: Double(viewport.height) + m)
    }

    /// Where the legend of a coloured route sits (nil: the scene colours none): labels keep clear of it.
    var legendBox: Box? { scene.hasRouteLegend ? layout.legendBox : nil }
}

extension Scene {
    /// Whether a line of the scene is coloured by a value, and so the frame shows the legend.
    var hasRouteLegend: Bool {
        route.coloring != nil && !tracks.isEmpty
            || places.indices.contains { places[$0].track != nil && route(into: $0)?.coloring != nil }
    }
}

extension FrameLayout {
    /// The legend of a coloured route: the top-right corner of the safe area (the counter takes the top
    /// left, the clock the bottom left, the credit the bottom right, the title the top middle).
    public var legendBox: Box {
        Box(minX: safe.maxX - size(LegendOverlay.width), minY: safe.minY, maxX: safe.maxX, maxY: safe.minY + size(LegendOverlay.height))
    }
}

/// Earlier recordings (`backgroundTracks`) drawn faintly under everything from the first frame: a thin
/// line in the theme's label colour (dark on light maps, light on dark ones) at low opacity, cut out
/// inside privacy zones.
public final class BackgroundTracksOverlay: Overlay {
    /// The line's opacity and its width as a share of the route's.
    public static let alpha = 0.4
    public static let widthShare = 0.7
    private var projected: (tracks: [BackgroundTrack], privacy: [PrivacyZone], lines: [ProjectedLine])?

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        let scene = frame.scene
        guard !scene.backgroundTracks.isEmpty else { return }
        if projected?.tracks != scene.backgroundTracks || projected?.privacy != scene.privacy {
            let pieces = scene.backgroundTracks.flatMap { t in
                scene.privacy.isEmpty ? [t.geometry.points] : PrivacyClipping.visible(t.geometry.points, outside: scene.privacy)
            }
            projected = (scene.backgroundTracks, scene.privacy, pieces.map(ProjectedLine.init))
        }
        cr.save()
        defer { cr.restore() }
        cr.setLineJoin(.round)
        cr.setLineCap(.round)
        cr.newPath()
        for line in projected?.lines ?? [] { cr.addLines(frame.viewport.lines(line)) }
        cr.setLineWidth(frame.layout.size(scene.route.width * Self.widthShare))
        cr.setSource(Self.color(scene.style))
        cr.stroke()
    }

    /// The line's colour in a style.
    public static func color(_ style: Style) -> Color { style.label.color.withAlpha(alpha) }
}

/// The legend of a coloured route (`route.colorBy`): what it shows and its unit over a bar of the
/// palette's steps, the range's ends under it, on a card at the top right of the safe area.
public final class LegendOverlay: Overlay {
    /// The card's size in layout units.
    public static let width = 300.0, height = 104.0
    private let text = TextCache()
    private let colors = SceneRouteColors.Cache()

    public init() {}

    /// The bar's rectangle in frame pixels, in `layout`.
    public static func bar(_ layout: FrameLayout) -> Box {
        let box = layout.legendBox, pad = layout.size(18)
        return Box(minX: box.minX + pad, minY: box.minY + layout.size(46), maxX: box.maxX - pad, maxY: box.minY + layout.size(64))
    }

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        guard frame.legendBox != nil, let legend = colors.colors(frame.scene).legend else { return }
        let layout = frame.layout, box = layout.legendBox, card = frame.scene.style.caption
        cr.save()
        defer { cr.restore() }
        cr.newPath()
        cr.roundedRectangle(box.minX, box.minY, box.maxX - box.minX, box.maxY - box.minY, radius: layout.size(10))
        cr.setSource(card.background)
        cr.fill()
        let bar = Self.bar(layout), n = RouteColoring.buckets
        let step = (bar.maxX - bar.minX) / Double(n)
        for b in 0..<n {
            cr.newPath()
            // Each step a hair wider than its share, so that no seam shows between them.
            cr.rectangle(bar.minX + Double(b) * step, bar.minY, step + (b < n - 1 ? 0.5 : 0), bar.maxY - bar.minY)
            cr.setSource(legend.coloring.color(bucket: b))
            cr.fill()
        }
        let unit = legend.coloring.by.unit(frame.scene.units)
        var style = TextStyle(family: frame.scene.style.font, weight: "Bold", size: card.size * 0.62, color: card.color, haloWidth: 0)
        style.features = DistanceOverlay.fontFeatures
        let title = try text.layout("\(legend.coloring.by.rawValue.capitalized) (\(unit))", style, scale: layout.unit, in: cr)
        text.draw(title, style, x: bar.minX - title.inkRect.x, y: box.minY + layout.size(12) - title.inkRect.y,
                  scale: layout.unit, in: cr)
        func number(_ x: Double) -> String {
            let span = legend.range.upperBound - legend.range.lowerBound
            return span >= 20 ? String(Int(x.rounded())) : String(format: "%.1f", x)
        }
        let lo = try text.layout(number(legend.range.lowerBound), style, scale: layout.unit, in: cr)
        let hi = try text.layout(number(legend.range.upperBound), style, scale: layout.unit, in: cr)
        let y = bar.maxY + layout.size(8)
        text.draw(lo, style, x: bar.minX - lo.inkRect.x, y: y - lo.inkRect.y, scale: layout.unit, in: cr)
        text.draw(hi, style, x: bar.maxX - hi.inkRect.x - hi.inkRect.width, y: y - hi.inkRect.y, scale: layout.unit, in: cr)
    }
}
