import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import Pango

/// Pictures a scene names, decoded before the first frame (a missing or broken file is an error
/// before rendering, never mid-video): each place's photo, each leg's vehicle.
public struct SceneMedia {
    /// Photo of place i, premultiplied.
    public var photos: [Int: ImageSurface]
    /// The vehicle of the leg into place i.
    public var vehicles: [Int: VehicleArt]
    /// The vehicle of playback track i (`Scene.tracks`), when it has one.
    public var movers: [Int: VehicleArt]

    public init(photos: [Int: ImageSurface] = [:], vehicles: [Int: VehicleArt] = [:], movers: [Int: VehicleArt] = [:]) {
        self.photos = photos
        self.vehicles = vehicles
        self.movers = movers
    }
}
