import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import MapTripRecord
import MapTripRender
import Pango
import Testing

/// The trip's moving parts as a viewer sees them, checked on rendered pixels: the route's colour along
/// its leg, the vehicle at the tip of the route, a photo during its place's rest only, the caption card
/// inside the safe area in every frame shape, labels that never cover one another, and still frames
/// drawn once while a fade is drawn frame by frame.
@Suite("Cinematics render")
struct CinematicsRenderTests {
    // MARK: Helpers

    /// A copy of a surface's pixels (premultiplied B, G, R, A), to scan without a Cairo call per pixel.
    struct Pixels {
        let width: Int
        let height: Int
        let bytes: [UInt8]

        init(_ surface: ImageSurface) {
            surface.flush()
            let w = surface.width, h = surface.height
            let rowBytes = w * 4, stride = surface.stride, data = surface.data
            var out = [UInt8](repeating: 0, count: rowBytes * h)
            out.withUnsafeMutableBytes { dst in
                for y in 0..<h {
                    (dst.baseAddress! + y * rowBytes).copyMemory(from: data + y * stride, byteCount: rowBytes)
                }
            }
            width = w
            height = h
            bytes = out
        }

        func contains(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height }

        /// (r, g, b, a), premultiplied; zeros off the frame.
        func at(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int, a: Int) {
            guard contains(x, y) else { return (0, 0, 0, 0) }
            let i = (y * width + x) * 4
            return (Int(bytes[i + 2]), Int(bytes[i + 1]), Int(bytes[i]), Int(bytes[i + 3]))
        }

        /// Within `tolerance` per channel of an opaque colour.
        func matches(_ x: Int, _ y: Int, _ c: Color, tolerance: Int) -> Bool {
            let p = at(x, y), want = Trip.rgb(c)
            return p.a == 255 && abs(p.r - want.r) <= tolerance && abs(p.g - want.g) <= tolerance
                && abs(p.b - want.b) <= tolerance
        }

        /// Pixels in the square of half-side `radius` around (x, y) for which `test` holds.
        func count(around p: (x: Double, y: Double), radius: Int, _ test: (Int, Int) -> Bool) -> Int {
            let cx = Int(p.x.rounded(.down)), cy = Int(p.y.rounded(.down))
            var n = 0
            for y in (cy - radius)...(cy + radius) {
                for x in (cx - radius)...(cx + radius) where contains(x, y) && test(x, y) { n += 1 }
            }
            return n
        }

        /// Every pixel for which `test` holds.
        func all(_ test: (Int, Int) -> Bool) -> [(x: Int, y: Int)] {
            var out: [(x: Int, y: Int)] = []
            for y in 0..<height { for x in 0..<width where test(x, y) { out.append((x, y)) } }
            return out
        }

        /// The bounding box (inclusive pixel indices) of the pixels that differ from `other`'s.
        func differenceBox(from other: Pixels) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
            precondition(width == other.width && height == other.height)
            var box: (minX: Int, minY: Int, maxX: Int, maxY: Int)?
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    if bytes[i] == other.bytes[i] && bytes[i + 1] == other.bytes[i + 1]
                        && bytes[i + 2] == other.bytes[i + 2] && bytes[i + 3] == other.bytes[i + 3] { continue }
                    if let b = box {
                        box = (min(b.minX, x), min(b.minY, y), max(b.maxX, x), max(b.maxY, y))
                    } else {
                        box = (x, y, x, y)
                    }
                }
            }
            return box
        }
    }

    /// Writes a frame to $MAPTRIP_TEST_DUMP/name.png when that is set, to look at by eye.
    static func dump(_ surface: ImageSurface, _ name: String) {
        guard let dir = ProcessInfo.processInfo.environment["MAPTRIP_TEST_DUMP"] else { return }
        try? surface.writePNG(to: dir + "/cinematics-" + name + ".png")
    }

    static func distance(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }

    /// The distance from p to the polyline through `line`.
    static func distance(_ p: (x: Double, y: Double), toPolyline line: [(x: Double, y: Double)]) -> Double {
        guard var a = line.first else { return .infinity }
        var best = distance(p, a)
        for b in line.dropFirst() {
            let dx = b.x - a.x, dy = b.y - a.y, length2 = dx * dx + dy * dy
            let t = length2 > 0 ? min(max(((p.x - a.x) * dx + (p.y - a.y) * dy) / length2, 0), 1) : 0
            best = min(best, distance(p, (a.x + t * dx, a.y + t * dy)))
            a = b
        }
        return best
    }

    static let paris = LonLat(lon: 2.3522, lat: 48.8566)
    static let berlin = LonLat(lon: 13.405, lat: 52.52)
    static let vienna = LonLat(lon: 16.3738, lat: 48.2082)

    /// A route colour found nowhere else on the map, its pins or its labels.
    static let green = Color(hex: "#00c000")!
    /// The plane icon's body (Assets/icons/plane.svg).
    static let planeBody = Color(hex: "#1f2a37")!

    static func video(_ width: Int, _ height: Int) -> Video { Video(width: width, height: height, fps: 24) }

    // MARK: 1. The route's colour along its leg

    @Test func routeColourRunsAlongTheLegOnceItIsFlown() throws {
        // Paris to Berlin at zoom 5 fits a 640x360 frame: resting on Berlin, the whole leg is in view.
        let scene = Scene(flight: 1, video: Self.video(640, 360), places: [
            Place(name: "Paris", position: Self.paris, dwell: 1, zoom: 5),
            Place(name: "Berlin", position: Self.berlin, dwell: 2, zoom: 5),
        ], route: RouteStyle(color: Self.green, width: 8))
        let timeline = Timeline(scene: scene)
        let line = try #require(timeline.routes[1])
        let renderer = try FrameRenderer(scene: scene, baseMap: try ShapefileBaseMap(assets: Trip.assets))
        let slot = timeline.slots[1]
        #expect(slot.flightFrames == 24)

        // Points along the leg's line, away from both ends (pins and labels stand there).
        let samples = stride(from: 0.2, through: 0.8, by: 0.1).map { f in
            line.points[Int((Double(line.points.count - 1) * f).rounded())]
        }

        // Resting on Berlin, after arrival: the route's green is on (or within a pixel or two of) each.
        let after = timeline.values(at: slot.arriveFrame + 6)
        #expect(after.camera == slot.camera && after.legs.map(\.progress) == [1])
        try renderer.render(after)
        Self.dump(renderer.surface, "route-after")
        var pixels = Pixels(renderer.surface)
        var viewport = renderer.viewport(after.camera)
        var inside = 0
        for point in samples {
            let p = viewport.pixel(point)!
            guard p.x > 4, p.y > 4, p.x < 636, p.y < 356 else { continue }
            inside += 1
            let hits = pixels.count(around: p, radius: 2) { pixels.matches($0, $1, Self.green, tolerance: 24) }
            #expect(hits > 0, "no route green within 2 px of \(point) at (\(Int(p.x)), \(Int(p.y)))")
        }
        #expect(inside == samples.count, "the whole leg is in view from Berlin")
        // And the green is the route's: no other green pixel far from the line.
        let drawn = line.points.map { viewport.pixel($0)! }
        let stray = pixels.all { pixels.matches($0, $1, Self.green, tolerance: 24) }.filter { q in
            Self.distance((Double(q.x) + 0.5, Double(q.y) + 0.5), toPolyline: drawn) > 3
        }
        #expect(stray.isEmpty, "\(stray.count) green pixels away from the line, e.g. \(stray.prefix(3))")

        // Before the leg's flight starts (still resting on Paris), none of those points shows it,
        // even in a looser sense of green.
        let before = timeline.values(at: slot.startFrame - 1)
        #expect(before.legs.isEmpty && before.camera == timeline.slots[0].camera)
        try renderer.render(before)
        Self.dump(renderer.surface, "route-before")
        pixels = Pixels(renderer.surface)
        viewport = renderer.viewport(before.camera)
        inside = 0
        for point in samples {
            let p = viewport.pixel(point)!
            guard p.x > 4, p.y > 4, p.x < 636, p.y < 356 else { continue }
            inside += 1
            let greenish = pixels.count(around: p, radius: 2) { x, y in
                let c = pixels.at(x, y)
                return c.g > c.r + 60 && c.g > c.b + 60
            }
            #expect(greenish == 0, "route green at \(point) before the leg began")
        }
        #expect(inside >= 4, "most of the leg is in view from Paris")
    }

    // MARK: 2. The vehicle on the route mid-flight

    @Test func vehicleSitsAtTheTipOfTheRouteMidFlight() throws {
        try Trip.withDirectory("cinematics") { dir in
            func scene(_ vehicle: Vehicle) -> Scene {
                Scene(flight: 1.5, video: Self.video(640, 360), places: [
                    Place(name: "Paris", position: Self.paris, dwell: 1, zoom: 5),
                    Place(name: "Berlin", position: Self.berlin, dwell: 2, zoom: 5),
                ], route: RouteStyle(color: Self.green, width: 8), vehicle: vehicle)
            }
            let withPlane = scene(.icon(.plane)), without = scene(.none)
            let media = try SceneMedia.load(for: withPlane, sceneFile: dir.appendingPathComponent("scene.json"),
                                            assets: Trip.assets)
            #expect(media.vehicles.keys.sorted() == [1])
            let timeline = Timeline(scene: withPlane)
            let slot = timeline.slots[1]
            // The flight frame with the vehicle closest to halfway (the flight eases: that is before
            // the middle of the flight's time).
            let n = try #require((slot.startFrame..<slot.arriveFrame).min { a, b in
                abs((timeline.values(at: a).vehicle?.progress ?? 9) - 0.5)
                    < abs((timeline.values(at: b).vehicle?.progress ?? 9) - 0.5)
            })
            let values = timeline.values(at: n)
            let vehicle = try #require(values.vehicle)
            #expect(vehicle.place == 1 && vehicle.progress > 0.35 && vehicle.progress < 0.65)

            let renderer = try FrameRenderer(scene: withPlane, baseMap: try ShapefileBaseMap(assets: Trip.assets),
                                             media: media)
            try renderer.render(values)
            Self.dump(renderer.surface, "vehicle-plane")
            let plane = Pixels(renderer.surface)
            let viewport = renderer.viewport(values.camera)
            let at = viewport.pixel(vehicle.position)!
            #expect(at.x > 20 && at.x < 620 && at.y > 20 && at.y < 340, "the vehicle is in view: \(at)")
            let half = Int((renderer.layout.size(VehicleOverlay.size) / 2).rounded(.up))
            func darkBody(_ p: Pixels) -> Int {
                p.count(around: at, radius: half) { p.matches($0, $1, Self.planeBody, tolerance: 20) }
            }
            let dark = darkBody(plane)
            #expect(dark >= 10, "\(dark) plane-body pixels within \(half) px of the vehicle")

            // The same frame with no vehicle has none of them there.
            let bare = Timeline(scene: without).values(at: n)
            #expect(bare.vehicle == nil && bare.camera == values.camera && bare.legs == values.legs)
            let noVehicle = try FrameRenderer(scene: without, baseMap: try ShapefileBaseMap(assets: Trip.assets))
            try noVehicle.render(bare)
            Self.dump(noVehicle.surface, "vehicle-none")
            #expect(darkBody(Pixels(noVehicle.surface)) == 0)

            // The route alone on a clear background: its drawn tip, the green pixel furthest along the
            // leg from Paris, is within a couple of pixels (and the line's round cap) of the vehicle.
            let routeOnly = try FrameRenderer(scene: without, baseMap: TransparentBaseMap(), overlays: [RouteOverlay()])
            try routeOnly.render(bare)
            let route = Pixels(routeOnly.surface)
            let greens = route.all { route.matches($0, $1, Self.green, tolerance: 24) }
            #expect(greens.count > 50)
            let start = viewport.pixel(Self.paris)!
            let tip = try #require(greens.map { (x: Double($0.x) + 0.5, y: Double($0.y) + 0.5) }
                .max { Self.distance($0, start) < Self.distance($1, start) })
            let cap = renderer.layout.size(8) / 2
            let gap = Self.distance(tip, at)
            #expect(gap <= cap + 2, "route tip \(tip) is \(gap) px from the vehicle at \(at)")
            // The line reaches the vehicle from Paris: green halfway between them.
            let middle = (x: (start.x + at.x) / 2, y: (start.y + at.y) / 2)
            #expect(route.count(around: middle, radius: 2) { route.matches($0, $1, Self.green, tolerance: 24) } > 0)
        }
    }

    // MARK: 3. A photo during its place's rest only

    @Test func photoShowsOnlyWhileItsPlaceRests() throws {
        try Trip.withDirectory("cinematics") { dir in
            // A solid magenta 200x150 PNG, named by the second place.
            let fixture = try ImageSurface(width: 200, height: 150)
            try fixture.withContext { cr in
                cr.setSource(red: 1, green: 0, blue: 1)
                cr.paint()
            }
            try fixture.writePNG(to: dir.appendingPathComponent("magenta.png").path)
            let scene = Scene(flight: 0.5, video: Self.video(640, 360), places: [
                Place(name: "Paris", position: Self.paris, dwell: 1.5, zoom: 5),
                Place(name: "Berlin", position: Self.berlin, dwell: 1.5, zoom: 5, photo: "magenta.png"),
                Place(name: "Vienna", position: Self.vienna, dwell: 1.5, zoom: 5),
            ])
            let media = try SceneMedia.load(for: scene, sceneFile: dir.appendingPathComponent("scene.json"),
                                            assets: Trip.assets)
            #expect(media.photos.keys.sorted() == [1])
            let renderer = try FrameRenderer(scene: scene, baseMap: try ShapefileBaseMap(assets: Trip.assets),
                                             media: media)
            let timeline = Timeline(scene: scene)
            let slot = timeline.slots[1]
            let box = renderer.layout.photoBox(aspect: 200.0 / 150.0)

            func magenta(at n: Int, _ name: String) throws -> [(x: Int, y: Int)] {
                try renderer.render(timeline.values(at: n))
                Self.dump(renderer.surface, "photo-" + name)
                let p = Pixels(renderer.surface)
                return p.all { x, y in
                    let c = p.at(x, y)
                    return c.r > 200 && c.b > 200 && c.g < 60
                }
            }

            // Mid-rest: a magenta picture fills the card, all of it inside the photo box.
            let mid = (slot.arriveFrame + slot.endFrame) / 2
            #expect(timeline.values(at: mid).opacity(of: .photo(1)) == 1)
            let shown = try magenta(at: mid, "mid-rest")
            let border = renderer.layout.size(10)
            let innerArea = (box.maxX - box.minX - 2 * border) * (box.maxY - box.minY - 2 * border)
            #expect(Double(shown.count) > 0.9 * innerArea, "\(shown.count) magenta pixels, card \(innerArea)")
            let outside = shown.filter { p in
                Double(p.x) < box.minX || Double(p.x) + 1 > box.maxX || Double(p.y) < box.minY
                    || Double(p.y) + 1 > box.maxY
            }
            #expect(outside.isEmpty, "magenta outside the photo box \(box): \(outside.prefix(5))")

            // Before arrival (the last flight frame) and after the slot (resting on Vienna): none.
            #expect(try magenta(at: slot.arriveFrame - 1, "before").isEmpty)
            #expect(try magenta(at: slot.endFrame, "slot-end").isEmpty)
            #expect(try magenta(at: timeline.slots[2].arriveFrame + 6, "after").isEmpty)
        }
    }

    // MARK: 4. The caption card inside the safe area

    static let longCaption = "Three days along the river: markets at dawn, museums at noon, and the long walk "
        + "home over the old bridges while the city lights come on"

    /// A caption with a word longer than a line of a 9:16 card: it cannot wrap.
    static let unbreakable = "Verein der Donaudampfschifffahrtselektrizitätenhauptbetriebswerkbauunterbeamten tour"

    @Test(arguments: [(640, 360), (360, 640), (480, 480)], [longCaption, unbreakable])
    func captionCardStaysInsideTheSafeAreaAndCentred(size: (width: Int, height: Int), caption: String) throws {
        // On a clear background, the card is what the caption changes: the same frame drawn without
        // it (the pin and label of the place still there) is the reference.
        let (width, height) = size
        let place = Place(name: "Paris", position: Self.paris, dwell: 3, zoom: 5, caption: caption)
        let scene = Scene(video: Self.video(width, height), places: [place])
        let renderer = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap())
        let values = Timeline(scene: scene).values(at: 36)
        #expect(values.opacity(of: .caption(0)) == 1)
        try renderer.render(values)
        Self.dump(renderer.surface, "caption-\(width)x\(height)-\(caption.count)")
        let with = Pixels(renderer.surface)
        var bare = values
        bare.cards.removeAll()
        try renderer.render(bare)
        let without = Pixels(renderer.surface)

        let card = try #require(with.differenceBox(from: without))
        let layout = renderer.layout, safe = layout.safe
        #expect(Double(card.minX) >= safe.minX.rounded(.down) && Double(card.maxX + 1) <= safe.maxX.rounded(.up)
                && Double(card.minY) >= safe.minY.rounded(.down) && Double(card.maxY + 1) <= safe.maxY.rounded(.up),
                "card \(card) is not inside the safe area \(safe) of \(width)x\(height)")
        let centre = Double(card.minX + card.maxX + 1) / 2
        #expect(abs(centre - layout.width / 2) <= 1, "card \(card) centred at \(centre), frame at \(layout.width / 2)")
        // The card is wide, and the long caption wraps: taller than one line of text.
        #expect(Double(card.maxX + 1 - card.minX) > 0.6 * layout.textWidth)
        if caption == Self.longCaption { #expect(Double(card.maxY + 1 - card.minY) > layout.size(34) * 2.5) }
        // Its white text is on it.
        let text = with.all { x, y in
            let c = with.at(x, y)
            return c.r > 230 && c.g > 230 && c.b > 230 && c.a > 230
        }.filter { $0.x >= card.minX && $0.x <= card.maxX && $0.y >= card.minY && $0.y <= card.maxY }
        #expect(text.count > 50)
    }

    // MARK: 5. Labels never overlap in a dense scene

    /// 25 cities of western and central Europe, Frankfurt (central) last.
    static let cities: [LonLat] = [
        (2.3522, 48.8566), (4.3517, 50.8503), (4.9041, 52.3676), (6.1296, 49.6116), (6.9603, 50.9375),
        (7.7521, 48.5734), (8.5417, 47.3769), (7.4474, 46.948), (6.1432, 46.2044), (4.8357, 45.764),
        (9.19, 45.4642), (7.6869, 45.0703), (11.582, 48.1351), (9.1829, 48.7758), (11.0767, 49.4521),
        (9.9937, 53.5511), (9.732, 52.3759), (13.405, 52.52), (12.3731, 51.3397), (13.7373, 51.0504),
        (14.4378, 50.0755), (16.3738, 48.2082), (-0.1276, 51.5072), (12.5683, 55.6761), (8.6821, 50.1109),
    ].map { LonLat(lon: $0.0, lat: $0.1) }

    @Test func labelsInADenseSceneNeverCoverOneAnother() throws {
        // Every city is named by digits ("00000", "000000", ...), so that one name can be swapped for
        // another of exactly the same size ("88888"): the labels are placed exactly as before, and the
        // pixels that change are that one label's text. Comparing the text of each label, found this
        // way, with every other's is a check of what was drawn, with no access to the placer's boxes.
        func names(swapping swapped: Int?) -> [String] {
            Self.cities.indices.map { k in String(repeating: k == swapped ? "8" : "0", count: 5 + k % 4) }
        }
        func scene(swapping swapped: Int?) -> Scene {
            let names = names(swapping: swapped)
            return Scene(flight: 0, video: Self.video(640, 360), places: Self.cities.indices.map { k in
                Place(name: names[k], position: Self.cities[k], dwell: 0.5, zoom: 3.75)
            }, route: RouteStyle(path: .none))
        }
        let base = scene(swapping: nil)
        let timeline = Timeline(scene: base)
        let values = timeline.values(at: timeline.frameCount - 1)
        #expect(values.reached == 25 && values.pins.allSatisfy { $0.appear == 1 } && values.current == 24)

        // The swap keeps every label's size, in both label weights (the current place's label is Bold
        // 28, the others Semi-Bold 22, in layout units); keep each label's logical size too.
        let unit = 360.0 / FrameLayout.reference
        var sizes: [Int: (width: Double, height: Double)] = [:]
        let probe = try ImageSurface(width: 8, height: 8)
        try probe.withContext { cr in
            for k in Self.cities.indices {
                let current = k == values.current
                let font = try FontDescription("Noto Sans \(current ? "Bold" : "Semi-Bold")")
                font.setAbsoluteSize((current ? 28 : 22) * unit)
                let a = try Pango.Layout(context: cr), b = try Pango.Layout(context: cr)
                a.setFont(font)
                b.setFont(font)
                a.text = names(swapping: nil)[k]
                b.text = names(swapping: k)[k]
                #expect(a.size == b.size, "\(a.text) and \(b.text) differ in size")
                sizes[k] = a.size
            }
        }

        func render(_ scene: Scene) throws -> Pixels {
            let r = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap(), overlays: [PlacesOverlay()])
            try r.render(values)
            if scene == base { Self.dump(r.surface, "labels-dense") }
            return Pixels(r.surface)
        }
        let reference = try render(base)
        /// Text pixels: dark and opaque (the labels' text is near-black on a white halo).
        func dark(_ p: Pixels, _ x: Int, _ y: Int) -> Bool {
            let c = p.at(x, y)
            return c.a > 160 && max(c.r, c.g, c.b) < 110
        }
        typealias Ink = (minX: Int, minY: Int, maxX: Int, maxY: Int)
        var inks: [Int: Ink] = [:]
        for k in Self.cities.indices {
            let swapped = try render(scene(swapping: k))
            var ink: Ink?
            for y in 0..<reference.height {
                for x in 0..<reference.width where dark(reference, x, y) != dark(swapped, x, y) {
                    ink = ink.map { (min($0.minX, x), min($0.minY, y), max($0.maxX, x), max($0.maxY, y)) } ?? (x, y, x, y)
                }
            }
            if let ink { inks[k] = ink }
        }

        // The scene is dense: some labels had to be left out; the current place's always shows.
        #expect(inks[24] != nil, "the current place's label is drawn")
        #expect(inks.count >= 8, "\(inks.count) labels drawn")
        #expect(inks.count < 25, "all 25 labels drawn: the scene is not dense enough to test anything")
        // What was found is each label's whole text: about as wide as its layout.
        for (k, ink) in inks {
            let width = Double(ink.maxX + 1 - ink.minX), height = Double(ink.maxY + 1 - ink.minY)
            let logical = sizes[k]!
            #expect(width > 0.8 * logical.width && width < logical.width + 2 && height < logical.height + 2,
                    "label \(k): text \(ink), layout \(logical)")
        }
        // No label's text covers another's, and every one lies inside the frame.
        let shown = inks.keys.sorted()
        for (i, a) in shown.enumerated() {
            let p = inks[a]!
            #expect(p.minX >= 0 && p.minY >= 0 && p.maxX < 640 && p.maxY < 360)
            for b in shown[(i + 1)...] {
                let q = inks[b]!
                let overlap = p.minX <= q.maxX && q.minX <= p.maxX && p.minY <= q.maxY && q.minY <= p.maxY
                #expect(!overlap, "label of place \(a) at \(p) overlaps label of place \(b) at \(q)")
            }
        }
    }

    // MARK: 6. Still frames, counted end to end

    /// Counts what reaches it and hashes (FNV-1a) every new picture.
    final class HashingSink: FrameSink {
        let width: Int, height: Int
        var order: [Bool] = []  // true: a new picture
        var hashes: [UInt64] = []  // one per new picture

        init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }

        func write(bgra: UnsafePointer<UInt8>, stride: Int) throws {
            hashes.append(Self.hash(bgra, stride: stride, width: width, height: height))
            order.append(true)
        }

        func repeatLast() throws { order.append(false) }

        static func hash(_ bgra: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int) -> UInt64 {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for y in 0..<height {
                for x in 0..<(width * 4) { h = (h ^ UInt64(bgra[y * stride + x])) &* 0x100_0000_01b3 }
            }
            return h
        }
    }

    @Test func captionFadeIsDrawnFrameByFrameAndTheStillRestOnce() throws {
        // Two places at the same spot and zoom, no flight: the only motion is the second place's
        // arrival (its pin popping in, the first place's label fading to make room for its label)
        // and its caption fading in and, at the end, out.
        let scene = Scene(flight: 0, video: Self.video(480, 270), places: [
            Place(name: "Paris", position: Self.paris, dwell: 0.5, zoom: 6),
            Place(name: "Paris again", position: Self.paris, dwell: 2.5, zoom: 6, caption: "Back where it began"),
        ])
        let timeline = Timeline(scene: scene)
        #expect(timeline.frameCount == 72)
        let renderer = try FrameRenderer(scene: scene, baseMap: try ShapefileBaseMap(assets: Trip.assets))
        renderer.planBaseMap(timeline)
        var changes: [Bool] = []
        var last: FrameValues?
        var labelFades = 0
        for n in 0..<timeline.frameCount {
            let v = timeline.values(at: n)
            #expect(v.camera == timeline.slots[0].camera)
            // A frame changes with its values, or with a label fading across on its own clock.
            let fading = try !renderer.holdsStill(frame: n, v)
            if fading && v == last { labelFades += 1 }
            changes.append(v != last || fading)
            last = v
        }
        #expect(labelFades > 0, "the first place's label makes room for the second's")
        let distinct = changes.filter { $0 }.count

        let recorder = try Recorder(scene: scene, baseMap: try ShapefileBaseMap(assets: Trip.assets))
        let sink = HashingSink(width: 480, height: 270)
        let summary = try recorder.record(to: sink)
        #expect(summary.frames == 72)
        #expect(summary.drawnFrames == distinct)
        #expect(sink.order == changes)

        // Every drawn picture differs in pixels from the one before it: no drawing is wasted.
        for k in 1..<sink.hashes.count {
            #expect(sink.hashes[k] != sink.hashes[k - 1], "picture \(k) repeats picture \(k - 1)")
        }
        // Every frame of the fades is drawn.
        let slot = timeline.slots[1]
        var fadeFrames = 0
        for n in slot.arriveFrame..<timeline.frameCount {
            let o = timeline.values(at: n).opacity(of: .caption(1))
            if o < 1 || timeline.values(at: n - 1).opacity(of: .caption(1)) != o {
                fadeFrames += 1
                #expect(sink.order[n], "fade frame \(n) (opacity \(o)) was not drawn")
            }
        }
        #expect(fadeFrames >= 18, "\(fadeFrames) fade frames")  // 0.4 s in and out at 24 fps
        // The still stretch between the fades (and the whole first slot) is drawn once each.
        let still = (slot.arriveFrame..<timeline.frameCount).filter { n in !changes[n] }
        let stretchStart = try #require(still.first) - 1
        let stretch = stretchStart...(try #require(still.last))
        #expect(stretch.count >= 20 && still.count == stretch.count - 1, "one still stretch: \(still)")
        #expect(sink.order[stretch].filter { $0 }.count == 1 && sink.order[stretchStart])
        #expect(sink.order[0..<slot.startFrame].filter { $0 }.count == 1)

        // What the repeats stand for is what drawing them would give: a frame late in the stretch,
        // drawn directly, is the stretch's one picture.
        let drawnBefore = sink.order[0...stretchStart].filter { $0 }.count
        try renderer.render(timeline.values(at: stretch.upperBound), frame: stretch.upperBound)
        Self.dump(renderer.surface, "still-rest")
        let direct = HashingSink.hash(renderer.surface.data, stride: renderer.surface.stride, width: 480, height: 270)
        #expect(direct == sink.hashes[drawnBefore - 1])
    }
}
