/// A device's Web Push subscription (CONTRACT §10). The endpoint and keys are what a push
/// is sent with; `PUSH LIST` shows only the id, label and times.
public struct PushSubscriptionRecord: Sendable, Equatable {
    public let id: Int64
    public let user: Int64
    public let endpoint: String
    /// The browser's P-256 public key and auth secret, base64url as it gave them.
    public let p256dh: String
    public let auth: String
    public let label: String
    public let created: String
    public let lastUsed: String?

    public init(id: Int64, user: Int64, endpoint: String, p256dh: String, auth: String, label: String, created: String,
                lastUsed: String?) {
        self.id = id
        self.user = user
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.label = label
        self.created = created
        self.lastUsed = lastUsed
    }
}

/// The server's VAPID key pair (RFC 8292), made once and shared by every node: the
/// private scalar and the public point, base64url.
public struct VAPIDKeyRecord: Sendable, Equatable {
    public let privateKey: String
    public let publicKey: String

    public init(privateKey: String, publicKey: String) {
        self.privateKey = privateKey
        self.publicKey = publicKey
    }
}
