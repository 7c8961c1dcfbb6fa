import FuzzSupport
import MapTripScene
import MapTripTime

/// The scene loader over any bytes: every input gives a scene or errors, never a crash or a hang;
/// a scene that loads is also timed out (its timeline built and sampled), as `render` would.
@_cdecl("FuzzScene_main")
func fuzzSceneMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Fuzz.run(argc, argv) { bytes, count in
        let report = SceneLoader.check(Fuzz.data(bytes, count), file: "fuzz.json")
        if let scene = report.scene {
            let timeline = Timeline(scene: scene)
            let frames = timeline.frameCount
            for n in [0, frames / 3, frames / 2, max(0, frames - 1)] {
                _ = timeline.values(at: n)
            }
        }
        return 0
    }
}
