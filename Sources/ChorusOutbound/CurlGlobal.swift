import CCurl

/// curl_global_init, once per process. It is not thread-safe against other libcurl
/// calls, so every handle is made after it (`ensure()` first), and a Swift `static let`
/// is initialised exactly once, under a lock, whichever thread gets there first.
enum CurlGlobal {
    private static let initialised: CURLcode = curl_global_init(CCURL_GLOBAL_DEFAULT)

    /// Nil when libcurl initialised; else its words.
    static func ensure() -> String? {
        initialised == CURLE_OK ? nil : String(cString: curl_easy_strerror(initialised))
    }
}
