import Foundation
import Testing
import TestSupport
import MapTripGeometry
import MapTripScene
import MapTripTime
@testable import MapTripRender

/// Where the map's furniture goes: in its corner of the safe area, clear of the counter, the clock,
/// the presenter, the credit, the caption and the photo card, and of one another, in 16:9, 9:16 and 1:1.
@Suite("Furniture layout")
struct FurnitureLayoutTests {
    static let sizes = [(1920, 1080), (1080, 1920), (1080, 1080), (640, 360)]

    static func scene(_ corners: (Furniture.Corner, Furniture.Corner, Furniture.Corner), presenter: Furniture.Corner?,
                      distance: Bool) -> Scene {
        var scene = Scene(places: [Place(name: "A", position: LonLat(lon: 0, lat: 0))])
        scene.distance = distance
        scene.furniture = Furniture(scaleBar: .init(corner: corners.0), northArrow: .init(corner: corners.1),
                                    watermark: .init(file: "logo.png", corner: corners.2, size: 0.12))
        if let presenter { scene.presenter = Presenter(file: "me.mp4", corner: presenter, size: 0.2) }
        return scene
    }

    @Test func piecesStayInTheSafeAreaClearOfEverythingElse() throws {
        var rng = SplitMix64(seed: 5959)
        let corners = Furniture.Corner.allCases
        for _ in 0..<200 {
            func pick() -> Furniture.Corner { corners[Int(rng.unit() * 4) % 4] }
            let presenter: Furniture.Corner? = rng.unit() < 0.5 ? pick() : nil
            let scene = Self.scene((pick(), pick(), pick()), presenter: presenter, distance: rng.unit() < 0.5)
            for (w, h) in Self.sizes {
                let layout = FrameLayout(width: w, height: h, presenter: scene.presenter)
                let boxes = layout.furniture(scene, watermark: (Int(0.12 * Double(min(w, h))), Int(0.06 * Double(min(w, h)))))
                let all = boxes.all
                #expect(all.count == 3)
                for (i, a) in all.enumerated() {
                    #expect(layout.safe.contains(a), "\(w)x\(h): \(a) outside \(layout.safe)")
                    for b in all[(i + 1)...] { #expect(!LayoutTests.overlap(a, b), "\(w)x\(h): \(a) meets \(b)") }
                    if let p = layout.presenter { #expect(!LayoutTests.overlap(a, p), "\(w)x\(h): \(a) meets the presenter \(p)") }
                    if scene.distance { #expect(!LayoutTests.overlap(a, layout.counterBox(clearOf: layout.presenter))) }
                    // The caption card, as wide as it may be beside them, at its tallest (two lines).
                    let place = layout.captionPlacement(clearOf: all + [layout.presenter].compactMap { $0 })
                    let caption = Box(minX: w.half - place.width / 2, minY: place.bottom - layout.size(130),
                                      maxX: w.half + place.width / 2, maxY: place.bottom)
                    #expect(place.width >= min(layout.textWidth, layout.size(560)) - 1e-9)
                    #expect(!LayoutTests.overlap(a, caption), "\(w)x\(h): \(a) meets the caption \(caption)")
                    for aspect in [0.75, 1.5] {
                        let photo = layout.photoBox(aspect: aspect, clearOf: layout.presenter, and: all)
                        #expect(!LayoutTests.overlap(a, photo), "\(w)x\(h): \(a) meets the photo card \(photo)")
                    }
                }
            }
        }
    }

    @Test func aPlaybacksClockKeepsItsCorner() throws {
        var scene = Self.scene((.bottomLeft, .bottomLeft, .bottomLeft), presenter: nil, distance: false)
        scene.tracks = [PlaybackTrack(file: "a.gpx", name: "A", color: Color(hex: "#e4572e")!,
                                      geometry: TrackGeometry(points: [LonLat(lon: 0, lat: 0), LonLat(lon: 0.1, lat: 0)], times: [0, 60]))]
        for (w, h) in Self.sizes {
            let layout = FrameLayout(width: w, height: h)
            let clock = Box(minX: layout.safe.minX, minY: layout.safe.maxY - layout.size(64), maxX: layout.safe.minX + layout.size(250),
                            maxY: layout.safe.maxY)
            for a in layout.furniture(scene).all { #expect(!LayoutTests.overlap(a, clock)) }
        }
    }
}

private extension Int {
    var half: Double { Double(self) / 2 }
}

/// A piece the title card would cover (a long title in a tall frame) gives way while the title shows.
@Suite("Furniture under the title")
struct FurnitureTitleTests {
    @Test func aPieceUnderTheTitleCardFadesWhileItShows() throws {
        var scene = Scene(title: "A very long title for a trip across the whole of Korea", flight: 1,
                          video: Video(width: 1080, height: 1920, fps: 10),
                          places: [Place(name: "Seoul", position: LonLat(lon: 126.978, lat: 37.567), dwell: 3, zoom: 8)])
        scene.opening = true
        scene.furniture = Furniture(northArrow: .init(corner: .topRight))
        let timeline = Timeline(scene: scene)
        let renderer = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap())
        renderer.planBaseMap(timeline)
        let overlay = FurnitureOverlay()
        let layout = renderer.layout
        let title = try #require(try TitleOverlay.titleBox(scene, layout: layout, text: TextCache()))
        let arrow = try #require(layout.furniture(scene).northArrow)
        try #require(title.overlaps(arrow), "the long title does not reach the arrow: the test shows nothing")
        var seen = 0
        for n in 0..<timeline.frameCount {
            let values = timeline.values(at: n)
            let opacity = values.cards.first { if case .title = $0.cue { true } else { false } }?.opacity ?? 0
            let marks = try #require(try overlay.marks(renderer.context(values, frame: n)))
            let alpha = marks.map(\.alpha).max() ?? 0
            #expect(abs(alpha - (1 - opacity)) < 1e-9, "frame \(n): the arrow at \(alpha) under a title at \(opacity)")
            if opacity > 0.5 { seen += 1 }
        }
        #expect(seen > 0)
    }
}
