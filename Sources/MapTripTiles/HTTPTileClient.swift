import Curl
import Foundation
import MapTripGeometry
import MapTripSupport

/// maptrip's version, as sent in the HTTP User-Agent.
public enum MapTripVersion {
    public static let string = "0.1.0"
}

/// How `HTTPTileClient` fetches: who it says it is, where it caches, how hard it pushes.
public struct HTTPTileOptions: Sendable, Equatable {
    /// Sent on every request. Build it with `HTTPTileClient.userAgent(contact:)`: public tile
    /// services block anonymous agents. Control characters are removed; an empty agent is replaced
    /// by `HTTPTileClient.userAgent(contact: nil)`.
    public var userAgent: String
    /// Disk cache directory (see `HTTPTileClient.defaultCacheDirectory(environment:)`); nil: none.
    public var cacheDirectory: URL?
    /// Most requests in flight at once (clamped to 1...64).
    public var maxParallel: Int
    /// Seconds for a whole request (the connect phase gets at most 10 of them).
    public var timeout: Double
    /// Extra attempts after a timeout, a dropped connection, a 5xx or a 429.
    public var retries: Int
    /// First retry delay in seconds, doubled for each further retry.
    public var backoff: Double
    /// Cap, in seconds, on a server's `Retry-After` and on the backoff delay.
    public var maxRetryAfter: Double
    /// How long a response with no `Cache-Control`/`Expires` stays fresh (seconds; 7 days).
    public var defaultLifetime: Double
    /// Largest tile body accepted.
    public var maxTileBytes: Int
    /// When a stale cached tile exists and the network fails (timeout, transport, 5xx, 429), return
    /// the stale bytes instead of the error.
    public var serveStaleOnError: Bool
    /// Once one tile has failed, ask for no more (strict renders, which stop at the first failure):
    /// the URLs not yet asked for get `HTTPTileError.notTried`.
    public var stopAtFirstFailure = false

    public init(userAgent: String = HTTPTileClient.userAgent(contact: nil), cacheDirectory: URL? = nil,
                maxParallel: Int = 4, timeout: Double = 15, retries: Int = 2, backoff: Double = 0.5,
                maxRetryAfter: Double = 30, defaultLifetime: Double = 7 * 86_400,
                maxTileBytes: Int = 16 << 20, serveStaleOnError: Bool = true) {
        self.userAgent = userAgent
        self.cacheDirectory = cacheDirectory
        self.maxParallel = maxParallel
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.maxRetryAfter = maxRetryAfter
        self.defaultLifetime = defaultLifetime
        self.maxTileBytes = maxTileBytes
        self.serveStaleOnError = serveStaleOnError
    }
}

/// Why a tile could not be fetched.
public enum HTTPTileError: Error, Equatable, Sendable, CustomStringConvertible, DiagnosticConvertible {
    /// The server answered with this (non-2xx) HTTP status.
    case status(Int)
    /// No complete answer within the timeout.
    case timeout
    /// Anything else: DNS, refused connection, TLS, unsupported URL, body too large...
    case transport(String)
    /// Not asked for: an earlier tile failed (`HTTPTileOptions.stopAtFirstFailure`).
    case notTried

    public var description: String {
        switch self {
        case .status(let code):
            if let reason = Self.reasons[code] { return "HTTP \(code) \(reason)" }
            return "HTTP \(code)"
        case .timeout: return "timed out"
        case .transport(let message): return "network error: \(message)"
        case .notTried: return "not fetched: an earlier tile failed"
        }
    }

    /// The server or the network is having trouble (not: the tile does not exist).
    var isOutage: Bool {
        switch self {
        case .status(let code): return code == 429 || code >= 500
        case .timeout, .transport: return true
        case .notTried: return false
        }
    }

    private static let reasons: [Int: String] = [
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 410: "Gone",
        418: "I'm a teapot", 429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
        503: "Service Unavailable", 504: "Gateway Timeout",
    ]
}

/// Fetches raster tiles over HTTP(S) with libcurl: an honest User-Agent, bounded parallelism,
/// retries with exponential backoff, and an optional disk cache honouring the server's caching
/// headers. Calls block the calling thread (run them off the Swift concurrency pool for big batches).
/// Safe to use from several threads at once.
public final class HTTPTileClient: @unchecked Sendable {
    public let options: HTTPTileOptions
    private let cache: HTTPTileCache?
    /// The User-Agent actually sent (options.userAgent cleaned, or the default).
    public let userAgent: String
    private let maxParallel: Int
    private let timeout: Double
    private let retries: Int
    private let backoff: Double
    private let maxRetryAfter: Double

    private let lock = NSLock()
    private var requests = 0
    private var cacheHits = 0
    private var failures = 0
    /// Idle easy handles, reused so connections stay alive between calls.
    private var idle: [Curl.Easy] = []
    /// One per request allowed in flight, across every call on this client.
    private let slots: DispatchSemaphore
    private let defaultLifetime: Double

    public init(options: HTTPTileOptions) {
        self.options = options
        cache = options.cacheDirectory.map(HTTPTileCache.init(directory:))
        let agent = Self.removingControlCharacters(options.userAgent).trimmingCharacters(in: .whitespaces)
        userAgent = agent.isEmpty ? Self.userAgent(contact: nil) : agent
        maxParallel = min(64, max(1, options.maxParallel))
        timeout = options.timeout.isFinite && options.timeout > 0 ? options.timeout : 15
        retries = min(10, max(0, options.retries))
        backoff = options.backoff.isFinite ? max(0, options.backoff) : 0.5
        maxRetryAfter = options.maxRetryAfter.isFinite ? max(0, options.maxRetryAfter) : 30
        defaultLifetime = options.defaultLifetime.isFinite ? max(0, options.defaultLifetime) : 7 * 86_400
        slots = DispatchSemaphore(value: maxParallel)
    }

    /// `maptrip/<version> (+<contact>)`, or `maptrip/<version>` without a contact. The contact (an
    /// e-mail address or URL, from the scene's `map.contact` or `--contact`) is cleaned of control
    /// characters and parentheses.
    public static func userAgent(contact: String?) -> String {
        let base = "maptrip/\(MapTripVersion.string)"
        let cleaned = removingControlCharacters(contact ?? "")
            .filter { $0 != "(" && $0 != ")" }
            .trimmingCharacters(in: .whitespaces)
        return cleaned.isEmpty ? base : "\(base) (+\(cleaned))"
    }

    /// `$XDG_CACHE_HOME/maptrip/tiles`, else `$HOME/.cache/maptrip/tiles`; nil when neither is
    /// usable. Pass `ProcessInfo.processInfo.environment`.
    public static func defaultCacheDirectory(environment: [String: String]) -> URL? {
        CacheDirectories.default("tiles", environment: environment)
    }

    /// Counters since this client was made: HTTP requests sent (retries and revalidations
    /// included), tiles answered from the disk cache (fresh, revalidated by a 304, or stale after a
    /// network failure), and fetches that ended in an error.
    public var stats: (requests: Int, cacheHits: Int, failures: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (requests, cacheHits, failures)
    }

    /// Fetches one tile on the calling thread.
    public func fetch(_ url: URL) -> Result<Data, HTTPTileError> {
        withEasy { load(url, easy: $0) }.map(\.data)
    }

    /// Fetches a file that is not a tile (a style's sprite JSON and PNG) on the calling thread: cached
    /// like a tile whatever its bytes look like.
    public func fetchResource(_ url: URL) -> Result<Data, HTTPTileError> {
        withEasy { load(url, easy: $0, anyBody: true) }.map(\.data)
    }

    /// Fetches several tiles, at most `maxParallel` at once (each worker thread with its own
    /// handle; the bound holds across concurrent calls on one client). Duplicate URLs are fetched
    /// once. Every URL gets an entry.
    public func fetch(_ urls: [URL]) -> [URL: Result<Data, HTTPTileError>] {
        var seen = Set<URL>()
        let unique = urls.filter { seen.insert($0).inserted }
        if unique.count <= 1 {
            return unique.first.map { [$0: fetch($0)] } ?? [:]
        }
        let work = WorkList(unique)
        let workers = min(maxParallel, unique.count)
        let group = DispatchGroup()
        let run: @Sendable () -> Void = { [self] in
            withEasy { easy in
                while let url = work.take() {
                    let result = load(url, easy: easy).map(\.data)
                    work.put(url, result)
                    if options.stopAtFirstFailure, case .failure = result { work.stop() }
                }
            }
        }
        for _ in 1..<workers {  // the calling thread is the last worker
            group.enter()
            let thread = Thread {
                run()
                group.leave()
            }
            thread.name = "maptrip-http"
            thread.start()
        }
        run()
        group.wait()
        return work.results
    }

    /// Fetches bytes `range` of a resource with an HTTP range request (for PMTiles), on the calling
    /// thread; cached, retried and bounded like a tile (a range longer than `maxTileBytes` is refused).
    /// A server that ignores the range and sends the whole resource (200) is answered with the slice
    /// when the whole fits in `maxTileBytes`; a shorter answer than asked for (the range runs past
    /// the end) is an error.
    public func fetch(_ url: URL, range: Range<UInt64>) -> Result<Data, HTTPTileError> {
        fetch(url, range: range, ifMatch: nil).map(\.data)
    }

    /// Bytes of a resource and the resource's ETag as the answer (or the cached copy) gave it.
    public struct Answer: Sendable {
        public var data: Data
        public var etag: String?
    }

    /// As `fetch(_:range:)`, from one version of the resource: `ifMatch`, its ETag, is sent as
    /// If-Match (the server answers 412, `HTTPTileError.status(412)`, when the resource has changed)
    /// and a cached copy of another version is not used; `revalidate` asks the server even when a
    /// fresh copy is cached. The answer carries the ETag its bytes came with.
    public func fetch(_ url: URL, range: Range<UInt64>, ifMatch: String?, revalidate: Bool = false) -> Result<Answer, HTTPTileError> {
        guard !range.isEmpty else { return .success(Answer(data: Data(), etag: ifMatch)) }
        guard range.count <= UInt64(max(1, options.maxTileBytes)) else {
            return fail(.transport("a range of \(range.count) bytes is more than the \(options.maxTileBytes) a request may bring"))
        }
        return withEasy { load(url, easy: $0, range: range, ifMatch: ifMatch, revalidate: revalidate) }
    }

    /// The cache's name for a range of a resource: the URL with a fragment (never sent) naming the bytes.
    static func cacheKey(_ url: URL, range: Range<UInt64>?) -> URL {
        guard let range else { return url }
        var c = URLComponents(url: url, resolvingAgainstBaseURL: false)
        c?.fragment = "bytes=\(range.lowerBound)-\(range.upperBound - 1)"
        return c?.url ?? url
    }

    // MARK: One URL

    private func load(_ url: URL, easy: Curl.Easy?, range: Range<UInt64>? = nil, ifMatch: String? = nil,
                      revalidate: Bool = false, anyBody: Bool = false) -> Result<Answer, HTTPTileError> {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            return fail(.transport("unsupported URL \(url.absoluteString) (only http and https)"))
        }
        let key = Self.cacheKey(url, range: range)
        // A copy of another version than the one asked for is no copy.
        let cached = cache?.load(key).flatMap { ifMatch == nil || $0.metadata.etag == ifMatch ? $0 : nil }
        if !revalidate, let cached, cached.metadata.isFresh(now: Self.now()) {
            count { $0.cacheHits += 1 }
            return .success(Answer(data: cached.data, etag: cached.metadata.etag))
        }
        guard let easy else { return fail(.transport("could not create a curl handle")) }

        var headers = Headers()
        if let range { headers["Range"] = "bytes=\(range.lowerBound)-\(range.upperBound - 1)" }
        if let ifMatch { headers["If-Match"] = ifMatch }
        if let meta = cached?.metadata {
            if let etag = meta.etag { headers["If-None-Match"] = etag }
            if let lastModified = meta.lastModified { headers["If-Modified-Since"] = lastModified }
        }
        let request = Curl.Request(url: url.absoluteString, userAgent: userAgent, headers: headers,
                                   connectTimeout: min(timeout, 10), timeout: timeout, followRedirects: true,
                                   maxRedirects: 5, acceptEncoding: range == nil ? "" : nil, allowedProtocols: "http,https",
                                   maxBodySize: max(1, options.maxTileBytes))
        var attempt = 0
        while true {
            count { $0.requests += 1 }
            let error: HTTPTileError
            var retryable = false
            var retryAfter: Double?
            do {
                slots.wait()
                let response: Curl.Response
                do {
                    defer { slots.signal() }
                    response = try easy.perform(request)
                }
                if response.status == 304, let cached {  // revalidated: the stored bytes are still good
                    store(response, for: key, revalidated: cached.metadata)
                    count { $0.cacheHits += 1 }
                    return .success(Answer(data: cached.data, etag: response.headers["ETag"] ?? cached.metadata.etag))
                }
                if let range, (200..<300).contains(response.status) {
                    var response = response
                    if response.status != 206 {
                        // The whole resource: the slice asked for, when it is there.
                        guard UInt64(response.body.count) >= range.upperBound else {
                            return fail(.transport("the server sent \(response.body.count) bytes, not bytes "
                                                   + "\(range.lowerBound)-\(range.upperBound - 1) (past the end of the file?)"))
                        }
                        response.body = response.body.subdata(in: Int(range.lowerBound)..<Int(range.upperBound))
                    }
                    guard UInt64(response.body.count) == range.count else {
                        return fail(.transport("the server sent \(response.body.count) of the \(range.count) bytes at "
                                               + "\(range.lowerBound) (past the end of the file?)"))
                    }
                    store(response, for: key)
                    return .success(Answer(data: response.body, etag: response.headers["ETag"]))
                }
                if let range, response.status == 416 {
                    return fail(.transport("bytes \(range.lowerBound)-\(range.upperBound - 1) are past the end of the file "
                                           + "(HTTP 416 Range Not Satisfiable)"))
                }
                switch response.status {
                case 200..<300:
                    // Only what looks like a tile is kept: an error page sent with 200 (a proxy, a
                    // quota) must not stand in for the tile on every later run.
                    if response.status == 200, anyBody || TileFormat(sniffing: response.body) != nil { store(response, for: url) }
                    return .success(Answer(data: response.body, etag: response.headers["ETag"]))
                case let status:
                    error = .status(status)
                    retryable = status == 429 || (500...599).contains(status)
                    retryAfter = HTTPCachePolicy.retryAfter(response.headers["Retry-After"], now: Self.now())
                }
            } catch let e as CurlError {
                // The request's URL is the caller's to say; a redirect elsewhere is named.
                error = e.isTimeout ? .timeout
                    : e.isUnsupportedProtocol ? .transport("redirected to a URL that is not http or https (\(e.summary))")
                    : .transport(e.summary)
                retryable = e.isTransient
            } catch {
                return fail(.transport("\(error)"))
            }

            if retryable, attempt < retries {
                Thread.sleep(forTimeInterval: delay(attempt: attempt, retryAfter: retryAfter))
                attempt += 1
                continue
            }
            if case .status(let status) = error, status == 404 || status == 410 {
                cache?.remove(key)
            } else if options.serveStaleOnError, let cached, error.isOutage {
                count { $0.cacheHits += 1 }
                return .success(Answer(data: cached.data, etag: cached.metadata.etag))
            }
            return fail(error)
        }
    }

    /// Delay before retry number `attempt + 1`: the server's `Retry-After` when it gave one, else
    /// exponential backoff; both capped by `maxRetryAfter`.
    func delay(attempt: Int, retryAfter: Double?) -> Double {
        if let retryAfter { return min(retryAfter, maxRetryAfter) }
        return min(backoff * pow(2, Double(attempt)), maxRetryAfter)
    }

    /// Records a response in the cache: a 200's body and metadata, or (`revalidated`, after a 304)
    /// new metadata for the bytes already stored. The server's caching headers decide for how long.
    private func store(_ response: Curl.Response, for url: URL, revalidated old: HTTPCacheMetadata? = nil) {
        guard let cache else { return }
        let now = Self.now()
        switch HTTPCachePolicy.decide(header: { response.headers[$0] }, now: now,
                                      defaultLifetime: defaultLifetime) {
        case .noStore:
            cache.remove(url)
        case .store(let expires):
            var meta = old ?? HTTPCacheMetadata(url: url.absoluteString, expires: expires, etag: nil, lastModified: nil,
                                                stored: now, size: response.body.count)
            meta.expires = expires
            meta.stored = now
            if let etag = response.headers["ETag"] { meta.etag = etag }
            if let lastModified = response.headers["Last-Modified"] { meta.lastModified = lastModified }
            // A cache that cannot be written is no cache: the tile is still good.
            if old == nil {
                try? cache.store(response.body, metadata: meta)
            } else {
                try? cache.storeMetadata(meta)
            }
        }
    }

    // MARK: Plumbing

    private func fail<T>(_ error: HTTPTileError) -> Result<T, HTTPTileError> {
        count { $0.failures += 1 }
        return .failure(error)
    }

    private func count(_ update: (HTTPTileClient) -> Void) {
        lock.lock()
        update(self)
        lock.unlock()
    }

    /// Runs `body` with an idle handle (or a new one; nil if libcurl cannot make one), then keeps
    /// the handle for the next call.
    private func withEasy<T>(_ body: (Curl.Easy?) -> T) -> T {
        lock.lock()
        let reused = idle.popLast()
        lock.unlock()
        let easy = reused ?? (try? Curl.Easy())
        let result = body(easy)
        if let easy {
            lock.lock()
            if idle.count < maxParallel { idle.append(easy) }
            lock.unlock()
        }
        return result
    }

    private static func now() -> Double { Date().timeIntervalSince1970 }

    private static func removingControlCharacters(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }))
    }
}

/// The URLs still to fetch and the results so far, shared by the worker threads.
private final class WorkList: @unchecked Sendable {
    private let urls: [URL]
    private var next = 0
    private var done: [URL: Result<Data, HTTPTileError>] = [:]
    private let lock = NSLock()

    init(_ urls: [URL]) { self.urls = urls }

    /// No more URLs are handed out; those not taken are answered `.notTried`.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        for url in urls[next...] { done[url] = .failure(.notTried) }
        next = urls.count
    }

    func take() -> URL? {
        lock.lock()
        defer { lock.unlock() }
        guard next < urls.count else { return nil }
        next += 1
        return urls[next - 1]
    }

    func put(_ url: URL, _ result: Result<Data, HTTPTileError>) {
        lock.lock()
        done[url] = result
        lock.unlock()
    }

    var results: [URL: Result<Data, HTTPTileError>] {
        lock.lock()
        defer { lock.unlock() }
        return done
    }
}
