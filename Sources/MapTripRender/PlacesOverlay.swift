import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Pango

/// A pin on every place reached so far, popping in as the camera arrives, with its name on a halo;
/// the place the camera is on stands out. Labels are placed by `LabelPlacer`: none overlaps another
/// or leaves the frame, and the current place's label always shows.
public final class PlacesOverlay: OverlayFastPaths {
    private let text = TextCache()
    /// Settled pins, drawn once per size and colour.
    private let pinPictures = Sprites(limitBytes: 1 << 20)

    public init() {}

    /// What the overlay paints on a frame, in order: pictures drawn once, or a pin drawn as it is
    /// (popping in, it changes size every frame).
    private enum Item {
        case mark(Mark)
        case pin(x: Double, y: Double, size: Double, color: Color, alpha: Double)
    }

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        for item in try items(frame) {
            switch item {
            case .mark(let mark):
                mark.paint(in: cr)
            case .pin(let x, let y, let size, let color, let alpha) where alpha < 1:
                // The whole pin (shadow, body, dot) fades as one, its group bounded to the pin.
                cr.save()
                cr.rectangle(whole: Self.pinBox(x: x, y: y, size: size))
                cr.clip()
                cr.pushGroup()
                drawPin(x: x, y: y, size: size, color: color, in: cr)
                cr.popGroupToSource()
                cr.paint(alpha: alpha)
                cr.restore()
            case .pin(let x, let y, let size, let color, _):
                drawPin(x: x, y: y, size: size, color: color, in: cr)
            }
        }
    }

    public func marks(_ frame: FrameContext) throws -> [Mark]? {
        var marks: [Mark] = []
        for item in try items(frame) {
            guard case .mark(let mark) = item else { return nil }
            marks.append(mark)
        }
        return marks
    }

    /// A pin on the frame: its place, tip, size (popping in), value and how squarely it faces the viewer.
    /// `emphasis`: 1 for the current place, 0 for the others, between while one becomes the other
    /// (its pin grows or shrinks, its colour changes, its label fades from one style to the other).
    private struct Shown {
        var place: Int; var x: Double; var y: Double; var size: Double; var pin: PinValue; var facing: Double
        var emphasis: Double
    }

    /// Where a frame's pins and labels go: the pins shown, the labels in placing order (the current
    /// place's first, then the most recent), their layouts and requests, and the labels drawn: each
    /// one's index in that order, its box and its opacity (below 1 while it fades across sides).
    private struct Placement {
        var shown: [Shown] = []
        var ordered: [Shown] = []
        var layouts: [(Pango.Layout, TextStyle)] = []
        var requests: [LabelPlacer.Request] = []
        var bounds = Box(minX: 0, minY: 0, maxX: 0, maxY: 0)
        var labels: [Label] = []
    }

    /// A label drawn: the index of its pin in the placing order, its style (the current place's or
    /// not), its layout, box and opacity.
    private struct Label {
        var k: Int
        var current: Bool
        var layout: Pango.Layout
        var style: TextStyle
        var box: Box
        var alpha: Double
    }

    /// What a key frame decides for a place's label: where it goes (nil: hidden) and in which style.
    private struct KeyLabel: Equatable {
        var spot: LabelPlacer.Spot?
        var current: Bool
    }

    /// A label changes sides by fading across, over this many frames (0.3 s): a trip's labels are
    /// placed on its key frames, one every `span` frames from each firing of the timer, and the frames
    /// from a key to the next fade each label from where the key before put it to where this key
    /// does (beside its pin as the frame has it), where they differ. A change the timer makes (the
    /// current place's) starts fading as it happens, not before; a rest whose keys agree holds still.
    /// A function of the frame's number: any frame draws alone the same.
    static func keySpan(fps: Int) -> Int { max(1, Int((Double(fps) * 0.3).rounded())) }

    /// The key at or before `frame` (nil: a frame without a number, or no fading at this rate).
    static func key(_ frame: FrameContext) -> Int? {
        guard let n = frame.number, let stretch = frame.stretch, frame.frameAt != nil else { return nil }
        let span = keySpan(fps: frame.scene.video.fps)
        guard span > 1 else { return nil }
        return stretch.lowerBound + (n - stretch.lowerBound) / span * span
    }

    /// The keys `frame` fades between, and how far (above 0, 1 on the frame before the next key).
    static func keys(_ frame: FrameContext) -> (from: Int, to: Int, s: Double)? {
        guard let n = frame.number, let stretch = frame.stretch, let frameAt = frame.frameAt, let a = key(frame) else { return nil }
        let span = keySpan(fps: frame.scene.video.fps)
        let end = min(a + span, stretch.upperBound)
        let from = a > stretch.lowerBound ? a - span : a > 0 ? key(frameAt(a - 1)) ?? a : a
        return (from, a, smoothstep(Double(n - a + 1) / Double(max(1, end - a))))
    }

    private func placement(_ frame: FrameContext) throws -> Placement {
        var placed = try pinsAndRequests(frame)
        guard let (a, b, s) = Self.keys(frame) else {
            // A frame on its own: its labels where it places them.
            let spots = choose(placed, frame)
            placed.labels = spots.indices.compactMap { k in
                spots[k].map { spot in
                    let (l, ts) = placed.layouts[k]
                    return Label(k: k, current: placed.ordered[k].pin.current, layout: l, style: ts,
                                 box: placed.requests[k].box(spot, within: placed.bounds), alpha: 1)
                }
            }
            return placed
        }
        let to = try keySpots(b, drawing: frame), from = s < 1 ? try keySpots(a, drawing: frame) : to
        let ids = try identities(frame.scene)
        for k in placed.ordered.indices {
            let p = placed.ordered[k], id = ids[p.place]
            // A place one key does not show (its pin not reached yet, or off the frame) is where the
            // other key puts it: it comes and goes with its pin.
            guard let one = from[id] ?? to[id], let other = to[id] ?? from[id] else { continue }
            let emphasis = (one.current ? 1 - s : 0) + (other.current ? s : 0)
            if let i = placed.shown.firstIndex(where: { $0.place == p.place }) {
                placed.shown[i].emphasis = emphasis
                placed.shown[i].size = frame.layout.unit * (1 + 0.3 * emphasis) * Self.pop(p.pin.appear)
            }
            // Beside the pin where the frame has it, in the key's style, kept inside the frame.
            func label(_ key: KeyLabel, alpha: Double) throws -> Label? {
                guard let spot = key.spot, alpha > 0 else { return nil }
                let (request, l, ts) = try self.request(p, current: key.current, frame)
                let box = LabelPlacer.clamp(request.box(spot, within: placed.bounds), into: placed.bounds)
                return Label(k: k, current: key.current, layout: l, style: ts, box: box, alpha: alpha)
            }
            if one == other {
                if let l = try label(one, alpha: 1) { placed.labels.append(l) }
            } else {
                if let l = try label(one, alpha: 1 - s) { placed.labels.append(l) }
                if let l = try label(other, alpha: s) { placed.labels.append(l) }
            }
        }
        return placed
    }

    /// Whether the labels of frame `frame.number` differ from those of the frame before, its values
    /// the same: a label fading across sides there, or one that has just done so.
    public func animates(_ frame: FrameContext) throws -> Bool {
        guard let (a, b, _) = Self.keys(frame), a != b else { return false }
        let from = try keySpots(a, drawing: frame), to = try keySpots(b, drawing: frame)
        // As `placement` fades: a place one key does not show is where the other puts it.
        return Set(from.keys).union(to.keys).contains { id in (from[id] ?? to[id]) != (to[id] ?? from[id]) }
    }

    /// The spots of key frame `key`'s labels, by place (see `identities`), kept for the frames around it.
    /// The frame drawn's `frameAt` (`keys` found one) gives the key's frame, drawn by the same renderer
    /// (its scene and size): its values are made only when its spots are not kept (a frame's values hold
    /// every mover's).
    private func keySpots(_ key: Int, drawing current: FrameContext) throws -> [Int: KeyLabel] {
        guard let frameAt = current.frameAt else { return [:] }
        let size = [current.layout.width, current.layout.height]
        if keyCache.scene != current.scene || keyCache.size != size {
            keyCache = (current.scene, size, [:])
        }
        if let spots = keyCache.spots[key] { return spots }
        let frame = frameAt(key)
        let placed = try pinsAndRequests(frame)
        // A key's spots are drawn on the frames up to two spans after it (fading in, then out): its labels
        // keep clear of every card those frames show, one that appears after the key or fades in too.
        var ahead: [Box] = []
        let scene = frame.scene
        if !placed.requests.isEmpty, scene.photos != nil || scene.places.contains(where: { $0.photo != nil || $0.clip != nil }) {
            let span = Self.keySpan(fps: scene.video.fps)
            for box in (key + 1..<key + 2 * span).flatMap({ cardBoxes(frameAt($0)) }) where !ahead.contains(box) { ahead.append(box) }
        }
        let spots = choose(placed, frame, ahead: ahead)
        let ids = try identities(frame.scene)
        var byPlace: [Int: KeyLabel] = [:]
        for k in spots.indices {
            byPlace[ids[placed.ordered[k].place]] = KeyLabel(spot: spots[k], current: placed.ordered[k].pin.current)
        }
        // The keys of the frames being drawn: a render goes forwards; a few are enough.
        if keyCache.spots.count >= 6 { keyCache.spots = keyCache.spots.filter { abs($0.key - key) <= 2 * Self.keySpan(fps: frame.scene.video.fps) } }
        keyCache.spots[key] = byPlace
        return byPlace
    }

    private var keyCache: (scene: Scene?, size: [Double], spots: [Int: [Int: KeyLabel]]) = (nil, [], [:])

    /// Each place's identity: the first of the places with its name at its spot (a place visited
    /// again has one pin and one label, see `once`).
    private func identities(_ scene: Scene) throws -> [Int] {
        if let cached = placeIdentities, cached.scene == scene { return cached.ids }
        var first: [String: [Int]] = [:]
        var ids: [Int] = []
        for (i, place) in scene.places.enumerated() {
            let same = first[place.name, default: []].first { j in
                let o = scene.places[j].position
                return abs(o.lon - place.position.lon) < 1e-6 && abs(o.lat - place.position.lat) < 1e-6
            }
            ids.append(same ?? i)
            if same == nil { first[place.name, default: []].append(i) }
        }
        placeIdentities = (scene, ids)
        return ids
    }

    private var placeIdentities: (scene: Scene, ids: [Int])?

    static func smoothstep(_ t: Double) -> Double {
        let u = min(1, max(0, t))
        return u * u * (3 - 2 * u)
    }

    /// A frame's pins, their labels' order, layouts and requests, and where labels may go.
    private func pinsAndRequests(_ frame: FrameContext) throws -> Placement {
        let pins = frame.values.pins
        guard !pins.isEmpty else { return Placement() }
        let layout = frame.layout
        let margin = layout.size(60)
        var shown: [Shown] = []
        for pin in pins {
            let position = frame.scene.places[pin.place].position
            guard let p = frame.viewport.pixel(position) else { continue }
            guard p.x > -margin, p.y > -margin, p.x < layout.width + margin, p.y < layout.height + margin else { continue }
            // On the globe, a place turning away towards the limb fades out.
            let facing = frame.viewport.facing(position)
            guard facing > 0 else { continue }
            // An opening's first pin drops in, falling and fading (`PinDrop`).
            let drop = pin.drop < 1 ? (offset: layout.size(PinDrop.offset(pin.drop)), alpha: PinDrop.alpha(pin.drop)) : (offset: 0.0, alpha: 1.0)
            guard drop.alpha > 0 else { continue }
            shown.append(Shown(place: pin.place, x: p.x, y: p.y + drop.offset, size: 0, pin: pin, facing: facing * drop.alpha,
                               emphasis: pin.current ? 1 : 0))
        }
        shown = Self.once(shown, places: frame.scene.places)
        // Under the end card as it fades in (the closing pulls out past it), pins and their labels
        // fade with it, softly over the last 24 units before its edge.
        if let end = endCard(frame) {
            let reach = layout.size(24), s = layout.unit * 1.3
            for k in shown.indices {
                let p = shown[k]
                let dx = max(end.box.minX - (p.x + 11 * s), (p.x - 11 * s) - end.box.maxX, 0)
                let dy = max(end.box.minY - p.y, (p.y - 34 * s) - end.box.maxY, 0)
                let near = 1 - Self.smoothstep((dx * dx + dy * dy).squareRoot() / reach)
                shown[k].facing *= 1 - end.opacity * near
            }
            shown.removeAll { $0.facing <= 0 }
        }
        for k in shown.indices {
            shown[k].size = layout.unit * (shown[k].pin.current ? 1.3 : 1.0) * Self.pop(shown[k].pin.appear)
        }
        // Labels: the current place's first, then the most recent ones.
        let ordered = shown.filter(\.pin.current) + shown.filter { !$0.pin.current }.reversed()
        var requests: [LabelPlacer.Request] = []
        var layouts: [(Pango.Layout, TextStyle)] = []
        for p in ordered {
            let (request, l, ts) = try self.request(p, current: p.pin.current, frame)
            requests.append(request)
            layouts.append((l, ts))
        }
        let inset = layout.size(8)
        let bounds = Box(minX: inset, minY: inset, maxX: layout.width - inset, maxY: layout.height - inset)
        return Placement(shown: shown, ordered: ordered, layouts: layouts, requests: requests, bounds: bounds)
    }

    /// The end card's box and opacity on this frame (nil: not showing).
    private func endCard(_ frame: FrameContext) -> (box: Box, opacity: Double)? {
        guard let value = frame.values.cards.first(where: { if case .end = $0.cue { true } else { false } }), value.opacity > 0,
              let box = try? TitleOverlay.endBox(frame.scene, layout: frame.layout, text: text) else { return nil }
        return (box, value.opacity)
    }

    /// A pin's label request, laid out in the current place's style or the others'.
    private func request(_ p: Shown, current: Bool, _ frame: FrameContext) throws -> (LabelPlacer.Request, Pango.Layout, TextStyle) {
        let layout = frame.layout
        let ts = Self.labelStyle(frame.scene.style, current: current)
        let l = try text.layout(frame.scene.places[p.place].name, ts, scale: layout.unit)
        let (w, h) = l.size
        let k = current ? 1.3 : 1.0
        return (LabelPlacer.Request(anchorX: p.x, anchorY: p.y, width: w, height: h, gap: layout.size(14 * k),
                                    rise: layout.size(34 * k), always: current), l, ts)
    }

    /// The boxes of the photo and clip cards `frame` shows.
    private func cardBoxes(_ frame: FrameContext) -> [Box] {
        var boxes: [Box] = []
        for card in frame.values.cards {
            if case .photo(let i) = card.cue, let image = frame.media.photos[i] {
                boxes.append(frame.photoBox(aspect: Double(image.width) / Double(image.height), place: i, text: text))
            }
            if case .clip(let i) = card.cue, let clip = frame.media.clips[i] {
                boxes.append(frame.photoBox(aspect: clip.aspect, place: i, text: text))
            }
            if case .trackPhoto(let k) = card.cue, let image = frame.media.trackPhotos[k] {
                boxes.append(frame.photoBox(aspect: Double(image.width) / Double(image.height), place: 0, text: text,
                                            clearOf: frame.trackPhotoPlace(k).map { [$0] } ?? []))
            }
        }
        return boxes
    }

    /// Where the frame's own placement puts its labels (nil: hidden); `ahead`: more boxes to keep clear
    /// of (the cards of the frames a key frame's placement is drawn on).
    private func choose(_ placed: Placement, _ frame: FrameContext, ahead: [Box] = []) -> [LabelPlacer.Spot?] {
        guard !placed.requests.isEmpty else { return [] }
        let layout = frame.layout
        // Labels keep clear of the cards that sit over the map (the title and end cards are brief and
        // centred; they fade over labels).
        var obstacles: [Box] = []
        let furniture = frame.furnitureBoxes.all
        if frame.values.distanceKm != nil { obstacles.append(layout.counterBox(clearOf: frame.presenterBox)) }
        if let panel = frame.readoutBox { obstacles.append(panel) }
        // ... and of other places' pins (a label's own positions are beside its pin).
        for p in placed.shown {
            obstacles.append(Box(minX: p.x - 11 * p.size, minY: p.y - 34 * p.size, maxX: p.x + 11 * p.size, maxY: p.y))
        }
        obstacles += cardBoxes(frame) + ahead
        if let box = frame.presenterBox { obstacles.append(box) }
        if let box = frame.legendBox { obstacles.append(box) }
        if let end = endCard(frame) { obstacles.append(end.box) }
        obstacles += furniture
        return LabelPlacer.choose(placed.requests, within: placed.bounds, avoiding: obstacles,
                                  lines: keepsOffRoutes ? routeObstacles(frame) : nil, padding: layout.size(4))
    }

    /// A place visited again (the same name at the same spot) has one pin and one label: the pins of
    /// its visits shown become one, current if any of them is, as far popped in as the furthest (a
    /// return leaves the settled pin settled), at the place of the latest visit.
    private static func once(_ shown: [Shown], places: [Place]) -> [Shown] {
        var out: [Shown] = []
        for s in shown {
            let place = places[s.place]
            if let k = out.firstIndex(where: { other in
                let o = places[other.place]
                return o.name == place.name && abs(o.position.lon - place.position.lon) < 1e-6
                    && abs(o.position.lat - place.position.lat) < 1e-6
            }) {
                var merged = s
                merged.pin.current = s.pin.current || out[k].pin.current
                merged.pin.appear = max(s.pin.appear, out[k].pin.appear)
                out[k] = merged
            } else {
                out.append(s)
            }
        }
        return out
    }

    /// Every leg's whole line on `frame` (drawn and still to be drawn), for labels to keep off: a
    /// label set beside its pin where no route passes does not have to move when the route arrives.
    private func routeObstacles(_ frame: FrameContext) -> LineObstacles? {
        let scene = frame.scene
        // A frame places its labels several times (for the towns, for a style's labels, to draw
        // them): the lines are projected and bucketed once per view.
        if let last = lastObstacles, last.viewport == frame.viewport, last.scene == scene { return last.obstacles }
        let obstacles = makeRouteObstacles(frame)
        lastObstacles = (frame.viewport, scene, obstacles)
        return obstacles
    }

    /// The last view's obstacles.
    private var lastObstacles: (viewport: Viewport, scene: Scene, obstacles: LineObstacles?)?

    private func makeRouteObstacles(_ frame: FrameContext) -> LineObstacles? {
        let scene = frame.scene
        if routeLines?.scene != scene {
            var lines: [(width: Double, line: ProjectedLine)] = []
            for (i, route) in frame.routes.enumerated() {
                guard let route, let style = scene.route(into: i), style.path != .none else { continue }
                // The line and its outline.
                lines.append((style.width * 1.7, ProjectedLine(route.points)))
            }
            // A playback's tracks, with their casing.
            for track in scene.tracks {
                lines.append((MoverOverlay.lineWidth * 1.8, ProjectedLine(track.geometry.points)))
            }
            routeLines = (scene, lines)
        }
        guard let routeLines, !routeLines.lines.isEmpty else { return nil }
        let widest = frame.layout.size(routeLines.lines.map(\.width).max() ?? 0)
        // Half the widest line, and a gap as wide as the labels' padding.
        let reach = widest / 2 + frame.layout.size(4)
        return LineObstacles(routeLines.lines.flatMap { frame.viewport.lines($0.line) }, reach: reach,
                             width: frame.layout.width, height: frame.layout.height)
    }

    /// The routes' and tracks' lines (widths in layout units), projected once per scene.
    private var routeLines: (scene: Scene, lines: [(width: Double, line: ProjectedLine)])?

    /// The boxes the trip's pins and labels take on `frame`, for what the map draws under them (towns,
    /// a style's labels) to keep clear of: each pin's at its settled size (a pin popping in keeps its
    /// room from the start), each shown label's.
    public func tripBoxes(_ frame: FrameContext) throws -> [Box] {
        let placed = try placement(frame)
        let pins = placed.shown.map { p in
            Self.pinBox(x: p.x, y: p.y, size: frame.layout.unit * (p.pin.current ? 1.3 : 1.0))
        }
        return pins + placed.labels.map(\.box)
    }

    /// The labels shown on `frame`: each place's name, its box and its opacity (below 1 while it
    /// fades across sides) (for tests).
    func labels(_ frame: FrameContext) throws -> [(name: String, box: Box, alpha: Double)] {
        let placed = try placement(frame)
        return placed.labels.map { (frame.scene.places[placed.ordered[$0.k].place].name, $0.box, $0.alpha) }
    }

    /// Whether labels keep off the routes (off only in tests, to show what it changes).
    var keepsOffRoutes = true

    private func items(_ frame: FrameContext) throws -> [Item] {
        let placed = try placement(frame)
        let style = frame.scene.style, layout = frame.layout
        var items: [Item] = []
        // Older pins first, the current one last (on top).
        for p in placed.shown.filter({ !$0.pin.current }) + placed.shown.filter(\.pin.current) {
            let color = p.emphasis >= 1 ? style.currentPin : p.emphasis <= 0 ? style.pin : style.pin.mixed(with: style.currentPin, p.emphasis)
            if p.pin.appear >= 1 {
                // Settled (not popping in): the same picture every frame, faded as one on the globe.
                let r = 11 * p.size, rim = p.size + 1
                let extent = Box(minX: -r - rim, minY: -34 * p.size - rim, maxX: r + rim, maxY: 2.8 * p.size + rim)
                items.append(.mark(try pinPictures.mark(PinKey(size: p.size, color: color), x: p.x, y: p.y, extent: extent,
                                                        alpha: p.facing) { sc in
                    drawPin(x: 0, y: 0, size: p.size, color: color, in: sc)
                }))
            } else {
                items.append(.pin(x: p.x, y: p.y, size: p.size, color: color, alpha: p.facing))
            }
        }
        for label in placed.labels {
            let place = placed.ordered[label.k]
            items.append(.mark(try text.movingMark(label.layout, label.style,
                                                   key: LabelKey(current: label.current, name: frame.scene.places[place.place].name),
                                                   x: label.box.minX, y: label.box.minY, scale: layout.unit,
                                                   alpha: place.pin.appear * place.facing * label.alpha)))
        }
        return items
    }

    /// The labels' pictures drawn so far (for tests).
    var labelPicturesDrawn: Int { text.spritesDrawn }

    /// A place's label's text style: the current place's bolder.
    private static func labelStyle(_ style: Style, current: Bool) -> TextStyle {
        let label = current ? style.currentLabel : style.label
        return TextStyle(family: style.font, weight: current ? "Bold" : "Semi-Bold", size: label.size,
                         color: label.color, halo: label.halo, haloWidth: 4)
    }

    /// Every place's name laid out in both styles (shaping it finds and opens the fonts its script
    /// needs) and its label drawn at whole pixels, a label a step, in the order the trip reaches the
    /// places: the work a frame showing each label first would do. The first frame's labels are those
    /// of its pins (the current place's bolder).
    public func preparation(_ scene: Scene, layout: FrameLayout, first: FrameValues?) -> [PreparationStep] {
        scene.places.indices.flatMap { i in
            [true, false].map { current in
                PreparationStep(forFirstFrame: first?.pins.contains { $0.place == i && $0.current == current } ?? true) {
                    [self] in try prepareLabel(scene.places[i].name, current: current, scene: scene, layout: layout)
                }
            }
        }
    }

    private func prepareLabel(_ name: String, current: Bool, scene: Scene, layout: FrameLayout) throws {
        let ts = Self.labelStyle(scene.style, current: current)
        let l = try text.layout(name, ts, scale: layout.unit)
        // Within half the pictures' room: a long trip's labels are drawn as they come.
        guard text.spriteBytes < TextCache.spriteLimit / 2 else { return }
        _ = try text.movingMark(l, ts, key: LabelKey(current: current, name: name), x: 0, y: 0, scale: layout.unit)
    }

    /// A settled pin's picture: its size and colour.
    private struct PinKey: Hashable { var size: Double, color: Color }
    /// A label's picture: the current place's is bolder.
    private struct LabelKey: Hashable { var current: Bool, name: String }

    /// The pin's size through its arrival: grows past full size and settles back (ease-out-back).
    static func pop(_ t: Double) -> Double {
        guard t < 1 else { return 1 }
        let c1 = 1.70158, c3 = c1 + 1, u = t - 1
        return max(0, 1 + c3 * u * u * u + c1 * u * u)
    }

    /// A map pin with its tip at (x, y): a drop shape with a white rim and a soft shadow.
    /// A box holding all of `drawPin`'s ink (its shadow, its outline's width, antialiasing).
    static func pinBox(x: Double, y: Double, size: Double) -> Box {
        let half = 12 * size + 2
        return Box(minX: x - half, minY: y - 34 * size - size - 2, maxX: x + half, maxY: y + 2.8 * size + 2)
    }

    func drawPin(x: Double, y: Double, size: Double, color: Color, in cr: Context) {
        let r = 11 * size, h = 34 * size
        cr.save()
        // Shadow: a flattened ellipse at the tip.
        cr.save()
        cr.translate(x, y)
        cr.scale(1, 0.4)
        cr.arc(x: 0, y: 0, radius: 7 * size)
        cr.restore()
        cr.setSource(Color(red: 0, green: 0, blue: 0, alpha: 0.25))
        cr.fill()
        // Drop: a circle of radius r centred h - r above the tip, tangents down to the tip.
        let cy = y - h + r
        let d = h - r
        let a = asin(r / d)
        cr.newPath()
        cr.move(to: x, y)
        cr.arc(x: x, y: cy, radius: r, from: .pi / 2 + a, to: .pi / 2 - a + 2 * .pi)
        cr.closePath()
        cr.setSource(color)
        cr.fillPreserve()
        cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 1))
        cr.setLineWidth(2 * size)
        cr.setLineJoin(.round)
        cr.stroke()
        cr.arc(x: x, y: cy, radius: r * 0.42)
        cr.setSource(Color(red: 1, green: 1, blue: 1, alpha: 1))
        cr.fill()
        cr.restore()
    }
}
