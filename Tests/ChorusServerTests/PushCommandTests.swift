import ChorusCrypto
import Foundation
import Testing

/// PUSH KEY, SUBSCRIBE, LIST, UNSUBSCRIBE over TLS (CONTRACT §10): one key for the server,
/// a browser's subscription checked and kept, listed without its secrets, ended by its
/// owner alone.
@Suite struct PushCommandTests {
    /// What a browser's PushManager gives: an https endpoint, a P-256 key, a 16-byte secret.
    static func browserSubscription(_ path: String = UUID().uuidString) throws -> (endpoint: String, p256dh: String, auth: String) {
        let key = try P256PrivateKey.generate()
        return ("https://push.example.net/wpush/v2/\(path)", key.publicKey.base64URL, Base64URL.encode(Array(SecureRandom.bytes(16))))
    }

    @Test func theKeyIsOneP256PointKeptForGood() throws {
        let server = try TestServer()
        let ann = try server.device("ann")
        let key = try #require(try ann.ok("PUSH KEY")["key"] as? String)
        #expect(try P256PublicKey(base64URL: key).uncompressedPoint.count == 65)
        let bob = try server.device("bob")
        #expect(try bob.ok("PUSH KEY")["key"] as? String == key, "one key for every account")
        let text = try server.client()
        _ = try text.last("LOGIN ann \"\(defaultPassword)\"")
        #expect(try text.last("PUSH KEY") == "OK push key \(key)")
    }

    @Test func aSubscriptionIsCheckedKeptListedWithoutSecretsAndEnded() throws {
        let server = try TestServer()
        let ann = try server.device("ann")
        let phone = try Self.browserSubscription()
        let made = object(try ann.ok("PUSH SUBSCRIBE \(phone.endpoint) \(phone.p256dh) \(phone.auth) anns-phone")["subscription"])
        let id = try #require(made["id"] as? Int)
        #expect(made["label"] as? String == "anns-phone" && made["created"] is String, "\(made)")
        #expect(Set(made.keys) == ["id", "label", "created", "last_used"], "never the endpoint or keys: \(made)")

        // Subscribing again (the browser refreshed its keys) keeps the one subscription.
        let fresh = try Self.browserSubscription()
        let again = object(try ann.ok("PUSH SUBSCRIBE \(phone.endpoint) \(fresh.p256dh) \(fresh.auth)")["subscription"])
        #expect(again["id"] as? Int == id && again["label"] as? String == "push.example.net", "\(again)")

        let listed = try ann.ok("PUSH LIST")["subscriptions"] as? [JSON] ?? []
        #expect(listed.map { $0["id"] as? Int } == [id])
        #expect(listed.allSatisfy { Set($0.keys) == ["id", "label", "created", "last_used"] }, "\(listed)")
        let text = try server.client()
        _ = try text.last("LOGIN ann \"\(defaultPassword)\"")
        let lines = try text.call("PUSH LIST")
        #expect(lines.last == "OK 1 push subscription" && lines.contains { $0.contains("#\(id)") && $0.contains("push.example.net") }, "\(lines)")
        #expect(!lines.joined().contains("wpush") && !lines.joined().contains(fresh.auth), "\(lines)")

        // Someone else's id is no subscription of theirs; the owner ends it.
        let bob = try server.device("bob")
        #expect(try bob.failure("PUSH UNSUBSCRIBE \(id)").code == 404)
        #expect(try ann.ok("PUSH UNSUBSCRIBE \(id)")["id"] as? Int == id)
        #expect(try ann.failure("PUSH UNSUBSCRIBE \(id)").code == 404)
        #expect((try ann.ok("PUSH LIST")["subscriptions"] as? [JSON])?.isEmpty == true)
    }

    /// A device that changes hands takes its subscription along: the first person's
    /// notices stop reaching it.
    @Test func aDeviceSignedInBySomeoneElseIsTheirs() throws {
        let server = try TestServer()
        let ann = try server.device("ann")
        let bob = try server.device("bob")
        let shared = try Self.browserSubscription()
        try ann.ok("PUSH SUBSCRIBE \(shared.endpoint) \(shared.p256dh) \(shared.auth) tablet")
        try bob.ok("PUSH SUBSCRIBE \(shared.endpoint) \(shared.p256dh) \(shared.auth) tablet")
        #expect((try ann.ok("PUSH LIST")["subscriptions"] as? [JSON])?.isEmpty == true)
        #expect((try bob.ok("PUSH LIST")["subscriptions"] as? [JSON])?.count == 1)
    }

    /// A subscription made in a device token's session ends when the token is revoked
    /// (the web app's sign-out, or a lost phone signed out from elsewhere): nobody who
    /// stole the token keeps a feed of the notices. One made with the password stays.
    @Test func signingADeviceOutEndsItsSubscription() throws {
        let server = try TestServer()
        let ann = try server.device("ann")
        let secret = try #require(try ann.ok("TOKEN CREATE browser kind=device")["token"] as? String)
        let browser = try Device(client: try server.client(), user: "ann", label: "browser")
        try browser.ok("AUTH \(secret)")
        let phone = try Self.browserSubscription()
        try browser.ok("PUSH SUBSCRIBE \(phone.endpoint) \(phone.p256dh) \(phone.auth) browser")
        let laptop = try Self.browserSubscription()
        try ann.ok("PUSH SUBSCRIBE \(laptop.endpoint) \(laptop.p256dh) \(laptop.auth) laptop")
        try ann.ok("TOKEN REVOKE browser")
        let left = try ann.ok("PUSH LIST")["subscriptions"] as? [JSON] ?? []
        #expect(left.map { $0["label"] as? String } == ["laptop"], "\(left)")
    }

    @Test func badSubscriptionsAreRefusedWithTheirReason() throws {
        let server = try TestServer()
        let ann = try server.device("ann")
        let good = try Self.browserSubscription()
        let cases: [(String, Int, String)] = [
            ("PUSH SUBSCRIBE http://push.example.net/x \(good.p256dh) \(good.auth)", 422, "https URL"),
            ("PUSH SUBSCRIBE https:///nohost \(good.p256dh) \(good.auth)", 422, "https URL"),
            ("PUSH SUBSCRIBE https://user@push.example.net/x \(good.p256dh) \(good.auth)", 422, "https URL"),
            ("PUSH SUBSCRIBE https://push.example.net/\(String(repeating: "a", count: 2100)) \(good.p256dh) \(good.auth)", 422, "https URL"),
            ("PUSH SUBSCRIBE \(good.endpoint) \(Base64URL.encode(Array(repeating: 4, count: 65))) \(good.auth)", 422, "P256DH"),
            ("PUSH SUBSCRIBE \(good.endpoint) not-base64! \(good.auth)", 422, "P256DH"),
            ("PUSH SUBSCRIBE \(good.endpoint) \(good.p256dh) \(Base64URL.encode(Array(repeating: 1, count: 15)))", 422, "AUTH"),
            ("PUSH SUBSCRIBE \(good.endpoint) \(good.p256dh) \(good.auth) \"bad label\"", 422, "label"),
            ("PUSH SUBSCRIBE \(good.endpoint) \(good.p256dh)", 400, "usage"),
            ("PUSH UNSUBSCRIBE phone", 400, "by its id"),
        ]
        for (line, code, words) in cases {
            let refused = try ann.failure(line)
            #expect(refused.code == code && refused.message.contains(words), "\(line.prefix(80)) → \(refused)")
        }
        #expect((try ann.ok("PUSH LIST")["subscriptions"] as? [JSON])?.isEmpty == true)
    }

    @Test func anAccountKeepsAtMostTwentyDevices() throws {
        let server = try TestServer()
        let ann = try server.device("ann")
        var first = ""
        for n in 1...20 {
            let device = try Self.browserSubscription("device-\(n)")
            if n == 1 { first = device.endpoint }
            try ann.ok("PUSH SUBSCRIBE \(device.endpoint) \(device.p256dh) \(device.auth) device-\(n)")
        }
        let extra = try Self.browserSubscription("device-21")
        let refused = try ann.failure("PUSH SUBSCRIBE \(extra.endpoint) \(extra.p256dh) \(extra.auth)")
        #expect(refused.code == 429 && refused.message.contains("PUSH UNSUBSCRIBE"), "\(refused)")
        // One of the twenty subscribing again is no new device.
        let renewed = try Self.browserSubscription()
        try ann.ok("PUSH SUBSCRIBE \(first) \(renewed.p256dh) \(renewed.auth) device-1")
    }
}
