/// What `--acme` and its companion flags ask for (CONTRACT §10, Protocol.md "ACME").
public struct ACMESettings: Sendable, Equatable {
    public static let letsEncrypt = "https://acme-v02.api.letsencrypt.org/directory"

    /// The names the certificate is for (`--acme NAME[,NAME]`), as given.
    public var names: [String]
    /// `--acme-email`: the account's contact, where the CA writes about expiry or problems.
    public var email: String?
    /// `--acme-directory`: the CA's directory URL.
    public var directory = ACMESettings.letsEncrypt
    /// `--acme-ca`: a PEM file of certificates to trust for the directory instead of the
    /// system's (a test CA such as pebble).
    public var caFile: String?
    /// `--acme-http-port`: also answer http-01 on this plain-HTTP port.
    public var httpPort: Int?
    public var timing = ACMETiming()

    public init(names: [String]) {
        self.names = names
    }
}

/// How often the certificate is looked at and how soon a failure is retried. The defaults
/// are for real use; tests shorten them (`CHORUS_TEST_ACME_TIMING`).
public struct ACMETiming: Sendable, Equatable {
    /// Seconds between looks at the store (another node's newer certificate) and at the
    /// renewal time.
    public var check = 60.0
    /// Seconds before the first retry after a failed order; doubled after each further
    /// failure, at most a day (`RenewalSchedule.retryDelay`).
    public var firstRetry = 60.0
    /// Tests only: renew this many seconds after a certificate's notBefore, when that is
    /// sooner than two thirds of its life.
    public var renewAfter: Int64?

    public init(check: Double = 60, firstRetry: Double = 60, renewAfter: Int64? = nil) {
        self.check = check
        self.firstRetry = firstRetry
        self.renewAfter = renewAfter
    }
}
