import Foundation
import Testing
import MapTripGeometry
import MapTripScene
import MapTripTime
import TestSupport
@testable import MapTripRender

/// Where the readout panel goes: inside the safe area in every frame shape, at its bottom right, above a
/// presenter in that corner, and sized by what it shows.
@Suite("Readout panel layout")
struct ReadoutLayoutTests {
    static let all: [ReadoutItem] = [.speed, .altitude, .distance, .elapsed, .heartRate, .cadence, .profile]

    @Test(arguments: [(640, 360), (960, 540), (1280, 720), (1920, 1080), (360, 640), (1080, 1920), (480, 480)])
    func thePanelKeepsClearOfTheCredit(size: (Int, Int)) throws {
        let layout = FrameLayout(width: size.0, height: size.1)
        let panel = try #require(layout.readoutBox(Self.all))
        for line in ["Natural Earth, GeoNames", "© OpenStreetMap contributors", "Ág"] {
            // The credit's box as drawn (its text laid out by Pango): below the layout's bound, clear of the panel.
            let credit = try AttributionOverlay.box(line, layout: layout)
            #expect(credit.minY >= layout.creditTop, "\(line): \(credit) above \(layout.creditTop)")
            #expect(!panel.overlaps(credit) && credit.minY - panel.maxY >= 1, "\(size) \(line): panel \(panel), credit \(credit)")
        }
        #expect(panel.minY >= layout.safe.minY)
    }

    @Test(arguments: [(1920, 1080), (1080, 1920), (1080, 1080), (3840, 2160)])
    func thePanelSitsInTheSafeAreaClearOfAPresenter(size: (Int, Int)) throws {
        let layout = FrameLayout(width: size.0, height: size.1)
        let box = try #require(layout.readoutBox(Self.all))
        let safe = layout.safe
        #expect(box.minX >= safe.minX && box.minY >= safe.minY && box.maxX <= safe.maxX.rounded() && box.maxY <= safe.maxY.rounded(),
                "\(box) in \(safe)")
        #expect(abs(box.maxX - safe.maxX) <= 1 && abs(box.maxY - min(safe.maxY, layout.creditTop - layout.size(4))) <= 1,
                "at the bottom right: \(box)")
        // Six values in two rows of three and the profile: as wide as three cells, taller than two.
        #expect(abs((box.maxX - box.minX) - layout.size(3 * FrameLayout.readoutCell.width + 2 * FrameLayout.readoutPad)) <= 1)
        #expect(box.maxY - box.minY > layout.size(2 * FrameLayout.readoutCell.height + FrameLayout.readoutProfile))
        // Fewer values, a smaller panel; nothing to show, no panel.
        let small = try #require(layout.readoutBox([.speed]))
        #expect(small.maxX - small.minX < box.maxX - box.minX && small.maxY - small.minY < box.maxY - box.minY)
        #expect(layout.readoutBox([]) == nil)
        // A presenter in the bottom-right corner: the panel above it, still in the safe area.
        let withPresenter = FrameLayout(width: size.0, height: size.1, presenter: Presenter(file: "me.mp4", corner: .bottomRight))
        let presenter = try #require(withPresenter.presenter)
        let above = try #require(withPresenter.readoutBox(Self.all, clearOf: presenter))
        #expect(!above.overlaps(presenter) && above.maxY <= presenter.minY, "\(above) against \(presenter)")
        // In the bottom-left corner it moves the panel only where they would meet (a tall frame's full-width panel).
        let left = FrameLayout(width: size.0, height: size.1, presenter: Presenter(file: "me.mp4", corner: .bottomLeft))
        let beside = try #require(left.readoutBox(Self.all, clearOf: left.presenter))
        #expect(!beside.overlaps(try #require(left.presenter)))
        #expect((beside == box) == !box.overlaps(try #require(left.presenter)))
        if !layout.isPortrait { #expect(beside == box) }
    }

    @Test func aLongRideKeepsABoundedNumberOfValueLayouts() throws {
        let ride = RideFixture(seed: 81, count: 400)
        var geometry = TrackGeometry(points: ride.walk.points, times: ride.walk.times, start: TrackFixture.start)
        geometry.altitudes = ride.altitudes
        geometry.heartRates = ride.heartRates
        var scene = Scene(video: Video(width: 320, height: 180, fps: 30), places: [])
        scene.tracks = [PlaybackTrack(file: "ride.gpx", name: "ride", color: PlaybackTrack.palette[0], geometry: geometry)]
        scene.playback = Playback(speed: 5)
        scene.readouts = [.speed, .distance, .elapsed, .altitude, .heartRate]
        let timeline = Timeline(scene: scene)
        let overlay = ReadoutOverlay()
        let renderer = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap(), overlays: [overlay])
        #expect(timeline.frameCount > 1000)
        var most = 0
        for n in stride(from: 0, to: timeline.frameCount, by: 2) {
            try renderer.render(timeline.values(at: n))
            most = max(most, overlay.keptValueLayouts)
        }
        // Every frame shows new values (the elapsed time at least), yet at most the bound is kept.
        #expect(most > ReadoutOverlay.valueLayouts / 2 && most <= ReadoutOverlay.valueLayouts + 5, "\(most)")
    }
}
