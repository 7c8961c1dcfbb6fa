import Foundation
import Testing
@testable import MapTripTiles

/// Quick options for tests: short timeout and backoff.
private func options(contact: String? = "tests@example.org", cache: URL? = nil, maxParallel: Int = 4,
                     timeout: Double = 5, retries: Int = 2, backoff: Double = 0.01,
                     maxRetryAfter: Double = 30) -> HTTPTileOptions {
    HTTPTileOptions(userAgent: HTTPTileClient.userAgent(contact: contact), cacheDirectory: cache,
                    maxParallel: maxParallel, timeout: timeout, retries: retries, backoff: backoff,
                    maxRetryAfter: maxRetryAfter)
}

@Suite("HTTP tile client", .enabled(if: HTTPTestServer.pythonAvailable, "needs python3 for the tile server"))
struct HTTPTileClientTests {
    @Test func fetchDeliversTheBytes() throws {
        try HTTPTestServer.with { server throws in
            let client = HTTPTileClient(options: options())
            let data = try client.fetch(server.url("/ok/3/4/5.png")).get()
            #expect(data.prefix(8) == HTTPTestServer.pngSignature)
            #expect(data.count > 40)
            #expect(client.stats.requests == 1)
            #expect(client.stats.failures == 0)
            #expect(try server.log().requests(to: "/ok/3/4/5.png").count == 1)
        }
    }

    @Test func userAgentNamesMaptripVersionAndContact() throws {
        try HTTPTestServer.with { server throws in
            let client = HTTPTileClient(options: options(contact: "ops@example.org"))
            _ = try client.fetch(server.url("/ok/1/0/0.png")).get()
            let agent = try #require(try server.log().requests(to: "/ok/1/0/0.png").first?.userAgent)
            #expect(agent == "maptrip/\(MapTripVersion.string) (+ops@example.org)")
            #expect(agent.contains("maptrip"))
            #expect(agent.contains("0.1.0"))
            #expect(agent.contains("ops@example.org"))
        }
    }

    @Test func userAgentHelper() {
        #expect(HTTPTileClient.userAgent(contact: nil) == "maptrip/0.1.0")
        #expect(HTTPTileClient.userAgent(contact: "  ") == "maptrip/0.1.0")
        #expect(HTTPTileClient.userAgent(contact: "https://example.org/maps")
                == "maptrip/0.1.0 (+https://example.org/maps)")
        // A contact from a scene file cannot inject header lines or break the comment.
        #expect(HTTPTileClient.userAgent(contact: "a@b.c\r\nX-Evil: 1 (x)") == "maptrip/0.1.0 (+a@b.cX-Evil: 1 x)")
        // A custom agent with control characters is cleaned; an empty one becomes the default.
        #expect(HTTPTileClient(options: HTTPTileOptions(userAgent: "\n")).userAgent == "maptrip/0.1.0")
        #expect(HTTPTileClient(options: HTTPTileOptions(userAgent: "maptrip/0.1.0\r\n (+x)")).userAgent
                == "maptrip/0.1.0 (+x)")
    }

    @Test func parallelFetchRespectsMaxParallel() throws {
        try HTTPTestServer.with { server throws in
            let client = HTTPTileClient(options: options(maxParallel: 4))
            let urls = (0..<20).map { server.url("/ok/5/\($0)/7.png?delay=0.15") }
            let results = client.fetch(urls + urls.prefix(3))  // duplicates are fetched once
            #expect(results.count == 20)
            for url in urls {
                let data = try #require(results[url]).get()
                #expect(data.prefix(8) == HTTPTestServer.pngSignature)
            }
            let log = try server.log()
            #expect(log.requests.count == 20)
            #expect(log.maxConcurrent <= 4)
            #expect(log.maxConcurrent >= 2)
            #expect(client.stats.requests == 20)
        }
    }

    @Test func secondClientServesFreshTilesFromTheCache() throws {
        try HTTPTestServer.with { server throws in
            try HTTPTestServer.withTemporaryDirectory { dir throws in
                let urls = (0..<5).map { server.url("/ok/2/\($0)/1.png") }
                let first = HTTPTileClient(options: options(cache: dir))
                let fetched = first.fetch(urls)
                #expect(first.stats.requests == 5)
                #expect(first.stats.cacheHits == 0)

                let second = HTTPTileClient(options: options(cache: dir))
                let cached = second.fetch(urls)
                #expect(second.stats.requests == 0)
                #expect(second.stats.cacheHits == 5)
                for url in urls { #expect(try cached[url]?.get() == fetched[url]?.get()) }
                #expect(try server.log().requests.count == 5)

                // Layout: <dir>/<first 2 of hash>/<hash>.tile plus a JSON sidecar.
                let key = HTTPTileCache.key(for: urls[0])
                #expect(key.count == 16)
                let tile = dir.appendingPathComponent(String(key.prefix(2))).appendingPathComponent("\(key).tile")
                #expect(FileManager.default.fileExists(atPath: tile.path))
                let meta = try #require(HTTPTileCache(directory: dir).metadata(for: urls[0]))
                #expect(abs(meta.expires - (Date().timeIntervalSince1970 + 3600)) < 60)
            }
        }
    }

    @Test func tilesWithoutExpiryAreKeptSevenDays() throws {
        try HTTPTestServer.with { server throws in
            try HTTPTestServer.withTemporaryDirectory { dir throws in
                let url = server.url("/noexpiry/4/4/4.png")
                let client = HTTPTileClient(options: options(cache: dir))
                _ = try client.fetch(url).get()
                let meta = try #require(HTTPTileCache(directory: dir).metadata(for: url))
                #expect(abs(meta.expires - (Date().timeIntervalSince1970 + 7 * 86_400)) < 60)
                #expect(meta.url == url.absoluteString)
                #expect(meta.etag == nil)
                _ = try client.fetch(url).get()
                #expect(client.stats.requests == 1)
                #expect(client.stats.cacheHits == 1)
            }
        }
    }

    @Test func staleTilesAreRevalidatedWithTheirETag() throws {
        try HTTPTestServer.with { server throws in
            try HTTPTestServer.withTemporaryDirectory { dir throws in
                let url = server.url("/etag/6/1/2.png")
                let first = HTTPTileClient(options: options(cache: dir))
                let original = try first.fetch(url).get()
                let meta = try #require(HTTPTileCache(directory: dir).metadata(for: url))
                let etag = try #require(meta.etag)
                #expect(meta.lastModified == "Wed, 21 Oct 2015 07:28:00 GMT")

                let second = HTTPTileClient(options: options(cache: dir))
                let again = try second.fetch(url).get()
                #expect(again == original)
                #expect(second.stats.requests == 1)
                #expect(second.stats.cacheHits == 1)

                let log = try server.log().requests(to: "/etag/6/1/2.png")
                #expect(log.count == 2)
                #expect(log.first?.ifNoneMatch == nil)
                #expect(log.first?.status == 200)
                #expect(log.last?.ifNoneMatch == etag)
                #expect(log.last?.ifModifiedSince == "Wed, 21 Oct 2015 07:28:00 GMT")
                #expect(log.last?.status == 304)
            }
        }
    }

    @Test func notFoundIsNotRetried() throws {
        try HTTPTestServer.with { server throws in
            let client = HTTPTileClient(options: options(retries: 2))
            #expect(client.fetch(server.url("/404/1/1/1.png")).httpFailure == .status(404))
            #expect(try server.log().requests(to: "/404/1/1/1.png").count == 1)
            #expect(client.stats.requests == 1)
            #expect(client.stats.failures == 1)
        }
    }

    @Test func serverErrorsAreRetriedThenReported() throws {
        try HTTPTestServer.with { server throws in
            try HTTPTestServer.withTemporaryDirectory { dir throws in
                let url = server.url("/500/1/1/1.png")
                let client = HTTPTileClient(options: options(cache: dir, retries: 2))
                let error = client.fetch(url).httpFailure
                #expect(error == .status(500))
                #expect(error?.description == "HTTP 500 Internal Server Error")
                #expect(try server.log().requests(to: "/500/1/1/1.png").count == 3)
                #expect(client.stats.requests == 3)
                #expect(client.stats.failures == 1)
                // Failures are not cached.
                #expect(HTTPTileCache(directory: dir).metadata(for: url) == nil)
                #expect(!FileManager.default.fileExists(atPath: HTTPTileCache(directory: dir).tileFile(for: url).path))
            }
        }
    }

    @Test func flakyTileSucceedsAfterARetry() throws {
        try HTTPTestServer.with { server throws in
            let client = HTTPTileClient(options: options(retries: 2))
            let data = try client.fetch(server.url("/flaky/2/2/2.png")).get()
            #expect(data.prefix(8) == HTTPTestServer.pngSignature)
            #expect(try server.log().requests(to: "/flaky/2/2/2.png").map(\.status) == [500, 200])
            #expect(client.stats.failures == 0)
        }
    }

    @Test func slowTileTimesOut() throws {
        try HTTPTestServer.with { server throws in
            let client = HTTPTileClient(options: options(timeout: 1, retries: 0))
            // The server answers after 4 s: a timeout (not the tile) proves the 1 s limit held.
            let result = client.fetch(server.url("/slow/1/1/1.png?sleep=4"))
            #expect(result.httpFailure == .timeout)
            #expect(HTTPTileError.timeout.description == "timed out")
        }
    }

    @Test func garbageBytesAreReturnedAsIs() throws {
        try HTTPTestServer.with { server throws in
            let client = HTTPTileClient(options: options())
            let data = try client.fetch(server.url("/garbage/1/1/1.png")).get()
            #expect(data == Data("this is not an image\n".utf8))
        }
    }

    /// An error page sent with 200 (a proxy, a quota) is handed back to be refused by the decoder, but
    /// never kept in the cache: the next run asks the server again.
    @Test func errorPagesSentWith200AreNotCached() throws {
        try HTTPTestServer.with { server throws in
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: cache) }
            for _ in 0..<2 {
                let client = HTTPTileClient(options: options(cache: cache))
                let page = try client.fetch(server.url("/html/1/1/1.png")).get()
                #expect(String(decoding: page.prefix(15), as: UTF8.self) == "<!DOCTYPE html>")
                #expect(client.stats.cacheHits == 0)
            }
            #expect(try server.log().requests(to: "/html/1/1/1.png").count == 2)
        }
    }

    /// A connection reset, bytes trickling past the timeout, a redirect to ftp://: each one error.
    @Test func resetTrickleAndSchemeRedirectFail() throws {
        try HTTPTestServer.with { server throws in
            let client = HTTPTileClient(options: options(timeout: 1, retries: 0))
            #expect(client.fetch(server.url("/reset/1/1/1.png")).httpFailure
                    == .transport("Recv failure: Connection reset by peer"))
            #expect(client.fetch(server.url("/trickle/1/1/1.png")).httpFailure == .timeout)
            let redirected = client.fetch(server.url("/ftpredirect/1/1/1.png")).httpFailure
            #expect(redirected?.description.hasPrefix("network error: redirected to a URL that is not http or https") == true,
                    "\(String(describing: redirected))")
        }
    }

    /// `stopAtFirstFailure` (strict renders): once a tile has failed, no more are asked for.
    @Test func stopAtFirstFailureAsksForNoMore() throws {
        try HTTPTestServer.with { server throws in
            var o = options(maxParallel: 1, retries: 0)
            o.stopAtFirstFailure = true
            let urls = (0..<8).map { server.url("/500/3/\($0)/0.png") }
            let results = HTTPTileClient(options: o).fetch(urls)
            #expect(results.count == 8)
            #expect(results[urls[0]]?.httpFailure == .status(500))
            #expect(urls.dropFirst().allSatisfy { results[$0]?.httpFailure == .notTried })
            #expect(try server.log().requests.filter { $0.path.hasPrefix("/500/") }.count == 1)
        }
    }

    @Test func tooManyRequestsHonoursRetryAfter() throws {
        try HTTPTestServer.with { server throws in
            let client = HTTPTileClient(options: options(retries: 2, backoff: 0.01))
            // The wait asked for is the server's Retry-After, not the backoff.
            #expect(client.delay(attempt: 0, retryAfter: 1) == 1)
            let data = try client.fetch(server.url("/429/1/1/1.png?after=1")).get()
            #expect(data.prefix(8) == HTTPTestServer.pngSignature)
            #expect(try server.log().requests(to: "/429/1/1/1.png").map(\.status) == [429, 200])
        }
    }

    @Test func retryAfterIsCapped() throws {
        try HTTPTestServer.with { server throws in
            let client = HTTPTileClient(options: options(retries: 1, maxRetryAfter: 0.2))
            let data = try client.fetch(server.url("/429/1/1/2.png?after=3600")).get()
            #expect(data.prefix(8) == HTTPTestServer.pngSignature)
            #expect(client.delay(attempt: 0, retryAfter: 3600) == 0.2)
            #expect(client.delay(attempt: 0, retryAfter: nil) == 0.01)
            #expect(client.delay(attempt: 3, retryAfter: nil) == 0.08)
        }
    }

    @Test func redirectsAreFollowedAndGzipIsDecoded() throws {
        try HTTPTestServer.with { server throws in
            let client = HTTPTileClient(options: options())
            let plain = try client.fetch(server.url("/ok/7/8/9.png")).get()
            #expect(try client.fetch(server.url("/redirect/7/8/9.png")).get() == plain)
            #expect(try client.fetch(server.url("/gzip/7/8/9.png")).get() == plain)
            let gzip = try #require(try server.log().requests(to: "/gzip/7/8/9.png").first)
            #expect(gzip.acceptEncoding?.contains("gzip") == true)
        }
    }

    @Test func oversizedTilesAreRefused() throws {
        try HTTPTestServer.with { server throws in
            var small = options(retries: 2)
            small.maxTileBytes = 16
            let result = HTTPTileClient(options: small).fetch(server.url("/ok/1/1/1.png"))
            guard case .transport(let message)? = result.httpFailure else {
                Issue.record("expected a transport error, got \(result)")
                return
            }
            #expect(message.lowercased().contains("size") || message.contains("exceeds"))
            #expect(try server.log().requests(to: "/ok/1/1/1.png").count == 1)  // not retried
        }
    }

    @Test func unusableURLsFailWithoutARequest() throws {
        let client = HTTPTileClient(options: options())
        let file = client.fetch(URL(fileURLWithPath: "/etc/passwd"))
        guard case .transport(let message)? = file.httpFailure else {
            Issue.record("expected a transport error, got \(file)")
            return
        }
        #expect(message.contains("unsupported URL"))
        #expect(client.stats.requests == 0)
        #expect(client.stats.failures == 1)
    }

    @Test func refusedConnectionIsATransportError() throws {
        // Start a server to learn a free port, stop it, then connect to the dead port.
        let port = try HTTPTestServer.with { $0.port }
        let client = HTTPTileClient(options: options(retries: 2))
        let result = client.fetch(URL(string: "http://127.0.0.1:\(port)/ok/1/1/1.png")!)
        guard case .transport(let message)? = result.httpFailure else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect(message.contains("Couldn't connect to server"), "\(message)")
        #expect(client.stats.requests == 1)  // refused connections are not retried
    }

    @Test func staleTilesAreServedWhenTheServerIsGone() throws {
        try HTTPTestServer.withTemporaryDirectory { dir throws in
            var url: URL?
            var original = Data()
            try HTTPTestServer.with { server throws in
                url = server.url("/etag/8/8/8.png")  // max-age=0: stale at once
                original = try HTTPTileClient(options: options(cache: dir)).fetch(#require(url)).get()
            }
            let tile = try #require(url)
            let offline = HTTPTileClient(options: options(cache: dir, retries: 0))
            #expect(try offline.fetch(tile).get() == original)
            #expect(offline.stats.requests == 1)
            #expect(offline.stats.cacheHits == 1)

            var strictOptions = options(cache: dir, retries: 0)
            strictOptions.serveStaleOnError = false
            let strict = HTTPTileClient(options: strictOptions)
            guard case .transport? = strict.fetch(tile).httpFailure else {
                Issue.record("expected a transport error")
                return
            }
        }
    }

    @Test func maxParallelHoldsAcrossConcurrentCalls() throws {
        try HTTPTestServer.with { server throws in
            let client = HTTPTileClient(options: options(maxParallel: 3))
            let batches = (0..<3).map { b in (0..<6).map { server.url("/ok/10/\(b)/\($0).png?delay=0.1") } }
            let bad = HTTPCounter()
            DispatchQueue.concurrentPerform(iterations: batches.count) { i in
                let results = client.fetch(batches[i])
                for url in batches[i] where (try? results[url]?.get()) == nil { bad.add() }
            }
            #expect(bad.value == 0)
            let log = try server.log()
            #expect(log.requests.count == 18)
            #expect(log.maxConcurrent <= 3)
        }
    }

    @Test func concurrentClientsShareOneCacheDirectory() throws {
        try HTTPTestServer.with { server throws in
            try HTTPTestServer.withTemporaryDirectory { dir throws in
                let urls = (0..<12).map { server.url("/noexpiry/9/\($0)/3.png?delay=0.02") }
                let clients = (0..<3).map { _ in HTTPTileClient(options: options(cache: dir, maxParallel: 3)) }
                let bad = HTTPCounter()
                DispatchQueue.concurrentPerform(iterations: clients.count) { i in
                    let results = clients[i].fetch(urls)
                    for url in urls where (try? results[url]?.get())?.prefix(8) != HTTPTestServer.pngSignature { bad.add() }
                }
                #expect(bad.value == 0)
                // Whatever interleaving happened, the cache holds whole, readable tiles.
                let reader = HTTPTileClient(options: options(cache: dir))
                for url in urls {
                    #expect(try reader.fetch(url).get().prefix(8) == HTTPTestServer.pngSignature)
                }
                #expect(reader.stats.requests == 0)
                let leftovers = try FileManager.default.subpathsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".tmp") }
                #expect(leftovers.isEmpty)
            }
        }
    }
}

private final class HTTPCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

@Suite("HTTP cache rules")
struct HTTPCacheRuleTests {
    private func decide(_ headers: [String: String], now: Double = 1_000_000) -> HTTPCachePolicy.Decision {
        let lower = Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value) })
        return HTTPCachePolicy.decide(header: { lower[$0.lowercased()] }, now: now, defaultLifetime: 604_800)
    }

    @Test func cacheControlAndExpires() {
        #expect(decide([:]) == .store(expires: 1_000_000 + 604_800))
        #expect(decide(["Cache-Control": "public, max-age=3600"]) == .store(expires: 1_003_600))
        #expect(decide(["Cache-Control": "max-age=\"60\"", "Age": "20"]) == .store(expires: 1_000_040))
        #expect(decide(["Cache-Control": "no-store, max-age=3600"]) == .noStore)
        #expect(decide(["cache-control": "No-Cache"]) == .store(expires: 1_000_000))
        #expect(decide(["Cache-Control": "max-age=0"]) == .store(expires: 1_000_000))
        // max-age wins over Expires.
        #expect(decide(["Cache-Control": "max-age=10", "Expires": "Thu, 01 Jan 1970 00:00:00 GMT"])
                == .store(expires: 1_000_010))
        // Expires is taken relative to the server's Date.
        #expect(decide(["Expires": "Thu, 01 Jan 1970 01:00:00 GMT", "Date": "Thu, 01 Jan 1970 00:00:00 GMT"])
                == .store(expires: 1_003_600))
        #expect(decide(["Expires": "Mon, 12 Jan 1970 14:00:00 GMT"]) == .store(expires: 1_000_800))
        #expect(decide(["Expires": "0"]) == .store(expires: 1_000_000))
    }

    @Test func httpDates() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == 784_111_777)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 12:00:00 GMT") == 1_835_438_400)
        #expect(HTTPDate.parse("yesterday") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 25:00:00 GMT") == nil)
    }

    @Test func retryAfter() {
        #expect(HTTPCachePolicy.retryAfter("120", now: 0) == 120)
        #expect(HTTPCachePolicy.retryAfter(" 3 ", now: 0) == 3)
        #expect(HTTPCachePolicy.retryAfter("Thu, 01 Jan 1970 00:01:00 GMT", now: 30) == 30)
        #expect(HTTPCachePolicy.retryAfter("soon", now: 0) == nil)
        #expect(HTTPCachePolicy.retryAfter(nil, now: 0) == nil)
    }

    @Test func defaultCacheDirectory() {
        #expect(HTTPTileClient.defaultCacheDirectory(environment: ["XDG_CACHE_HOME": "/var/cache/me", "HOME": "/home/u"])?.path
                == "/var/cache/me/maptrip/tiles")
        #expect(HTTPTileClient.defaultCacheDirectory(environment: ["HOME": "/home/u"])?.path
                == "/home/u/.cache/maptrip/tiles")
        // A relative XDG_CACHE_HOME is invalid per the spec and ignored.
        #expect(HTTPTileClient.defaultCacheDirectory(environment: ["XDG_CACHE_HOME": "cache", "HOME": "/home/u"])?.path
                == "/home/u/.cache/maptrip/tiles")
        #expect(HTTPTileClient.defaultCacheDirectory(environment: [:]) == nil)
    }

    @Test func cacheKeyIsStable() {
        // FNV-1a 64 of "" is the offset basis; of "a" a known value.
        #expect(HTTPTileCache.key(for: URL(string: "a")!) == "af63dc4c8601ec8c")
        let url = URL(string: "https://tile.example.org/1/2/3.png")!
        #expect(HTTPTileCache.key(for: url) == HTTPTileCache.key(for: url))
        #expect(HTTPTileCache.key(for: url) != HTTPTileCache.key(for: URL(string: "https://tile.example.org/1/2/4.png")!))
    }

    @Test func errorDescriptions() {
        #expect(HTTPTileError.status(404).description == "HTTP 404 Not Found")
        #expect(HTTPTileError.status(599).description == "HTTP 599")
        #expect(HTTPTileError.transport("boom").description == "network error: boom")
    }
}
