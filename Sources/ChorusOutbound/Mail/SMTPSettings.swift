/// Where and how mail is sent: `--smtp URL`, the password from CHORUS_SMTP_PASSWORD
/// (read by the caller; never part of the URL or a flag), `--smtp-ca FILE` and
/// `--mail-from ADDRESS`, checked once at start so a typo stops the server there.
public struct SMTPSettings: Sendable {
    public enum Security: Sendable, Equatable {
        /// `smtps://`: TLS from the first byte (RFC 8314), port 465 by default.
        case implicitTLS
        /// `smtp://`: STARTTLS is required before anything else is said (port 587).
        case startTLS
    }

    /// Why the mail settings were refused, in words an operator can act on.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    public let security: Security
    /// A DNS name, an IPv4 address, or an IPv6 address (without brackets).
    public let host: String
    public let port: Int
    /// Who logs in (AUTH), when the URL names someone.
    public let user: String?
    let password: String?
    /// A PEM file of certificates to trust instead of the system's (a test mail server's).
    /// Verification itself is never off.
    public let caFile: String?
    public let mailFrom: MailAddress
    /// TCP connect plus TLS handshake (and STARTTLS).
    public var connectTimeoutMilliseconds = 10_000
    /// One whole message, greeting to the final reply.
    public var totalTimeoutMilliseconds = 60_000
    /// Slower than this for `lowSpeedSeconds` is cut, so a server gone silent cannot hold
    /// a worker for the whole total timeout. Servers may think a while after the data
    /// (filters), hence the patient default.
    public var lowSpeedBytesPerSecond = 1
    public var lowSpeedSeconds = 30

    /// `url` is `smtps://[USER@]HOST[:PORT]` or `smtp://[USER@]HOST[:PORT]`, nothing more
    /// (no password, path or query); the user may be percent-encoded (`me%40example.com`).
    public init(url: String, password: String?, caFile: String?, mailFrom: String) throws(Invalid) {
        let parsed = try SMTPServerURL(url)
        security = parsed.security
        host = parsed.host
        port = parsed.port
        user = parsed.user
        if let password, password.isEmpty || password.utf8.contains(where: { $0 == 0x0d || $0 == 0x0a || $0 == 0 }) {
            throw Invalid(description: "CHORUS_SMTP_PASSWORD is empty or holds a line break or NUL")
        }
        if user == nil && password != nil {
            throw Invalid(description: "CHORUS_SMTP_PASSWORD is set but --smtp names no user (smtps://USER@HOST)")
        }
        if user != nil && password == nil {
            throw Invalid(description: "--smtp names a user but CHORUS_SMTP_PASSWORD is not set")
        }
        self.password = password
        if let caFile, caFile.isEmpty {
            throw Invalid(description: "--smtp-ca needs a file name")
        }
        self.caFile = caFile
        do {
            self.mailFrom = try MailAddress(parsing: mailFrom)
        } catch {
            throw Invalid(description: "--mail-from: \(error)")
        }
    }

    /// `smtps://host:port`, for logs: never the user or the password.
    public var server: String {
        let scheme = security == .implicitTLS ? "smtps" : "smtp"
        return "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

/// Printed, dumped or logged, the settings show where mail goes and from whom, never the
/// password.
extension SMTPSettings: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "\(server) user=\(user ?? "-") from=\(mailFrom) ca=\(caFile ?? "system")"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["server": server, "user": user as Any, "mailFrom": mailFrom, "caFile": caFile as Any])
    }
}
