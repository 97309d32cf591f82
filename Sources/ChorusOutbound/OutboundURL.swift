import CCurl

/// A request's URL parsed by libcurl's own parser (curl_url), and that same parsed handle
/// given to the transfer (CURLOPT_CURLU), so what is checked is exactly what is fetched:
/// no second parser to disagree about where the host ends.
final class OutboundURL {
    let handle: OpaquePointer
    /// `https://host[:port]`: all of the URL that may appear in a log or an error.
    let origin: String

    init(_ text: String) throws(OutboundError) {
        if let problem = CurlGlobal.ensure() {
            throw OutboundError(.other, origin: "-", "libcurl did not initialise: \(problem)")
        }
        guard let handle = curl_url() else { throw OutboundError(.other, origin: "-", "out of memory") }
        guard curl_url_set(handle, CURLUPART_URL, text, 0) == CURLUE_OK,
              let scheme = Self.part(handle, CURLUPART_SCHEME)?.lowercased(),
              let host = Self.part(handle, CURLUPART_HOST)
        else {
            curl_url_cleanup(handle)
            throw OutboundError(.invalidRequest, origin: "-", "the URL is not an absolute URL with a host")
        }
        let port = Self.part(handle, CURLUPART_PORT).map { ":" + $0 } ?? ""
        let origin = "\(scheme)://\(host)\(port)"
        guard scheme == "https" else {
            curl_url_cleanup(handle)
            throw OutboundError(.schemeRefused, origin: origin, "only https is allowed, not \(scheme)")
        }
        self.handle = handle
        self.origin = origin
    }

    deinit {
        curl_url_cleanup(handle)
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
