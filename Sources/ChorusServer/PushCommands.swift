import ChorusCore
import ChorusCrypto
import ChorusStore
import Foundation

/// PUSH KEY, SUBSCRIBE, LIST, UNSUBSCRIBE: devices' Web Push subscriptions (CONTRACT §10).
/// The VAPID key pair is made on first use and kept in the store, so every node signs with
/// the same key and subscriptions outlive restarts.
extension CommandContext {
    /// PUSH KEY
    func pushKey() throws -> CommandResult {
        let key = try Self.vapidKey(db, now: timestamp)
        return result(.ok("push key \(key.publicKey)", [("key", .string(key.publicKey))]))
    }

    /// The kept key pair, made now if there is none yet.
    static func vapidKey(_ db: any Store, now: String) throws -> VAPIDKeyRecord {
        if let kept = try db.vapidKey() { return kept }
        let made = try P256PrivateKey.generate()
        return try db.keepVAPIDKey(VAPIDKeyRecord(privateKey: made.base64URL, publicKey: made.publicKey.base64URL), created: now)
    }

    /// PUSH SUBSCRIBE ENDPOINT P256DH AUTH [LABEL]
    func pushSubscribe(endpoint: String, p256dh: String, auth: String, label: String?) throws -> CommandResult {
        try PushRules.checkEndpoint(endpoint)
        do {
            _ = try P256PublicKey(base64URL: p256dh)
        } catch {
            throw DomainError.badPushKey("P256DH is the browser's P-256 public key, 65 bytes in base64url")
        }
        guard let secret = try? Base64URL.decode(auth), secret.count == WebPushEncryption.authSecretLength else {
            throw DomainError.badPushKey("AUTH is the browser's 16-byte auth secret in base64url")
        }
        let name = label ?? PushRules.defaultLabel(endpoint: endpoint)
        try PushRules.checkLabel(name)
        let held = try db.pushSubscriptions(ofUser: caller.id)
        try PushRules.checkRoom(held: held.count, replacing: held.contains { $0.endpoint == endpoint })
        let saved = try db.savePushSubscription(user: caller.id, endpoint: endpoint, p256dh: p256dh, auth: auth, label: name,
                                                token: caller.token?.id, created: timestamp)
        return result(.ok("push subscription \(saved.id) \(saved.label) kept",
                          [("subscription", Self.subscriptionShape(saved))]))
    }

    /// PUSH LIST
    func pushList() throws -> CommandResult {
        let subscriptions = try db.pushSubscriptions(ofUser: caller.id)
        let body = subscriptions.map { subscription in
            "  #\(subscription.id)  \(subscription.label.padded(toColumns: 24))  created \(subscription.created)  last used \(subscription.lastUsed ?? "never")"
        }
        return result(.ok("\(subscriptions.count) push subscription\(subscriptions.count == 1 ? "" : "s")", body: body,
                          [("subscriptions", .array(subscriptions.map(Self.subscriptionShape)))]))
    }

    /// PUSH UNSUBSCRIBE ID
    func pushUnsubscribe(id: Int64) throws -> CommandResult {
        guard try db.deletePushSubscription(user: caller.id, id: id) else { throw DomainError.noSuchPushSubscription(id) }
        return result(.ok("push subscription \(id) ended", [("id", .int(id))]))
    }

    /// What a person sees of a subscription: never its endpoint or keys.
    private static func subscriptionShape(_ subscription: PushSubscriptionRecord) -> JSONValue {
        .object([("id", .int(subscription.id)), ("label", .string(subscription.label)), ("created", .string(subscription.created)),
                 ("last_used", .string(subscription.lastUsed))])
    }
}
