import ChorusCrypto
import ChorusNet
import ChorusServer

/// `chorusd`'s command line (CONTRACT §1). Both `--flag value` and `--flag=value` work.
struct Flags {
    enum Action {
        case serve(ServerConfiguration)
        case admin(grant: Bool, name: String, dataDirectory: String)
        case help
        case version
    }

    static let usage = """
        usage: chorusd [flags]
               chorusd admin grant|revoke NAME [--data DIR]

          --host H                 address to bind (default 127.0.0.1)
          --port N                 TCP port, 0 picks a free one (default 7667)
          --data DIR               folder that holds chorus.sqlite (default ./data)
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
          --exempt CIDR            addresses free of the per-address limit; repeatable;
                                   replaces the default (loopback)
          --rate N, --burst N      commands per second per session and the burst above it;
                                   over it a session's input waits (default 20, 100)
          --scrypt-log-n N         password hash cost, log2 of scrypt's N (default 17; below 14 warns)
          --help, --version
        """

    static let valueFlags: Set<String> = [
        "--host", "--port", "--data", "--cert", "--key", "--max-line", "--sendq",
        "--handshake-timeout", "--idle-timeout", "--send-timeout", "--scrypt-log-n", "--rate", "--burst", "--max-connections",
        "--max-per-ip", "--exempt", "--loops",
    ]

    struct Failure: Error {
        let message: String
    }

    static func parse(_ arguments: [String]) throws(Failure) -> Action {
        var words = arguments[...]
        if words.first == "admin" {
            return try parseAdmin(words.dropFirst())
        }
        var configuration = ServerConfiguration()
        var exempt: [AddressRange]?
        while let word = words.popFirst() {
            if word == "--help" || word == "-h" { return .help }
            if word == "--version" { return .version }
            let (flag, value) = try split(word, &words)
            switch flag {
            case "--host": configuration.host = value
            case "--port": configuration.port = try number(flag, value, 0...65535)
            case "--data": configuration.dataDirectory = value
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
            case "--exempt":
                guard let range = AddressRange(value) else {
                    throw Failure(message: "--exempt takes an address or CIDR range like 10.0.0.0/8, not \(value)")
                }
                exempt = (exempt ?? []) + [range]
            default: throw Failure(message: "unknown flag \(flag) (see chorusd --help)")
            }
        }
        // Given at all, --exempt replaces the default (loopback).
        if let exempt { configuration.exempt = exempt }
        return .serve(configuration)
    }

    private static func parseAdmin(_ words: ArraySlice<String>) throws(Failure) -> Action {
        var words = words
        guard let verb = words.popFirst(), verb == "grant" || verb == "revoke" else {
            throw Failure(message: "usage: chorusd admin grant|revoke NAME [--data DIR]")
        }
        var name: String?
        var data = ServerConfiguration().dataDirectory
        while let word = words.popFirst() {
            if word.hasPrefix("--") {
                let (flag, value) = try split(word, &words)
                guard flag == "--data" else { throw Failure(message: "unknown flag \(flag) for chorusd admin") }
                data = value
            } else if name == nil {
                name = word
            } else {
                throw Failure(message: "usage: chorusd admin grant|revoke NAME [--data DIR]")
            }
        }
        guard let name else { throw Failure(message: "usage: chorusd admin grant|revoke NAME [--data DIR]") }
        return .admin(grant: verb == "grant", name: name, dataDirectory: data)
    }

    private static func split(_ word: String, _ rest: inout ArraySlice<String>) throws(Failure) -> (String, String) {
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
