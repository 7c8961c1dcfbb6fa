import Cairo
import FFmpeg
import Foundation
import MapTripGeometry
import MapTripRecord
import MapTripRender
import MapTripScene
import MapTripSupport
import MapTripTime
import Testing

/// The themes' looks (issue #56): land and sea apart in CIE Lab in every theme, on paper and on
/// decoded frames; the relief and satellite themes' world pictures on Web Mercator, a PROJ plane and
/// the globe, giving way to the vector land past zoom 5; the counter's tabular figures; the credit's
/// size. Colour differences are CIE 1976 (ΔE*ab, Lab from sRGB through XYZ, D65 white).
@Suite("Looks")
struct LooksTests {
    // MARK: Colour differences

    /// Lab of well-known colours (sRGB, D65; as Bruce Lindbloom's and CIE's tables give them).
    @Test func labMatchesPublishedValues() throws {
        func near(_ c: Color, _ l: Double, _ a: Double, _ b: Double) -> Bool {
            let lab = c.lab
            return abs(lab.l - l) < 0.05 && abs(lab.a - a) < 0.05 && abs(lab.b - b) < 0.05
        }
        #expect(near(Color(red: 1, green: 1, blue: 1), 100, 0, 0))
        #expect(near(Color(red: 0, green: 0, blue: 0), 0, 0, 0))
        #expect(near(Color(red: 1, green: 0, blue: 0), 53.2408, 80.0925, 67.2032))
        #expect(near(Color(red: 0, green: 1, blue: 0), 87.7347, -86.1827, 83.1793))
        #expect(near(Color(red: 0, green: 0, blue: 1), 32.2970, 79.1875, -107.8602))
        #expect(near(try #require(Color(hex: "#808080")), 53.5850, 0, 0))
        // The issue's measure of the themes as they were: light 26, atlas 19, dark 9.5.
        let old = [("#f3efe4", "#a9d3ea", 26.0), ("#efe2c4", "#c4dcd6", 18.8), ("#2c3442", "#17202e", 9.5)]
        for (land, sea, e) in old {
            let d = try #require(Color(hex: land)).deltaE76(try #require(Color(hex: sea)))
            #expect(abs(d - e) < 0.1, "\(land) on \(sea): \(d)")
        }
    }

    /// Every theme's land stands 15 or more apart from its sea and its lakes.
    @Test(arguments: Style.themes)
    func everyThemesLandAndSeaAreApart(name: String) throws {
        let style = try #require(Style.theme(name))
        #expect(style.land.deltaE76(style.sea) >= 15, "\(name): land \(style.land) on sea \(style.sea)")
        #expect(style.land.deltaE76(style.lakes) >= 15, "\(name): land \(style.land) by lakes \(style.lakes)")
        // Vehicles: a body and an outline far apart, so the shape reads filled on any ground.
        #expect(style.vehicleFill.deltaE76(style.vehicleOutline) >= 50, "\(name): vehicle")
    }

    // MARK: Rendering

    /// A scene of one place, `extra` JSON members added, rendered through RenderJob (what `maptrip
    /// render` does) at 640x360; its decoded frames, and the viewport of frame `n` (nil: the middle of
    /// the place's rest).
    struct Rendered {
        var frames: [BGRAImage]
        var viewport: Viewport
        var frame: Int
        var image: BGRAImage { frames[frame] }
        var summary: RecordSummary

        /// The mean colour of the 5x5 pixels about a place's pixel (nil: off the frame).
        func color(at p: LonLat) -> Color? {
            guard let q = viewport.pixel(p), q.x >= 3, q.y >= 3, q.x < Double(image.width - 3),
                  q.y < Double(image.height - 3) else { return nil }
            var sum = (0, 0, 0)
            for dy in -2...2 {
                for dx in -2...2 {
                    let px = image.pixel(x: Int(q.x) + dx, y: Int(q.y) + dy)
                    sum = (sum.0 + Int(px.r), sum.1 + Int(px.g), sum.2 + Int(px.b))
                }
            }
            return Color(red: Double(sum.0) / 25 / 255, green: Double(sum.1) / 25 / 255, blue: Double(sum.2) / 25 / 255)
        }
    }

    static func render(_ place: LonLat, zoom: Double, extra: String, in dir: URL, name: String = "look") throws -> Rendered {
        LibraryLogging.configure(verbose: false)
        // No opening: the whole second is the look at `zoom`, its middle frame a still one.
        let json = """
        {"video": {"width": 640, "height": 360, "fps": 10}, "opening": false, \(extra),
         "places": [{"name": "A", "lat": \(place.lat), "lon": \(place.lon), "zoom": \(zoom), "dwell": 1}]}
        """
        let url = dir.appendingPathComponent(name + ".json"), out = dir.appendingPathComponent(name + ".mp4")
        try Data(json.utf8).write(to: url)
        let summary = try RenderJob(scene: url, output: out, environment: RenderEnvironment(assets: Trip.assets)).run()
        let scene = try SceneLoader.loadForRender(contentsOf: url)
        let timeline = Timeline(scene: scene)
        let n = (timeline.slots[0].arriveFrame + timeline.slots[0].endFrame) / 2
        let camera = timeline.values(at: n).camera
        let viewport = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap()).viewport(camera)
        let frames = try Trip.decode(out).frames
        try #require(frames.count == timeline.frameCount)
        return Rendered(frames: frames, viewport: viewport, frame: n, summary: summary)
    }

    /// Land (inland Spain) and sea (off Galicia) on a decoded frame of each theme at zoom 4: 15 or more
    /// apart, as the theme's colours are.
    @Test(arguments: Style.themes)
    func renderedLandAndSeaAreApart(name: String) throws {
        try Trip.withDirectory("looks-\(name)") { dir in
            let r = try Self.render(LonLat(lon: -4, lat: 40), zoom: 4, extra: "\"style\": {\"theme\": \"\(name)\"}", in: dir)
            let land = try #require(r.color(at: LonLat(lon: -6, lat: 38.3)))
            let sea = try #require(r.color(at: LonLat(lon: -14, lat: 41)))
            #expect(land.deltaE76(sea) >= 15, "\(name): land \(land) sea \(sea): \(land.deltaE76(sea))")
            if WorldPictureCheck.pictures[name] == nil {
                // Vector themes: the frame shows the theme's own colours.
                let style = try #require(Style.theme(name))
                #expect(land.deltaE76(style.land) < 4, "\(name): land \(land), theme \(style.land)")
                #expect(sea.deltaE76(style.sea) < 4, "\(name): sea \(sea), theme \(style.sea)")
            }
        }
    }

    // MARK: World pictures

    /// The source pictures, decoded by the test on its own, and their colour over a small box of
    /// ground (the mean of its pixels, independent of the tiles' resampling).
    enum WorldPictureCheck {
        static let pictures = ["relief": "pictures/relief.jpg", "satellite": "pictures/satellite.jpg"]

        static func image(_ theme: String) throws -> BGRAImage {
            let path = try #require(pictures[theme])
            return try ImageDecoder.decode(try Data(contentsOf: Trip.assets.appendingPathComponent(path)))
        }

        /// The mean colour of the picture within `radius` degrees of a place.
        static func color(_ image: BGRAImage, at p: LonLat, radius: Double = 0.75) -> Color {
            let w = Double(image.width), h = Double(image.height)
            let x0 = Int((p.lon - radius + 180) / 360 * w), x1 = Int((p.lon + radius + 180) / 360 * w)
            let y0 = Int((90 - p.lat - radius) / 180 * h), y1 = Int((90 - p.lat + radius) / 180 * h)
            var sum = (0.0, 0.0, 0.0), n = 0.0
            for y in y0...y1 {
                for x in x0...x1 {
                    let px = image.pixel(x: x, y: y)
                    sum = (sum.0 + Double(px.r), sum.1 + Double(px.g), sum.2 + Double(px.b))
                    n += 1
                }
            }
            return Color(red: sum.0 / n / 255, green: sum.1 / n / 255, blue: sum.2 / n / 255)
        }
    }

    /// Places whose picture colour is even over a degree or so, and far from the vector land's.
    static let sahara = LonLat(lon: 10, lat: 23), congo = LonLat(lon: 22, lat: 1), arabia = LonLat(lon: 47, lat: 21)
    static let amazon = LonLat(lon: -62, lat: -6), tibet = LonLat(lon: 88, lat: 33), pacific = LonLat(lon: -150, lat: 0)
    static let china = LonLat(lon: 112, lat: 28), guinea = LonLat(lon: -5, lat: 8)

    /// A decoded frame of a picture theme shows the picture's colours where the picture has them, on
    /// Web Mercator, a PROJ plane and the globe.
    @Test(arguments: [
        ("relief", "{}", LonLat(lon: 20, lat: 12), 2.0, [sahara, amazon, tibet, arabia, china, guinea]),
        ("relief", "{\"projection\": \"+proj=robin\"}", LonLat(lon: 20, lat: 12), 2.0, [sahara, amazon, tibet, arabia, china, guinea]),
        ("satellite", "{\"projection\": \"globe\"}", LonLat(lon: 20, lat: 10), 2.0, [sahara, congo, arabia]),
        ("satellite", "{}", LonLat(lon: -60, lat: 0), 2.0, [amazon, sahara, pacific]),
    ])
    func aPictureThemeShowsThePicture(theme: String, map: String, center: LonLat, zoom: Double, places: [LonLat]) throws {
        try Trip.withDirectory("looks-picture") { dir in
            let r = try Self.render(center, zoom: zoom, extra: "\"style\": {\"theme\": \"\(theme)\"}, \"map\": \(map)", in: dir)
            Trip.dump(r.image, "looks-\(theme)-\(map.contains("globe") ? "globe" : map.contains("robin") ? "robinson" : "mercator")")
            let picture = try WorldPictureCheck.image(theme)
            let style = try #require(Style.theme(theme))
            #expect(r.summary.warnings.isEmpty, "\(r.summary.warnings)")
            var telling = 0
            for p in places {
                let seen = try #require(r.color(at: p), "\(p) is off the frame")
                let want = WorldPictureCheck.color(picture, at: p)
                let vector = p == Self.pacific ? style.sea : style.land
                #expect(seen.deltaE76(want) < 8, "\(theme) \(map) at \(p): frame \(seen), picture \(want): \(seen.deltaE76(want))")
                if want.deltaE76(vector) > 15 && seen.deltaE76(vector) > 15 { telling += 1 }
            }
            // Places where the picture is far from the vector map's colour: the check tells them apart.
            #expect(telling >= 2, "\(theme) \(map): \(telling) places tell the picture from the vector map")
        }
    }

    /// Past zoom 5 the picture gives way to the vector land: the Sahara is the picture's sand at zoom
    /// 4, the satellite theme's vector land at zoom 7, half way between at 5.5.
    @Test func thePictureFadesToTheVectorLandPastZoomFive() throws {
        try Trip.withDirectory("looks-fade") { dir in
            let picture = try WorldPictureCheck.image("satellite")
            let style = Style.satellite
            let ground = LonLat(lon: 11, lat: 24.5)
            let sand = WorldPictureCheck.color(picture, at: ground, radius: 0.1)
            var seen: [Double: Color] = [:]
            for zoom in [4.0, 5.5, 7.0] {
                let r = try Self.render(LonLat(lon: 12, lat: 24), zoom: zoom, extra: "\"style\": {\"theme\": \"satellite\"}",
                                        in: dir, name: "fade-\(zoom)")
                try #require(abs(r.viewport.camera.zoom - zoom) < 0.01)
                seen[zoom] = try #require(r.color(at: ground))
            }
            let z4 = try #require(seen[4]), z55 = try #require(seen[5.5]), z7 = try #require(seen[7])
            #expect(z4.deltaE76(sand) < 8, "zoom 4: \(z4), picture \(sand)")
            #expect(z7.deltaE76(style.land) < 4, "zoom 7: \(z7), vector land \(style.land)")
            let half = sand.mixed(with: style.land, 0.5)
            #expect(z55.deltaE76(half) < 8, "zoom 5.5: \(z55), half way \(half)")
        }
    }

    /// The credit names the picture's source with the vector map's.
    @Test func thePictureIsCredited() throws {
        let map = try BaseMaps.make(for: try SceneLoader.decode(Data("""
            {"style": {"theme": "satellite"}, "places": [{"name": "A", "lat": 0, "lon": 0}]}
            """.utf8), file: "s.json"), format: FrameFormat(width: 640, height: 360, fps: 10),
            sceneDirectory: Trip.assets, environment: RenderEnvironment(assets: Trip.assets))
        #expect(map.attribution?.hasPrefix("NASA Blue Marble, Natural Earth") == true, "\(map.attribution ?? "none")")
        #expect(map is PictureBaseMap)
    }

    // MARK: Text

    /// The credit is never under 12 pixels, and grows with the frame.
    @Test func theCreditIsLegibleAtEverySize() {
        let size = AttributionOverlay().style.size
        for unit in [360.0 / 1080, 720.0 / 1080, 1, 2] {
            #expect(size * AttributionOverlay.scale(unit: unit, size: size) >= 12)
        }
        #expect(AttributionOverlay.scale(unit: 2, size: size) == 2)
    }
}
