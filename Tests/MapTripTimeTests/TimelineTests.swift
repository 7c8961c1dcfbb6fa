import Foundation
import Testing
import TestSupport
@testable import MapTripGeometry
@testable import MapTripScene
@testable import MapTripTime

@Suite("Timeline")
struct TimelineTests {
    @Test func awkwardDwellsLandOnTheGrid() {
        // 3.33 s at 30 fps is 99.9 frames: boundaries at round(99.9), round(199.8), round(299.7).
        let a = Timeline(scene: scene(places: places(3, dwell: 3.33), fps: 30))
        #expect(a.slots.map(\.startFrame) == [0, 100, 200])
        #expect(a.slots.map(\.endFrame) == [100, 200, 300])
        #expect(a.frameCount == 300)
        #expect(a.duration == 10)

        // 2.5 s at 24 fps is exactly 60 frames.
        let b = Timeline(scene: scene(places: places(4, dwell: 2.5), fps: 24))
        #expect(b.slots.map(\.startFrame) == [0, 60, 120, 180])
        #expect(b.frameCount == 240)
    }

    @Test func manyShortSlotsDoNotDrift() {
        // 0.7 s at 25 fps is 17.5 frames; every boundary is round(17.5 i), half away from zero, from
        // the exact sum (binary floating point would put 2.0999999999999996 s at 52, not 53).
        let t = Timeline(scene: scene(places: places(100, dwell: 0.7), fps: 25))
        for (i, slot) in t.slots.enumerated() {
            #expect(slot.index == i)
            #expect(slot.startFrame == (35 * i + 1) / 2, "slot \(i)")
            #expect(slot.endFrame == (35 * (i + 1) + 1) / 2)
            #expect(slot.frameCount == 17 || slot.frameCount == 18)
        }
        #expect(t.frameCount == 1750)
        #expect(t.slots.last!.endFrame == Int((25 * 70.0).rounded()))
        #expect(t.duration == 70)
    }

    @Test func slotsAreContiguous() {
        let dwells = [1.1, 0.35, 2.75, 0.05, 4.2]
        let t = Timeline(scene: scene(places: dwells.enumerated().map { i, d in
            Place(name: "\(i)", position: LonLat(lon: Double(i), lat: 0), dwell: d)
        }, fps: 60))
        #expect(t.slots.first!.startFrame == 0)
        for (a, b) in zip(t.slots, t.slots.dropFirst()) { #expect(a.endFrame == b.startFrame) }
        #expect(t.frameCount == Int((60 * dwells.reduce(0, +)).rounded()))
    }

    @Test func firstFrameShowsPlaceZero() {
        let s = scene(places: [Place(name: "Seoul", position: seoul, zoom: 8),
                               Place(name: "Busan", position: busan, zoom: 9)])
        let t = Timeline(scene: s)
        let state = t.values(at: 0)
        #expect(state.camera == t.slots[0].camera)
        #expect(t.slots[0].camera.isWithinAPixel(of: Camera(center: seoul, zoom: 8), scale: s.video.scale))
        #expect(state.reached == 1)
        #expect(state.current == 0)
        #expect(t.slots[0].arriveFrame == 0)
    }

    @Test func flightThenRest() {
        // dwell 3 s, flight 1.5 s at 30 fps: slot 1 is frames 90..<180, flying 90..<135.
        let s = scene(places: [Place(name: "Seoul", position: seoul, zoom: 7),
                               Place(name: "Busan", position: busan, zoom: 9),
                               Place(name: "Jeju", position: LonLat(lon: 126.5312, lat: 33.4996), zoom: 10)])
        let t = Timeline(scene: s)
        let slot = t.slots[1]
        #expect((slot.startFrame, slot.arriveFrame, slot.endFrame) == (90, 135, 180))
        #expect(slot.flightFrames == 45)

        // The timer fires at the slot start: still on Seoul, then moving.
        #expect(t.camera(at: 90) == t.slots[0].camera)
        #expect(t.camera(at: 91) != t.slots[0].camera)
        #expect(t.camera(at: 134) != slot.camera)
        // Exactly on Busan from the arrive frame to the end of the slot; once its pin has popped in
        // (0.35 s, 11 frames: fully grown on the 11th), identically every frame.
        #expect(slot.camera.isWithinAPixel(of: Camera(center: busan, zoom: 9), scale: s.video.scale))
        for n in 135..<180 { #expect(t.camera(at: n) == slot.camera, "frame \(n)") }
        #expect(t.values(at: 135).pins[1].appear < t.values(at: 140).pins[1].appear)
        let resting = t.values(at: 145)
        #expect(resting.pins[1].appear == 1)
        for n in 145..<180 { #expect(t.values(at: n) == resting, "frame \(n)") }
        #expect(t.values(at: 144) != resting)
        #expect(t.values(at: 180) != resting)

        // The camera during the flight is the Flight's.
        let flight = Flight(from: t.slots[0].camera, to: slot.camera)
        #expect(t.camera(at: 100) == flight.camera(at: 10.0 / 45))
        // Mid-flight frames differ from one another.
        #expect(Set((90..<135).map { t.camera(at: $0) }).count == 45)
    }

    @Test func everyPlaceIsExactAtItsArrival() {
        let s = scene(places: places(12, dwell: 1.3, flight: 0.8), fps: 24)
        let t = Timeline(scene: s)
        for slot in t.slots {
            #expect(slot.camera.isWithinAPixel(of: slot.place.camera, scale: s.video.scale))
            for n in slot.arriveFrame..<slot.endFrame {
                #expect(t.camera(at: n) == slot.camera)
            }
        }
    }

    @Test func flightIsCappedByAShortSlot() {
        let s = scene(places: [Place(name: "A", position: paris, dwell: 2),
                               Place(name: "B", position: newYork, dwell: 1, flight: 2),
                               Place(name: "C", position: tokyo, dwell: 2)], flight: 0.5)
        let t = Timeline(scene: s)
        // A 2 s flight into a 1 s slot: it ends on the slot's last frame, so B is still visited.
        #expect((t.slots[1].startFrame, t.slots[1].arriveFrame, t.slots[1].endFrame) == (60, 89, 90))
        #expect(t.values(at: 88).reached == 1)
        #expect(t.values(at: 89).reached == 2)
        #expect(t.camera(at: 89) == t.slots[1].camera)
        #expect((t.slots[2].startFrame, t.slots[2].arriveFrame) == (90, 105))  // scene flight 0.5 s
        // The flight into C starts from B.
        #expect(t.camera(at: 90) == t.slots[1].camera)
    }

    @Test func zeroFlightJumps() {
        let s = scene(places: [Place(name: "A", position: paris), Place(name: "B", position: tokyo, flight: 0)])
        let t = Timeline(scene: s)
        #expect(t.slots[1].arriveFrame == t.slots[1].startFrame)
        #expect(t.camera(at: 89) == t.slots[0].camera)
        #expect(t.camera(at: 90) == t.slots[1].camera)
        #expect(t.values(at: 90).reached == 2)
    }

    @Test func reachedCounts() {
        let t = Timeline(scene: scene(places: places(4, dwell: 2, flight: 1), fps: 10))
        // Slots: 0..<20, 20..<40 (arrive 30), 40..<60 (arrive 50), 60..<80 (arrive 70).
        let expected = [(0, 1, 0), (19, 1, 0), (20, 1, 1), (29, 1, 1), (30, 2, 1), (45, 2, 2), (50, 3, 2),
                        (69, 3, 3), (70, 4, 3), (79, 4, 3)]
        for (frame, reached, current) in expected {
            let state = t.values(at: frame)
            #expect(state.reached == reached, "frame \(frame)")
            #expect(state.current == current, "frame \(frame)")
        }
    }

    @Test func framesOutsideTheVideoClamp() {
        let t = Timeline(scene: scene(places: places(3, dwell: 1)))
        #expect(t.values(at: -10) == t.values(at: 0))
        #expect(t.values(at: t.frameCount + 5) == t.values(at: t.frameCount - 1))
        #expect(t.slotIndex(at: t.frameCount) == 2)
    }

    @Test func emptySlotsAreSkippedButReached() {
        // 0.01 s at 30 fps rounds to no frames: slot 1 is empty.
        let t = Timeline(scene: scene(places: [Place(name: "A", position: seoul, dwell: 1),
                                               Place(name: "B", position: busan, dwell: 0.01),
                                               Place(name: "C", position: tokyo, dwell: 1)]))
        #expect(t.slots[1].frameCount == 0)
        #expect(t.slotIndex(at: 30) == 2)
        #expect(t.values(at: 29).current == 0)
        #expect(t.values(at: 30).reached == 2)
        #expect(t.frameCount == 60)
    }

    @Test func titleFades() {
        let t = Timeline(scene: scene(places: places(2, dwell: 3), title: "Trip"))
        // Slot 0 is 90 frames; the fade is the last 15 (0.5 s).
        for n in 0...75 { #expect(t.values(at: n).opacity(of: .title) == 1) }
        #expect(abs(t.titleOpacity(at: 76) - 14.0 / 15) < 1e-12)
        #expect(abs(t.titleOpacity(at: 82) - 8.0 / 15) < 1e-12)
        #expect(abs(t.titleOpacity(at: 89) - 1.0 / 15) < 1e-12)
        for n in 90..<t.frameCount { #expect(t.values(at: n).opacity(of: .title) == 0) }
        // Still frames stay equal through the title's full-opacity part.
        #expect(t.values(at: 10) == t.values(at: 60))
        #expect(t.values(at: 76) != t.values(at: 77))
    }

    @Test func titleFadesOverTheLastThirdOfAShortSlot() {
        // 0.9 s at 30 fps: 27 frames, fading over the last 9.
        let t = Timeline(scene: scene(places: places(2, dwell: 0.9), title: "Trip"))
        for n in 0...18 { #expect(t.titleOpacity(at: n) == 1) }
        #expect(abs(t.titleOpacity(at: 19) - 8.0 / 9) < 1e-12)
        #expect(abs(t.titleOpacity(at: 26) - 1.0 / 9) < 1e-12)
        #expect(t.titleOpacity(at: 27) == 0)
    }

    @Test func noTitleNoOpacity() {
        let t = Timeline(scene: scene(places: places(2, dwell: 3)))
        #expect(!t.hasTitle)
        for n in 0..<t.frameCount { #expect(t.values(at: n).opacity(of: .title) == 0) }
    }

    @Test func deterministic() {
        let s = scene(places: places(5, dwell: 1.7, flight: 1.1), title: "T", fps: 25)
        let a = Timeline(scene: s), b = Timeline(scene: s)
        #expect((0..<a.frameCount).allSatisfy { a.values(at: $0) == b.values(at: $0) })
        #expect(a.time(ofFrame: 50) == 2)
    }

    @Test func frameGridRounding() {
        #expect(FrameGrid.frames(seconds: 2.1, fps: 25) == 53)
        #expect(FrameGrid.frames(seconds: 0.1, fps: 25) == 3)
        #expect(FrameGrid.frames(seconds: 0.02, fps: 25) == 1)
        #expect(FrameGrid.frames(seconds: 0.019, fps: 25) == 0)
        #expect(FrameGrid.frames(seconds: 86400, fps: 240) == 20_736_000)
        #expect(FrameGrid.frames(seconds: 0, fps: 30) == 0)
        #expect(FrameGrid(dwells: [0.1, 0.2, 0.3], fps: 25).boundaries == [0, 3, 8, 15])
    }
}

@Suite struct PixelGridTests {
    @Test func aRestingCameraSitsOnThePixelGridWithinAPixelOfItsPlace() {
        for (scale, w, h) in [(1.0, 1920, 1080), (2.0, 3840, 2160), (1.0, 321, 179)] {
            for zoom in [4.3, 5.0, 7.77, 12.1] {
                let c = Camera(center: LonLat(lon: 126.978, lat: 37.5665), zoom: zoom)
                let g = c.onPixelGrid(width: w, height: h, scale: scale)
                let size = WebMercator.worldSize(zoom: g.zoom) * scale
                #expect(abs(size - size.rounded()) < 1e-6)
                #expect(abs(size - WebMercator.worldSize(zoom: zoom) * scale) <= 0.5)
                let p = WebMercator.project(g.center), q = WebMercator.project(c.center)
                for (u, frame) in [(p.x, w), (p.y, h)] {
                    let corner = (u * size.rounded() - Double(frame) / 2) / 2
                    #expect(abs(corner - corner.rounded()) < 1e-6, "zoom \(zoom), scale \(scale)")
                }
                #expect(abs(p.x - q.x) * size <= 1.0001 && abs(p.y - q.y) * size <= 1.0001)
                #expect(g.isWithinAPixel(of: c, scale: scale))
                // Already on the grid, it stays where it is.
                let again = g.onPixelGrid(width: w, height: h, scale: scale), r = WebMercator.project(again.center)
                #expect(abs(again.zoom - g.zoom) < 1e-12 && abs(r.x - p.x) * size < 1e-6 && abs(r.y - p.y) * size < 1e-6)
            }
        }
    }

    /// The rule the raster cache checks a view against (`Viewport.pixelGridWidth`) is the one resting
    /// cameras are snapped to: a snapped camera's view is on it, one moved by an odd pixel or half a
    /// pixel is not, one moved by two pixels is; a turned view is never on it.
    @Test func aSnappedViewIsOnTheGridAndAnOddPixelOffIsNot() {
        for zoom in [4.0, 12.25] {
            for (w, h) in [(1920, 1080), (320, 179)] {
                for lon in [-120.5, 3.3, 151.2] {
                    let g = Camera(center: LonLat(lon: lon, lat: 37.5665), zoom: zoom).onPixelGrid(width: w, height: h, scale: 1)
                    let world = WebMercator.worldSize(zoom: g.zoom).rounded(), p = WebMercator.project(g.center)
                    func view(movedBy px: Double, _ py: Double) -> Viewport {
                        let c = WebMercator.unproject(WorldPoint(x: p.x + px / world, y: p.y + py / world))
                        return Viewport(camera: Camera(center: c, zoom: g.zoom), width: w, height: h)
                    }
                    #expect(view(movedBy: 0, 0).pixelGridWidth == Int(world))
                    #expect(view(movedBy: 1, 0).pixelGridWidth == nil)
                    #expect(view(movedBy: 0, 0.5).pixelGridWidth == nil)
                    #expect(view(movedBy: 2, -2).pixelGridWidth == Int(world))
                    #expect(Viewport(camera: Camera(center: g.center, zoom: g.zoom, bearing: 30), width: w, height: h).pixelGridWidth == nil)
                }
            }
        }
    }
}
