import ChorusCore
import ChorusStore
import Testing

/// Notice choices, e-mail codes and the outbox (CONTRACT §10) on every engine: choices
/// kept as given, a code replaced and counted, a notice queued once per device and
/// mailbox, claimed by one dispatcher at a time until its lease ends, and settled.
@Suite struct NoticeOutboxStoreTests {
    static func notice(_ user: Int64, push: Bool = true, mailTo: String? = nil, notBefore: Int64 = 100) -> QueuedNotice {
        QueuedNotice(user: user, event: "dm", title: "bob wrote to you", body: "hi", url: "/#/stream", topic: nil, urgency: "normal",
                     ttl: 60, notBefore: notBefore, push: push, mailTo: mailTo)
    }

    @Test(arguments: StoreEngine.all) func choicesAndCodesAreKept(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        #expect(try store.run { try $0.notifyChoices(ofUser: home.alice) } == nil)
        let chosen = NotifyChoices(push: false, emailAddress: "a@example.org", emailOn: true, kinds: [.dm, .reminder],
                                   quiet: QuietHours(start: 22 * 60, end: 7 * 60), zone: "Europe/London")
        try store.run { try $0.saveNotifyChoices(chosen, user: home.alice) }
        #expect(try store.run { try $0.notifyChoices(ofUser: home.alice) } == chosen)
        let changed = NotifyChoices(push: false, emailAddress: "a@example.org", emailOn: true, kinds: [], quiet: nil, zone: nil)
        try store.run { try $0.saveNotifyChoices(changed, user: home.alice) }
        #expect(try store.run { try $0.notifyChoices(ofUser: home.alice) } == changed)

        // The stop link turns mail off, keeping the address; another link stops nothing.
        try store.run { try $0.setMailStop(user: home.alice, token: "stop-alice-0123456789") }
        #expect(try store.run { try $0.stopMail(token: "stop-somebody-else-01") } == false)
        #expect(try store.run { try $0.stopMail(token: "stop-alice-0123456789") } == true)
        #expect(try store.run { try $0.notifyChoices(ofUser: home.alice) }?.mailTo == nil)
        #expect(try store.run { try $0.notifyChoices(ofUser: home.alice) }?.emailAddress == "a@example.org")

        try store.run { try $0.saveEmailCode(user: home.alice, address: "a@example.org", digest: "d1", expires: 500) }
        try store.run { try $0.countEmailCodeTry(user: home.alice) }
        #expect(try store.run { try $0.emailCode(ofUser: home.alice) } == EmailCodeRecord(address: "a@example.org", digest: "d1", expires: 500, tries: 1))
        try store.run { try $0.saveEmailCode(user: home.alice, address: "b@example.org", digest: "d2", expires: 900) }
        #expect(try store.run { try $0.emailCode(ofUser: home.alice) } == EmailCodeRecord(address: "b@example.org", digest: "d2", expires: 900, tries: 0))
        try store.run { try $0.deleteEmailCode(user: home.alice) }
        #expect(try store.run { try $0.emailCode(ofUser: home.alice) } == nil)
    }

    @Test(arguments: StoreEngine.all) func aNoticeIsClaimedOnceUntilItsLeaseEndsAndSettled(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let phone = try store.run {
            try $0.savePushSubscription(user: home.alice, endpoint: "https://push.example/1", p256dh: "k", auth: "a", label: "phone", token: nil, created: "t")
        }
        let tablet = try store.run {
            try $0.savePushSubscription(user: home.alice, endpoint: "https://push.example/2", p256dh: "k", auth: "a", label: "tablet", token: nil, created: "t")
        }
        #expect(try store.run { try $0.queueNotice(Self.notice(home.alice, mailTo: "a@example.org"), created: "t") } == 3)
        #expect(try store.run { try $0.queueNotice(Self.notice(home.bob), created: "t") } == 0, "bob has no device and no mail")
        #expect(try store.run { try $0.queueNotice(Self.notice(home.alice, push: false, notBefore: 200), created: "t") } == 0)

        #expect(try store.run { try $0.claimNotices(readyAt: 99, leaseUntil: 150, limit: 10, mail: true) }.isEmpty, "not yet")
        // A node without a mailer takes the device rows only; they go back for this test.
        let devicesOnly = try store.run { try $0.claimNotices(readyAt: 100, leaseUntil: 150, limit: 10, mail: false) }
        #expect(devicesOnly.allSatisfy { $0.subscription != nil } && devicesOnly.count == 2)
        for row in devicesOnly { try store.run { try $0.releaseNotice(id: row.id) } }
        let claimed = try store.run { try $0.claimNotices(readyAt: 100, leaseUntil: 150, limit: 10, mail: true) }
        #expect(claimed.map { $0.subscription?.id } == [phone.id, tablet.id, nil])
        #expect(claimed.last?.mailTo == "a@example.org" && claimed.allSatisfy { $0.title == "bob wrote to you" && $0.kind == "dm" })
        #expect(try store.run { try $0.claimNotices(readyAt: 120, leaseUntil: 170, limit: 10, mail: true) }.isEmpty, "leased")

        try store.run { try $0.finishNotice(id: claimed[0].id, usedAt: "t9") }
        #expect(try store.run { try $0.pushSubscriptions(ofUser: home.alice).first?.lastUsed } == "t9")
        try store.run { try $0.releaseNotice(id: claimed[2].id) }
        #expect(try store.run { try $0.claimNotices(readyAt: 120, leaseUntil: 170, limit: 10, mail: true) }.map(\.id) == [claimed[2].id])
        // The lease ran out: its claimer died; another takes it.
        #expect(try store.run { try $0.claimNotices(readyAt: 151, leaseUntil: 200, limit: 10, mail: true) }.map(\.id) == [claimed[1].id])
        // A claim still being sent is renewed: the lapse at 151 does not free it.
        try store.run { try $0.renewNoticeClaims(ids: [claimed[1].id], until: 300) }
        #expect(try store.run { try $0.claimNotices(readyAt: 200, leaseUntil: 250, limit: 10, mail: true) }.map(\.id) == [claimed[2].id],
                "only the lapsed one")
        try store.run { try $0.renewNoticeClaims(ids: [claimed[1].id], until: 150) }
        try store.run { try $0.endPushSubscription(id: tablet.id) }
        #expect(try store.run { try $0.pushSubscriptions(ofUser: home.alice).map(\.id) } == [phone.id])
        #expect(try store.run { try $0.claimNotices(readyAt: 500, leaseUntil: 600, limit: 10, mail: true) }.map(\.id) == [claimed[2].id],
                "the ended subscription's row went with it")
    }

    @Test(arguments: StoreEngine.all) func turningAChannelOrKindOffDropsWhatWaitsForIt(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        try store.run {
            _ = try $0.savePushSubscription(user: home.alice, endpoint: "https://push.example/1", p256dh: "k", auth: "a", label: "phone", token: nil, created: "t")
        }
        var choices = NotifyChoices.defaults
        choices.emailAddress = "a@example.org"
        choices.emailOn = true
        let chosen = choices
        try store.run { try $0.saveNotifyChoices(chosen, user: home.alice) }
        try store.run { try $0.setMailStop(user: home.alice, token: "stop-alice-0123456789") }
        #expect(try store.run { try $0.queueNotice(Self.notice(home.alice, mailTo: "a@example.org"), created: "t") } == 2)
        let code = QueuedNotice(user: home.alice, event: "email.verify", title: "code", body: "123456", url: "/#/settings", topic: nil,
                                urgency: "normal", ttl: 60, notBefore: 100, push: false, mailTo: "new@example.org")
        #expect(try store.run { try $0.queueNotice(code, created: "t") } == 1)
        // Mentions off: a DM waiting stays; DMs off: it goes, the code mail stays.
        choices.kinds = [.dm]
        let dmOnly = choices
        try store.run { try $0.dropUnwantedNotices(user: home.alice, choices: dmOnly) }
        #expect(try store.run { try $0.claimNotices(readyAt: 100, leaseUntil: 101, limit: 10, mail: true) }.count == 3)
        choices.kinds = [.reminder]
        choices.push = false
        let noDMs = choices
        try store.run { try $0.dropUnwantedNotices(user: home.alice, choices: noDMs) }
        let left = try store.run { try $0.claimNotices(readyAt: 200, leaseUntil: 201, limit: 10, mail: true) }
        #expect(left.map(\.kind) == ["email.verify"] && left.first?.mailStop == nil, "the code mail carries no stop link")
        // The stop link drops waiting mail; disabling ends devices and rows.
        #expect(try store.run { try $0.queueNotice(Self.notice(home.alice, mailTo: "a@example.org"), created: "t") } == 2)
        #expect(try store.run { try $0.stopMail(token: "stop-alice-0123456789") })
        #expect(try store.run { try $0.claimNotices(readyAt: 300, leaseUntil: 301, limit: 10, mail: true) }.map(\.kind) == ["email.verify", "dm"])
        try store.run { try $0.endNotices(user: home.alice) }
        #expect(try store.run { try $0.pushSubscriptions(ofUser: home.alice) }.isEmpty)
        #expect(try store.run { try $0.claimNotices(readyAt: 400, leaseUntil: 401, limit: 10, mail: true) }.isEmpty)
    }
}
