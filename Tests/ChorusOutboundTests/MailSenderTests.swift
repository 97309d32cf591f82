import ChorusOutbound
import Foundation
import ChorusTestSupport
import Testing

/// The SMTP sender against real aiosmtpd servers on loopback: STARTTLS and implicit TLS
/// with AUTH, and every way a server can say no, later, or nothing at all.
@Suite(.enabled(if: LocalSMTPServer.isUsable, "needs python3-aiosmtpd (.ci/run installs it)"))
struct MailSenderTests {
    static let recipient = try! MailAddress(parsing: "alice@example.com")

    static func settings(_ server: LocalSMTPServer, scheme: String = "smtp", password: String = LocalSMTPServer.password,
                         caFile: String? = nil, totalTimeoutMilliseconds: Int = 10_000) throws -> SMTPSettings {
        var settings = try SMTPSettings(url: "\(scheme)://\(LocalSMTPServer.user)@127.0.0.1:\(server.port)", password: password,
                                        caFile: caFile ?? server.certificatePath, mailFrom: "chorus@chorus.test")
        settings.connectTimeoutMilliseconds = 5_000
        settings.totalTimeoutMilliseconds = totalTimeoutMilliseconds
        return settings
    }

    static func message(subject: String = "Dishes are due") -> MailMessage {
        MailMessage(from: try! MailAddress(parsing: "chorus@chorus.test"), to: recipient, subject: subject,
                    text: "Alice asked you to do the dishes.\n.\nBy tonight.",
                    link: MailMessage.Link(url: try! MailLinkURL("https://chorus.test/#task=42"), label: "Open the task"),
                    unsubscribe: try! MailLinkURL("https://chorus.test/unsubscribe/SECRET"))
    }

    /// What arrived is what was sent, parsed back by Python's email package.
    static func expectDelivered(_ server: LocalSMTPServer, subject: String = "Dishes are due", sourceLocation: SourceLocation = #_sourceLocation) throws {
        let received = server.received
        #expect(received.count == 1, sourceLocation: sourceLocation)
        let mail = try #require(received.first, sourceLocation: sourceLocation)
        #expect(mail.mailFrom == "chorus@chorus.test", sourceLocation: sourceLocation)
        #expect(mail.recipients == ["alice@example.com"], sourceLocation: sourceLocation)
        #expect(mail.authUser == LocalSMTPServer.user, sourceLocation: sourceLocation)
        #expect(mail.encrypted, sourceLocation: sourceLocation)
        let parsed = try MailParser.parse(file: mail.messagePath)
        #expect(parsed.defects.isEmpty, sourceLocation: sourceLocation)
        #expect(parsed.string("from_name") == "Chorus", sourceLocation: sourceLocation)
        #expect(parsed.string("from_address") == "chorus@chorus.test", sourceLocation: sourceLocation)
        #expect(parsed.string("to_address") == "alice@example.com", sourceLocation: sourceLocation)
        #expect(parsed.string("Subject") == subject, sourceLocation: sourceLocation)
        #expect(parsed.string("List-Unsubscribe") == "<https://chorus.test/unsubscribe/SECRET>", sourceLocation: sourceLocation)
        #expect(parsed.string("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click", sourceLocation: sourceLocation)
        #expect(parsed.string("plain")?.hasPrefix("Alice asked you to do the dishes.\n.\nBy tonight.\n\nOpen the task: https://chorus.test/#task=42") == true,
                sourceLocation: sourceLocation)
        #expect(parsed.string("html")?.contains("<a href=\"https://chorus.test/#task=42\">Open the task</a>") == true, sourceLocation: sourceLocation)
    }

    @Test func startTLSWithAuthDelivers() throws {
        let server = try LocalSMTPServer(tls: .startTLS)
        let sender = try MailSender(settings: Self.settings(server))
        try sender.send(Self.message(subject: "Spülen 🍽️"))
        try Self.expectDelivered(server, subject: "Spülen 🍽️")
    }

    @Test func implicitTLSDelivers() throws {
        let server = try LocalSMTPServer(tls: .implicit)
        let sender = try MailSender(settings: Self.settings(server, scheme: "smtps"))
        try sender.send(Self.message())
        try Self.expectDelivered(server)
    }

    /// One sender (one worker's) sends one message after another.
    @Test func oneSenderSendsSeveralMessages() throws {
        let server = try LocalSMTPServer(tls: .startTLS)
        let sender = try MailSender(settings: Self.settings(server))
        for index in 0..<3 { try sender.send(Self.message(subject: "Notice \(index)")) }
        #expect(server.received.count == 3)
    }

    @Test func aWrongPasswordIsAPermanentLoginFailure() throws {
        let server = try LocalSMTPServer(tls: .startTLS)
        let sender = try MailSender(settings: Self.settings(server, password: "wrong password"))
        let error = try #require(throws: MailError.self) { try sender.send(Self.message()) }
        #expect(error.kind == .loginRefused)
        #expect(error.replyCode == 535)
        #expect(!error.isTransient)
        #expect(DeliveryVerdict.judge(mailError: error) == .failed)
        #expect(error.description.hasPrefix("smtp://127.0.0.1:\(server.port): "))
        #expect(!error.description.contains("wrong password"))
        #expect(server.received.isEmpty)
        #expect(server.authAttempts.count == 1)
    }

    @Test func aRefusedRecipientIsPermanent() throws {
        let server = try LocalSMTPServer(tls: .startTLS, behaviour: .refuseRecipient)
        let sender = try MailSender(settings: Self.settings(server))
        let error = try #require(throws: MailError.self) { try sender.send(Self.message()) }
        #expect(error.kind == .refused)
        #expect(error.replyCode == 550)
        #expect(!error.isTransient)
        #expect(DeliveryVerdict.judge(mailError: error) == .rejected)
        #expect(!error.description.contains("alice"), "the recipient stays out of the logs")
        #expect(server.received.isEmpty)
    }

    @Test func aDeferralIsTemporary() throws {
        let server = try LocalSMTPServer(tls: .implicit, behaviour: .defer)
        let sender = try MailSender(settings: Self.settings(server, scheme: "smtps"))
        let error = try #require(throws: MailError.self) { try sender.send(Self.message()) }
        #expect(error.kind == .deferred)
        #expect(error.replyCode == 451)
        #expect(error.isTransient)
        #expect(DeliveryVerdict.judge(mailError: error) == .retry(retryAfter: nil))
    }

    @Test func aServerVanishingMidMessageIsTemporaryAndQuick() throws {
        let server = try LocalSMTPServer(tls: .startTLS, behaviour: .vanish)
        let sender = try MailSender(settings: Self.settings(server, totalTimeoutMilliseconds: 10_000))
        let started = Date()
        // A message of many lines, so the server drops the connection while most is unsent.
        let big = MailMessage(from: try MailAddress(parsing: "chorus@chorus.test"), to: Self.recipient, subject: "Big",
                              text: String(repeating: "a line of the notice\n", count: 20_000))
        let error = try #require(throws: MailError.self) { try sender.send(big) }
        #expect(error.kind == .connection, "\(error)")
        #expect(error.isTransient)
        #expect(DeliveryVerdict.judge(mailError: error) == .retry(retryAfter: nil))
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(server.received.isEmpty)
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        let server = try LocalSMTPServer(tls: .startTLS, behaviour: .stall)
        let sender = try MailSender(settings: Self.settings(server, totalTimeoutMilliseconds: 1_500))
        let started = Date()
        let error = try #require(throws: MailError.self) { try sender.send(Self.message()) }
        #expect(error.kind == .timedOut, "\(error)")
        #expect(error.isTransient)
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed >= 1.4 && elapsed < 5)
    }

    /// smtp:// to a server offering no STARTTLS: neither the password nor the message
    /// goes out in clear.
    @Test func withoutStartTLSNothingIsSent() throws {
        let server = try LocalSMTPServer(tls: .none)
        let sender = try MailSender(settings: Self.settings(server))
        let error = try #require(throws: MailError.self) { try sender.send(Self.message()) }
        #expect(error.kind == .startTLSMissing, "\(error)")
        #expect(!error.isTransient)
        #expect(DeliveryVerdict.judge(mailError: error) == .failed)
        #expect(server.received.isEmpty)
        #expect(server.authAttempts.isEmpty)
    }

    @Test(arguments: [LocalSMTPServer.TLS.startTLS, .implicit])
    func anUntrustedCertificateFails(tls: LocalSMTPServer.TLS) throws {
        let server = try LocalSMTPServer(tls: tls)
        let other = try LocalSMTPServer(tls: tls)
        let scheme = tls == .implicit ? "smtps" : "smtp"
        let sender = try MailSender(settings: Self.settings(server, scheme: scheme, caFile: other.certificatePath))
        let error = try #require(throws: MailError.self) { try sender.send(Self.message()) }
        #expect(error.kind == .untrusted, "\(error)")
        #expect(!error.isTransient)
        #expect(server.received.isEmpty)
        #expect(server.authAttempts.isEmpty)
        // The system's trust store does not know a self-signed certificate either.
        var systemTrust = try SMTPSettings(url: "\(scheme)://\(LocalSMTPServer.user)@127.0.0.1:\(server.port)",
                                           password: LocalSMTPServer.password, caFile: nil, mailFrom: "chorus@chorus.test")
        systemTrust.totalTimeoutMilliseconds = 10_000
        let again = try #require(throws: MailError.self) { try MailSender(settings: systemTrust).send(Self.message()) }
        #expect(again.kind == .untrusted, "\(again)")
    }

    @Test func nobodyListeningIsATemporaryConnectionFailure() throws {
        let port = try FreePort.next()
        var settings = try SMTPSettings(url: "smtps://127.0.0.1:\(port)", password: nil, caFile: nil, mailFrom: "chorus@chorus.test")
        settings.connectTimeoutMilliseconds = 2_000
        let error = try #require(throws: MailError.self) { try MailSender(settings: settings).send(Self.message()) }
        #expect(error.kind == .connection, "\(error)")
        #expect(error.isTransient)
    }
}
