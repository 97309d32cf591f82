import ChorusStore
import Testing

/// Web Push rows (CONTRACT §10) on every engine: one VAPID key, made once; a device's
/// subscription kept, refreshed and ended; an endpoint belongs to one account at a time.
@Suite struct PushStoreTests {
    @Test(arguments: StoreEngine.all) func theVAPIDKeyIsKeptOnce(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        #expect(try store.run { try $0.vapidKey() } == nil)
        let first = VAPIDKeyRecord(privateKey: "first-private", publicKey: "first-public")
        #expect(try store.run { try $0.keepVAPIDKey(first, created: "t") } == first)
        // Another node that made its own key at the same moment gets the kept one back.
        let second = VAPIDKeyRecord(privateKey: "second-private", publicKey: "second-public")
        #expect(try store.run { try $0.keepVAPIDKey(second, created: "t") } == first)
        #expect(try store.run { try $0.vapidKey() } == first)
    }

    @Test(arguments: StoreEngine.all) func aSubscriptionIsKeptRefreshedMovedAndEnded(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let phone = "https://push.example/send/abc"
        let saved = try store.run {
            try $0.savePushSubscription(user: home.alice, endpoint: phone, p256dh: "k1", auth: "a1", label: "phone", token: nil, created: "t1")
        }
        #expect(saved.user == home.alice && saved.endpoint == phone && saved.p256dh == "k1" && saved.label == "phone" && saved.lastUsed == nil)
        // The browser subscribes again with new keys: the same row, new keys and label.
        let again = try store.run {
            try $0.savePushSubscription(user: home.alice, endpoint: phone, p256dh: "k2", auth: "a2", label: "phone2", token: nil, created: "t2")
        }
        #expect(again.id == saved.id && again.p256dh == "k2" && again.auth == "a2" && again.label == "phone2" && again.created == "t1")
        let tablet = try store.run {
            try $0.savePushSubscription(user: home.alice, endpoint: "https://push.example/send/def", p256dh: "k3", auth: "a3",
                                        label: "tablet", token: nil, created: "t3")
        }
        #expect(try store.run { try $0.pushSubscriptions(ofUser: home.alice).map(\.id) } == [saved.id, tablet.id])

        // bob signs in on alice's phone and subscribes it: it is his now, not hers.
        let moved = try store.run {
            try $0.savePushSubscription(user: home.bob, endpoint: phone, p256dh: "k4", auth: "a4", label: "phone", token: nil, created: "t4")
        }
        #expect(moved.user == home.bob)
        #expect(try store.run { try $0.pushSubscriptions(ofUser: home.alice).map(\.id) } == [tablet.id])
        #expect(try store.run { try $0.pushSubscriptions(ofUser: home.bob).map(\.endpoint) } == [phone])

        // Only one's own subscription ends.
        #expect(try store.run { try $0.deletePushSubscription(user: home.bob, id: tablet.id) } == false)
        #expect(try store.run { try $0.deletePushSubscription(user: home.alice, id: tablet.id) } == true)
        #expect(try store.run { try $0.pushSubscriptions(ofUser: home.alice) }.isEmpty)
    }

    /// A subscription made in a token's session goes with the token (a web app's sign-out
    /// revokes its device token); one made with the password stays.
    @Test(arguments: StoreEngine.all) func aTokensSubscriptionEndsWithIt(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let token = try store.run { try $0.createToken(user: home.alice, label: "browser", kind: .device, digest: "d1", created: "t") }
        try store.run { db in
            _ = try db.savePushSubscription(user: home.alice, endpoint: "https://push.example/a", p256dh: "k", auth: "a", label: "browser",
                                            token: token.id, created: "t")
            _ = try db.savePushSubscription(user: home.alice, endpoint: "https://push.example/b", p256dh: "k", auth: "a", label: "laptop",
                                            token: nil, created: "t")
        }
        #expect(try store.run { try $0.revokeToken(user: home.alice, label: "browser") } == token.id)
        #expect(try store.run { try $0.pushSubscriptions(ofUser: home.alice).map(\.label) } == ["laptop"])
    }
}
