import Foundation
import MapTripScene
import MapTripGazetteer

/// Where scenes' places by name are looked up: the gazetteer in the Assets folder, opened only when
/// a scene names a place without coordinates.
public enum PlaceResolvers {
    /// The gazetteer in `assets` (found as the CLI finds it when nil).
    public static func gazetteer(assets: String?, environment: [String: String]) -> SceneLoader.ResolverSource {
        { try Gazetteer(assets: AssetLocator.locate(explicit: assets, environment: environment)) }
    }

    public static func gazetteer(assets: URL) -> SceneLoader.ResolverSource {
        { try Gazetteer(assets: assets) }
    }
}

extension RenderEnvironment {
    /// The resolver for places by name: the gazetteer in this environment's Assets folder.
    public var places: SceneLoader.ResolverSource { PlaceResolvers.gazetteer(assets: assets) }
}
