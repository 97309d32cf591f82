import ChorusCore
import ChorusStore

/// Web Push, as SQLite's (`Database+Push.swift`). Two nodes making the VAPID key at once
/// both insert with ON CONFLICT DO NOTHING and read back the one that won.
extension PostgresStore {
    public func vapidKey() throws -> VAPIDKeyRecord? {
        try row("SELECT private_key, public_key FROM vapid_keys WHERE id = 1") {
            VAPIDKeyRecord(privateKey: $0.text(0), publicKey: $0.text(1))
        }
    }

    public func keepVAPIDKey(_ key: VAPIDKeyRecord, created: String) throws -> VAPIDKeyRecord {
        _ = try write("INSERT INTO vapid_keys (id, private_key, public_key, created) VALUES (1, $1, $2, $3) ON CONFLICT (id) DO NOTHING",
                      [.text(key.privateKey), .text(key.publicKey), .text(created)])
        return try vapidKey() ?? key
    }

    /// Another account's subscription to the endpoint that another node is saving at this
    /// moment is not seen by the DELETE; the upsert then finds it and makes it the caller's.
    public func savePushSubscription(user: Int64, endpoint: String, p256dh: String, auth: String, label: String,
                                     token: Int64?, created: String) throws -> PushSubscriptionRecord {
        _ = try write("DELETE FROM push_subscriptions WHERE endpoint = $1 AND user_id <> $2", [.text(endpoint), .int(user)])
        guard let saved = try writeReturning("""
            INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, label, token, created) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (endpoint) DO UPDATE SET user_id = EXCLUDED.user_id, p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth,
              label = EXCLUDED.label, token = EXCLUDED.token
            RETURNING \(Self.subscriptionColumns)
            """, [.int(user), .text(endpoint), .text(p256dh), .text(auth), .text(label), token.map { .int($0) } ?? .null, .text(created)],
            map: Self.subscription)
        else { throw StoreError(.failed, message: "push_subscriptions: the row just saved is missing") }
        return saved
    }

    public func pushSubscriptions(ofUser user: Int64) throws -> [PushSubscriptionRecord] {
        try rows("SELECT \(Self.subscriptionColumns) FROM push_subscriptions WHERE user_id = $1 ORDER BY id", [.int(user)],
                 map: Self.subscription)
    }

    public func deletePushSubscription(user: Int64, id: Int64) throws -> Bool {
        try write("DELETE FROM push_subscriptions WHERE id = $1 AND user_id = $2", [.int(id), .int(user)]) > 0
    }

    static let subscriptionColumns = "id, user_id, endpoint, p256dh, auth, label, created, last_used"

    static func subscription(_ row: PostgresRow) throws -> PushSubscriptionRecord {
        PushSubscriptionRecord(id: try row.int(0), user: try row.int(1), endpoint: row.text(2), p256dh: row.text(3),
                               auth: row.text(4), label: row.text(5), created: row.text(6), lastUsed: row.string(7))
    }
}
