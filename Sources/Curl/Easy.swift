import CCurl
import Foundation

extension Curl {
    /// What to ask for: a GET (or HEAD) of one URL with the usual knobs. Apply it with
    /// `Easy.perform(_:)`, which resets the handle first so nothing leaks between requests.
    public struct Request: Sendable, Equatable {
        public var url: String
        public var method: Method
        public var userAgent: String?
        /// Extra request headers, e.g. `If-None-Match` / `If-Modified-Since` for revalidation.
        public var headers: Headers
        /// Seconds to wait for the connection (nil: curl's default, 300 s).
        public var connectTimeout: Double?
        /// Seconds for the whole transfer (nil: no limit).
        public var timeout: Double?
        public var followRedirects: Bool
        public var maxRedirects: Int
        /// `Accept-Encoding`: "" offers every encoding this libcurl can decode (bodies arrive
        /// decoded); nil sends none and takes the body as is.
        public var acceptEncoding: String?
        /// Protocols allowed, also for redirects (`CURLOPT_PROTOCOLS_STR`); nil: anything curl
        /// supports.
        public var allowedProtocols: String?
        /// Largest body accepted; a bigger one fails with CURLE_FILESIZE_EXCEEDED or WRITE_ERROR.
        public var maxBodySize: Int?

        public enum Method: String, Sendable, Equatable { case get = "GET", head = "HEAD" }

        public init(url: String, method: Method = .get, userAgent: String? = nil, headers: Headers = Headers(),
                    connectTimeout: Double? = nil, timeout: Double? = nil, followRedirects: Bool = true,
                    maxRedirects: Int = 10, acceptEncoding: String? = "", allowedProtocols: String? = "http,https",
                    maxBodySize: Int? = nil) {
            self.url = url
            self.method = method
            self.userAgent = userAgent
            self.headers = headers
            self.connectTimeout = connectTimeout
            self.timeout = timeout
            self.followRedirects = followRedirects
            self.maxRedirects = maxRedirects
            self.acceptEncoding = acceptEncoding
            self.allowedProtocols = allowedProtocols
            self.maxBodySize = maxBodySize
        }
    }

    /// A completed transfer. Any status counts as completed: the caller decides what 404 means.
    public struct Response: Sendable, Equatable {
        /// The HTTP status of the last response (after redirects); 0 when there was none.
        public var status: Int
        /// The last response's headers (those of earlier redirect hops are dropped).
        public var headers: Headers
        public var body: Data
        /// Where the body finally came from, after redirects.
        public var effectiveURL: String?

    }

    /// One easy handle. Not thread-safe: use one per thread (libcurl's rule). Reusing a handle
    /// for many requests keeps its connections alive.
    public final class Easy {
        public let handle: UnsafeMutableRawPointer
        private let errorBuffer: UnsafeMutablePointer<CChar>
        private var headerList: HeaderList?
        /// Largest body `perform()` accepts (nil: no limit).
        public var maxBodySize: Int?

        public init() throws {
            try Curl.initialize()
            guard let h = curl_easy_init() else { throw CurlError(CURLE_FAILED_INIT, "easy init") }
            handle = h
            let size = maptrip_curl_error_size()
            errorBuffer = .allocate(capacity: size)
            errorBuffer.initialize(repeating: 0, count: size)
            do { try applyDefaults() } catch {
                curl_easy_cleanup(h)
                errorBuffer.deallocate()
                throw error
            }
        }

        deinit {
            curl_easy_cleanup(handle)
            errorBuffer.deallocate()
        }

        /// Back to libcurl's defaults (plus ours: error buffer, no signals), keeping live
        /// connections and caches.
        public func reset() throws {
            curl_easy_reset(handle)
            headerList = nil
            maxBodySize = nil
            try applyDefaults()
        }

        private func applyDefaults() throws {
            try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer), "error buffer")
            // No SIGALRM for timeouts: required when handles run on several threads.
            try set(CURLOPT_NOSIGNAL, 1, "no signal")
        }

        // MARK: Options

        public func setURL(_ url: String) throws {
            try set(CURLOPT_URL, string: url, "URL")
        }

        public func setUserAgent(_ agent: String?) throws {
            if let agent, agent.hasHeaderBreak {
                throw CurlError(CURLE_BAD_FUNCTION_ARGUMENT, "User-Agent", detail: "line break in User-Agent")
            }
            try set(CURLOPT_USERAGENT, string: agent, "User-Agent")
        }

        /// Connect and total timeouts in seconds; nil keeps curl's default (300 s connect, no total).
        public func setTimeouts(connect: Double?, total: Double?) throws {
            try set(CURLOPT_CONNECTTIMEOUT_MS, connect.map(Self.milliseconds) ?? 0, "connect timeout")
            try set(CURLOPT_TIMEOUT_MS, total.map(Self.milliseconds) ?? 0, "timeout")
        }

        public func setFollowRedirects(_ follow: Bool, maxRedirects: Int = 10) throws {
            try set(CURLOPT_FOLLOWLOCATION, follow ? 1 : 0, "follow redirects")
            try set(CURLOPT_MAXREDIRS, max(0, maxRedirects), "max redirects")
        }

        /// "" offers every encoding libcurl can decode; nil turns decoding off.
        public func setAcceptEncoding(_ encoding: String?) throws {
            try set(CURLOPT_ACCEPT_ENCODING, string: encoding, "Accept-Encoding")
        }

        /// Comma-separated protocol names ("http,https") allowed for the URL and for redirects.
        public func setAllowedProtocols(_ protocols: String?) throws {
            try set(CURLOPT_PROTOCOLS_STR, string: protocols, "protocols")
            try set(CURLOPT_REDIR_PROTOCOLS_STR, string: protocols, "redirect protocols")
        }

        /// Replaces the extra request headers.
        public func setHeaders(_ headers: Headers) throws {
            let list = headers.isEmpty ? nil : try HeaderList(headers)
            try set(CURLOPT_HTTPHEADER, pointer: list?.pointer.map(UnsafeMutableRawPointer.init), "headers")
            headerList = list
        }

        public func setMethod(_ method: Request.Method) throws {
            try set(CURLOPT_NOBODY, method == .head ? 1 : 0, "method")
            if method == .get { try set(CURLOPT_HTTPGET, 1, "method") }
        }

        /// Resets the handle, applies `request` and performs it.
        public func perform(_ request: Request) throws -> Response {
            try reset()
            try setURL(request.url)
            try setMethod(request.method)
            try setUserAgent(request.userAgent)
            try setHeaders(request.headers)
            try setTimeouts(connect: request.connectTimeout, total: request.timeout)
            try setFollowRedirects(request.followRedirects, maxRedirects: request.maxRedirects)
            try setAcceptEncoding(request.acceptEncoding)
            if let protocols = request.allowedProtocols { try setAllowedProtocols(protocols) }
            maxBodySize = request.maxBodySize
            return try perform()
        }

        /// Runs the transfer with the options set so far. Throws `CurlError` for transport failures
        /// (including timeouts); any HTTP status is a response.
        public func perform() throws -> Response {
            let sink = Sink(limit: maxBodySize)
            let context = Unmanaged.passUnretained(sink).toOpaque()
            try CurlError.check(maptrip_curl_setopt_write(handle, curlWriteBody), "write callback")
            try set(CURLOPT_WRITEDATA, pointer: context, "write data")
            try CurlError.check(maptrip_curl_setopt_header(handle, curlWriteHeader), "header callback")
            try set(CURLOPT_HEADERDATA, pointer: context, "header data")
            // Rejects a too-large declared Content-Length up front (0: no limit); the write
            // callback catches bodies without one.
            try CurlError.check(maptrip_curl_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE,
                                                          Int64(max(0, maxBodySize ?? 0))), "max file size")
            errorBuffer[0] = 0
            let code = withExtendedLifetime(sink) { curl_easy_perform(handle) }
            // The callbacks must not outlive `sink`.
            _ = maptrip_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, nil)
            _ = maptrip_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, nil)
            if code != CURLE_OK {
                var detail = String(cString: errorBuffer)
                if sink.exceeded, let limit = sink.limit { detail = "response body exceeds \(limit) bytes" }
                throw CurlError(code, "perform \(Self.redacted(effectiveURL))", detail: detail)
            }
            var status = 0
            _ = maptrip_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            return Response(status: status, headers: sink.headers, body: sink.body, effectiveURL: effectiveURL)
        }

        /// The last URL used (after redirects).
        public var effectiveURL: String? {
            var p: UnsafePointer<CChar>?
            guard maptrip_curl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &p) == CURLE_OK, let p else { return nil }
            return String(cString: p)
        }

        // MARK: Raw setters

        public func set(_ option: CURLoption, _ value: Int, _ what: @autoclosure () -> String) throws {
            try check(maptrip_curl_setopt_long(handle, option, value), what())
        }

        public func set(_ option: CURLoption, string value: String?, _ what: @autoclosure () -> String) throws {
            if let value {
                if value.utf8.contains(0) {
                    throw CurlError(CURLE_BAD_FUNCTION_ARGUMENT, what(), detail: "NUL byte in option")
                }
                // libcurl copies string options.
                try check(value.withCString { maptrip_curl_setopt_string(handle, option, $0) }, what())
            } else {
                try check(maptrip_curl_setopt_string(handle, option, nil), what())
            }
        }

        public func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?, _ what: @autoclosure () -> String) throws {
            try check(maptrip_curl_setopt_pointer(handle, option, pointer), what())
        }

        private func check(_ code: CURLcode, _ what: String) throws {
            if code != CURLE_OK { throw CurlError(code, what, detail: String(cString: errorBuffer)) }
        }

        private static func milliseconds(_ seconds: Double) -> Int {
            guard seconds.isFinite, seconds > 0 else { return 0 }
            return max(1, Int(min(seconds, 86_400 * 365) * 1000))
        }

        /// The URL without user info or query, for error messages.
        static func redacted(_ url: String?) -> String {
            guard let url else { return "request" }
            guard var c = URLComponents(string: url) else { return "request" }
            c.user = nil
            c.password = nil
            c.query = nil
            return c.string ?? "request"
        }
    }

    /// Collects one transfer's headers and body; the C callbacks reach it through the user pointer.
    final class Sink {
        var body = Data()
        var headers = Headers()
        let limit: Int?
        var exceeded = false

        init(limit: Int?) { self.limit = limit }
    }
}

/// Runs `body` on a write callback's sink and bytes; what curl is told was taken: `body`'s answer,
/// all of it when there is nothing, 0 (stop) without a sink.
private func withSink(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?,
                      _ body: (Curl.Sink, UnsafeMutablePointer<CChar>, Int) -> Int) -> Int {
    guard let context else { return 0 }
    let sink = Unmanaged<Curl.Sink>.fromOpaque(context).takeUnretainedValue()
    let n = size * count
    guard n > 0, let data else { return n }
    return body(sink, data, n)
}

private func curlWriteBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                           _ context: UnsafeMutableRawPointer?) -> Int {
    withSink(data, size, count, context) { sink, data, n in
        if let limit = sink.limit, sink.body.count + n > limit {
            sink.exceeded = true
            return 0  // makes curl stop with CURLE_WRITE_ERROR
        }
        sink.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: n)
        return n
    }
}

private func curlWriteHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                             _ context: UnsafeMutableRawPointer?) -> Int {
    withSink(data, size, count, context) { sink, data, n in
        let bytes = UnsafeRawBufferPointer(start: data, count: n)
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            // A new response starts (after a redirect or a 1xx): keep only the last one's headers.
            sink.headers = Headers()
        } else {
            _ = sink.headers.parseLine(line)
        }
        return n
    }
}
