import Cairo
import Foundation
import MapTripGeometry
import Testing
import TestSupport
@testable import MapTripRender
@testable import MapTripTiles

/// Street names' glyphs drawn once each as pictures (`GlyphPictures`) and painted frame after frame:
/// counted as the camera pans and turns over Helsinki's vector tiles, and a frame drawn after others
/// (the pictures already made) the same bytes as the frame drawn alone.
@Suite("Line label pictures")
struct LineLabelPicturesTests {
    static func render(_ map: StyledMap, _ camera: Camera) throws -> ImageSurface {
        try StyledMapTests.render(map, camera: camera, width: 1280, height: 720).0
    }

    /// The camera moved `dx` frame pixels east and turned `turn` degrees.
    static func moved(_ dx: Double, turn: Double = 0) throws -> Camera {
        let v = Viewport(camera: StyledLabelTests.camera, width: 1280, height: 720)
        var c = StyledLabelTests.camera
        c.center = try #require(v.location(atPixel: 640 + dx, 360))
        c.bearing = turn
        return c
    }

    @Test("A street name's glyphs are drawn once, then painted as the camera pans and turns")
    func glyphPicturesReused() throws {
        try TemporaryFolder.with("line-label-pictures") { dir in
            let map = try StyledMapTests.map(style: StyledLabelTests.streetStyle(), in: dir)
            _ = try Self.render(map, StyledLabelTests.camera)
            let glyphs = map.labels.placements.filter { $0.kind == .line }.reduce(0) { $0 + $1.glyphs.count }
            let pictures = map.labels.glyphPictures
            // A halo and a text a glyph; a letter shared by two names is one picture.
            #expect(glyphs >= 60, "\(glyphs) glyphs placed")
            #expect(pictures.drawn > 0 && pictures.drawn <= 2 * glyphs, "\(pictures.drawn) pictures for \(glyphs) glyphs")
            let first = pictures.drawn
            // Whole pixels east: each glyph lands on the same phase of its pixel, at the same turn.
            for dx in 1...6 { _ = try Self.render(map, try Self.moved(Double(dx))) }
            #expect(pictures.drawn <= first + first / 10, "panning drew \(pictures.drawn - first) more pictures after \(first)")
            #expect(pictures.reused >= 6 * 2 * glyphs * 9 / 10, "\(pictures.reused) glyphs painted from pictures")
            // Turning by a tenth of a degree a frame: a degree's step drawn once for several frames.
            let beforeTurning = pictures.drawn
            for k in 1...10 { _ = try Self.render(map, try Self.moved(6, turn: 0.1 * Double(k))) }
            let turned = pictures.drawn - beforeTurning
            #expect(turned <= 4 * 2 * glyphs, "turning a degree drew \(turned) pictures for \(glyphs) glyphs")
            #expect(pictures.bytes <= GlyphPictures.limitBytes)
            print("line label pictures: \(glyphs) glyphs, \(first) pictures at first, \(pictures.drawn) after panning and turning, \(pictures.reused) reused")
        }
    }

    /// Street names sized by the zoom (as the bundled style sizes them), halos translucent.
    static let zoomSizedStyle = """
        {"version": 8, "sources": {"osm": {"type": "vector"}}, "layers": [
          \(StyledLabelTests.white)
          {"id": "streets", "type": "symbol", "source": "osm", "source-layer": "transportation_name",
           "layout": {"symbol-placement": "line", "text-field": ["coalesce", ["get", "name:latin"], ["get", "name"]],
                      "text-size": ["interpolate", ["linear"], ["zoom"], 14, 9, 17, 12], "text-font": ["Noto Sans Regular"]},
           "paint": {"text-color": "#2b2b2b", "text-halo-color": "#ffffffeb", "text-halo-width": 1.5}}
        ]}
        """

    /// A flight's frames: zooming out a whole zoom over `frames` frames, the centre drifting by fractions of a pixel.
    static func flight(_ k: Int, of frames: Int) -> Camera {
        var c = StyledLabelTests.camera
        c.zoom = 17 - Double(k) / Double(frames)
        c.center = LonLat(lon: c.center.lon + 0.00001 * Double(k), lat: c.center.lat)
        return c
    }

    @Test("A flight's changing text size draws few glyph pictures a frame")
    func flightDrawsFewPictures() throws {
        try TemporaryFolder.with("line-label-pictures-flight") { dir in
            let map = try StyledMapTests.map(style: Self.zoomSizedStyle, in: dir)
            let frames = 24
            _ = try Self.render(map, Self.flight(0, of: frames))
            let pictures = map.labels.glyphPictures
            let first = pictures.drawn
            var glyphs = 0
            for k in 1...frames {
                _ = try Self.render(map, Self.flight(k, of: frames))
                glyphs += map.labels.placements.filter { $0.kind == .line }.reduce(0) { $0 + $1.glyphs.count }
            }
            let drawn = pictures.drawn - first
            print("flight: \(first) pictures at first, \(drawn) drawn over \(frames) frames for \(glyphs) glyphs placed "
                  + "(\(Double(drawn) / Double(frames)) a frame, \(Double(drawn) / Double(2 * glyphs)) a glyph's halo or text)")
            #expect(glyphs >= 20 * frames, "\(glyphs) glyphs placed")
            // A halo and a text a glyph placed: most of them painted from pictures drawn in frames before.
            #expect(drawn * 5 <= 2 * glyphs, "\(drawn) pictures drawn for \(glyphs) glyphs placed")
        }
    }

    @Test("A flight's frame drawn after the frames before it is the frame drawn alone")
    func flightFrameAloneEqualsFrameInSequence() throws {
        try TemporaryFolder.with("line-label-pictures-flight-alone") { dir in
            let sequence = try StyledMapTests.map(style: Self.zoomSizedStyle, in: dir)
            // Back and forth over zooms (the tiles' styles kept for the last zoom asked, pictures at other sizes made).
            for k in [0, 5, 11, 7] { _ = try Self.render(sequence, Self.flight(k, of: 24)) }
            let inSequence = try Self.render(sequence, Self.flight(12, of: 24))
            let alone = try Self.render(try StyledMapTests.map(style: Self.zoomSizedStyle, in: dir), Self.flight(12, of: 24))
            #expect(sequence.labels.placements.contains { $0.kind == .line })
            inSequence.flush()
            alone.flush()
            #expect(memcmp(inSequence.data, alone.data, alone.stride * alone.height) == 0)
        }
    }

    @Test("A frame drawn after others is the frame drawn alone")
    func frameAloneEqualsFrameInSequence() throws {
        try TemporaryFolder.with("line-label-pictures-alone") { dir in
            let style = StyledLabelTests.streetStyle()
            let sequence = try StyledMapTests.map(style: style, in: dir)
            // Seeded wandering: fractions of a pixel and of a degree, so phases and turn steps vary.
            var rng = SplitMix64(seed: 5859)
            var last = StyledLabelTests.camera
            for _ in 0..<8 {
                let dx = Double(rng.next() % 1000) / 100, turn = Double(rng.next() % 300) / 100
                last = try Self.moved(dx, turn: turn)
                _ = try Self.render(sequence, last)
            }
            let inSequence = try Self.render(sequence, last)
            let alone = try Self.render(try StyledMapTests.map(style: style, in: dir), last)
            #expect(sequence.labels.placements.contains { $0.kind == .line })
            inSequence.flush()
            alone.flush()
            #expect(memcmp(inSequence.data, alone.data, alone.stride * alone.height) == 0)
        }
    }
}
