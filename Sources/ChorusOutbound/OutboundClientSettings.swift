/// How every outbound transfer is bounded and whom it trusts.
public struct OutboundClientSettings: Sendable {
    /// Which addresses may be connected to (the request-forgery guard).
    public var policy: AddressPolicy
    /// A PEM file of certificates to trust instead of the system's (`--push-ca`,
    /// `--acme-ca`: a test service's certificate). Verification itself is never off.
    public var caFile: String?
    /// TCP connect plus TLS handshake.
    public var connectTimeoutMilliseconds: Int
    /// The whole transfer, first byte to last.
    public var totalTimeoutMilliseconds: Int
    /// A transfer slower than `lowSpeedBytesPerSecond` for `lowSpeedSeconds` is cut, so
    /// a server trickling bytes cannot hold a worker for the whole total timeout.
    public var lowSpeedBytesPerSecond: Int
    public var lowSpeedSeconds: Int
    /// A larger response body fails the transfer (`responseTooLarge`): push services and
    /// ACME answer in a few kilobytes.
    public var maxResponseBytes: Int
    public var userAgent: String

    public init(
        policy: AddressPolicy = AddressPolicy(), caFile: String? = nil,
        connectTimeoutMilliseconds: Int = 10_000, totalTimeoutMilliseconds: Int = 30_000,
        lowSpeedBytesPerSecond: Int = 64, lowSpeedSeconds: Int = 10,
        maxResponseBytes: Int = 64 * 1024, userAgent: String = "chorusd"
    ) {
        self.policy = policy
        self.caFile = caFile
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.totalTimeoutMilliseconds = totalTimeoutMilliseconds
        self.lowSpeedBytesPerSecond = lowSpeedBytesPerSecond
        self.lowSpeedSeconds = lowSpeedSeconds
        self.maxResponseBytes = maxResponseBytes
        self.userAgent = userAgent
    }
}
