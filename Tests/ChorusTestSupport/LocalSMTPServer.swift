import ChorusCrypto
import ChorusTestSupport
import Foundation
import Testing

/// A real SMTP server for a test: aiosmtpd in a Python process of its own on a free
/// loopback port, with a fresh self-signed certificate (SAN localhost and 127.0.0.1)
/// that clients trust only through its file. Stopped (by its pid) when released.
public final class LocalSMTPServer {
    public enum TLS: String, Sendable {
        /// STARTTLS required before anything, AUTH required and only after TLS.
        case startTLS = "starttls"
        /// TLS from the first byte (smtps), AUTH required.
        case implicit
        /// No STARTTLS offered at all; AUTH and mail would be taken in clear.
        case none
    }

    public enum Behaviour: String, Sendable {
        case accept
        /// 550 to every RCPT.
        case refuseRecipient = "refuse-recipient"
        /// 451 after the data.
        case `defer`
        /// Drops the connection after the first line of the data.
        case vanish
        /// Takes the data and never answers.
        case stall
    }

    /// One message as the server received it.
    public struct Received {
        public let message: [UInt8]
        public let messagePath: String
        public let mailFrom: String
        public let recipients: [String]
        public let authUser: String?
        public let encrypted: Bool
    }

    public static let python = "/usr/bin/python3"
    public static let user = "mailer"
    public static let password = "correct horse battery"

    /// aiosmtpd is importable; under CI=true the tests run regardless and fail without it.
    public static let isUsable: Bool = {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        return (try? MailParser.run([python, "-c", "import aiosmtpd.controller"]).status) == 0
    }()

    public let port: Int
    public let certificatePath: String
    public let mailDirectory: String
    private let directory: TemporaryDirectory
    private let process: Process

    public init(tls: TLS, behaviour: Behaviour = .accept) throws {
        directory = try TemporaryDirectory()
        certificatePath = directory.path + "/server.crt"
        let keyPath = directory.path + "/server.key"
        _ = try SelfSignedCertificate.create(certificatePath: certificatePath, keyPath: keyPath)
        mailDirectory = directory.path + "/mail"
        try FileManager.default.createDirectory(atPath: mailDirectory, withIntermediateDirectories: true)
        let scriptPath = directory.path + "/smtp_server.py"
        try LocalSMTPServerScript.source.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        port = try FreePort.next()
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [scriptPath, "--port", "\(port)", "--tls", tls.rawValue, "--behaviour", behaviour.rawValue,
                             "--cert", certificatePath, "--key", keyPath, "--user", Self.user, "--password", Self.password,
                             "--maildir", mailDirectory]
        let logPath = directory.path + "/server.log"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        try process.run()
        // Ready once the file appears; a server that died or never listened is a failure.
        let deadline = Date().addingTimeInterval(15)
        while !FileManager.default.fileExists(atPath: mailDirectory + "/ready") {
            guard process.isRunning, Date() < deadline else {
                stop()
                let output = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                throw StartFailure(description: "the aiosmtpd server did not start: \(output)")
            }
            usleep(20_000)
        }
    }

    deinit {
        stop()
    }

    private func stop() {
        // SIGKILL: the test process's blocked signals are inherited, and a test server
        // has nothing to save.
        if !process.killAndWait() {
            Issue.record("the aiosmtpd server (\(process.commandLine)) did not end within 10 s of SIGKILL")
        }
    }

    /// Messages accepted so far, in order.
    public var received: [Received] {
        var result: [Received] = []
        var index = 1
        while let meta = FileManager.default.contents(atPath: "\(mailDirectory)/\(index).json"),
              let message = FileManager.default.contents(atPath: "\(mailDirectory)/\(index).eml"),
              let object = try? JSONSerialization.jsonObject(with: meta) as? [String: Any] {
            result.append(Received(message: Array(message), messagePath: "\(mailDirectory)/\(index).eml",
                                   mailFrom: object["mail_from"] as? String ?? "", recipients: object["rcpt_tos"] as? [String] ?? [],
                                   authUser: object["auth_user"] as? String, encrypted: object["encrypted"] as? Bool ?? false))
            index += 1
        }
        return result
    }

    /// `MECHANISM USER` for every AUTH the server was sent.
    public var authAttempts: [String] {
        let text = (try? String(contentsOfFile: mailDirectory + "/auth-attempts", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }
}
