import ChorusAddresses
import ChorusOutbound
import ChorusCore
import ChorusCrypto
import ChorusNet
import ChorusServer
import Foundation

/// `chorusd`'s command line (CONTRACT §1). Both `--flag value` and `--flag=value` work.
struct Flags {
    enum Action {
        case serve(ServerConfiguration, StoreChoice)
        case admin(grant: Bool, name: String, store: StoreChoice)
        case copyToPostgres(dataDirectory: String, store: StoreChoice)
        case afterRestore(StoreChoice)
        case help
        case version
    }

    static let usage = """
        usage: chorusd [flags]
               chorusd admin grant|revoke NAME [--data DIR | --postgres URL]
               chorusd copy-to-postgres [--data DIR] --postgres URL
                 copies the whole SQLite store in DIR (stopped) into an empty
                 PostgreSQL database, ids, passwords and tokens kept
               chorusd after-restore [--data DIR | --postgres URL]
                 run once after restoring a backup (every chorusd stopped): moves
                 every id counter far past what the lost writes could have used

          --host H                 address to bind (default 127.0.0.1)
          --port N                 TCP port, 0 picks a free one (default 7667)
          --data DIR               folder that holds chorus.sqlite (default ./data)
          --postgres URL           keep everything in this PostgreSQL database instead, shared
                                   by every node given it: a libpq URI or key=value string;
                                   PG* variables and ~/.pgpass apply, so the password need not
                                   be here (default $CHORUS_POSTGRES; unset: SQLite in --data)
          --node NAME              this node's name in logs, ADMIN STATS and presence; only
                                   with a database (default HOST:PORT; the host name for
                                   0.0.0.0 or ::; with --port 0, HOST:0-pidPID)
          --public-url URL         https://HOST[:PORT] clients reach this server at, for the
                                   calendar links CALENDAR LINK gives (behind a router or
                                   proxy); no path (default https://HOST:PORT of --host and
                                   the port, the machine's name for 0.0.0.0 or ::)
          --cert F --key F         PEM certificate chain and private key
                                   (default certs/server.crt, certs/server.key; made when absent)
          --max-line N             longest request line in bytes (default 8192)
          --sendq N                bytes queued for one session before it is dropped
                                   (default 1048576, at least 65536)
          --handshake-timeout S    seconds to finish TLS and send a first line (default 10)
          --idle-timeout S         seconds without a line before a session is closed (default 600)
          --send-timeout S         seconds a session's output may wait, unread, before it is
                                   closed (default 60)
          --max-connections N      sessions in all; past it ERR 503 and close (default 10000)
          --loops N                event-loop threads sharing the sessions (default: one per core)
          --max-per-ip N           sessions from one address, 0 for no limit (default 16)
          --exempt CIDR            addresses free of the per-address limits (connections and
                                   sign-ups); repeatable; replaces the default (loopback)
          --metrics-allow CIDR     addresses that may read /metrics (others get 404); repeatable;
                                   replaces the default (loopback: 127.0.0.0/8 and ::1/128)
          --registration MODE      who may REGISTER: open (anyone) or invite (only with a
                                   room's invite code, except the first account) (default open)
          --register-rate N        accounts one address may make an hour (default 5)
          --web-origin URL         another origin whose pages may open WebSocket sessions, as
                                   https://name[:port]; repeatable (the certificate's names
                                   on this port always may)
          --push-allow CIDR        push endpoints may also resolve to these addresses (public
                                   ones always may); repeatable (default none)
          --push-ca FILE           trust only the certificates in FILE for push services (a
                                   test push service; never in production)
          --mail-from ADDRESS      the From of mail chorusd sends, also the contact its Web
                                   Push signature gives push services
          --smtp URL               send notice mail through this server: smtps://USER@HOST[:465]
                                   or smtp://USER@HOST[:587] (STARTTLS required); the
                                   password from CHORUS_SMTP_PASSWORD (needs --mail-from)
          --smtp-ca FILE           trust only the certificates in FILE for the mail server
                                   (a test mail server; never in production)
          --rate N, --burst N      commands per second per session and the burst above it;
                                   over it a session's input waits (default 20, 100)
          --scrypt-log-n N         password hash cost, log2 of scrypt's N (default 17; below 14 warns)
          --acme NAME[,NAME]       get the certificate for these DNS names from an ACME CA (Let's
                                   Encrypt) and renew it at two thirds of its life; --cert/--key
                                   are served only until the first one is issued. The CA checks
                                   the names through this port (tls-alpn-01), so it must be
                                   reachable as port 443 of each name
          --acme-email ADDRESS     the ACME account's contact, for the CA's expiry warnings
          --acme-directory URL     the CA's directory (default Let's Encrypt's:
                                   https://acme-v02.api.letsencrypt.org/directory)
          --acme-ca FILE           trust this PEM file for the directory instead of the system's
                                   CAs (a test CA)
          --acme-http-port N       also answer http-01 challenges with plain HTTP on this port
                                   (reachable as port 80 of each name)
          --help, --version

        exit status: 0 after SIGTERM or SIGINT; 2 for a configuration error (one line on
        standard error); 75 when the database could not be reached at start (try again)
        """

    static let valueFlags: Set<String> = [
        "--host", "--port", "--data", "--cert", "--key", "--max-line", "--sendq",
        "--handshake-timeout", "--idle-timeout", "--send-timeout", "--scrypt-log-n", "--rate", "--burst", "--max-connections",
        "--max-per-ip", "--exempt", "--loops", "--postgres", "--node", "--registration", "--register-rate",
        "--web-origin", "--public-url", "--metrics-allow", "--push-allow", "--push-ca", "--mail-from", "--smtp", "--smtp-ca",
        "--acme", "--acme-email", "--acme-directory", "--acme-ca", "--acme-http-port",
    ]

    struct Failure: Error {
        let message: String
    }

    /// `environment` supplies `CHORUS_POSTGRES` when `--postgres` is not given.
    static func parse(_ arguments: [String], environment: [String: String]) throws(Failure) -> Action {
        var words = arguments[...]
        if words.first == "admin" {
            return try parseAdmin(words.dropFirst(), environment: environment)
        }
        if words.first == "copy-to-postgres" {
            return try parseCopy(words.dropFirst(), environment: environment)
        }
        if words.first == "after-restore" {
            return try parseAfterRestore(words.dropFirst(), environment: environment)
        }
        var configuration = ServerConfiguration()
        var exempt: [AddressRange]?
        var metricsAllow: [AddressRange]?
        var smtpURL: String?
        var smtpCA: String?
        var postgres: String?
        var nodeGiven = false
        var acme = ACMEFlags()
        while let word = words.popFirst() {
            if word == "--help" || word == "-h" { return .help }
            if word == "--version" { return .version }
            let (flag, value) = try split(word, &words)
            switch flag {
            case "--host": configuration.host = value
            case "--port": configuration.port = try number(flag, value, 0...65535)
            case "--data": configuration.dataDirectory = value
            case "--postgres": postgres = try conninfo(value)
            case "--node":
                guard NodeName.isValid(value) else {
                    throw Failure(message: "--node takes 1 to \(NodeName.maxLength) letters, digits or . - _ : [ ] @, not \(value)")
                }
                configuration.node = value
                nodeGiven = true
            case "--public-url":
                guard let origin = ServerConfiguration.publicOrigin(parsing: value) else {
                    throw Failure(message: "--public-url takes https://HOST or https://HOST:PORT (nothing after it but /), not \(value)")
                }
                configuration.publicURL = origin
            case "--cert": configuration.certificatePath = value
            case "--key": configuration.keyPath = value
            case "--max-line": configuration.maxLine = try number(flag, value, 64...1_048_576)
            // At least 64 KiB: one event can be about 16 KB (4,000 four-byte characters), and a
            // queue that cannot hold a few would drop every reader of a long message.
            case "--sendq": configuration.sendQueueBytes = try number(flag, value, 65_536...1_073_741_824)
            case "--handshake-timeout": configuration.handshakeTimeout = Double(try number(flag, value, 1...3600))
            case "--idle-timeout": configuration.idleTimeout = Double(try number(flag, value, 1...604_800))
            case "--send-timeout": configuration.sendTimeout = Double(try number(flag, value, 1...86_400))
            case "--scrypt-log-n": configuration.scrypt = ScryptParameters(logN: try number(flag, value, 4...20))
            case "--rate": configuration.rate = Double(try number(flag, value, 1...1_000_000))
            case "--burst": configuration.burst = Double(try number(flag, value, 1...1_000_000))
            case "--max-connections": configuration.maxConnections = try number(flag, value, 1...1_000_000)
            case "--loops": configuration.loops = try number(flag, value, 1...256)
            case "--max-per-ip": configuration.maxPerAddress = try number(flag, value, 0...1_000_000)
            case "--registration":
                guard let mode = RegistrationMode(rawValue: value) else {
                    throw Failure(message: "--registration takes open or invite, not \(value)")
                }
                configuration.registration = mode
            case "--register-rate": configuration.registerRate = try number(flag, value, 1...1_000_000)
            case "--web-origin":
                guard value.hasPrefix("https://") || value.hasPrefix("http://"), !value.dropFirst(8).contains("/") else {
                    throw Failure(message: "--web-origin takes an origin like https://chores.example.org:7667, not \(value)")
                }
                configuration.webOrigins.append(value)
            case "--exempt":
                guard let range = AddressRange(value) else {
                    throw Failure(message: "--exempt takes an address or CIDR range like 10.0.0.0/8, not \(value)")
                }
                exempt = (exempt ?? []) + [range]
            case "--metrics-allow":
                guard let range = AddressRange(value) else {
                    throw Failure(message: "--metrics-allow takes an address or CIDR range like 10.0.0.0/8, not \(value)")
                }
                metricsAllow = (metricsAllow ?? []) + [range]
            case "--push-allow":
                guard let block = try? AddressBlock(parsing: value) else {
                    throw Failure(message: "--push-allow takes an address or CIDR range like 127.0.0.0/8, not \(value)")
                }
                configuration.pushAllow.append(block)
            case "--push-ca":
                guard FileManager.default.isReadableFile(atPath: value) else {
                    throw Failure(message: "--push-ca: cannot read \(value)")
                }
                configuration.pushCA = value
            case "--mail-from":
                do {
                    _ = try MailAddress(parsing: value)
                } catch {
                    throw Failure(message: "--mail-from takes an address like chores@example.org: \(error)")
                }
                configuration.mailFrom = value
            case "--smtp": smtpURL = value
            case "--smtp-ca": smtpCA = value
            case "--acme", "--acme-email", "--acme-directory", "--acme-ca", "--acme-http-port":
                try acme.take(flag, value)
            default: throw Failure(message: "unknown flag \(flag) (see chorusd --help)")
            }
        }
        configuration.acme = try acme.settings(environment: environment)
        if let smtpURL {
            guard let mailFrom = configuration.mailFrom else {
                throw Failure(message: "--smtp needs --mail-from ADDRESS, the sender of the mail")
            }
            do {
                configuration.smtp = try SMTPSettings(url: smtpURL, password: environment["CHORUS_SMTP_PASSWORD"], caFile: smtpCA,
                                                      mailFrom: mailFrom)
            } catch {
                throw Failure(message: "--smtp: \(error)")
            }
            if let smtpCA, !FileManager.default.isReadableFile(atPath: smtpCA) {
                throw Failure(message: "--smtp-ca: cannot read \(smtpCA)")
            }
        } else if smtpCA != nil {
            throw Failure(message: "--smtp-ca names the CA of the --smtp server; give --smtp URL too")
        }
        do {
            configuration.noticeTiming = try NoticeTimingVariable.timing(environment: environment)
        } catch {
            throw Failure(message: error.description)
        }
        // Given at all, --exempt replaces the default (loopback).
        if let exempt { configuration.exempt = exempt }
        // Likewise --metrics-allow.
        if let metricsAllow { configuration.metricsAllow = metricsAllow }
        let store = StoreChoice.pick(postgres: postgres, dataDirectory: configuration.dataDirectory, environment: environment)
        // A node name says the admin meant a cluster: serving SQLite instead would quietly
        // split the household (a CHORUS_POSTGRES lost from a unit file).
        if nodeGiven, case .sqlite(let folder) = store {
            throw Failure(message: "--node names a cluster node and needs --postgres URL or CHORUS_POSTGRES, "
                + "which are not set; refusing to serve the SQLite store in \(folder) instead")
        }
        // Decided before the store opens, which PostgreSQL's needs it for (so a port the
        // kernel picks cannot be in it).
        if configuration.node == nil {
            configuration.node = NodeName.fallback(host: configuration.host, port: configuration.port)
        }
        return .serve(configuration, store)
    }

    static let adminUsage = "usage: chorusd admin grant|revoke NAME [--data DIR | --postgres URL]"

    private static func parseAdmin(_ words: ArraySlice<String>, environment: [String: String]) throws(Failure) -> Action {
        var words = words
        guard let verb = words.popFirst(), verb == "grant" || verb == "revoke" else {
            throw Failure(message: adminUsage)
        }
        var name: String?
        var data = ServerConfiguration().dataDirectory
        var postgres: String?
        while let word = words.popFirst() {
            if word.hasPrefix("--") {
                let (flag, value) = try split(word, &words)
                switch flag {
                case "--data": data = value
                case "--postgres": postgres = try conninfo(value)
                default: throw Failure(message: "unknown flag \(flag) for chorusd admin")
                }
            } else if name == nil {
                name = word
            } else {
                throw Failure(message: adminUsage)
            }
        }
        guard let name else { throw Failure(message: adminUsage) }
        let store = StoreChoice.pick(postgres: postgres, dataDirectory: data, environment: environment)
        return .admin(grant: verb == "grant", name: name, store: store)
    }

    /// A connection string is checked by libpq when it connects; only an empty one is
    /// refused here, as it would silently mean libpq's defaults.
    static func conninfo(_ value: String) throws(Failure) -> String {
        guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw Failure(message: "--postgres needs a connection string like postgresql://chorus@db.example/chorus "
                + "(postgresql:// alone takes everything from the PG* variables)")
        }
        return value
    }

    static func split(_ word: String, _ rest: inout ArraySlice<String>) throws(Failure) -> (String, String) {
        guard word.hasPrefix("--") else { throw Failure(message: "unexpected argument \(word) (see chorusd --help)") }
        let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
        guard valueFlags.contains(name) else { throw Failure(message: "unknown flag \(name) (see chorusd --help)") }
        if let equals = word.firstIndex(of: "=") {
            return (String(word[..<equals]), String(word[word.index(after: equals)...]))
        }
        guard let value = rest.popFirst() else { throw Failure(message: "\(word) needs a value") }
        return (word, value)
    }

    private static func number(_ flag: String, _ value: String, _ range: ClosedRange<Int>) throws(Failure) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw Failure(message: "\(flag) must be a whole number in \(range.lowerBound)...\(range.upperBound), not \(value)")
        }
        return number
    }
}
