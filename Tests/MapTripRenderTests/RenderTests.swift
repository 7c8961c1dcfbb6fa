import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import MapTripRender
import Testing

/// The repository's Assets folder, found from this file.
let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Assets")
    .standardizedFileURL

/// Writes a frame to $MAPTRIP_TEST_DUMP/name.png when that is set, to look at by eye.
func dump(_ surface: ImageSurface, _ name: String) {
    if let dir = ProcessInfo.processInfo.environment["MAPTRIP_TEST_DUMP"] {
        try? surface.writePNG(to: dir + "/" + name + ".png")
    }
}

/// True when the pixel is within `tolerance` (0-255 per channel) of an opaque colour.
func looks(_ s: ImageSurface, _ p: (x: Double, y: Double), like c: Color, tolerance: Int = 6) -> Bool {
    let px = s.pixel(x: Int(p.x), y: Int(p.y))
    let want = (Int(c.blue * 255 + 0.5), Int(c.green * 255 + 0.5), Int(c.red * 255 + 0.5))
    return abs(Int(px.b) - want.0) <= tolerance && abs(Int(px.g) - want.1) <= tolerance
        && abs(Int(px.r) - want.2) <= tolerance && px.a == 255
}

func scene(_ places: [Place], title: String? = nil, width: Int = 640, height: Int = 360) -> Scene {
    Scene(title: title, video: Video(width: width, height: height, fps: 30), places: places)
}

@Suite struct ShapefileBaseMapTests {
    let style = MapStyle.standard

    func render(_ camera: Camera, width: Int = 640, height: Int = 360, scale: Double = 1) throws -> (ImageSurface, Viewport) {
        let map = try ShapefileBaseMap(assets: assets)
        let surface = try ImageSurface(width: width, height: height)
        let v = Viewport(camera: camera, width: width, height: height, scale: scale)
        try surface.withContext { try map.draw(v, in: $0) }
        return (surface, v)
    }

    @Test func closeUpOfKoreaHasLandAndSeaWhereTheyAre() throws {
        let (s, v) = try render(Camera(center: LonLat(lon: 127.5, lat: 36.5), zoom: 6))
        dump(s, "korea-z6")
        #expect(looks(s, v.pixel(LonLat(lon: 127.8, lat: 36.3))!, like: style.land))   // inland Korea
        #expect(looks(s, v.pixel(LonLat(lon: 125.0, lat: 36.0))!, like: style.water))  // Yellow Sea
        #expect(looks(s, v.pixel(LonLat(lon: 130.5, lat: 37.5))!, like: style.water))  // East Sea
        #expect(looks(s, v.pixel(LonLat(lon: 126.55, lat: 33.38))!, like: style.land))  // Jeju island
    }

    @Test func worldViewUsesCoarseDataAndShowsContinents() throws {
        let (s, v) = try render(Camera(center: LonLat(lon: 10, lat: 20), zoom: 1.5))
        dump(s, "world-z1.5")
        // No edge runs across the world: the row through the Arctic Ocean north of Scandinavia
        // (where PROJ's wrap of 180 to -180 once drew a line) is water from side to side there.
        let arctic = v.pixel(LonLat(lon: 3, lat: 69.1))!
        #expect(looks(s, arctic, like: style.water))
        #expect(looks(s, v.pixel(LonLat(lon: 28, lat: 26))!, like: style.land))    // Western Desert
        #expect(looks(s, v.pixel(LonLat(lon: -30, lat: 0))!, like: style.water))  // Atlantic
        #expect(looks(s, v.pixel(LonLat(lon: 80, lat: -20))!, like: style.water))  // Indian Ocean
        #expect(looks(s, v.pixel(LonLat(lon: 100, lat: 60))!, like: style.land))   // Siberia
    }

    @Test func antimeridianShowsBothSidesWithoutASeam() throws {
        // Chukotka straddles 180 degrees: land on both sides, and the column at 180 is land too.
        let (s, v) = try render(Camera(center: LonLat(lon: 180, lat: 67), zoom: 6))
        dump(s, "chukotka-z6")
        let west = v.pixel(LonLat(lon: 178.5, lat: 67.3))!, east = v.pixel(LonLat(lon: -178.5, lat: 67.3))!
        #expect(looks(s, west, like: style.land))
        #expect(looks(s, east, like: style.land))
        let seam = v.pixel(LonLat(lon: 180, lat: 67.3))!
        for dx in -1...1 {
            #expect(looks(s, (seam.x + Double(dx), seam.y), like: style.land, tolerance: 2))
        }
        #expect(looks(s, v.pixel(LonLat(lon: -173.6, lat: 67.5))!, like: style.water))  // Chukchi Sea
    }

    @Test func deepZoomKeepsCoordinatesSane() throws {
        // Zoom 14 over Busan's harbour: the 10m rings span millions of pixels here; clipping keeps
        // them inside Cairo's fixed-point range, so land and sea still land where they should.
        let (s, v) = try render(Camera(center: LonLat(lon: 129.04, lat: 35.10), zoom: 11))
        dump(s, "busan-z11")
        #expect(looks(s, v.pixel(LonLat(lon: 129.06, lat: 35.16))!, like: style.land))
        #expect(looks(s, v.pixel(LonLat(lon: 129.05, lat: 35.03))!, like: style.water))
    }
}

@Suite struct FrameRendererTests {
    @Test func pinStandsOnThePlaceAndLabelsRender() throws {
        let places = [Place(name: "Seoul 서울", position: LonLat(lon: 126.978, lat: 37.5665), zoom: 7),
                      Place(name: "Busan", position: LonLat(lon: 129.0756, lat: 35.1796), zoom: 7)]
        let sc = scene(places, title: "Korea")
        let r = try FrameRenderer(scene: sc, baseMap: try ShapefileBaseMap(assets: assets))
        let camera = Camera(center: places[0].position, zoom: 7)
        try r.render(FrameValues(camera: camera, reached: 1, current: 0, titleOpacity: 1))
        dump(r.surface, "frame-seoul")
        let v = r.viewport(camera)
        let tip = v.pixel(places[0].position)!
        // The pin's body: red, a little above the tip (outside its white centre dot).
        // Sizes are in layout units: the frame's shorter side over 1080.
        let u = r.layout.unit * 1.3
        let body = r.surface.pixel(x: Int(tip.x + 6.5 * u), y: Int(tip.y - 23 * u))
        #expect(body.r > 150 && body.g < 90 && body.b < 90)
        // Busan is not reached yet: no pin there.
        let busan = v.pixel(places[1].position)!
        let nothing = r.surface.pixel(x: Int(busan.x + 6.5 * u), y: Int(busan.y - 23 * u))
        #expect(!(nothing.r > 150 && nothing.g < 90 && nothing.b < 90))
        // The title card darkens the top of the frame.
        let card = r.surface.pixel(x: 320, y: 45)
        #expect(Int(card.r) + Int(card.g) + Int(card.b) < 300)
    }

    @Test func titleFadesAway() throws {
        let places = [Place(name: "A", position: LonLat(lon: 0, lat: 0))]
        let r = try FrameRenderer(scene: scene(places, title: "A title"), baseMap: try ShapefileBaseMap(assets: assets))
        let camera = Camera(center: LonLat(lon: -20, lat: 0), zoom: 5)  // open Atlantic
        try r.render(FrameValues(camera: camera, reached: 0, current: 0, titleOpacity: 0))
        let p = r.surface.pixel(x: 320, y: 45)
        #expect(looks(r.surface, (320, 45), like: MapStyle.standard.water), "\(p)")
    }
}

@Suite struct MapLayerTests {
    /// Province lines by importance: a file per zoom they show from (5 to 9), each fading in over the
    /// half level below it, the later ones thinner and lighter, none of them below zoom 4.5.
    @Test func provinceLinesShowFromTheirOwnZoomThinnerTheLater() {
        let provinces = MapLayer.standard(.standard).filter { $0.name == "provinces" }
        #expect(provinces.map(\.minZoom) == [5, 6, 7, 8, 9])
        #expect(provinces.map(\.source) == (5...9).map { "10m/ne_10m_admin_1_states_provinces_lines_z\($0)" })
        #expect(provinces.allSatisfy { $0.opacity(zoom: $0.minZoom - 0.5) == 0 && $0.opacity(zoom: $0.minZoom) == 1 })
        #expect(provinces.allSatisfy { $0.opacity(zoom: 4.4) == 0 })
        let strokes = provinces.compactMap { if case .stroke(let s) = $0.symbolizer { s } else { nil } }
        #expect(strokes.count == 5)
        for (a, b) in zip(strokes, strokes.dropFirst()) {
            #expect(b.width < a.width && b.color.alpha < a.color.alpha, "\(a) then \(b)")
        }
        #expect(strokes[0] == MapStyle.standard.province)
    }

    @Test func fadesRampLinearlyAndBordersCrossFade() throws {
        let layers = MapLayer.standard(.standard)
        let lakes = layers.first { $0.name == "lakes" }!
        #expect(lakes.opacity(zoom: 2.9) == 0)
        #expect(abs(lakes.opacity(zoom: 3.25) - 0.5) < 1e-12)
        #expect(lakes.opacity(zoom: 3.5) == 1 && lakes.opacity(zoom: 12) == 1)
        // The coarse and detailed borders add up to one border all through the switch.
        let borders = layers.filter { $0.name == "borders" }
        #expect(borders.count == 2)
        // Beside them, from zoom 9 only, the lines that run beside a border (the DMZ's limits).
        let alternates = try #require(layers.first { $0.name == "border alternates" })
        #expect(alternates.opacity(zoom: 8.4) == 0 && alternates.opacity(zoom: 9) == 1)
        for z in stride(from: 2.8, through: 3.7, by: 0.05) {
            let sum = borders.reduce(0) { $0 + $1.opacity(zoom: z) }
            #expect(abs(sum - 1) < 1e-9, "zoom \(z): \(sum)")
        }
        // Land switches at once: exactly one land layer at every zoom.
        for z in stride(from: 0.0, through: 20, by: 0.25) {
            #expect(layers.filter { $0.name == "land" && $0.opacity(zoom: z) == 1 }.count == 1)
        }
    }
}
