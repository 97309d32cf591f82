import ChorusAddresses
import CCurl

/// A blocking HTTPS client over one libcurl easy handle. Not for sharing: each worker
/// thread keeps its own, and reusing the handle keeps its connections alive between
/// requests to the same service.
public final class OutboundClient {
    private let handle: UnsafeMutableRawPointer
    private let settings: OutboundClientSettings
    private let connectGuard: ConnectGuard

    public init(settings: OutboundClientSettings) throws(OutboundError) {
        if let problem = CurlGlobal.ensure() {
            throw OutboundError(.other, origin: "-", "libcurl did not initialise: \(problem)")
        }
        guard let handle = curl_easy_init() else { throw OutboundError(.other, origin: "-", "cannot make a libcurl handle") }
        self.handle = handle
        self.settings = settings
        self.connectGuard = ConnectGuard(policy: settings.policy)
    }

    deinit {
        curl_easy_cleanup(handle)
    }

    /// Sends `request` and waits for the whole response (or the first failure). Any HTTP
    /// status is a response; only a transfer that got none throws.
    public func perform(_ request: OutboundRequest) throws(OutboundError) -> OutboundResponse {
        let url = try OutboundURL(request.url)
        try request.validate(origin: url.origin)
        let sink = ResponseSink(maxBodyBytes: settings.maxResponseBytes)
        connectGuard.refused = []
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var status = 0

        let code: CURLcode = withExtendedLifetime((url, sink)) {
            errorBuffer.withUnsafeMutableBufferPointer { errorText in
                var failed = configure(url: url, sink: sink, errorText: errorText.baseAddress!)
                for (name, value) in request.headers {
                    headerList = curl_slist_append(headerList, value.isEmpty ? "\(name);" : "\(name): \(value)")
                }
                // No "Expect: 100-continue" round trip before a body.
                headerList = curl_slist_append(headerList, "Expect:")
                failed = failed || ccurl_set_pointer(handle, CURLOPT_HTTPHEADER, headerList) != CURLE_OK
                failed = failed || setMethodAndBody(request)
                guard !failed else {
                    curl_easy_reset(handle)
                    return CURLE_FAILED_INIT
                }
                let code = curl_easy_perform(handle)
                _ = ccurl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
                // The handle still points at this call's buffers, URL and header list:
                // forget them before they are freed, and leave no option to the next
                // request (reset keeps the live connections and the DNS cache).
                curl_easy_reset(handle)
                return code
            }
        }
        guard code == CURLE_OK else {
            throw error(for: code, origin: url.origin, sink: sink, curlText: String(nulTerminated: errorBuffer))
        }
        return OutboundResponse(status: status, headers: sink.headers, body: sink.body)
    }

    /// Every option a transfer needs; true when libcurl refused one.
    private func configure(url: OutboundURL, sink: ResponseSink, errorText: UnsafeMutablePointer<CChar>) -> Bool {
        let sinkPointer = Unmanaged.passUnretained(sink).toOpaque()
        let guardPointer = Unmanaged.passUnretained(connectGuard).toOpaque()
        var results: [CURLcode] = [
            ccurl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText),
            ccurl_set_pointer(handle, CURLOPT_CURLU, UnsafeRawPointer(url.handle)),
            // https only, and no redirect is followed: the guard judges where a request
            // goes, and a redirect would be a second request nobody asked for.
            ccurl_set_pointer(handle, CURLOPT_PROTOCOLS_STR, "https"),
            ccurl_set_pointer(handle, CURLOPT_REDIR_PROTOCOLS_STR, "https"),
            ccurl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            // A proxy from the environment would make the connected address the proxy's.
            ccurl_set_pointer(handle, CURLOPT_PROXY, ""),
            ccurl_set_opensocket_callback(handle, ConnectGuard.callback),
            ccurl_set_pointer(handle, CURLOPT_OPENSOCKETDATA, guardPointer),
            ccurl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1),
            ccurl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2),
            ccurl_set_long(handle, CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2),
            ccurl_set_long(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1),
            // Threads: libcurl must not use signals (SIGALRM) for its timeouts.
            ccurl_set_long(handle, CURLOPT_NOSIGNAL, 1),
            ccurl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds),
            ccurl_set_long(handle, CURLOPT_TIMEOUT_MS, settings.totalTimeoutMilliseconds),
            ccurl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, settings.lowSpeedBytesPerSecond),
            ccurl_set_long(handle, CURLOPT_LOW_SPEED_TIME, settings.lowSpeedSeconds),
            ccurl_set_pointer(handle, CURLOPT_USERAGENT, settings.userAgent),
            ccurl_set_write_callback(handle, CURLOPT_WRITEFUNCTION, ResponseSink.bodyCallback),
            ccurl_set_pointer(handle, CURLOPT_WRITEDATA, sinkPointer),
            ccurl_set_write_callback(handle, CURLOPT_HEADERFUNCTION, ResponseSink.headerCallback),
            ccurl_set_pointer(handle, CURLOPT_HEADERDATA, sinkPointer),
        ]
        if let caFile = settings.caFile {
            results.append(ccurl_set_pointer(handle, CURLOPT_CAINFO, caFile))
        }
        return results.contains { $0 != CURLE_OK }
    }

    /// True when libcurl refused an option.
    private func setMethodAndBody(_ request: OutboundRequest) -> Bool {
        switch request.method {
        case "GET" where request.body.isEmpty:
            return ccurl_set_long(handle, CURLOPT_HTTPGET, 1) != CURLE_OK
        case "HEAD" where request.body.isEmpty:
            return ccurl_set_long(handle, CURLOPT_NOBODY, 1) != CURLE_OK
        default:
            // The size first, so COPYPOSTFIELDS copies exactly that many bytes (the body
            // is binary: an encrypted push holds NULs).
            var failed = ccurl_set_long(handle, CURLOPT_POST, 1) != CURLE_OK
            failed = failed || ccurl_set_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)) != CURLE_OK
            failed = failed || request.body.withUnsafeBytes {
                ccurl_set_pointer(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!)
            } != CURLE_OK
            if request.method != "POST" {
                failed = failed || ccurl_set_pointer(handle, CURLOPT_CUSTOMREQUEST, request.method) != CURLE_OK
            }
            return failed
        }
    }

    /// libcurl's code in our terms. Its words name host and port but never the path.
    private func error(for code: CURLcode, origin: String, sink: ResponseSink, curlText: String) -> OutboundError {
        let words = curlText.isEmpty ? String(cString: curl_easy_strerror(code)) : curlText
        switch code {
        case CURLE_COULDNT_CONNECT where !connectGuard.refused.isEmpty:
            return OutboundError(.addressRefused, origin: origin,
                                 "refused to connect to \(connectGuard.refused.joined(separator: ", ")): not a public address and not in the allow list")
        case CURLE_UNSUPPORTED_PROTOCOL:
            return OutboundError(.schemeRefused, origin: origin, "only https is allowed")
        case CURLE_URL_MALFORMAT:
            return OutboundError(.invalidRequest, origin: origin, "the URL is malformed")
        case CURLE_WRITE_ERROR where sink.overflowed:
            return OutboundError(.responseTooLarge, origin: origin, "the response is larger than \(settings.maxResponseBytes) bytes")
        case CURLE_COULDNT_RESOLVE_HOST:
            return OutboundError(.resolve, origin: origin, words)
        case CURLE_OPERATION_TIMEDOUT:
            return OutboundError(.timedOut, origin: origin, words)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            return OutboundError(.untrusted, origin: origin, words)
        case CURLE_COULDNT_CONNECT, CURLE_SSL_CONNECT_ERROR, CURLE_SEND_ERROR, CURLE_RECV_ERROR,
             CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return OutboundError(.connection, origin: origin, words)
        default:
            return OutboundError(.other, origin: origin, words)
        }
    }
}
