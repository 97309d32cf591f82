import ChorusCore
import ChorusOutbound
@testable import ChorusServer
import ChorusTestSupport
import Foundation
import Testing

/// Notices by mail (CONTRACT §10), end to end: the real server over TLS sending through a
/// real aiosmtpd mail server on loopback (STARTTLS and AUTH required), each message read
/// back by Python's email package: an address proven with the code it was sent, a DM
/// and a reminder (nobody connected) arriving as plain text and HTML with a link and a
/// one-click stop link, the stop link turning mail off, and a server that refuses.
@Suite(.enabled(if: LocalSMTPServer.isUsable, "needs python3-aiosmtpd (.ci/run installs it)"))
struct MailDeliveryTests {
    static func server(_ mail: LocalSMTPServer, clock: any ChorusCore.Clock = SystemClock()) throws -> TestServer {
        let smtp = try SMTPSettings(url: "smtp://\(LocalSMTPServer.user)@127.0.0.1:\(mail.port)", password: LocalSMTPServer.password,
                                    caFile: mail.certificatePath, mailFrom: "chores@chorus.test")
        return try TestServer(clock: clock) { configuration in
            configuration.smtp = smtp
            configuration.mailFrom = "chores@chorus.test"
            configuration.noticeTiming = NoticeTiming(poll: 0.2, lease: 5)
        }
    }

    /// Waits for the mail server to hold `count` messages.
    static func mails(_ mail: LocalSMTPServer, count: Int, within seconds: Double = 20) -> [LocalSMTPServer.Received] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let received = mail.received
            if received.count >= count { return received }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return mail.received
    }

    /// ann proves her address with the code that came by mail.
    static func prove(_ ann: Device, _ mail: LocalSMTPServer, address: String = "ann@example.org") throws {
        let asked = try ann.ok("NOTIFY EMAIL \(address)")
        #expect(asked["email"] as? String == address && asked["expires"] is String, "\(asked)")
        #expect(try ann.failure("NOTIFY EMAIL \(address)").code == 429, "a new code only a minute later")
        let sent = Self.mails(mail, count: 1)
        try #require(sent.count == 1, "the code mail")
        #expect(sent[0].recipients == [address] && sent[0].mailFrom == "chores@chorus.test" && sent[0].encrypted)
        let parsed = try MailParser.parse(sent[0].message)
        let subject = try #require(parsed.string("Subject"))
        let code = try #require(subject.split(separator: " ").last.map(String.init))
        #expect(code.count == 6 && code.allSatisfy(\.isNumber), "\(subject)")
        #expect(parsed.string("plain")?.contains("NOTIFY EMAIL VERIFY \(code)") == true)
        #expect(parsed.string("List-Unsubscribe") == nil, "the code mail has no stop link")
        #expect(try ann.failure("NOTIFY EMAIL VERIFY 000000").code == (code == "000000" ? 200 : 403))
        let proven = object(try ann.ok("NOTIFY EMAIL VERIFY \(code)")["notify"])
        #expect(proven["email"] as? String == address, "\(proven)")
    }

    @Test func anAddressIsProvenThenADMAndAReminderArriveWithAStopLinkThatWorks() throws {
        let mail = try LocalSMTPServer(tls: .startTLS)
        let clock = ManualClock(ISO8601DateFormatter().date(from: "2026-12-07T09:00:00Z")!)
        let server = try Self.server(mail, clock: clock)
        let ann = try server.device("ann")
        let bob = try server.device("bob")
        let flat = id(try ann.ok("ROOM CREATE Flat")["room"])
        try ann.add("bob", to: flat)
        try Self.prove(ann, mail)
        #expect(try ann.failure("NOTIFY EMAIL not-an-address").code == 422)

        try bob.ok("DM ann the <b>bins</b> are yours")
        var sent = Self.mails(mail, count: 2)
        try #require(sent.count == 2)
        var parsed = try MailParser.parse(sent[1].message)
        #expect(parsed.string("Subject") == "bob wrote to you" && parsed.string("to_address") == "ann@example.org")
        #expect(parsed.string("plain")?.contains("the <b>bins</b> are yours") == true)
        #expect(parsed.string("html")?.contains("the &lt;b&gt;bins&lt;/b&gt; are yours") == true, "user text escaped in HTML")
        #expect(parsed.string("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click")
        let origin = "https://127.0.0.1:\(server.port)"
        let stop = try #require(parsed.string("List-Unsubscribe")).trimmingCharacters(in: CharacterSet(charactersIn: "<>"))
        #expect(stop.hasPrefix(origin + "/mail/stop/"), "\(stop)")
        #expect(parsed.string("plain")?.contains(origin + "/#/stream") == true)

        // A reminder comes due while nobody is connected.
        try ann.ok("TASK ADD \(flat) Bins remind=+1h assign=ann")
        _ = try? ann.client.json("QUIT")
        clock.advance(by: 3601)
        let checked = DispatchSemaphore(value: 0)
        server.server?.checkNotices { checked.signal() }
        #expect(checked.wait(timeout: .now() + 10) == .success)
        sent = Self.mails(mail, count: 3)
        try #require(sent.count == 3)
        parsed = try MailParser.parse(sent[2].message)
        #expect(parsed.string("Subject") == "Reminder: Bins", "\(parsed.fields)")
        #expect(parsed.fields["parts"] as? [String] == ["text/plain", "text/html"])

        // The stop link: a page with a button; its POST turns mail off.
        let path = String(stop.dropFirst(origin.count))
        let web = try WebClient(port: server.port)
        let page = try web.request("GET", path)
        #expect(page.status == 200 && page.text.contains("<form method=\"post\">"), "\(page.text)")
        let done = try web.request("POST", path, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Content-Length", "26")],
                                   body: "List-Unsubscribe=One-Click")
        #expect(done.status == 200 && done.text.contains("stopped"), "\(done.text)")
        #expect(try web.request("POST", "/mail/stop/not-a-link-of-anybodys", headers: [("Content-Length", "0")]).status == 404)
        let again = try server.device("ann", register: false)
        #expect(object(try again.ok("NOTIFY")["notify"])["email"] is NSNull)
        try bob.ok("DM ann still there?")
        Thread.sleep(forTimeInterval: 1.5)
        #expect(mail.received.count == 3, "no mail once stopped")
        #expect(MetricsTests.value(try #require(server.server).metricsText(), "chorus_mail_sent_total") == 3)
    }

    /// A mail server that refuses the recipient: the notice is given up, counted, and
    /// nobody's commands wait for it.
    @Test func aRefusingMailServerIsCountedAndHoldsNobody() throws {
        let mail = try LocalSMTPServer(tls: .startTLS, behaviour: .refuseRecipient)
        let server = try Self.server(mail)
        let ann = try server.device("ann")
        try ann.ok("NOTIFY EMAIL ann@example.org")
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, MetricsTests.value(try #require(server.server).metricsText(), "chorus_mail_failed_total") != 1 {
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(MetricsTests.value(try #require(server.server).metricsText(), "chorus_mail_failed_total") == 1)
        #expect(try ann.ok("NOTIFY")["notify"] != nil)
    }

    /// Five wrong codes end the code: the right one is then refused too (the tries are
    /// counted although each wrong one is an error).
    @Test func fiveWrongCodesEndTheCode() throws {
        let mail = try LocalSMTPServer(tls: .implicit)
        let smtp = try SMTPSettings(url: "smtps://\(LocalSMTPServer.user)@127.0.0.1:\(mail.port)", password: LocalSMTPServer.password,
                                    caFile: mail.certificatePath, mailFrom: "chores@chorus.test")
        let server = try TestServer { configuration in
            configuration.smtp = smtp
            configuration.mailFrom = "chores@chorus.test"
            configuration.noticeTiming = NoticeTiming(poll: 0.2, lease: 5)
        }
        let ann = try server.device("ann")
        try ann.ok("NOTIFY EMAIL ann@example.org")
        let sent = Self.mails(mail, count: 1)
        try #require(sent.count == 1, "the code over smtps")
        let code = try #require(try MailParser.parse(sent[0].message).string("Subject")?.split(separator: " ").last.map(String.init))
        let wrong = code == "111111" ? "222222" : "111111"
        for left in [4, 3, 2, 1, 0] {
            let refused = try ann.failure("NOTIFY EMAIL VERIFY \(wrong)")
            #expect(refused.code == 403 && refused.message.contains("\(left) tr"), "\(refused)")
        }
        #expect(try ann.failure("NOTIFY EMAIL VERIFY \(code)").code == 409, "the code ended after five wrong tries")
        #expect(object(try ann.ok("NOTIFY")["notify"])["email"] is NSNull)
    }
}
