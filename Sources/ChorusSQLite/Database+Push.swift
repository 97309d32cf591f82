import ChorusCore
import ChorusStore

/// Web Push: the server's VAPID key (one row) and devices' subscriptions.
extension Database {
    public func vapidKey() throws -> VAPIDKeyRecord? {
        try prepare("SELECT private_key, public_key FROM vapid_keys WHERE id = 1").row {
            VAPIDKeyRecord(privateKey: $0.text(0), publicKey: $0.text(1))
        }
    }

    public func keepVAPIDKey(_ key: VAPIDKeyRecord, created: String) throws -> VAPIDKeyRecord {
        try prepare("INSERT INTO vapid_keys (id, private_key, public_key, created) VALUES (1, ?1, ?2, ?3) ON CONFLICT (id) DO NOTHING")
            .run(.text(key.privateKey), .text(key.publicKey), .text(created))
        return try vapidKey() ?? key
    }

    public func savePushSubscription(user: Int64, endpoint: String, p256dh: String, auth: String, label: String,
                                     token: Int64?, created: String) throws -> PushSubscriptionRecord {
        try prepare("DELETE FROM push_subscriptions WHERE endpoint = ?1 AND user <> ?2").run(.text(endpoint), .integer(user))
        try prepare("""
            INSERT INTO push_subscriptions (user, endpoint, p256dh, auth, label, token, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT (endpoint) DO UPDATE SET user = excluded.user, p256dh = excluded.p256dh, auth = excluded.auth,
              label = excluded.label, token = excluded.token
            """).run(.integer(user), .text(endpoint), .text(p256dh), .text(auth), .text(label), .init(token), .text(created))
        guard let saved = try prepare(Self.subscriptionSelect + " WHERE endpoint = ?1").row(.text(endpoint), map: Self.subscription) else {
            throw StoreError(.failed, message: "push_subscriptions: the row just saved is missing")
        }
        return saved
    }

    public func pushSubscriptions(ofUser user: Int64) throws -> [PushSubscriptionRecord] {
        try prepare(Self.subscriptionSelect + " WHERE user = ?1 ORDER BY id").rows(.integer(user), map: Self.subscription)
    }

    public func deletePushSubscription(user: Int64, id: Int64) throws -> Bool {
        try prepare("DELETE FROM push_subscriptions WHERE id = ?1 AND user = ?2").run(.integer(id), .integer(user))
        return changes > 0
    }

    static let subscriptionSelect = "SELECT id, user, endpoint, p256dh, auth, label, created, last_used FROM push_subscriptions"

    static func subscription(_ row: Row) -> PushSubscriptionRecord {
        PushSubscriptionRecord(id: row.int(0), user: row.int(1), endpoint: row.text(2), p256dh: row.text(3), auth: row.text(4),
                               label: row.text(5), created: row.text(6), lastUsed: row.optionalText(7))
    }
}
