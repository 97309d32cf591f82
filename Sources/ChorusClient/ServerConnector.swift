import Foundation

/// Opens a TLS connection to the server and checks its certificate the way the person
/// chose (CA file, pinned fingerprint, trust on first use, or not at all), refusing with
/// exit status 2 and a message that says what to do. Nothing is sent before the check.
public final class ServerConnector {
    public let host: String
    public let port: Int
    public let trust: TrustPolicy
    /// Asks the person whether to trust a first-seen certificate; nil when nobody can answer
    /// (standard input is not a terminal, or the session is already running).
    public var askToTrust: ((_ question: String) -> Bool)?
    private let timeout: Double

    public init(host: String, port: Int, trust: TrustPolicy, timeout: Double = 30,
                askToTrust: ((_ question: String) -> Bool)? = nil) {
        self.host = host
        self.port = port
        self.trust = trust
        self.timeout = timeout
        self.askToTrust = askToTrust
    }

    /// `host:port`, as known_hosts and messages name the server.
    public var endpoint: String { KnownHostsFile.key(host: host, port: port) }

    /// A connection whose certificate passed the check; its greeting is still unread.
    public func connect() throws(ClientFailure) -> LineClient {
        let client: LineClient
        do {
            switch trust {
            case .certificateAuthority(let path):
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw ClientFailure("cannot read the CA file \(path)")
                }
                client = try LineClient(host: host, port: port, trust: .certificateFile(path), serverName: host, timeout: timeout)
            case .pinned, .knownHosts, .insecure:
                client = try LineClient(host: host, port: port, trust: .insecure, serverName: host, timeout: timeout)
            }
        } catch let failure as ClientFailure {
            throw failure
        } catch let failure as LineClient.Failure where failure.nameMismatch != nil {
            throw nameMismatch(failure.nameMismatch!.error, names: failure.nameMismatch!.names)
        } catch let failure as LineClient.Failure where failure.closedInHandshake {
            // A balancer accepts the connection and drops it while no node is up behind it.
            throw ClientFailure("cannot connect to \(endpoint): \(failure.description)", isTransient: true)
        } catch {
            let reason = "\(error)"
            throw ClientFailure(reason.hasPrefix("cannot connect") ? reason : "cannot connect to \(endpoint): \(reason)",
                                isTransient: true)
        }
        guard let offered = client.peerCertificateFingerprint.flatMap(PinnedFingerprint.init) else {
            client.close()
            throw ClientFailure("\(endpoint) presented no certificate")
        }
        switch trust {
        case .certificateAuthority, .insecure:
            return client
        case .pinned(let expected):
            guard offered == expected else {
                client.close()
                throw ClientFailure("the certificate of \(endpoint) does not match --fingerprint\n"
                    + "  expected: \(expected)\n  offered:  \(offered)")
            }
            return client
        case .knownHosts(let file):
            if let known = file.entry(for: endpoint) {
                guard known.fingerprint == offered else {
                    client.close()
                    throw changedWarning(known: known, offered: offered, file: file)
                }
                return client
            }
            client.close()
            try trustOnFirstUse(offered, file: file)
            // The server may have given up on the first connection while the person read the question.
            return try connect()
        }
    }

    /// Asks the person (when someone can answer) and remembers a yes; refuses otherwise.
    private func trustOnFirstUse(_ offered: PinnedFingerprint, file: KnownHostsFile) throws(ClientFailure) {
        let introduction = "the certificate of \(endpoint) is not known yet\n  SHA-256 fingerprint: \(offered)\n"
        guard let askToTrust else {
            throw ClientFailure(introduction
                + "  Compare it with the fingerprint chorusd printed when it made its certificate, then either\n"
                + "    run chorus with --fingerprint \(offered)\n"
                + "    or run chorus from a terminal and answer yes, which remembers it in \(file.path)")
        }
        let question = "chorus: " + introduction
            + "  Compare it with the fingerprint chorusd printed when it made its certificate.\n"
            + "Trust it and remember it in \(file.path)? (yes/no) "
        guard askToTrust(question) else {
            throw ClientFailure("not trusted; nothing was sent to \(endpoint)")
        }
        try file.remember(offered, for: endpoint)
    }

    /// The certificate verified but is for other names: say which, and what to do. Not
    /// transient: trying again cannot change it.
    private func nameMismatch(_ error: String, names: [String]) -> ClientFailure {
        ClientFailure("""
            the certificate of \(endpoint) is not for \(host) (\(error))
              it names: \(names.isEmpty ? "nothing" : names.map(TerminalSafeText.line).joined(separator: ", "))
              Connect with --host set to one of those names, or give the server a certificate
              that names \(host) (chorusd makes its own for --host when certs/ is empty).
            """)
    }

    /// Loud, like ssh: a changed certificate may be an attack.
    private func changedWarning(known: KnownHostsFile.Entry, offered: PinnedFingerprint, file: KnownHostsFile) -> ClientFailure {
        ClientFailure("""
            WARNING: the certificate of \(endpoint) has CHANGED!
            @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
              Someone could be listening in (a man-in-the-middle attack),
              or the server was given a new certificate.
              remembered fingerprint: \(known.fingerprint)
              offered fingerprint:    \(offered)
              Nothing was sent. If the change is expected, delete line \(known.line) of
              \(file.path) and connect again.
            """)
    }
}
