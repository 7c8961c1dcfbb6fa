import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrapper over libcurl's easy interface: `Curl.Easy` owns one `CURL*`, `Curl.HeaderList` one
/// `curl_slist`, and every failure is a `CurlError`.
public enum Curl {
    /// `curl_global_init` runs once, the first time any handle is made (a Swift `static let` is
    /// initialised exactly once, thread-safely).
    private static let globalInitCode: UInt32 = maptrip_curl_global_init_default().rawValue

    /// Initialises libcurl if that has not happened yet; throws if it failed.
    public static func initialize() throws {
        let code = globalInitCode
        if code != CURLE_OK.rawValue { throw CurlError(CURLcode(rawValue: code), "global init") }
    }

    /// Makes the whole process ignore SIGPIPE. Call it once at program start (it is not done for
    /// you: a library must not change its host's signals). Needed because handles set
    /// `CURLOPT_NOSIGNAL` (required with threads), so libcurl no longer masks SIGPIPE itself, and
    /// OpenSSL can write to a connection the server already closed, which would kill the process.
    public static func ignoreSIGPIPE() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// libcurl's version string, e.g. `libcurl/7.88.1 OpenSSL/3.0.11 zlib/1.2.13 ...`.
    public static var version: String { String(cString: curl_version()) }
}

/// A libcurl failure: curl's message for the code (`curl_easy_strerror`), the more specific text
/// libcurl wrote to the handle's error buffer (`CURLOPT_ERRORBUFFER`) when there is one, and what
/// was being done.
public struct CurlError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The raw `CURLcode`.
    public let code: UInt32
    public let message: String
    /// The error buffer's text, or our own detail (e.g. "response body exceeds ... bytes").
    public let detail: String?
    public let operation: String

    init(_ code: CURLcode, _ operation: String, detail: String? = nil) {
        self.code = code.rawValue
        self.message = String(cString: curl_easy_strerror(code))
        let d = detail?.trimmingWhitespace
        self.detail = (d?.isEmpty ?? true) ? nil : d
        self.operation = operation
    }

    public var description: String {
        var s = "curl: \(operation): \(message)"
        if let detail, detail != message { s += " (\(detail))" }
        return s
    }

    /// What went wrong without the operation: the error buffer's text, else curl's message.
    public var summary: String { detail ?? message }

    /// A URL of a protocol curl was not allowed to use (a redirect to ftp://, say).
    public var isUnsupportedProtocol: Bool { code == CURLE_UNSUPPORTED_PROTOCOL.rawValue }

    /// The operation hit the connect or total timeout.
    public var isTimeout: Bool { code == CURLE_OPERATION_TIMEDOUT.rawValue }

    /// Failures where the same request may well work if tried again: timeouts, dropped or empty
    /// replies, partial transfers. Not DNS, refused connections, TLS or protocol errors.
    public var isTransient: Bool {
        [CURLE_OPERATION_TIMEDOUT, CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR,
         CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM].contains { $0.rawValue == code }
    }

    @inline(__always)
    static func check(_ code: CURLcode, _ operation: @autoclosure () -> String) throws {
        if code != CURLE_OK { throw CurlError(code, operation()) }
    }
}

extension String {
    /// Without leading and trailing spaces, tabs, CRs and LFs (by scalar: "\r\n" is one Character).
    var trimmingWhitespace: String {
        func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\r" || c == "\n" }
        var s = Substring(self).unicodeScalars
        while let c = s.first, isSpace(c) { s.removeFirst() }
        while let c = s.last, isSpace(c) { s.removeLast() }
        return String(s)
    }

    /// True when the string could split or forge an HTTP header line (CR, LF or NUL).
    var hasHeaderBreak: Bool { utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 } }
}
