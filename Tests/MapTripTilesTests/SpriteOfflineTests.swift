import Cairo
import Foundation
import Testing
import TestSupport
@testable import MapTripRender
@testable import MapTripTiles
#if canImport(Glibc)
import Glibc
#endif

/// A style's sprite given as an http(s) URL: when its server cannot be reached (a port that accepts
/// and never answers, one that refuses) the map is built after a short wait, with one warning and its
/// labels drawn; once fetched, the sprite is kept in the tile cache and drawn with the server gone.
@Suite("A sprite URL that cannot be fetched")
struct SpriteOfflineTests {
    /// A port on 127.0.0.1 that listens and never accepts: the kernel completes each connection into
    /// the backlog, and no answer ever comes.
    final class SilentPort {
        let fd: Int32
        let port: Int

        init() throws {
            let socket = try #require(LoopbackSocket.bound(Int32(SOCK_STREAM.rawValue)))
            (fd, port) = socket
            try #require(listen(fd, 64) == 0)
        }

        deinit { Glibc.close(fd) }
    }

    /// A port nothing listens on (bound for its number, then let go): connections are refused.
    static func refusingPort() throws -> Int {
        let port = try SilentPort().port  // closed again as it goes
        return port
    }

    static func style(_ sprite: String) -> String { StyleIconTests.style(sprite: sprite) }

    /// The map built (timed) and drawn; its labels and icons.
    static func buildAndDraw(_ style: String, in dir: URL, http: HTTPTileOptions = HTTPTileOptions())
        throws -> (map: StyledMap, seconds: Double, surface: ImageSurface) {
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sprites"), withIntermediateDirectories: true)
        let clock = ContinuousClock(), start = clock.now
        let map = try TileTest.styledMap(tiles: VectorData.pmtiles, style: style, in: dir, http: http)
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let (s, _) = try StyleIconTests.render(map)
        return (map, seconds, s)
    }

    @Test("A server that never answers, or refuses: the map is built, one warning, the labels drawn")
    func unreachable() throws {
        let silent = try SilentPort()
        let refusing = try Self.refusingPort()
        for (what, port) in [("never answers", silent.port), ("refuses", refusing)] {
            try TemporaryFolder.with("sprite-offline") { dir in
                let url = "http://127.0.0.1:\(port)/sprites/test"
                let (map, seconds, s) = try Self.buildAndDraw(Self.style(url), in: dir,
                                                              http: HTTPTileOptions(cacheDirectory: dir.appendingPathComponent("cache")))
                print("sprite at a server that \(what): the map built in \(String(format: "%.2f", seconds)) s; warnings: \(map.warnings)")
                #expect(map.warnings.count == 1, "\(map.warnings)")
                #expect(map.warnings.first?.hasPrefix("the style's icons (icon-image) are not drawn: cannot fetch sprite URL \(url).json: ") == true,
                        "\(map.warnings)")
                let text = map.labels.placements.filter { !$0.text.isEmpty }
                #expect(text.count >= 5, "\(what): \(text.count) labels")
                #expect(map.labels.placements.allSatisfy { $0.icon == nil })
                #expect(StyleIconTests.redPixels(s) == 0)
            }
        }
    }

    @Test("A sprite fetched once is drawn from the tile cache with its server gone")
    func cachedForTheNextRender() throws {
        try HTTPTestServer.withTemporaryDirectory { dir in
            let server = try StyleIconTests.spriteServer(in: dir)
            let url = server.url("/files/remote").absoluteString
            let http = HTTPTileOptions(cacheDirectory: dir.appendingPathComponent("cache"))
            let online = try Self.buildAndDraw(Self.style(url), in: dir, http: http)
            #expect(online.map.warnings.isEmpty, "\(online.map.warnings)")
            let asked = try server.log().requests.map(\.path)
            #expect(asked.contains("/files/remote.json") && asked.contains("/files/remote.png"), "\(asked)")
            server.stop()
            let offline = try Self.buildAndDraw(Self.style(url), in: dir, http: http)
            print("sprite from the cache, its server gone: the map built in \(String(format: "%.2f", offline.seconds)) s")
            #expect(offline.map.warnings.isEmpty, "\(offline.map.warnings)")
            let icons = offline.map.labels.placements.compactMap(\.icon).filter(StyleIconTests.inFrame)
            #expect(icons.count >= 5 && icons.count == online.map.labels.placements.compactMap(\.icon).filter(StyleIconTests.inFrame).count)
            for icon in icons {
                let c = StyleIconTests.rgb(offline.surface, (icon.minX + icon.maxX) / 2, (icon.minY + icon.maxY) / 2)
                #expect(c.r > 240 && c.g < 15 && c.b < 15, "\(c)")
            }
        }
    }
}
