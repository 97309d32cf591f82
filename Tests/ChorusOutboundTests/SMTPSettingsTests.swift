import ChorusOutbound
import Testing

/// `--smtp URL`, `CHORUS_SMTP_PASSWORD`, `--smtp-ca` and `--mail-from` as the server reads them.
@Suite struct SMTPSettingsTests {
    static func settings(_ url: String, password: String? = nil, caFile: String? = nil, mailFrom: String = "chorus@chorus.test") throws(SMTPSettings.Invalid) -> SMTPSettings {
        try SMTPSettings(url: url, password: password, caFile: caFile, mailFrom: mailFrom)
    }

    @Test func schemesPickTLSAndTheirDefaultPorts() throws {
        let implicit = try Self.settings("smtps://mailer@mail.example.com", password: "p")
        #expect(implicit.security == .implicitTLS)
        #expect(implicit.host == "mail.example.com")
        #expect(implicit.port == 465)
        #expect(implicit.user == "mailer")
        #expect(implicit.server == "smtps://mail.example.com:465")
        let submission = try Self.settings("SMTP://Mail.Example.com:2525/", caFile: "/tmp/ca.pem")
        #expect(submission.security == .startTLS)
        #expect(submission.host == "mail.example.com")
        #expect(submission.port == 2525)
        #expect(submission.user == nil)
        #expect(submission.caFile == "/tmp/ca.pem")
        #expect(try Self.settings("smtp://relay").port == 587)
        let encoded = try Self.settings("smtp://me%40example.com@[::1]:587", password: "p")
        #expect(encoded.user == "me@example.com")
        #expect(encoded.host == "::1")
        #expect(encoded.server == "smtp://[::1]:587")
        #expect(try Self.settings("smtps://127.0.0.1:10465").host == "127.0.0.1")
        #expect(try Self.settings("smtps://a@relay", password: "p", mailFrom: "noreply@chorus.test").mailFrom.description == "noreply@chorus.test")
    }

    @Test func thePasswordIsNeverShown() throws {
        let settings = try Self.settings("smtps://mailer@relay", password: "hunter2-secret")
        var dumped = ""
        dump(settings, to: &dumped)
        for shown in ["\(settings)", String(reflecting: settings), dumped] {
            #expect(!shown.contains("hunter2-secret"), "\(shown)")
            #expect(shown.contains("smtps://relay:465"), "\(shown)")
        }
    }

    @Test func anythingElseIsRefusedWithAReason() {
        let cases: [(url: String, password: String?, mailFrom: String, words: String)] = [
            ("https://mail.example.com", nil, "a@b.c", "scheme"),
            ("mail.example.com:587", nil, "a@b.c", "expected smtps://"),
            ("smtp://user:secret@mail.example.com", "secret", "a@b.c", "CHORUS_SMTP_PASSWORD"),
            ("smtp://mail.example.com/path", nil, "a@b.c", "path"),
            ("smtp://mail.example.com?x=1", nil, "a@b.c", "path"),
            ("smtp://", nil, "a@b.c", "not a host"),
            ("smtp://user@", "p", "a@b.c", "not a host"),
            ("smtp://mail.example.com:0", nil, "a@b.c", "port"),
            ("smtp://mail.example.com:65536", nil, "a@b.c", "port"),
            ("smtp://mail.example.com:+25", nil, "a@b.c", "port"),
            ("smtp://mail.example.com:", nil, "a@b.c", "port"),
            ("smtp://[::1", nil, "a@b.c", "]"),
            ("smtp://[127.0.0.1]", nil, "a@b.c", "IPv6"),
            ("smtp://bad_host", nil, "a@b.c", "not a host"),
            ("smtp://mail example", nil, "a@b.c", "percent-encoded"),
            ("smtp://%zz@mail.example.com", "p", "a@b.c", "user"),
            ("smtp://mail.example.com", "secret", "a@b.c", "names no user"),
            ("smtp://mailer@mail.example.com", nil, "a@b.c", "not set"),
            ("smtp://mailer@mail.example.com", "", "a@b.c", "empty"),
            ("smtp://mailer@mail.example.com", "a\nb", "a@b.c", "line break"),
            ("smtp://mail.example.com", nil, "not an address", "--mail-from"),
        ]
        for (url, password, mailFrom, words) in cases {
            do {
                _ = try Self.settings(url, password: password, mailFrom: mailFrom)
                Issue.record("\(url) was accepted")
            } catch {
                #expect(error.description.contains(words), "\(url): \(error)")
                if let password, password.count > 1 { #expect(!error.description.contains(password), "\(url) shows the password") }
            }
        }
        #expect(throws: SMTPSettings.Invalid.self) { try Self.settings("smtp://relay", caFile: "") }
    }
}
