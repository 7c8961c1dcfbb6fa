import Foundation
import MapTripRecord
import Testing

/// `--from/--to` on the frame grid: round(t x fps), halves away from zero; the end excluded.
@Suite("time stretches")
struct TimeStretchTests {
    @Test func timesGoToTheNearestFrameBoundary() throws {
        #expect(try TimeStretch(from: "0:04", to: "0:19").frames(fps: 30, frameCount: 900) == FrameRange(start: 120, end: 570))
        #expect(try TimeStretch(from: "0:04.5", to: nil).frames(fps: 24, frameCount: 200) == FrameRange(start: 108, end: 200))
        // 0.05 s at 30 fps is frame 1.5: up to 2; 0.016 s is 0.48: down to 0.
        #expect(try TimeStretch(from: "0.016", to: "0.05").frames(fps: 30, frameCount: 10) == FrameRange(start: 0, end: 2))
        #expect(try TimeStretch(from: nil, to: "1.5s").frames(fps: 25, frameCount: 100) == FrameRange(start: 0, end: 38))
    }

    @Test func stretchesThatAreNotInTheTripAreRefused() throws {
        #expect(throws: TimeStretchError.malformed(flag: "--to", text: "soon")) { try TimeStretch(from: nil, to: "soon") }
        #expect(throws: TimeStretchError.endNotAfterStart(from: "2", to: "1")) { try TimeStretch(from: "2", to: "1") }
        // Apart in seconds, the same frame.
        #expect(throws: TimeStretchError.endNotAfterStart(from: "1", to: "1.01")) {
            try TimeStretch(from: "1", to: "1.01").frames(fps: 30, frameCount: 90)
        }
        #expect(throws: TimeStretchError.beyondEnd(flag: "--from", text: "3", length: "0:03.0")) {
            try TimeStretch(from: "3", to: nil).frames(fps: 30, frameCount: 90)
        }
        #expect(throws: TimeStretchError.beyondEnd(flag: "--to", text: "0:04", length: "0:03.0")) {
            try TimeStretch(from: nil, to: "0:04").frames(fps: 30, frameCount: 90)
        }
    }
}
