import Cairo
import FFmpeg
import Foundation
import MapTripGeometry
import MapTripRecord
import MapTripRender
import MapTripScene
import MapTripTime
import Testing
import TestSupport

/// The map's furniture (issue 59) as a viewer sees it: scene files rendered to MP4 through
/// `RenderJob`, decoded, and the scale bar's length, the north arrow's angle and the watermark's
/// pixels measured on the frames against an independent computation.
@Suite("Furniture renders")
struct FurnitureRenderTests {
    /// One place (or several, with bearings) at 1280x720, 10 fps, no opening or closing.
    static func json(_ furniture: String, places: String, width: Int = 1280, height: Int = 720, projection: String = "EPSG:3857") -> String {
        """
        {"video": {"width": \(width), "height": \(height), "fps": 10}, "opening": false, "closing": false, "flight": 0.5,
         "map": {"projection": "\(projection)"},
         \(furniture)
         "places": [\(places)]}
        """
    }

    /// The great-circle distance by the haversine formula on a sphere of 6,371.0088 km (the test's own,
    /// not the project's `Geodesy`), in metres.
    static func haversine(_ a: LonLat, _ b: LonLat) -> Double {
        let r = 6_371_008.8, rad = Double.pi / 180
        let dlat = (b.lat - a.lat) * rad, dlon = (b.lon - a.lon) * rad
        let h = sin(dlat / 2) * sin(dlat / 2) + cos(a.lat * rad) * cos(b.lat * rad) * sin(dlon / 2) * sin(dlon / 2)
        return 2 * r * asin(min(1, sqrt(h)))
    }

    /// How dark a pixel is between the bar's white halo (0) and its ink (1), by luma.
    static func darkness(_ image: BGRAImage, _ x: Int, _ y: Int) -> Double {
        let p = image.pixel(x: x, y: y)
        let luma = 0.299 * Double(p.r) + 0.587 * Double(p.g) + 0.114 * Double(p.b)
        return min(max((255 - luma) / (255 - 38), 0), 1)
    }

    /// The bar's ends on row `y` between `x0` and `x1`: where the darkness crosses one half, between
    /// pixel centres (a box-filtered edge crosses it exactly at the edge).
    static func barEnds(_ image: BGRAImage, y: Int, x0: Int, x1: Int) -> (left: Double, right: Double)? {
        let d = (x0...x1).map { darkness(image, $0, y) }
        guard let first = d.firstIndex(where: { $0 >= 0.5 }), let last = d.lastIndex(where: { $0 >= 0.5 }),
              first > 0, last < d.count - 1 else { return nil }
        let left = Double(x0 + first) - 0.5 + (0.5 - d[first - 1]) / (d[first] - d[first - 1])
        let right = Double(x0 + last) + 0.5 + (d[last] - 0.5) / (d[last] - d[last + 1])
        return (left, right)
    }

    @Test(arguments: [(60.17, 24.94, 8.3), (-33.87, 151.21, 11.3), (1.29, 103.85, 7.5)])
    func theScaleBarIsAsLongAsItsLabelSaysAtTheBarsLatitude(lat: Double, lon: Double, zoom: Double) throws {
        try Trip.withDirectory("furniture-scale") { dir in
            let place = #"{"name": "Here", "lat": \#(lat), "lon": \#(lon), "zoom": \#(zoom), "dwell": 1}"#
            let (frames, scene) = try OpeningClosingRenderTests.render(Self.json(#""scaleBar": true,"#, places: place), "bar", in: dir)
            let t = Timeline(scene: scene)
            let n = 5
            let frame = frames[n]
            Trip.dump(frame, "furniture-scale-\(lat)")
            let v = Viewport(camera: t.values(at: n).camera, width: 1280, height: 720, projection: try Projection.make(for: scene))
            let layout = FrameLayout(width: 1280, height: 720)
            let box = try #require(layout.furniture(scene).scaleBar)
            #expect(box.minX >= layout.safe.minX && box.maxY <= layout.safe.maxY)
            let row = Int((box.maxY - layout.size(13.5)).rounded(.down))
            let found = Self.barEnds(frame, y: row, x0: Int(box.minX), x1: Int(box.maxX) + 4)
            try #require(found != nil, "no bar on row \(row)")
            let ends = found!
            let length = ends.right - ends.left
            // The ground distance across the bar's ends as drawn, through the view's unprojection.
            let a = try #require(v.location(atPixel: ends.left, Double(row) + 0.5))
            let b = try #require(v.location(atPixel: ends.right, Double(row) + 0.5))
            let metres = Self.haversine(a, b)
            // The label's number: the one round length the bar shows here (no crossfade at this zoom).
            let origin = FurnitureOverlay.barOrigin(box, corner: .bottomLeft, layout: layout)
            #expect(abs(ends.left - origin.x) < 0.6)
            let measure = ScaleBarMeasure.bars(v, x: origin.x, y: origin.y,
                                               maxLength: layout.size(FrameLayout.scaleBarLength), units: .metric)
            try #require(measure.bars.count == 1, "zoom \(zoom) is in a crossfade: \(measure.bars)")
            let step = measure.bars[0].step
            let mantissa = step.metres / pow(10, floor(log10(step.metres)))
            #expect([1.0, 2, 5].contains { abs($0 - mantissa) < 1e-9 }, "\(step.label) is not a round length")
            #expect(step.label == (step.metres < 1000 ? "\(Int(step.metres)) m" : "\(Int(step.metres / 1000)) km"))
            // Within a pixel of its length, or 1% (the codec blurs its ends).
            let error = abs(metres - step.metres) / step.metres
            #expect(error < max(0.01, 1 / length), "\(length) px is \(metres) m, the label says \(step.label)")
            #expect(length > layout.size(FrameLayout.scaleBarLength) * 0.39 && length < layout.size(FrameLayout.scaleBarLength) * 1.01)
            #expect(measure.opacity == 1)
        }
    }

    @Test func theScaleBarTakesTheScenesUnits() throws {
        try Trip.withDirectory("furniture-scale-units") { dir in
            let place = #"{"name": "Here", "lat": 60.17, "lon": 24.94, "zoom": 8.3, "dwell": 1}"#
            let (frames, scene) = try OpeningClosingRenderTests.render(Self.json(#""units": "imperial", "scaleBar": true,"#, places: place),
                                                                       "bar", in: dir)
            #expect(scene.furniture.scaleBar?.units == .imperial)
            let t = Timeline(scene: scene)
            let n = 5
            let v = Viewport(camera: t.values(at: n).camera, width: 1280, height: 720, projection: try Projection.make(for: scene))
            let layout = FrameLayout(width: 1280, height: 720)
            let box = try #require(layout.furniture(scene).scaleBar)
            let row = Int((box.maxY - layout.size(13.5)).rounded(.down))
            let ends = try #require(Self.barEnds(frames[n], y: row, x0: Int(box.minX), x1: Int(box.maxX) + 4), "no bar on row \(row)")
            let a = try #require(v.location(atPixel: ends.left, Double(row) + 0.5))
            let b = try #require(v.location(atPixel: ends.right, Double(row) + 0.5))
            let metres = Self.haversine(a, b)
            let origin = FurnitureOverlay.barOrigin(box, corner: .bottomLeft, layout: layout)
            func step(_ units: Furniture.ScaleBar.Units) throws -> Double {
                let m = ScaleBarMeasure.bars(v, x: origin.x, y: origin.y, maxLength: layout.size(FrameLayout.scaleBarLength), units: units)
                try #require(m.bars.count == 1)
                return m.bars[0].step.metres
            }
            // The bar is a round length in miles, not in kilometres.
            let miles = try step(.imperial), kilometres = try step(.metric)
            #expect(abs(metres - miles) / miles < 0.01, "\(metres) m drawn, \(miles) m of miles")
            #expect(abs(metres - kilometres) / kilometres > 0.05, "\(metres) m drawn, \(kilometres) m of kilometres")
        }
    }

    @Test func onADarkThemeTheFurnitureIsLightInkInADarkHalo() throws {
        try Trip.withDirectory("furniture-dark") { dir in
            let place = #"{"name": "Oslo", "lat": 59.91, "lon": 10.75, "zoom": 8.3, "dwell": 1, "bearing": 30}"#
            let (frames, scene) = try OpeningClosingRenderTests.render(
                Self.json(#""style": {"theme": "dark"}, "scaleBar": true, "northArrow": true,"#, places: place), "dark", in: dir)
            let (ink, halo) = FurnitureOverlay.inks(scene.style)
            #expect(ink == scene.style.label.color.withAlpha(1))
            func luma(_ c: Color) -> Double { 255 * (0.299 * c.red + 0.587 * c.green + 0.114 * c.blue) }
            func luma(_ p: (b: UInt8, g: UInt8, r: UInt8, a: UInt8)) -> Double { 0.299 * Double(p.r) + 0.587 * Double(p.g) + 0.114 * Double(p.b) }
            #expect(luma(ink) > 180 && luma(halo) < 80)
            let frame = frames[5]
            Trip.dump(frame, "furniture-dark")
            let layout = FrameLayout(width: 1280, height: 720)
            let boxes = layout.furniture(scene)
            // The bar's middle is light ink, the row just outside it its dark halo.
            let bar = try #require(boxes.scaleBar)
            let origin = FurnitureOverlay.barOrigin(bar, corner: .bottomLeft, layout: layout)
            let x = Int(origin.x + layout.size(20)), y = Int(origin.y.rounded(.down))
            let t = layout.size(FurnitureOverlay.barThickness)
            #expect(luma(frame.pixel(x: x, y: y)) > 170, "bar at (\(x), \(y)): \(frame.pixel(x: x, y: y))")
            let below = Int((origin.y + t / 2 + layout.size(FurnitureOverlay.barHalo) / 2).rounded(.down))
            #expect(luma(frame.pixel(x: x, y: below)) < 90, "halo at (\(x), \(below)): \(frame.pixel(x: x, y: below))")
            // The north arrow's disc is dark, and its south half light: no light-theme white disc.
            let arrow = try #require(boxes.northArrow)
            var light = 0, white = 0
            for py in Int(arrow.minY)..<Int(arrow.maxY) {
                for px in Int(arrow.minX)..<Int(arrow.maxX) {
                    let l = luma(frame.pixel(x: px, y: py))
                    if l > 170 { light += 1 }
                    if l > 235 { white += 1 }
                }
            }
            let area = Int((arrow.maxX - arrow.minX) * (arrow.maxY - arrow.minY))
            #expect(light > 20 && light < area / 4, "\(light) light pixels of \(area)")
            #expect(white < area / 10, "\(white) white pixels of \(area)")
        }
    }

    /// The scale bar's round length while the zoom runs through two steps: its pixel length continuous
    /// (changing less than 2% a hundredth of a zoom level), the labels switching by a crossfade whose
    /// opacities always sum to one.
    @Test func theScaleBarChangesSmoothlyWhileTheCameraZooms() throws {
        let layout = FrameLayout(width: 1280, height: 720)
        var last: [String: Double] = [:]
        for k in 0...300 {
            let zoom = 6 + Double(k) / 100
            let v = Viewport(camera: Camera(center: LonLat(lon: 10, lat: 50), zoom: zoom), width: 1280, height: 720)
            let m = ScaleBarMeasure.bars(v, x: 100, y: 600, maxLength: layout.size(FrameLayout.scaleBarLength), units: .imperial)
            #expect(abs(m.bars.map(\.alpha).reduce(0, +) - 1) < 1e-9)
            for bar in m.bars {
                if let before = last[bar.step.label] { #expect(abs(bar.length / before - 1) < 0.02) }
                last[bar.step.label] = bar.length
            }
        }
        #expect(Set(last.keys).count >= 3, "\(last.keys)")
    }

    /// The arrow's direction, clockwise from up: from the centroid of its dark (south) half to that of
    /// its red (north) half (both halves about the disc's centre, so an error in where the disc sits
    /// does not turn it); the "N" beyond the tip is left out.
    static func arrowAngle(_ image: BGRAImage, box: Box) -> (angle: Double, pixels: Int) {
        var north = (x: 0.0, y: 0.0, n: 0), south = (x: 0.0, y: 0.0, n: 0)
        let cx = (box.minX + box.maxX) / 2, cy = (box.minY + box.maxY) / 2, r = (box.maxX - box.minX) / 2
        for y in Int(box.minY)..<Int(box.maxY) {
            for x in Int(box.minX)..<Int(box.maxX) {
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                guard dx * dx + dy * dy < 0.36 * r * r else { continue }
                let p = image.pixel(x: x, y: y)
                if Int(p.r) > 150 && Int(p.r) - Int(p.g) > 90 && Int(p.r) - Int(p.b) > 90 {
                    north = (north.x + dx, north.y + dy, north.n + 1)
                } else if Int(p.r) + Int(p.g) + Int(p.b) < 3 * 110 {
                    south = (south.x + dx, south.y + dy, south.n + 1)
                }
            }
        }
        guard north.n > 0, south.n > 0 else { return (0, north.n) }
        let dx = north.x / Double(north.n) - south.x / Double(south.n), dy = north.y / Double(north.n) - south.y / Double(south.n)
        return (atan2(dx, -dy) * 180 / .pi, north.n)
    }

    @Test func theNorthArrowTurnsWithTheBearing() throws {
        try Trip.withDirectory("furniture-arrow") { dir in
            let places = """
            {"name": "Oslo", "lat": 59.91, "lon": 10.75, "zoom": 9, "dwell": 1.5, "bearing": 30},
            {"name": "Bergen", "lat": 60.39, "lon": 5.32, "zoom": 9, "dwell": 1.5, "bearing": -100}
            """
            let (frames, scene) = try OpeningClosingRenderTests.render(Self.json(#""northArrow": true,"#, places: places, width: 1920, height: 1080), "arrow", in: dir)
            let t = Timeline(scene: scene)
            let box = try #require(FrameLayout(width: 1920, height: 1080).furniture(scene).northArrow)
            for (n, bearing) in [(7, 30.0), (t.frameCount - 2, -100.0)] {
                #expect(abs(t.values(at: n).camera.bearing - bearing) < 1e-6)
                Trip.dump(frames[n], "furniture-arrow-\(n)")
                let (angle, pixels) = Self.arrowAngle(frames[n], box: box)
                #expect(pixels > 40)
                #expect(abs(CameraTrackMath.turn(angle, -bearing)) < 3, "frame \(n): the arrow points \(angle)°, north is \(-bearing)°")
            }
        }
    }

    /// A heading-up chase camera turns the map as the mover turns: the arrow turns with it, frame by
    /// frame, pointing where north is on each (and an "auto" arrow shows while the map is turned).
    @Test(arguments: ["true", "\"auto\""])
    func theNorthArrowTurnsWithAHeadingUpCamera(arrow: String) throws {
        try Trip.withDirectory("furniture-heading") { dir in
            let walk = TrackFixture.walk(seed: 7007, count: 80, start: LonLat(lon: 10.75, lat: 59.91), stepKm: 0.2, turn: 40)
            try walk.gpx(start: TrackFixture.start).write(to: dir.appendingPathComponent("walk.gpx"), atomically: true, encoding: .utf8)
            let json = """
                {"video": {"width": 1920, "height": 1080, "fps": 10}, "northArrow": \(arrow),
                 "tracks": [{"file": "walk.gpx", "name": "Walker"}], "playback": {"speed": 120},
                 "camera": {"follow": "Walker", "zoom": 13, "headingUp": true}}
                """
            let (scene, t, frames) = try PlaybackRenderTests.render(json: json, name: "heading", in: dir)
            let box = try #require(FrameLayout(width: 1920, height: 1080).furniture(scene).northArrow)
            var bearings: [Double] = []
            for n in stride(from: t.frameCount / 5, to: t.frameCount - 2, by: t.frameCount / 7) {
                let bearing = t.values(at: n).camera.bearing
                guard abs(CameraTrackMath.turn(bearing, 0)) > 5 else { continue }
                bearings.append(bearing)
                Trip.dump(frames[n], "furniture-heading-\(n)")
                let (angle, pixels) = Self.arrowAngle(frames[n], box: box)
                #expect(pixels > 40, "frame \(n)")
                // (Within 5 degrees: the halves' centroids of a 76-pixel disc over a moving map, decoded
                // from H.264; a frame's bearing here changes by up to 15 degrees from the one before.)
                #expect(abs(CameraTrackMath.turn(angle, -bearing)) < 5, "frame \(n): the arrow points \(angle)°, north is \(-bearing)°")
            }
            // The walk turns: the frames checked show the map turned several ways.
            #expect(bearings.count >= 3)
            #expect((bearings.max() ?? 0) - (bearings.min() ?? 0) > 20, "\(bearings)")
        }
    }

    @Test func anAutoNorthArrowHidesWhileTheMapIsNorthUp() throws {
        try Trip.withDirectory("furniture-auto") { dir in
            let places = """
            {"name": "Oslo", "lat": 59.91, "lon": 10.75, "zoom": 9, "dwell": 1.5},
            {"name": "Bergen", "lat": 60.39, "lon": 5.32, "zoom": 9, "dwell": 1.5, "bearing": 45}
            """
            let (frames, scene) = try OpeningClosingRenderTests.render(Self.json(#""northArrow": "auto","#, places: places, width: 1920, height: 1080), "auto", in: dir)
            let box = try #require(FrameLayout(width: 1920, height: 1080).furniture(scene).northArrow)
            #expect(Self.arrowAngle(frames[7], box: box).pixels == 0)
            let turned = Self.arrowAngle(frames[frames.count - 2], box: box)
            #expect(turned.pixels > 40)
            #expect(abs(CameraTrackMath.turn(turned.angle, -45)) < 3)
        }
    }

    @Test func onTheGlobeTheNorthArrowPointsAlongTheMeridian() throws {
        // On the globe, north at the frame's centre is up; 30 degrees off it, the meridian through a
        // point of the frame leans: the arrow measures the centre's.
        let v = Viewport(camera: Camera(center: LonLat(lon: 20, lat: 70), zoom: 2, bearing: 0), width: 640, height: 360, projection: .globe)
        #expect(abs(NorthArrowAngle.degrees(v)) < 0.01)
        let turned = Viewport(camera: Camera(center: LonLat(lon: 20, lat: 70), zoom: 2, bearing: 25), width: 640, height: 360, projection: .globe)
        #expect(abs(NorthArrowAngle.degrees(turned) + 25) < 0.05)
    }

    @Test func theWatermarkIsThePictureAtItsOpacity() throws {
        try Trip.withDirectory("furniture-watermark") { dir in
            // Two colours, side by side, found nowhere on the map.
            let logo = try ImageSurface(width: 80, height: 40)
            try logo.withContext { cr in
                cr.rectangle(0, 0, 40, 40)
                cr.setSource(red: 0, green: 0, blue: 1, alpha: 1)
                cr.fill()
                cr.rectangle(40, 0, 40, 40)
                cr.setSource(red: 1, green: 0, blue: 1, alpha: 1)
                cr.fill()
            }
            try logo.writePNG(to: dir.appendingPathComponent("logo.png").path)
            let place = #"{"name": "Lyon", "lat": 45.76, "lon": 4.84, "zoom": 8, "dwell": 1}"#
            let mark = #""watermark": {"file": "logo.png", "corner": "bottom-right", "size": 0.2, "opacity": 0.6},"#
            let (frames, scene) = try OpeningClosingRenderTests.render(Self.json(mark, places: place), "mark", in: dir)
            let (plain, _) = try OpeningClosingRenderTests.render(Self.json("", places: place), "plain", in: dir)
            let layout = FrameLayout(width: 1280, height: 720)
            let size = FrameLayout.watermarkSize(try #require(scene.furniture.watermark), aspect: 2, layout: layout)
            #expect(size == (144, 72))
            let box = try #require(layout.furniture(scene, watermark: (144, 72)).watermark)
            #expect(box.maxX <= layout.safe.maxX && box.maxY <= layout.safe.maxY)
            Trip.dump(frames[5], "furniture-watermark")
            for (fx, colour) in [(0.25, (0.0, 0.0, 255.0)), (0.75, (255.0, 0.0, 255.0))] {
                for fy in [0.3, 0.5, 0.7] {
                    let x = Int(box.minX + fx * 144), y = Int(box.minY + fy * 72)
                    let p = frames[5].pixel(x: x, y: y), under = plain[5].pixel(x: x, y: y)
                    let want = (0.6 * colour.0 + 0.4 * Double(under.r), 0.6 * colour.1 + 0.4 * Double(under.g),
                                0.6 * colour.2 + 0.4 * Double(under.b))
                    #expect(abs(Double(p.r) - want.0) < 14 && abs(Double(p.g) - want.1) < 14 && abs(Double(p.b) - want.2) < 14,
                            "(\(x), \(y)): r\(p.r) g\(p.g) b\(p.b), want \(want)")
                }
            }
            // Outside its box the frame is the plain one's.
            let outside = (Int(box.minX) - 20, Int(box.minY) + 30)
            let p = frames[5].pixel(x: outside.0, y: outside.1), q = plain[5].pixel(x: outside.0, y: outside.1)
            #expect(abs(Int(p.r) - Int(q.r)) < 10 && abs(Int(p.b) - Int(q.b)) < 10)
        }
    }
}
