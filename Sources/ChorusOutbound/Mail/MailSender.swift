import CCurl

/// Sends one message to one recipient over SMTP with libcurl, blocking: TLS always
/// (implicit for `smtps://`, STARTTLS required for `smtp://`), the certificate always
/// verified, AUTH when the settings name a user. Not for sharing: each worker thread
/// keeps its own, and never an event loop's thread.
///
/// No request-forgery guard as `OutboundClient` has: the mail server is the operator's
/// `--smtp`, never an address a user gave.
public final class MailSender {
    private let handle: UnsafeMutableRawPointer
    public let settings: SMTPSettings

    public init(settings: SMTPSettings) throws(MailError) {
        if let problem = CurlGlobal.ensure() {
            throw MailError(.other, server: settings.server, "libcurl did not initialise: \(problem)")
        }
        guard let handle = curl_easy_init() else { throw MailError(.other, server: settings.server, "cannot make a libcurl handle") }
        self.handle = handle
        self.settings = settings
    }

    deinit {
        curl_easy_cleanup(handle)
    }

    /// Sends `message` from `settings.mailFrom` (the envelope sender) to `message.to` and
    /// returns when the server has accepted it; anything less throws.
    public func send(_ message: MailMessage) throws(MailError) {
        let upload = MailUpload(bytes: message.rendered())
        let recipients = curl_slist_append(nil, "<\(message.to)>")
        defer { curl_slist_free_all(recipients) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var replyCode = 0

        let code: CURLcode = withExtendedLifetime(upload) {
            errorBuffer.withUnsafeMutableBufferPointer { errorText in
                var failed = configure(upload: upload, recipients: recipients, errorText: errorText.baseAddress!)
                failed = failed || recipients == nil
                guard !failed else {
                    curl_easy_reset(handle)
                    return CURLE_FAILED_INIT
                }
                let code = curl_easy_perform(handle)
                _ = ccurl_get_long(handle, CURLINFO_RESPONSE_CODE, &replyCode)
                // Forget this call's buffers before they are freed.
                curl_easy_reset(handle)
                return code
            }
        }
        guard code == CURLE_OK else {
            throw Self.error(for: code, replyCode: replyCode, server: settings.server, curlText: String(nulTerminated: errorBuffer))
        }
    }

    /// Every option a message needs; true when libcurl refused one.
    private func configure(upload: MailUpload, recipients: UnsafeMutablePointer<curl_slist>?, errorText: UnsafeMutablePointer<CChar>) -> Bool {
        let scheme = settings.security == .implicitTLS ? "smtps" : "smtp"
        let host = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
        // The path is the name said in EHLO: the sender's domain.
        let url = "\(scheme)://\(host):\(settings.port)/\(settings.mailFrom.domain)"
        var results: [CURLcode] = [
            ccurl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText),
            ccurl_set_pointer(handle, CURLOPT_URL, url),
            ccurl_set_pointer(handle, CURLOPT_PROTOCOLS_STR, scheme),
            // A proxy from the environment has no business seeing mail.
            ccurl_set_pointer(handle, CURLOPT_PROXY, ""),
            // TLS for everything or no mail: an smtp:// server without STARTTLS fails
            // the transfer before MAIL FROM, so nothing (a password least) goes in clear.
            ccurl_set_long(handle, CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)),
            ccurl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1),
            ccurl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2),
            ccurl_set_long(handle, CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2),
            ccurl_set_opensocket_callback(handle, Self.openSocket),
            // Threads: libcurl must not use signals (SIGALRM) for its timeouts.
            ccurl_set_long(handle, CURLOPT_NOSIGNAL, 1),
            ccurl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds),
            ccurl_set_long(handle, CURLOPT_TIMEOUT_MS, settings.totalTimeoutMilliseconds),
            ccurl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, settings.lowSpeedBytesPerSecond),
            ccurl_set_long(handle, CURLOPT_LOW_SPEED_TIME, settings.lowSpeedSeconds),
            // One connection per message, closed at its end: a connection kept for later
            // is closed with a QUIT whose answer libcurl awaits outside any transfer's
            // timeout (a silent server held the sender's release for two minutes). Notices
            // are few; a handshake each is cheap.
            ccurl_set_long(handle, CURLOPT_FORBID_REUSE, 1),
            // And that QUIT's answer, like any one reply, waits no longer than a whole message may.
            ccurl_set_long(handle, CURLOPT_SERVER_RESPONSE_TIMEOUT, max(1, (settings.totalTimeoutMilliseconds + 999) / 1000)),
            ccurl_set_pointer(handle, CURLOPT_MAIL_FROM, "<\(settings.mailFrom)>"),
            ccurl_set_pointer(handle, CURLOPT_MAIL_RCPT, recipients),
            ccurl_set_long(handle, CURLOPT_UPLOAD, 1),
            ccurl_set_off(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(upload.bytes.count)),
            ccurl_set_read_callback(handle, MailUpload.callback),
            ccurl_set_pointer(handle, CURLOPT_READDATA, Unmanaged.passUnretained(upload).toOpaque()),
        ]
        if let user = settings.user, let password = settings.password {
            results.append(ccurl_set_pointer(handle, CURLOPT_USERNAME, user))
            results.append(ccurl_set_pointer(handle, CURLOPT_PASSWORD, password))
        }
        if let caFile = settings.caFile {
            results.append(ccurl_set_pointer(handle, CURLOPT_CAINFO, caFile))
        }
        return results.contains { $0 != CURLE_OK }
    }

    /// The socket libcurl would open, close-on-exec (no child process inherits it).
    private static let openSocket: curl_opensocket_callback = { _, _, address in
        guard let address else { return CCURL_SOCKET_BAD }
        return ccurl_open_socket(address)
    }

    /// libcurl's code and the server's last reply in our terms. The reply code decides
    /// first: whatever libcurl calls it, a 4xx is "later" and a 5xx is "no".
    static func error(for code: CURLcode, replyCode: Int, server: String, curlText: String) -> MailError {
        let words = curlText.isEmpty ? String(cString: curl_easy_strerror(code)) : curlText
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            return MailError(.untrusted, server: server, "the server's certificate did not verify: \(words)")
        case CURLE_USE_SSL_FAILED:
            return MailError(.startTLSMissing, server: server, "the server offers no STARTTLS; nothing was sent in clear")
        case CURLE_OPERATION_TIMEDOUT:
            return MailError(.timedOut, server: server, words)
        case CURLE_COULDNT_RESOLVE_HOST:
            return MailError(.resolve, server: server, words)
        default:
            break
        }
        switch replyCode {
        case 400..<500:
            return MailError(.deferred, server: server, replyCode: replyCode, "the server asks to try later (\(replyCode)): \(words)")
        case 500..<600 where code == CURLE_LOGIN_DENIED:
            return MailError(.loginRefused, server: server, replyCode: replyCode, "the server refused the login (\(replyCode)): \(words)")
        case 500..<600:
            return MailError(.refused, server: server, replyCode: replyCode, "the server refused the message (\(replyCode)): \(words)")
        default:
            break
        }
        switch code {
        case CURLE_LOGIN_DENIED:
            return MailError(.loginRefused, server: server, "the server refused the login: \(words)")
        case CURLE_COULDNT_CONNECT, CURLE_SSL_CONNECT_ERROR, CURLE_SEND_ERROR, CURLE_RECV_ERROR,
             CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_WEIRD_SERVER_REPLY:
            return MailError(.connection, server: server, words)
        default:
            return MailError(.other, server: server, words)
        }
    }
}
