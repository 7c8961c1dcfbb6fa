import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Pango

/// A playback's movers (`Scene.tracks`): each track's line drawn up to where its mover is (the travelled
/// part, in its colour over a white casing; where the camera rests, every casing under every colour,
/// see `KeptLines`), the mover at its position (a dot in its colour, under its
/// vehicle's icon turned to its smoothed heading, when it has one) and its name beside it. A mover that
/// has finished its recording is drawn faded at its last point.
public final class MoverOverlay: OverlayFastPaths {
    /// The travelled line's width, the dot's diameter and the icon's side, in layout units.
    public static let lineWidth = 5.0
    public static let dot = 20.0
    public static let iconSize = 48.0
    /// The diameter of the dot where a photo along a track was taken, in layout units.
    public static let photoDot = 14.0
    /// The travelled line's casing: its width (times the line's) and opacity.
    static let casingWidth = 1.8, casingAlpha = 0.9
    /// The opacity of a mover that has finished.
    public static let finishedAlpha = 0.55
    private let text = TextCache()
    private let icons = VehicleOverlay()
    private var lines: (tracks: [PlaybackTrack], lines: [RouteLine])?
    private let colors = SceneRouteColors.Cache()
    private let kept = KeptLines()
    /// What this layer draws: the travelled lines (under the trip's pins and labels, as the routes
    /// are), the movers with their names (over them), or both.
    public let drawsLines: Bool, drawsMovers: Bool

    public init(drawsLines: Bool = true, drawsMovers: Bool = true) {
        self.drawsLines = drawsLines
        self.drawsMovers = drawsMovers
    }

    /// Each track's line (made once per scene).
    func lines(_ tracks: [PlaybackTrack]) -> [RouteLine] {
        if let lines, lines.tracks == tracks { return lines.lines }
        let made = tracks.map { RouteLine(track: $0.geometry.points, times: $0.geometry.times) }
        lines = (tracks, made)
        return made
    }

    /// Each mover's travelled line as the frame shows it, for the last frame asked about (a frame drawn
    /// into I420 draws this layer once per band of rows).
    private var travelled: (viewport: Viewport, progress: [Double], privacy: [PrivacyZone], pieces: [[[(x: Double, y: Double)]]])?

    /// The travelled line of each of the frame's movers, clipped to the frame and out of privacy zones.
    private func travelledPieces(_ frame: FrameContext, routes: [RouteLine]) -> [[[(x: Double, y: Double)]]] {
        let movers = frame.values.movers, progress = movers.map(\.vehicle.progress)
        if let travelled, travelled.viewport == frame.viewport, travelled.progress == progress,
           travelled.privacy == frame.scene.privacy { return travelled.pieces }
        let width = frame.layout.size(Self.lineWidth) * Self.casingWidth
        let pieces = movers.map { mover in
            mover.track < routes.count
                ? frame.strokedLines(frame.visibleLines(routes[mover.track].prefix(mover.vehicle.progress)),
                                     width: width)
                : []
        }
        travelled = (frame.viewport, progress, frame.scene.privacy, pieces)
        return pieces
    }

    /// For the travelled lines of a camera that moves, the cells they may ink: a frame drawn into I420
    /// then strokes them on each band with maptrip's own stroker, as preview draws them, where recording
    /// Cairo's stroke and replaying it cost a seventh of a heading-up ride's CPU. Nil where the layer
    /// draws the movers, where a line is coloured by a value, or where the lines may be kept from frame
    /// to frame (`KeptLines`: the camera rests, drawn once a frame).
    public func inkCells(_ frame: FrameContext) throws -> InkCells? {
        guard drawsLines, !drawsMovers, !KeptLines.mayKeep(frame),
              colors.colors(frame.scene).tracks.allSatisfy({ $0 == nil }) else { return nil }
        var cells = InkCells(width: frame.viewport.width, height: frame.viewport.height)
        let reach = frame.layout.size(Self.lineWidth) * Self.casingWidth / 2 + 1
        for pieces in travelledPieces(frame, routes: lines(frame.scene.tracks)) {
            for line in pieces where line.count > 1 { cells.mark(line, radius: reach) }
        }
        return cells
    }

    /// Strokes the lines in one colour with Cairo.
    static func stroke(_ lines: [[(x: Double, y: Double)]], _ color: Color, _ width: Double, in cr: Context) {
        cr.newPath()
        cr.addLines(lines)
        cr.setLineWidth(width)
        cr.setSource(color)
        cr.stroke()
    }

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        let movers = frame.values.movers
        guard !movers.isEmpty else { return }
        let tracks = frame.scene.tracks, routes = lines(tracks), layout = frame.layout
        cr.save()
        defer { cr.restore() }
        cr.setLineJoin(.round)
        cr.setLineCap(.round)
        let width = layout.size(Self.lineWidth)
        let colored = drawsLines ? colors.colors(frame.scene).tracks : []
        func stroke(_ pieces: [[(x: Double, y: Double)]], _ color: Color, _ w: Double) { Self.stroke(pieces, color, w, in: cr) }
        // maptrip's own stroker where the frame is an image (as the route's lines): Cairo's stroke of a
        // thousand travelled lines took most of a frame.
        let target = drawsLines ? PixelTarget(cr) : nil
        let casing = Color(red: 1, green: 1, blue: 1, alpha: Self.casingAlpha)
        // Lines in one colour wait to be stroked together, in order (one call for a thousand movers:
        // `PixelTarget.stroke(_ groups:)`), until a line coloured by value, which Cairo strokes.
        var waiting: [(pieces: [[(x: Double, y: Double)]], color: Color)] = []
        func strokeWaiting() {
            guard !waiting.isEmpty else { return }
            defer { waiting.removeAll() }
            if let target, target.stroke(waiting.map { target.group($0.pieces, passes: [(casing, width * Self.casingWidth), ($0.color, width)]) }) {
                return
            }
            for line in waiting {
                stroke(line.pieces, casing, width * Self.casingWidth)
                stroke(line.pieces, line.color, width)
            }
        }
        // Lines in their tracks' colours where the camera rests: every casing under every colour, kept
        // from frame to frame (`KeptLines`); else, and for lines coloured by a value, mover by mover.
        let layered = try drawsLines && colored.allSatisfy { $0 == nil } && kept.draw(frame, routes: routes, width: width, in: cr)
        let travelled = drawsLines && !layered ? travelledPieces(frame, routes: routes) : []
        for (k, mover) in movers.enumerated() where drawsLines && !layered && mover.track < tracks.count {
            let pieces = travelled[k]
            let coloring = mover.track < colored.count ? colored[mover.track] : nil
            if coloring == nil, target != nil {
                waiting.append((pieces.filter { $0.count > 1 }, tracks[mover.track].color))
                continue
            }
            strokeWaiting()
            stroke(pieces, casing, width * Self.casingWidth)
            if let coloring {
                // Coloured by a value: one stroke per colour step.
                let prefix = routes[mover.track].prefix(mover.vehicle.progress)
                for (bucket, runs) in coloring.runs(prefix).sorted(by: { $0.key < $1.key }) {
                    stroke(runs.flatMap { frame.visibleLines($0) }, coloring.coloring.color(bucket: bucket), width)
                }
            } else {
                stroke(pieces, tracks[mover.track].color, width)
            }
        }
        strokeWaiting()
        guard drawsMovers else { return }
        // Where each photo along a track was placed (`photos`): a white dot ringed in its mover's colour,
        // under the movers.
        if let photos = frame.scene.photos, photos.track < tracks.count {
            let color = tracks[photos.track].color, r = layout.size(Self.photoDot) / 2
            for photo in photos.photos where !PrivacyClipping.hides(photo.position, frame.scene.privacy) {
                guard let p = frame.viewport.pixel(photo.position) else { continue }
                cr.newPath()
                cr.arc(x: p.x, y: p.y, radius: r)
                cr.setSource(color)
                cr.fill()
                cr.arc(x: p.x, y: p.y, radius: r * 0.55)
                cr.setSource(Color(red: 1, green: 1, blue: 1))
                cr.fill()
            }
        }
        // The movers over every line, the ones still running last (on top); none inside a privacy zone.
        for mover in movers.sorted(by: { ($0.state == .moving ? 1 : 0, $0.track) < ($1.state == .moving ? 1 : 0, $1.track) })
            where mover.track < tracks.count && !PrivacyClipping.hides(mover.position, frame.scene.privacy) {
            guard let p = frame.viewport.pixel(mover.position) else { continue }
            let track = tracks[mover.track]
            let alpha = mover.state == .finished ? Self.finishedAlpha : 1
            let r = layout.size(Self.dot) / 2
            cr.newPath()
            cr.arc(x: p.x, y: p.y, radius: r + layout.size(3))
            cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: alpha))
            cr.fill()
            cr.arc(x: p.x, y: p.y, radius: r)
            cr.setSource(track.color.withAlpha(track.color.alpha * alpha))
            cr.fill()
            var labelX = p.x + r + layout.size(8)
            if let art = frame.media.movers[mover.track] {
                try icons.drawIcon(art, at: p, heading: VehicleOverlay.screenHeading(mover.vehicle, frame.viewport),
                                   side: layout.size(Self.iconSize), alpha: alpha, in: cr)
                labelX = p.x + layout.size(Self.iconSize) / 2 + layout.size(4)
            }
            let style = TextStyle(family: frame.scene.style.font, weight: "Bold", size: frame.scene.style.label.size * 0.8,
                                  color: track.color.mixed(with: Color(red: 0, green: 0, blue: 0, alpha: 1), 0.35),
                                  halo: frame.scene.style.label.halo, haloWidth: 4)
            let l = try text.layout(track.name, style, scale: layout.unit, in: cr)
            let ink = l.inkRect
            text.draw(l, style, x: labelX - ink.x, y: p.y - ink.y - ink.height / 2, scale: layout.unit, alpha: alpha, in: cr)
        }
    }
}

/// A playback's clock (`playback.clock`): the recorded time (in its zone: the recording's own,
/// `playback.timeZone`, else UTC) or,
/// in a ghost race, the time since the start, on a card at the bottom left of the safe area (clear of
/// the title at the top, the distance counter at the top left and the credit at the bottom right); it
/// dips across a cut.
public final class ClockOverlay: OverlayFastPaths {
    private let text = TextCache()
    private let pictures = Sprites(limitBytes: 1 << 20)

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        try marks(frame)?.forEach { $0.paint(in: cr) }
    }

    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        guard let clock = frame.values.clock, clock.opacity > 0 else { return [] }
        let since = frame.scene.playback.start == .together
        let words = PlaybackClock.clockText(clock.seconds, format: frame.scene.playback.clock, since: since,
                                            utcOffset: clock.utcOffset)
        let card = try ReadoutCard.card(words, text: text, frame: frame)
        return [try ReadoutCard.mark(card, text: text, pictures: pictures, frame: frame, left: frame.layout.safe.minX,
                                     top: frame.clockBottom(width: card.width) - card.height, alpha: clock.opacity)]
    }
}

/// A short readout on a card in the caption style, in a monospaced face (the distance counter, the clock).
enum ReadoutCard {
    /// The picture of `card` (the card of `words`) with its left edge at `left` and its top at `top`,
    /// faded as one by `alpha`: drawn once a reading (a clock's minute holds for many frames) and
    /// painted, by preview as by a frame drawn into I420, where replaying a recorded card each frame
    /// was a twentieth of a walk's drawing.
    static func mark(_ card: TextCard, text: TextCache, pictures: Sprites, frame: FrameContext, left: Double,
                     top: Double, alpha: Double) throws -> Mark {
        try card.mark(pictures: pictures, centerX: left + card.width / 2, top: top, background: frame.scene.style.caption.background,
                      alpha: alpha, unit: frame.layout.unit, text: text)
    }

    /// The card of `words`, laid out.
    static func card(_ words: String, text: TextCache, frame: FrameContext, in cr: Context? = nil) throws -> TextCard {
        let layout = frame.layout, card = frame.scene.style.caption
        // The theme's own family, its figures all one width ("tnum"), so a number does not jitter as
        // it counts.
        var style = TextStyle(family: frame.scene.style.font, weight: "Bold", size: card.size * 0.85,
                              color: card.color, haloWidth: 0)
        style.features = DistanceOverlay.fontFeatures
        let l = try text.layout(words, style, scale: layout.unit, in: cr)
        return TextCard([(l, style)], padX: layout.size(20), padY: layout.size(12), radius: layout.size(10))
    }
}
