import ChorusCrypto
import ChorusOutbound
import ChorusProtocol
import ChorusStore
import Foundation

/// The POST that carries one notice to one device's push service (RFC 8030): the payload
/// `{"event","title","body","url"}` (CONTRACT §10) encrypted to the browser's keys
/// (RFC 8291 `aes128gcm`), the server's VAPID signature (RFC 8292), and `TTL`,
/// `Urgency` and, for a task, `Topic`.
enum WebPushRequest {
    static func make(_ notice: ClaimedNotice, subscription: PushSubscriptionRecord, key: P256PrivateKey, subject: String,
                     now: Date) throws -> OutboundRequest {
        var payload: [UInt8] = []
        JSONValue.encodeFields([("event", .string(notice.kind)), ("title", .string(notice.title)), ("body", .string(notice.body)),
                                ("url", .string(notice.url))], into: &payload)
        let body = try WebPushEncryption.encrypt(payload, to: try P256PublicKey(base64URL: subscription.p256dh),
                                                 authSecret: try Base64URL.decode(subscription.auth))
        let authorization = try VAPIDAuthorization.headerValue(audience: try VAPIDAudience.of(endpoint: subscription.endpoint),
                                                               subject: subject, key: key, now: now)
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "application/octet-stream"), ("Content-Encoding", "aes128gcm"), ("TTL", String(notice.ttl)),
            ("Urgency", notice.urgency), ("Authorization", authorization),
        ]
        if let topic = notice.topic { headers.append(("Topic", topic)) }
        return OutboundRequest(method: "POST", url: subscription.endpoint, headers: headers, body: body)
    }
}
