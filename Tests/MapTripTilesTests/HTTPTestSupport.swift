import Foundation
import MapTripTiles
@_exported import TileServerFixture

extension Result {
    /// The error of a failure, nil for a success.
    var httpFailure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}

/// Runs `body` with a fresh tile server, always stopped afterwards (shared with other test files).
func withTileServer<T>(_ body: (HTTPTestServer) throws -> T) throws -> T {
    try HTTPTestServer.with(body)
}
