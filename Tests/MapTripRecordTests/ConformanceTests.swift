import Cairo
import FFmpeg
import Foundation
import MapTripBatch
import MapTripGeometry
import MapTripTime
import MapTripOutput
@testable import MapTripRecord
import MapTripRender
import Testing
import TestSupport

// The conformance matrix: every layer x every output path x {Web Mercator, the globe, a PROJ CRS}.
// Each output is a real render (RenderJob, as `maptrip render` runs it) decoded back; each cell
// compares a frame of it with preview's PNG of the same frame (PreviewJob, as `maptrip preview`
// writes it): the frame as a whole within the codec's loss, and the layer itself where preview
// draws it (the pixels that differ between preview and the same frame drawn without the layer
// must be much nearer preview's than the frame without it). A cell that cannot apply says why.
// Then every fast path is switched off, one at a time and all together, on the output where they
// all apply (H.264 4:2:0), and every cell must hold again.

/// The three projections of the matrix.
enum MatrixProjection: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case webMercator = "EPSG:3857"
    case globe = "globe"
    case laea = "EPSG:3035"

    var testDescription: String { rawValue }
}

/// The output paths of the matrix: every way a render writes frames.
enum MatrixOutput: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case h264 = "H.264 4:2:0 MP4"
    case hevc = "HEVC MP4"
    case vp9 = "VP9 WebM"
    case vp9Alpha = "VP9 WebM with alpha"
    case av1 = "AV1 WebM"
    case prores = "ProRes 4444 MOV with alpha"
    case h264Lossless = "H.264 4:4:4 --crf 0"
    case gif = "GIF"
    case png = "PNG sequence"
    case hls = "--live HLS"

    var testDescription: String { rawValue }

    /// Whether it is the matrix's column of an output with alpha: it is given the scene with a
    /// transparent background only.
    var alpha: Bool { self == .vp9Alpha || self == .prores }

    /// Whether it can carry alpha besides its opaque column: GIF (one level of transparency) and
    /// PNG are given the transparent scene too.
    var alsoTransparent: Bool { self == .gif || self == .png }

    /// Whether it writes the transparent scene at all.
    var carriesAlpha: Bool { alpha || alsoTransparent }

    /// The output file (an image sequence's pattern, a playlist) in `directory`.
    func path(in directory: URL, name: String) -> String {
        let base = directory.appendingPathComponent(name).path
        switch self {
        case .h264, .hevc, .h264Lossless: return base + ".mp4"
        case .vp9, .vp9Alpha, .av1: return base + ".webm"
        case .prores: return base + ".mov"
        case .gif: return base + ".gif"
        case .png: return base + "_%03d.png"
        case .hls: return base + "/live.m3u8"
        }
    }

    var request: (codec: VideoCodec?, options: EncodingOptions) {
        switch self {
        case .hevc: (.hevc, EncodingOptions())
        case .av1: (.av1, EncodingOptions())
        case .h264Lossless: (nil, EncodingOptions(crf: 0))
        default: (nil, EncodingOptions())
        }
    }

    /// The whole frame's least PSNR against preview, and why.
    var minimumPSNR: Double {
        switch self {
        case .h264, .hevc, .vp9, .vp9Alpha, .av1, .hls: 35   // 4:2:0: the issue's bound
        case .prores, .h264Lossless, .png: 45                 // 4:4:4 and lossless
        // One palette of 256 colours for the whole clip (GIFPalettePass), dithered, and one level of
        // transparency: the frame's error is the palette's, not the drawing's (a half-transparent
        // card is either shown or not); the layer check still holds each layer to preview.
        case .gif: 20
        }
    }
}

/// A layer of the frame, and where and when the matrix looks for it.
struct MatrixLayer: Sendable, CustomStringConvertible {
    enum Without: Sendable {
        /// The frame drawn without the overlays matching.
        case overlays(@Sendable (Overlay) -> Bool)
        /// The frame drawn over no map.
        case map
        /// The scene with its text edited: `of` replaced with `with` (the globe's atmosphere in the
        /// colour of space, a style without its labels, no privacy zone).
        case edited(of: String, with: String)
        /// The same scene over its map (the layer is the transparency itself).
        case opaque
    }

    var name: String
    /// The scene it is looked for in.
    var scene: MatrixScene
    var frame: Int
    var without: Without
    /// Only pixels of this colour in preview count (a route's travelled or dashed leg), if any.
    var tint: (r: Int, g: Int, b: Int)?
    /// Where the layer has no cell in a render (of the transparent scene or not), and why (nil: it applies).
    var notApplicable: @Sendable (MatrixProjection, MatrixOutput, _ transparent: Bool) -> String?

    var description: String { name }

    static func overlay<T: Overlay>(_ type: T.Type) -> Without { .overlays { Swift.type(of: $0) == type } }

    /// The overlays' layers cannot apply where the output has no frames of them: none such.
    static let always: @Sendable (MatrixProjection, MatrixOutput, Bool) -> String? = { _, _, _ in nil }

    static let mapOnly: @Sendable (MatrixProjection, MatrixOutput, Bool) -> String? = { _, output, transparent in
        transparent ? "\(output.rawValue) is rendered here with a transparent background: it has no map" : nil
    }

    /// Every layer of the matrix.
    static let all: [MatrixLayer] = [
        MatrixLayer(name: "map (embedded)", scene: .main, frame: 36, without: .map, notApplicable: mapOnly),
        MatrixLayer(name: "map (raster tiles; reprojected off Web Mercator)", scene: .tiles, frame: 36, without: .map,
                    notApplicable: mapOnly),
        MatrixLayer(name: "globe's rim and atmosphere", scene: .main, frame: 5, without: .atmosphere,
                    notApplicable: { projection, output, transparent in
                        projection != .globe ? "only the globe has a rim and an atmosphere"
                            : transparent ? "\(output.rawValue) is rendered here with a transparent background: no globe" : nil
                    }),
        MatrixLayer(name: "graticule", scene: .main, frame: 5, without: overlay(GraticuleOverlay.self), notApplicable: always),
        MatrixLayer(name: "route (drawing)", scene: .main, frame: 25, without: overlay(RouteOverlay.self), notApplicable: always),
        MatrixLayer(name: "route (travelled)", scene: .main, frame: 55, without: overlay(RouteOverlay.self),
                    tint: MatrixScene.travelled, notApplicable: always),
        MatrixLayer(name: "route (dashed)", scene: .main, frame: 55, without: overlay(RouteOverlay.self),
                    tint: MatrixScene.dashed, notApplicable: always),
        MatrixLayer(name: "pins and labels", scene: .main, frame: 36, without: overlay(PlacesOverlay.self), notApplicable: always),
        MatrixLayer(name: "vehicle", scene: .main, frame: 25, without: overlay(VehicleOverlay.self), notApplicable: always),
        MatrixLayer(name: "photo card", scene: .main, frame: 36, without: overlay(PhotoOverlay.self), notApplicable: always),
        MatrixLayer(name: "caption", scene: .main, frame: 36, without: overlay(CaptionOverlay.self), notApplicable: always),
        MatrixLayer(name: "title card", scene: .main, frame: 5, without: overlay(TitleOverlay.self), notApplicable: always),
        MatrixLayer(name: "end card", scene: .main, frame: 66, without: overlay(TitleOverlay.self), notApplicable: always),
        MatrixLayer(name: "scale bar, north arrow, watermark", scene: .main, frame: 36, without: overlay(FurnitureOverlay.self),
                    notApplicable: always),
        MatrixLayer(name: "distance counter", scene: .main, frame: 36, without: overlay(DistanceOverlay.self), notApplicable: always),
        MatrixLayer(name: "credit", scene: .main, frame: 36, without: overlay(AttributionOverlay.self),
                    notApplicable: { _, _, transparent in transparent ? "no map, no map's credit" : nil }),
        MatrixLayer(name: "transparent background", scene: .main, frame: 36, without: .opaque,
                    notApplicable: { _, output, transparent in
                        transparent ? nil
                            : output.carriesAlpha ? "the opaque render of \(output.rawValue): its transparent render holds this cell"
                            : output == .vp9 ? "VP9 with a transparent background is the VP9 WebM with alpha column"
                            : "\(output.rawValue) has no alpha channel: a transparent scene is refused (checked)"
                    }),
        // The styled vector map: held at the first place (frame 10), composited in the flight (30).
        MatrixLayer(name: "styled vector map", scene: .vector, frame: 10, without: .map, notApplicable: mapOnly),
        MatrixLayer(name: "styled map's labels (at rest)", scene: .vector, frame: 10, without: .mapLabels, notApplicable: mapOnly),
        MatrixLayer(name: "styled map's labels (flight)", scene: .vector, frame: 30, without: .mapLabels, notApplicable: mapOnly),
        MatrixLayer(name: "route over the styled map", scene: .vector, frame: 30, without: overlay(RouteOverlay.self),
                    notApplicable: always),
        MatrixLayer(name: "pins and labels over the styled map", scene: .vector, frame: 50, without: overlay(PlacesOverlay.self),
                    notApplicable: always),
        // The playback: followed heading-up (frame 20), then at rest on the whole route (the outro's end).
        MatrixLayer(name: "styled map turned heading-up", scene: .playback, frame: 20, without: .map, notApplicable: mapOnly),
        MatrixLayer(name: "movers", scene: .playback, frame: 20, without: .movers, notApplicable: always),
        MatrixLayer(name: "travelled lines (turned)", scene: .playback, frame: 20, without: .travelledLines, notApplicable: always),
        MatrixLayer(name: "readouts", scene: .playback, frame: 20, without: overlay(ReadoutOverlay.self), notApplicable: always),
        MatrixLayer(name: "travelled lines kept (camera at rest)", scene: .playback, frame: MatrixScene.playbackRest,
                    without: .travelledLines, notApplicable: always),
        MatrixLayer(name: "privacy zone", scene: .playback, frame: MatrixScene.playbackRest, without: .privacy,
                    notApplicable: always),
    ]
}

extension MatrixLayer.Without {
    /// The scene with the globe's atmosphere and rim in the colour of space.
    static let atmosphere = Self.edited(of: #""style": {"#, with: ##""style": { "atmosphere": "#05070d","##)
    /// A playback's movers (their dots and names) and its travelled lines: the two layers of `MoverOverlay`.
    static let movers = Self.overlays { ($0 as? MoverOverlay).map { !$0.drawsLines } ?? false }
    static let travelledLines = Self.overlays { ($0 as? MoverOverlay).map { !$0.drawsMovers } ?? false }
    /// The vector map's style without its symbol layers.
    static let mapLabels = Self.edited(of: MatrixScene.styleFile, with: MatrixScene.unlabelledStyleFile)
    /// The playback without its privacy zone.
    static let privacy = Self.edited(of: MatrixScene.privacyKey, with: "")
}

/// The scenes of the matrix, written into a test's folder.
enum MatrixScene: String, CaseIterable, Sendable {
    /// Every overlay: a title, a graticule, three places (a caption and a photo on the second, the
    /// third's leg dashed), a plane, the distance, an end card. No opening: its frame 5 is the title
    /// card over a still map, as every layer's frame is a still one or a flight's (the opening's
    /// moving frames are OpeningClosingRenderTests').
    case main
    /// The same over raster tiles of a folder (reprojected on the globe and in a PROJ CRS).
    case tiles
    /// The styled vector map (`map.style` over the Helsinki PMTiles, `MatrixFixture.style`, its streets'
    /// and places' names labelled): a walk between two places, the trip's route, pins and labels on top.
    /// Its frames: the first place at rest (a held picture), the flight (composited from the raster
    /// cache, labels placed over each frame), the second place at rest.
    case vector
    /// A playback over the same map: two recorded walks (`anna`, `ben`), the camera following Anna
    /// heading-up (turned frames), her readouts, a privacy zone on Ben's middle; then the outro flies
    /// out to the whole route and rests there (the travelled lines kept from frame to frame, `KeptLines`).
    case playback

    static let travelled = (r: 0x10, g: 0xc0, b: 0x60)
    static let dashed = (r: 0x90, g: 0x20, b: 0xff)

    /// A frame of the playback's outro where the camera rests on the whole route.
    static let playbackRest = 78

    /// Whether the matrix renders it with a transparent background too (where the output carries alpha):
    /// not the vector scene, which without its map is the main scene's overlays again.
    var rendersTransparent: Bool { self == .main || self == .playback }

    /// The outputs it is rendered to. The street scenes go through each distinct way pixels are written
    /// (4:2:0 planar, 4:4:4, alpha, a GIF's palette), not every container and codec: every output
    /// for them added 4 minutes to the matrix on 2 cores (268 s before them, 526 s with them), and the
    /// codecs that write the same 4:2:0 planes hold the main scene's cells already. (AV1 at its default
    /// CRF 35 also loses detail there: 32.6 dB against preview on the playback's frame in EPSG:3035,
    /// the codec's loss: the decoded frame 20 matches preview's frame 20 best, H.264's 36 dB.)
    var outputs: [MatrixOutput] {
        switch self {
        case .main, .tiles: MatrixOutput.allCases
        case .vector, .playback: [.h264, .h264Lossless, .prores, .gif]
        }
    }

    /// The least PSNR of a frame with a fast path off against every fast path on (near lossless 4:2:0).
    /// A flight composited from the raster cache is its tiles resampled, not the vectors drawn: on the
    /// main scene's smooth map 37.7 dB; on the streets (thin casings, buildings' edges) 34.25 dB, the
    /// vector scene's frame 26: no shift (whole or half pixel: 0, 0 fits best), the same line widths,
    /// antialiased edges softened by up to 25 levels.
    var fastPathPSNR: Double {
        switch self {
        case .main, .tiles: 35
        case .vector, .playback: 33
        }
    }

    /// The vector tiles (tools/helsinki-tiles.sh, committed).
    static let vectorTiles = Trip.assets.appendingPathComponent("tiles/helsinki.pmtiles").path
    /// The style the vector scenes name, and the same without its symbol layers (the map's labels).
    static let styleFile = #""style": "style.json""#
    static let unlabelledStyleFile = #""style": "style-unlabelled.json""#

    /// The playback's recordings: seeded walks through the centre, Ben's starting some 90 m from Anna's.
    static let anna = TrackFixture.walk(seed: 6101, count: 24, start: LonLat(lon: 24.9420, lat: 60.1690), stepKm: 0.03,
                                        turn: 15, heading: 70)
    static let ben = TrackFixture.walk(seed: 6102, count: 24, start: LonLat(lon: 24.9410, lat: 60.1697), stepKm: 0.03,
                                       turn: 15, heading: 80)
    /// A privacy zone on Ben's middle: his line is not drawn within 100 m of it (Anna keeps 236 m from it).
    static let privacyKey: String = {
        let home = ben.points[ben.points.count / 2]
        return #""privacy": [ { "lat": \#(home.lat), "lon": \#(home.lon), "radius": 100 } ],"#
    }()

    /// The scene's file, transparent or not.
    func json(_ projection: MatrixProjection, transparent: Bool) -> String {
        let background = transparent ? #""background": "transparent","# : ""
        let streets = #""tiles": \#(Trip.quoted(Self.vectorTiles)), \#(Self.styleFile), "attribution": "© OpenStreetMap contributors", "#
        switch self {
        case .main, .tiles: break
        case .vector:
            return """
            {
              "video": { "width": 384, "height": 216, "fps": 10 },
              "map": { \(streets)"projection": "\(projection.rawValue)" },
              \(background)
              "vehicle": "walk",
              "dwell": 2,
              "flight": 2,
              "opening": false,
              "route": { "path": "straight", "width": 14 },
              "places": [
                { "name": "Central Station", "lat": 60.1712, "lon": 24.9414, "zoom": 16 },
                { "name": "Senate Square", "lat": 60.1693, "lon": 24.9517, "zoom": 16.5, "dwell": 4 }
              ]
            }
            """
        case .playback:
            return """
            {
              "video": { "width": 384, "height": 216, "fps": 10 },
              "map": { \(streets)"projection": "\(projection.rawValue)" },
              \(background)
              "tracks": [ { "file": "anna.gpx", "name": "Anna", "color": "#d01c1c" },
                          { "file": "ben.gpx", "name": "Ben", "color": "#1c3fd0" } ],
              "playback": { "speed": 40 },
              "camera": { "follow": "Anna", "zoom": 16, "headingUp": true, "intro": 0 },
              "readouts": [ "speed", "distance", "elapsed" ],
              \(Self.privacyKey)
              "outro": 3
            }
            """
        }
        let tiles = self == .tiles ? #""tiles": "tiles/{z}/{x}/{y}.png", "attribution": "Test tiles", "maxZoom": 6, "# : ""
        return """
        {
          "title": "Conformance",
          "video": { "width": 384, "height": 216, "fps": 10 },
          "map": { \(tiles)"projection": "\(projection.rawValue)", "graticule": 10 },
          \(background)
          "vehicle": "plane",
          "distance": true,
          "scaleBar": true,
          "northArrow": true,
          "watermark": { "file": "photo.png", "corner": "bottom-left", "size": 0.1, "opacity": 0.7 },
          "dwell": 2,
          "flight": 1,
          "opening": false,
          "style": { "graticule": { "color": "#8040a0", "width": 3 } },
          "route": { "width": 14, "travelled": { "color": "#10c060" } },
          "end": { "title": "The end", "subtitle": "three stops" },
          "outro": 1,
          "places": [
            { "name": "Paris", "lat": 48.8566, "lon": 2.3522, "zoom": 2 },
            { "name": "Berlin", "lat": 52.52, "lon": 13.405, "zoom": 4.5, "caption": "Day 2 · Berlin", "photo": "photo.png" },
            { "name": "Vienna", "lat": 48.2082, "lon": 16.3738, "zoom": 4.5, "route": { "color": "#9020ff", "dash": [6, 6] } }
          ]
        }
        """
    }
}

/// A folder holding the matrix's scenes, photo and tiles.
struct MatrixFixture {
    let directory: URL

    /// Writes everything into `directory`.
    init(_ directory: URL, projection: MatrixProjection) throws {
        self.directory = directory
        for scene in MatrixScene.allCases {
            try Data(scene.json(projection, transparent: false).utf8).write(to: url(scene, transparent: false))
            try Data(scene.json(projection, transparent: true).utf8).write(to: url(scene, transparent: true))
        }
        for (name, walk) in [("anna", MatrixScene.anna), ("ben", MatrixScene.ben)] {
            try walk.gpx(start: TrackFixture.start).write(to: directory.appendingPathComponent(name + ".gpx"), atomically: true,
                                                          encoding: .utf8)
        }
        try Data(Self.style(labelled: true).utf8).write(to: directory.appendingPathComponent("style.json"))
        try Data(Self.style(labelled: false).utf8).write(to: directory.appendingPathComponent("style-unlabelled.json"))
        // The photo: four colours found nowhere else in the frame.
        let photo = try ImageSurface(width: 64, height: 48)
        try photo.withContext { cr in
            for (i, c) in [(1.0, 0.0, 0.8), (0.0, 0.9, 0.9), (1.0, 0.85, 0.0), (0.2, 0.1, 0.6)].enumerated() {
                cr.rectangle(Double(i % 2) * 32, Double(i / 2) * 24, 32, 24)
                cr.setSource(red: c.0, green: c.1, blue: c.2, alpha: 1)
                cr.fill()
            }
        }
        try photo.writePNG(to: directory.appendingPathComponent("photo.png").path)
        try Self.writeTiles(to: directory.appendingPathComponent("tiles"))
    }

    /// The vector scenes' style: land, water, parks, buildings, streets over a casing, and (`labelled`)
    /// the streets' names along them and the places' names, dark on a light halo.
    static func style(labelled: Bool) -> String {
        let labels = """
            ,
            {"id": "street-names", "type": "symbol", "source": "openmaptiles", "source-layer": "transportation_name",
             "layout": {"symbol-placement": "line", "text-field": ["coalesce", ["get", "name:latin"], ["get", "name"]],
                        "text-size": 12, "text-font": ["Noto Sans Regular"]},
             "paint": {"text-color": "#1a1a1a", "text-halo-color": "#ffffff", "text-halo-width": 1.5}},
            {"id": "place-names", "type": "symbol", "source": "openmaptiles", "source-layer": "place",
             "layout": {"text-field": ["coalesce", ["get", "name:latin"], ["get", "name"]], "text-size": 14,
                        "text-font": ["Noto Sans Bold"]},
             "paint": {"text-color": "#3a1050", "text-halo-color": "#ffffff", "text-halo-width": 2}}
            """
        return """
            {"version": 8, "sources": {"openmaptiles": {"type": "vector"}}, "layers": [
            {"id": "land", "type": "background", "paint": {"background-color": "#efe9dc"}},
            {"id": "water", "type": "fill", "source": "openmaptiles", "source-layer": "water", "paint": {"fill-color": "#8fb8de"}},
            {"id": "park", "type": "fill", "source": "openmaptiles", "source-layer": "park", "paint": {"fill-color": "#b9d9a0"}},
            {"id": "building", "type": "fill", "source": "openmaptiles", "source-layer": "building", "paint": {"fill-color": "#d6c9b8"}},
            {"id": "street-casing", "type": "line", "source": "openmaptiles", "source-layer": "transportation",
             "paint": {"line-color": "#a89c8a", "line-width": 6}},
            {"id": "street", "type": "line", "source": "openmaptiles", "source-layer": "transportation",
             "paint": {"line-color": "#ffffff", "line-width": 4}}\(labelled ? labels : "")
            ]}
            """
    }

    func url(_ scene: MatrixScene, transparent: Bool) -> URL {
        directory.appendingPathComponent(scene.rawValue + (transparent ? "-transparent" : "") + ".json")
    }

    /// Tiles over Europe, zooms 0-6: each a colour of its own with a grid and a diagonal, so that a
    /// tile misplaced, missing or resampled wrong shows.
    static func writeTiles(to folder: URL) throws {
        for z in 0...6 {
            let n = 1 << z
            func tileX(_ lon: Double) -> Int { min(n - 1, max(0, Int((lon + 180) / 360 * Double(n)))) }
            func tileY(_ lat: Double) -> Int {
                let r = lat * .pi / 180
                return min(n - 1, max(0, Int((1 - log(tan(r) + 1 / cos(r)) / .pi) / 2 * Double(n))))
            }
            for x in tileX(-30)...tileX(45) {
                for y in tileY(72)...tileY(30) {
                    let tile = try ImageSurface(width: 256, height: 256)
                    try tile.withContext { cr in
                        let h = Double((x * 7 + y * 13 + z * 3) % 17) / 17
                        cr.setSource(red: 0.55 + 0.4 * h, green: 0.75 - 0.3 * h, blue: 0.5 + 0.2 * (1 - h), alpha: 1)
                        cr.paint()
                        // Lines of a shade near the fill (4:2:0 keeps them within the bound).
                        cr.setSource(red: 0.35 + 0.3 * h, green: 0.5, blue: 0.45, alpha: 1)
                        cr.setLineWidth(4)
                        for k in stride(from: 0.0, through: 256, by: 64) {
                            cr.move(to: k, 0); cr.line(to: k, 256)
                            cr.move(to: 0, k); cr.line(to: 256, k)
                        }
                        cr.move(to: 0, 0); cr.line(to: 256, 256)
                        cr.stroke()
                    }
                    let dir = folder.appendingPathComponent("\(z)/\(x)")
                    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                    try tile.writePNG(to: dir.appendingPathComponent("\(y).png").path)
                }
            }
        }
    }
}

/// A frame's pixels as premultiplied RGBA, for comparing outputs with and without alpha alike.
struct MatrixPicture {
    var width: Int
    var height: Int
    /// width * height * 4 values, premultiplied (0...255).
    var values: [Float]

    /// From straight-alpha BGRA (decoded videos and PNGs).
    init(_ image: BGRAImage) {
        self.init(width: image.width, height: image.height, stride: image.stride, premultiplied: false) { body in
            image.pixels.withUnsafeBufferPointer { body($0.baseAddress!) }
        }
    }

    /// From a Cairo surface (premultiplied already).
    init(_ surface: ImageSurface) {
        self.init(width: surface.width, height: surface.height, stride: surface.stride, premultiplied: true) { body in
            body(UnsafePointer(surface.data))
        }
    }

    private init(width: Int, height: Int, stride: Int, premultiplied: Bool,
                 bytes: ((UnsafePointer<UInt8>) -> Void) -> Void) {
        self.width = width
        self.height = height
        var values = [Float](repeating: 0, count: width * height * 4)
        values.withUnsafeMutableBufferPointer { out in
            bytes { data in
                for y in 0..<height {
                    for x in 0..<width {
                        let q = data + y * stride + x * 4, o = (y * width + x) * 4
                        let a = premultiplied ? 1 : Float(q[3]) / 255
                        out[o] = Float(q[2]) * a
                        out[o + 1] = Float(q[1]) * a
                        out[o + 2] = Float(q[0]) * a
                        out[o + 3] = Float(q[3])
                    }
                }
            }
        }
        self.values = values
    }

    /// Mean squared error over the pixels `mask` (nil: all), the four components.
    func mse(_ other: MatrixPicture, mask: [Int]? = nil) -> Double {
        var total = 0.0
        func add(_ i: Int) {
            for k in 0..<4 {
                let d = Double(values[i * 4 + k] - other.values[i * 4 + k])
                total += d * d
            }
        }
        if let mask { mask.forEach(add) } else { (0..<(width * height)).forEach(add) }
        return total / Double(max(1, (mask?.count ?? width * height) * 4))
    }

    /// PSNR of the luma (BT.709 weights, on premultiplied values) and the alpha: the codec's own
    /// measure (a 4:2:0 codec halves the chroma, and a saturated line's colour bleeds by design).
    func psnr(_ other: MatrixPicture) -> Double {
        var total = 0.0
        for i in 0..<(width * height) {
            let o = i * 4
            let y = 0.2126 * Double(values[o] - other.values[o]) + 0.7152 * Double(values[o + 1] - other.values[o + 1])
                + 0.0722 * Double(values[o + 2] - other.values[o + 2])
            let a = Double(values[o + 3] - other.values[o + 3])
            total += y * y + a * a
        }
        let e = total / Double(max(1, width * height * 2))
        return e == 0 ? 99 : 10 * log10(255 * 255 / e)
    }

    /// The pixels where `other` differs from this by more than `threshold` in any component.
    func differences(_ other: MatrixPicture, threshold: Float = 24) -> [Int] {
        (0..<(width * height)).filter { i in
            (0..<4).contains { abs(values[i * 4 + $0] - other.values[i * 4 + $0]) > threshold }
        }
    }

    func rgb(_ i: Int) -> (r: Float, g: Float, b: Float) { (values[i * 4], values[i * 4 + 1], values[i * 4 + 2]) }
}

/// What one render of the matrix shows, and the references its cells are held to.
final class MatrixRun {
    let fixture: MatrixFixture
    let projection: MatrixProjection
    let environment: RenderEnvironment
    private var previews: [String: MatrixPicture] = [:]
    private var withouts: [String: MatrixPicture] = [:]

    /// The embedded map's data, read once for every test of the matrix.
    static let shapefiles = ShapefileStore()

    init(fixture: MatrixFixture, projection: MatrixProjection, fastPaths: FastPaths = .all) {
        self.fixture = fixture
        self.projection = projection
        var environment = RenderEnvironment(assets: Trip.assets,
                                            cacheDirectory: fixture.directory.appendingPathComponent("cache"))
        environment.shapefiles = Self.shapefiles
        environment.drawnTiles = DrawnTileCache(directory: fixture.directory.appendingPathComponent("drawn-tiles"))
        environment.fastPaths = fastPaths
        self.environment = environment
    }

    /// The frames the layers are looked for in.
    static let framesLooked = Set(MatrixLayer.all.map(\.frame))

    /// Renders `scene` to `output` and decodes every frame (`all`: kept, else only those the
    /// layers are looked for in, the others counted).
    func render(_ scene: MatrixScene, to output: MatrixOutput, transparent: Bool = false, all: Bool = false,
                encoding: EncodingOptions? = nil, name: String) throws -> MatrixFrames {
        let path = output.path(in: fixture.directory, name: name)
        let codec = output.request.codec, options = encoding ?? output.request.options
        var job = RenderJob(scene: fixture.url(scene, transparent: transparent),
                            output: OutputRequest(path: path, codec: codec, options: options),
                            environment: environment)
        if output == .hls {
            job.live = true
            job.liveClock = VirtualClock()
        }
        _ = try job.run()
        if output == .png {
            var frames = MatrixFrames()
            let first = FileManager.default.fileExists(atPath: String(format: path, 0)) ? 0 : 1
            for n in first... {
                let file = String(format: path, n)
                guard FileManager.default.fileExists(atPath: file) else { break }
                if all || Self.framesLooked.contains(frames.count) {
                    frames.pictures[frames.count] = MatrixPicture(try ImageDecoder.decode(Data(contentsOf: URL(fileURLWithPath: file))))
                }
                frames.count += 1
            }
            return frames
        }
        return try Self.decode(path, decoder: output == .vp9Alpha ? "libvpx-vp9" : nil, all: all)
    }

    /// A video's frames (`all`: every one kept, else those the layers are looked for in).
    static func decode(_ path: String, decoder: String? = nil, all: Bool = false) throws -> MatrixFrames {
        let reader = try VideoReader(path: path, decoder: decoder)
        var frames = MatrixFrames()
        while let image = try reader.nextImage() {
            if all || framesLooked.contains(frames.count) { frames.pictures[frames.count] = MatrixPicture(image) }
            frames.count += 1
        }
        return frames
    }

    /// Every cell of the main scene in an H.264 MP4 made otherwise (a batch's clip, parts joined).
    func checkVideo(_ url: URL, label: String) throws {
        let frames = try Self.decode(url.path)
        #expect(frames.count == 70)
        let cells = try check(frames, output: .h264, scene: .main, label: label)
        #expect(cells == MatrixLayer.all.filter { $0.scene == .main && $0.notApplicable(projection, .h264, false) == nil }.count)
    }

    /// The frames of `scene`'s render.
    func frameCount(_ scene: MatrixScene) throws -> Int {
        let loaded = try RenderJob.loadScene(fixture.url(scene, transparent: false), transparent: false,
                                             environment: environment).scene
        return Timeline(scene: loaded).frameCount
    }

    /// Preview's PNG of frame `n` (`maptrip preview --at`), as `maptrip preview` writes it.
    func preview(_ scene: MatrixScene, transparent: Bool = false, frame n: Int) throws -> MatrixPicture {
        let key = "\(scene)-\(transparent)-\(n)"
        if let p = previews[key] { return p }
        let png = fixture.directory.appendingPathComponent("preview-\(key).png")
        let job = PreviewJob(scene: fixture.url(scene, transparent: transparent), subject: .time(Double(n) / 10),
                             output: png, environment: environment)
        _ = try job.run()
        let p = MatrixPicture(try ImageDecoder.decode(Data(contentsOf: png)))
        previews[key] = p
        return p
    }

    /// Frame `n` as preview draws it, without `layer`.
    func without(_ layer: MatrixLayer, transparent: Bool) throws -> MatrixPicture {
        let key = "\(layer.name)-\(transparent)"
        if let p = withouts[key] { return p }
        var sceneURL = fixture.url(layer.scene, transparent: transparent)
        var drawsMap = !transparent
        var overlays = FrameRenderer.standardOverlays()
        switch layer.without {
        case .overlays(let removed): overlays.removeAll(where: removed)
        case .map: drawsMap = false
        case .opaque:
            sceneURL = fixture.url(layer.scene, transparent: false)
            drawsMap = true
        case .edited(let text, let replacement):
            let json = try String(contentsOf: sceneURL, encoding: .utf8)
            #expect(json.contains(text), "\(layer.name): the scene has no \(text)")
            sceneURL = fixture.directory.appendingPathComponent("without-\(key.filter { $0.isLetter || $0.isNumber }).json")
            try Data(json.replacingOccurrences(of: text, with: replacement).utf8).write(to: sceneURL)
        }
        let p = try Self.draw(sceneURL, frame: layer.frame, overlays: overlays, drawsMap: drawsMap,
                              environment: environment)
        withouts[key] = p
        return p
    }

    /// Frame `n` of a scene file as preview draws it (`width`: as `--width`), with these overlays.
    static func draw(_ sceneURL: URL, frame n: Int, width: Int? = nil, overlays: [Overlay], drawsMap: Bool = true,
                     environment: RenderEnvironment) throws -> MatrixPicture {
        let scene = try RenderJob.loadScene(sceneURL, transparent: false, environment: environment).scene
        let format = OutputPlan.frameFormat(codec: .h264, width: width, fps: nil, scene: scene.video.format)
        let baseMap: BaseMap = drawsMap
            ? try RenderJob.baseMap(for: scene, format: format, sceneFile: sceneURL, environment: environment) : TransparentBaseMap()
        let media = try SceneMedia.load(for: scene, format: format, sceneFile: sceneURL, assets: environment.assets)
        let renderer = try FrameRenderer(scene: scene, format: format, baseMap: baseMap, media: media, overlays: overlays)
        let timeline = Timeline(scene: scene, format: format, projection: renderer.projection)
        try baseMap.prepare(for: [renderer.viewport(timeline.camera(at: n))])
        renderer.planBaseMap(timeline)
        try renderer.render(timeline.values(at: n))
        return MatrixPicture(renderer.surface)
    }

    /// Checks every layer of `scene` in the decoded `frames` of `output`; returns the cells checked.
    func check(_ frames: MatrixFrames, output: MatrixOutput, scene: MatrixScene, transparent: Bool = false,
               label: String) throws -> Int {
        var cells = 0
        for layer in MatrixLayer.all where layer.scene == scene {
            if let reason = layer.notApplicable(projection, output, transparent) {
                // Said, not left out: the reason is the cell's.
                #expect(!reason.isEmpty)
                continue
            }
            let cell = "\(label) \(projection.rawValue) \(output.rawValue)\(transparent ? " transparent" : ""), \(layer.name), frame \(layer.frame)"
            guard let frame = frames.pictures[layer.frame] else {
                Issue.record("\(cell): the output has \(frames.count) frames")
                continue
            }
            let expected = try preview(scene, transparent: transparent, frame: layer.frame)
            guard frame.width == expected.width, frame.height == expected.height else {
                Issue.record("\(cell): \(frame.width)x\(frame.height), preview \(expected.width)x\(expected.height)")
                continue
            }
            let psnr = frame.psnr(expected)
            #expect(psnr >= output.minimumPSNR, "\(cell): PSNR \(psnr) dB against preview")
            let without = try self.without(layer, transparent: transparent)
            var mask = expected.differences(without)
            if let tint = layer.tint {
                mask = mask.filter { i in
                    let c = expected.rgb(i)
                    return abs(c.r - Float(tint.r)) + abs(c.g - Float(tint.g)) + abs(c.b - Float(tint.b)) < 90
                }
            }
            // The scene shows the layer: else the cell proves nothing.
            #expect(mask.count >= 12, "\(cell): preview shows the layer in \(mask.count) pixels")
            let near = frame.mse(expected, mask: mask), far = frame.mse(without, mask: mask)
            #expect(near * 3 < far, "\(cell): where preview draws the layer (\(mask.count) px) the output is \(Int(near)) from preview and \(Int(far)) from the frame without it")
            cells += 1
        }
        return cells
    }
}

/// The frames of a decoded output: how many, and the pictures of those kept.
struct MatrixFrames {
    var count = 0
    var pictures: [Int: MatrixPicture] = [:]
}

/// A clock that does not wait: sleeping moves it on (live outputs rendered in tests).
final class VirtualClock: PacingClock, @unchecked Sendable {
    private let lock = NSLock()
    private var time = 0.0
    private(set) var slept = 0.0

    func now() -> Double { lock.withLock { time } }

    func sleep(seconds: Double) {
        lock.withLock {
            time += seconds
            slept += seconds
        }
    }
}

@Suite(.tags(.slow)) struct ConformanceMatrixTests {
    /// Every layer in one output path and projection: a render decoded and held to preview.
    @Test(arguments: MatrixProjection.allCases, MatrixOutput.allCases)
    func everyLayerInEveryOutput(projection: MatrixProjection, output: MatrixOutput) throws {
        try Trip.withDirectory("matrix") { dir in
            let fixture = try MatrixFixture(dir, projection: projection)
            let run = MatrixRun(fixture: fixture, projection: projection)
            var cells = 0, applicable = 0
            // The opaque scenes; the transparent ones where the output carries alpha.
            var renders: [(MatrixScene, Bool)] = []
            for scene in MatrixScene.allCases where scene.outputs.contains(output) {
                if !output.alpha { renders.append((scene, false)) }
                if output.carriesAlpha && scene.rendersTransparent { renders.append((scene, true)) }
            }
            for (scene, transparent) in renders {
                let frames = try run.render(scene, to: output, transparent: transparent,
                                            name: "\(scene)\(transparent ? "-transparent" : "")")
                let count = try run.frameCount(scene)
                #expect(frames.count == count, "\(output.rawValue), \(scene): \(frames.count) frames, not \(count)")
                cells += try run.check(frames, output: output, scene: scene, transparent: transparent, label: "matrix")
                applicable += MatrixLayer.all.filter {
                    $0.scene == scene && $0.notApplicable(projection, output, transparent) == nil
                }.count
            }
            if !output.carriesAlpha && output != .vp9 {
                // The transparency cell of an output without alpha: the transparent scene is refused.
                let path = output.path(in: dir, name: "refused")
                let job = RenderJob(scene: fixture.url(.main, transparent: true),
                                    output: OutputRequest(path: path, codec: output.request.codec,
                                                          options: output.request.options),
                                    environment: run.environment)
                #expect(throws: (any Error).self, "\(output.rawValue) refuses a transparent background") {
                    try job.run()
                }
                #expect(!FileManager.default.fileExists(atPath: path))
                cells += 1
            }
            #expect(cells >= applicable, "\(cells) cells checked of \(applicable)")
            MatrixTally.shared.add(cells)
        }
    }

    /// Each fast path off, then all of them: the same pictures in the output where they all apply.
    @Test(arguments: MatrixProjection.allCases)
    func everyFastPathOffGivesTheSamePictures(projection: MatrixProjection) throws {
        try Self.everyFastPathOff(.main, projection: projection)
    }

    /// The same for the styled vector map and the playback over it.
    @Test(arguments: [MatrixScene.vector, .playback])
    func everyFastPathOffGivesTheSamePicturesOfTheStreets(scene: MatrixScene) throws {
        try Self.everyFastPathOff(scene, projection: .webMercator)
    }

    static func everyFastPathOff(_ scene: MatrixScene, projection: MatrixProjection) throws {
        try Trip.withDirectory("fast-paths") { dir in
            let fixture = try MatrixFixture(dir, projection: projection)
            // Near lossless 4:2:0 (x264 writes 4:2:0 losslessly only as 4:4:4): the pictures drawn compared,
            // not two encodes' losses (a street map's detail at CRF 20 put two encodes of much the same
            // frames 34.4 dB apart).
            let encoding = EncodingOptions(crf: 1, pixelFormat: "yuv420p")
            let reference = try MatrixRun(fixture: fixture, projection: projection).render(scene, to: .h264, all: true,
                                                                                          encoding: encoding, name: "all")
            var variants: [(String, FastPaths)] = FastPaths.names.map { name, path in
                var paths = FastPaths.all
                paths[keyPath: path] = false
                return ("\(name) off", paths)
            }
            variants.append(("all off", .none))
            for (label, paths) in variants {
                let run = MatrixRun(fixture: fixture, projection: projection, fastPaths: paths)
                let frames = try run.render(scene, to: .h264, all: true, encoding: encoding,
                                            name: label.replacingOccurrences(of: " ", with: "-"))
                #expect(frames.count == reference.count)
                _ = try run.check(frames, output: .h264, scene: scene, label: label)
                var worst = 99.0
                // Frame by frame, the same pictures as with every fast path on, within the scene's bound:
                // a flight composited from tiles is their resampling, not the vectors drawn (see
                // `fastPathPSNR`; 41 dB and more elsewhere).
                for n in 0..<reference.count {
                    guard let a = frames.pictures[n], let b = reference.pictures[n] else { continue }
                    let psnr = a.psnr(b)
                    worst = min(worst, psnr)
                    #expect(psnr >= scene.fastPathPSNR, "\(label), frame \(n): PSNR \(psnr) dB against every fast path on")
                }
                print("fast paths, \(scene) \(projection.rawValue), \(label): worst frame \(worst) dB against every fast path on")
            }
        }
    }
}

/// The matrix's cells in what `maptrip batch` writes (its clip and poster) and in parts rendered with
/// `--frames` and joined with `maptrip concat`.
@Suite(.tags(.slow)) struct ConformanceBatchAndConcatTests {
    @Test(arguments: MatrixProjection.allCases)
    func batchClipsAndPostersHoldEveryLayer(projection: MatrixProjection) throws {
        try Trip.withDirectory("matrix-batch") { dir in
            let fixture = try MatrixFixture(dir, projection: projection)
            let run = MatrixRun(fixture: fixture, projection: projection)
            let clips = dir.appendingPathComponent("clips")
            let plan = try BatchPlan.discover([fixture.url(.main, transparent: false).path], outputFolder: clips)
            let report = try BatchRunner(plan: plan, folder: clips, options: BatchOptions(),
                                         environment: run.environment).run()
            #expect(report.succeeded)
            let done = try #require(report.rendered.first)
            try run.checkVideo(clips.appendingPathComponent(done.output), label: "batch")
            // The poster: the first place at rest under its title, as preview draws that frame.
            let poster = try MatrixPicture(ImageDecoder.decode(Data(contentsOf: clips.appendingPathComponent(try #require(done.poster)))))
            let scene = try RenderJob.loadScene(fixture.url(.main, transparent: false), transparent: false,
                                                environment: run.environment).scene
            let n = PosterWriter.defaultFrame(Timeline(scene: scene))
            let expected = try run.preview(.main, transparent: false, frame: n)
            #expect(poster.width == expected.width && poster.height == expected.height)
            if poster.width == expected.width && poster.height == expected.height {
                let psnr = poster.psnr(expected)
                #expect(psnr >= 35, "batch poster, frame \(n): PSNR \(psnr) dB against preview")
            }
        }
    }

    @Test(arguments: MatrixProjection.allCases)
    func partsJoinedByConcatHoldEveryLayer(projection: MatrixProjection) throws {
        try Trip.withDirectory("matrix-concat") { dir in
            let fixture = try MatrixFixture(dir, projection: projection)
            let run = MatrixRun(fixture: fixture, projection: projection)
            // Cut inside a flight and inside a rest: each part starts with a frame drawn, not repeated.
            var parts: [URL] = []
            for range in [0..<23, 23..<38, 38..<70] {
                let part = dir.appendingPathComponent("part\(range.lowerBound).mp4")
                var job = RenderJob(scene: fixture.url(.main, transparent: false), output: part, environment: run.environment)
                job.frames = FrameRange(range)
                _ = try job.run()
                parts.append(part)
            }
            let joined = dir.appendingPathComponent("joined.mp4")
            let summary = try Concat.join(parts: parts, to: joined)
            #expect(summary.frames == 70)
            try run.checkVideo(joined, label: "concat")
        }
    }
}

/// The story example, as a new user renders it: its three photo cards are in the MP4.
@Suite(.tags(.slow)) struct StoryPhotoTests {
    @Test func theStoryMP4ShowsItsThreePhotos() throws {
        try Trip.withDirectory("story") { dir in
            let story = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Scenes/story.json").standardizedFileURL
            var environment = RenderEnvironment(assets: Trip.assets)
            environment.shapefiles = MatrixRun.shapefiles
            let out = dir.appendingPathComponent("story.mp4")
            // The MP4 of `maptrip render Scenes/story.json`, at a third of its width (the same view).
            _ = try RenderJob(scene: story, output: OutputRequest(path: out.path, width: 360),
                              environment: environment).run()
            let scene = try RenderJob.loadScene(story, transparent: false, environment: environment).scene
            let timeline = Timeline(scene: scene)
            let places = scene.places.indices.filter { scene.places[$0].photo != nil }
            #expect(places.count == 3)
            // The middle of each place's rest, where its card is fully in.
            let wanted = places.map { i in
                let slot = timeline.slots[i]
                return (PreviewJob.restFrame(ofPlace: i, in: timeline)! + slot.endFrame) / 2 - timeline.fps / 2
            }
            let reader = try VideoReader(path: out.path)
            #expect(reader.info.codecName == "h264")
            var n = 0, decoded: [Int: MatrixPicture] = [:]
            while let image = try reader.nextImage() {
                if wanted.contains(n) { decoded[n] = MatrixPicture(image) }
                n += 1
            }
            #expect(n == timeline.frameCount)
            for (place, frame) in zip(places, wanted) {
                let with = try MatrixRun.draw(story, frame: frame, width: 360, overlays: FrameRenderer.standardOverlays(),
                                              environment: environment)
                let without = try MatrixRun.draw(story, frame: frame, width: 360,
                                                 overlays: FrameRenderer.standardOverlays().filter { !($0 is PhotoOverlay) },
                                                 environment: environment)
                let card = with.differences(without)
                // The card: a good part of the frame (a photo box of a 9:16 frame).
                #expect(card.count > with.width * with.height / 20, "place \(place + 1): a card of \(card.count) px")
                guard let picture = decoded[frame] else {
                    Issue.record("frame \(frame) not decoded")
                    continue
                }
                // Its pixels in the MP4: nearer the card than the map under it.
                let shown = card.filter { i in
                    let p = picture.rgb(i), a = with.rgb(i), b = without.rgb(i)
                    func d(_ x: (r: Float, g: Float, b: Float), _ y: (r: Float, g: Float, b: Float)) -> Float {
                        abs(x.r - y.r) + abs(x.g - y.g) + abs(x.b - y.b)
                    }
                    return d(p, a) < d(p, b)
                }.count
                #expect(shown * 100 >= card.count * 95, "place \(place + 1), frame \(frame): \(shown) of the card's \(card.count) px in the MP4")
            }
        }
    }
}

/// Cells checked over the whole run, printed as the suite ends.
final class MatrixTally: @unchecked Sendable {
    static let shared = MatrixTally()
    private let lock = NSLock()
    private var cells = 0

    func add(_ n: Int) {
        let total = lock.withLock {
            cells += n
            return cells
        }
        print("conformance matrix: \(total) cells checked so far")
    }
}

extension Tag {
    /// Tests that render many outputs (minutes of the suite's time).
    @Tag static var slow: Self
}
