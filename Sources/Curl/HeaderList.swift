import CCurl

/// A `curl_slist` of raw header lines ("Name: value"), freed on deinit. An `Easy` handle keeps the
/// list it was given alive for as long as it may use it.
public final class HeaderList {
    public private(set) var pointer: UnsafeMutablePointer<curl_slist>?

    /// Builds the list; throws for names or values that contain CR, LF or NUL (header injection).
    public init(_ headers: Headers) throws {
        try Curl.initialize()
        for field in headers {
            guard !field.name.isEmpty, !field.name.hasHeaderBreak, !field.value.hasHeaderBreak,
                  !field.name.contains(":") else {
                curl_slist_free_all(pointer)
                throw CurlError(CURLE_BAD_FUNCTION_ARGUMENT, "header list",
                                detail: "invalid header field \"\(field.name.debugDescription)\"")
            }
            // "Name:" with nothing after it tells curl to remove that header; "Name;" sends it empty.
            let line = field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)"
            guard let next = curl_slist_append(pointer, line) else {
                curl_slist_free_all(pointer)
                throw CurlError(CURLE_OUT_OF_MEMORY, "header list")
            }
            pointer = next
        }
    }

    deinit { curl_slist_free_all(pointer) }
}
