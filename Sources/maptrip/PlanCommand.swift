import ArgumentParser
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import MapTripRecord
import MapTripRender
import MapTripTracks

struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Print a scene's timeline (slots, times, camera) without rendering.")

    @Argument(help: "The scene file (JSON).")
    var scene: String

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(help: "Include the camera at every frame.")
    var frames = false

    @Option(help: "The folder of maptrip's embedded data (default: found beside the program).")
    var assets: String?

    func run() throws {
        do {
            let s = try SceneLoader.load(
                contentsOf: URL(fileURLWithPath: scene),
                resolver: PlaceResolvers.gazetteer(assets: assets, environment: ProcessInfo.processInfo.environment),
                projections: ProjChecker(), tracks: TrackFileCheck(), voices: VoiceFileCheck())
            let plan = Plan(scene: s, timeline: Timeline(scene: s, projection: try Projection.make(for: s)))
            print(json ? plan.json(includeFrames: frames) : plan.table(includeFrames: frames))
        } catch {
            throw fail(error)
        }
    }
}
