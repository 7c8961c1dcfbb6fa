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
    /// The clip of place i (`Place.clip`), opened.
    public var clips: [Int: ClipFrames]
    /// The presenter's video (`Scene.presenter`), opened.
    public var presenter: ClipFrames?
    /// The watermark (`Scene.furniture.watermark`), at the size it is shown, premultiplied.
    public var watermark: ImageSurface?
    /// Photo k of the scene's `photos` (along a playback's track), upright, premultiplied.
    public var trackPhotos: [Int: ImageSurface] = [:]

    public init(photos: [Int: ImageSurface] = [:], vehicles: [Int: VehicleArt] = [:], movers: [Int: VehicleArt] = [:],
                clips: [Int: ClipFrames] = [:], presenter: ClipFrames? = nil) {
        self.photos = photos
        self.vehicles = vehicles
        self.movers = movers
        self.clips = clips
        self.presenter = presenter
    }
}

/// A video's pictures by time (a place's clip, the presenter): opened before the first frame, decoded
/// as the frames ask. The picture at a time is always the same, whatever was asked before (a frame
/// drawn alone equals the same frame of a render); safe to ask from several threads.
public protocol ClipFrames: AnyObject {
    /// Width over height as shown.
    var aspect: Double { get }
    /// The picture at `seconds` into the file (the frame whose timestamp covers it), premultiplied.
    func picture(at seconds: Double) throws -> ImageSurface
}
