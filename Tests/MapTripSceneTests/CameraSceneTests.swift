import Foundation
import Testing
import MapTripGeometry
import MapTripScene
import TestSupport

/// The scene's `camera`: the mover followed found by name, keyframes filled in from the one before, and
/// each problem at its JSON path.
@Suite("Camera in scenes")
struct CameraSceneTests {
    static func check(_ scene: String) throws -> SceneReport { try PlaybackSceneTests.check(scene) }

    static func error(_ scene: String) throws -> SceneError {
        let report = try check(scene)
        #expect(report.scene == nil)
        return try #require(report.errors.first)
    }

    @Test func aFollowingCameraFindsItsMoverByName() throws {
        let report = try Self.check("""
            { "tracks": [ { "file": "anna.gpx", "name": "Anna" }, { "file": "ben.gpx", "name": "Ben" } ],
              "camera": { "follow": "Ben", "zoom": "speed", "headingUp": true, "intro": 0 } }
            """)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.scene?.camera == SceneCamera(follow: 1, zoom: .speed, headingUp: true, intro: 0))
        let plain = try Self.check(#"{ "tracks": [ { "file": "anna.gpx" } ], "camera": { "follow": "anna" } }"#)
        #expect(plain.scene?.camera == SceneCamera(follow: 0, zoom: .fixed(15), headingUp: false, intro: 3))
    }

    @Test func keyframesTakeWhatTheyLeaveOutFromTheOneBefore() throws {
        let report = try Self.check("""
            { "places": [ { "lat": 60.17, "lon": 24.94, "dwell": 10 } ],
              "camera": { "keyframes": [ { "t": 0, "lon": 24.94, "lat": 60.17, "zoom": 12 },
                                         { "t": 2, "zoom": 14, "bearing": 30, "ease": "fly" },
                                         { "t": 5, "lon": 25, "lat": 60.2 } ] } }
            """)
        #expect(report.errors.isEmpty, "\(report.errors)")
        let keyframes = try #require(report.scene?.camera?.keyframes)
        let a = LonLat(lon: 24.94, lat: 60.17)
        #expect(keyframes == [
            CameraKeyframe(t: 0, camera: Camera(center: a, zoom: 12)),
            CameraKeyframe(t: 2, camera: Camera(center: a, zoom: 14, bearing: 30), ease: .fly),
            CameraKeyframe(t: 5, camera: Camera(center: LonLat(lon: 25, lat: 60.2), zoom: 14, bearing: 30)),
        ])
    }

    @Test func cameraProblemsAreReportedAtTheirPaths() throws {
        let place = #""places": [ { "lat": 60.17, "lon": 24.94, "dwell": 3 } ]"#
        let cases: [(String, String, String)] = [
            (#"{ "tracks": [ { "file": "anna.gpx", "name": "Anna" } ], "camera": { "follow": "Bob" } }"#,
             "camera.follow", "no track is named 'Bob'"),
            ("{ \(place), \"camera\": { \"follow\": \"Anna\" } }", "camera.follow", "follow needs a playback"),
            (#"{ "tracks": [ { "file": "anna.gpx" } ], "camera": { "follow": "anna", "keyframes": [ { "t": 0, "lon": 1, "lat": 2, "zoom": 3 } ] } }"#,
             "camera.follow", "not both"),
            ("{ \(place), \"camera\": { \"zoom\": 12 } }", "camera.zoom", "follows none"),
            ("{ \(place), \"camera\": { \"keyframes\": [ { \"t\": 0, \"zoom\": 3 } ] } }", "camera.keyframes[0]",
             "the first keyframe needs lon, lat and zoom"),
            ("{ \(place), \"camera\": { \"keyframes\": [ { \"t\": 1, \"lon\": 1, \"lat\": 2, \"zoom\": 3 }, { \"t\": 0.5 } ] } }",
             "camera.keyframes[1].t", "time order"),
            ("{ \(place), \"camera\": { \"keyframes\": [ { \"t\": 1, \"lon\": 1, \"lat\": 2, \"zoom\": 3 }, { \"t\": 1.01 } ] } }",
             "camera.keyframes[1].t", "same frame"),
            ("{ \(place), \"camera\": { \"keyframes\": [ { \"t\": 3, \"lon\": 1, \"lat\": 2, \"zoom\": 3 } ] } }",
             "camera.keyframes[0].t", "beyond the trip's end"),
            ("{ \(place), \"camera\": { \"keyframes\": [ { \"t\": 0, \"lon\": 1, \"zoom\": 3 } ] } }",
             "camera.keyframes[0]", "lat"),
            ("{ \(place), \"camera\": { \"keyframes\": [ { \"t\": 0, \"lon\": 1, \"lat\": 2, \"zoom\": 3, \"ease\": \"bounce\" } ] } }",
             "camera.keyframes[0].ease", "bounce"),
        ]
        for (scene, path, words) in cases {
            let e = try Self.error(scene)
            #expect(e.path == path, "\(scene): \(e)")
            #expect(e.message.contains(words), "\(scene): \(e)")
        }
        // The last frame of a 3-second trip at 30 fps is at 2.967 s: a keyframe there is fine.
        let fine = try Self.check("{ \(place), \"camera\": { \"keyframes\": [ { \"t\": 2.96, \"lon\": 1, \"lat\": 2, \"zoom\": 3 } ] } }")
        #expect(fine.errors.isEmpty, "\(fine.errors)")
    }
}
