import ChorusAddresses
import ChorusCore
import ChorusCrypto
import ChorusNet
import ChorusOutbound
import Foundation

/// Everything `chorusd`'s flags decide (CONTRACT §1), with the contract's defaults.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 7667
    public var dataDirectory = "./data"
    public var certificatePath = "certs/server.crt"
    public var keyPath = "certs/server.key"
    public var maxLine = 8192
    public var sendQueueBytes = 1_048_576
    public var handshakeTimeout = 10.0
    public var idleTimeout = 600.0
    /// Seconds a session's queued output may wait without the socket taking a byte.
    public var sendTimeout = 60.0
    /// Commands per second per session, and the burst above it (token bucket).
    public var rate = 20.0
    public var burst = 100.0
    /// Sessions in all, and from one address (0: no limit); exempt networks skip the latter.
    public var maxConnections = 10_000
    public var maxPerAddress = 16
    public var exempt: [AddressRange] = AddressRange.loopback
    /// Who may read `/metrics` (`--metrics-allow`); everyone else gets 404.
    public var metricsAllow: [AddressRange] = AddressRange.loopback
    /// Who may REGISTER (`--registration`), and how many accounts one address may make an
    /// hour (`--register-rate`; the exempt networks have no limit).
    public var registration = RegistrationMode.open
    /// Origins besides the certificate's names whose pages may open WebSocket sessions
    /// (`--web-origin`, CONTRACT §9).
    public var webOrigins: [String] = []
    public var registerRate = SignUpRules.defaultLimit
    public var scrypt = ScryptParameters.default
    /// A cap on the database size in pages (SQLite's max_page_count), for the store opener
    /// to apply (the tests' does; chorusd has no flag for it); past it writes get
    /// `ERR 503 storage full` while reads go on. Nil: only the disk limits it.
    public var databasePageLimit: Int?
    /// Password hashes waiting for a worker before new ones get 503.
    public var maxPendingHashes = 64
    /// Event-loop threads; sessions are spread across them (`--loops`, default one per core).
    public var loops = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// This node's name (`--node`) for logs, `ADMIN STATS` and presence; chorusd always
    /// sets it (default `HOST:PORT`). Nil in servers the tests start in-process.
    public var node: String?
    /// `--public-url` as an origin (`https://HOST[:PORT]`), for calendar links; nil: the
    /// listening host and port (`calendarOrigin(port:)`).
    public var publicURL: String?
    /// Push endpoints may resolve to these blocks besides public addresses (`--push-allow`;
    /// a test's push service on loopback).
    public var pushAllow: [AddressBlock] = []
    /// A file of certificates trusted for push services instead of the system's
    /// (`--push-ca`; a test push service's certificate).
    public var pushCA: String?
    /// The sender of mail (`--mail-from`), also VAPID's contact when set.
    public var mailFrom: String?
    /// Where notice mail goes out (`--smtp`, `--smtp-ca`, `CHORUS_SMTP_PASSWORD`, with
    /// `--mail-from`); nil: the server sends no mail.
    public var smtp: SMTPSettings?
    /// How often dispatchers look for notices, and how long a claim holds.
    public var noticeTiming = NoticeTiming.standard
    /// `--acme` and its companions: obtain and renew the certificate from an ACME CA,
    /// serving `certificatePath` only until the first one is issued. Nil: off.
    public var acme: ACMESettings?

    public init() {}

    public var databasePath: String { dataDirectory + "/chorus.sqlite" }
}
