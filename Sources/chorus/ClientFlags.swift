import ChorusClient

/// The command line of `chorus`: flags first, then the COMMAND words, if any, untouched.
struct ClientFlags {
    var host = "127.0.0.1"
    var port = 7667
    var caFile: String?
    var fingerprint: PinnedFingerprint?
    var insecure = false
    var user: String?
    var passwordFile: String?
    var tokenFile: String?
    var json = false
    var output: String?
    var noReplay = false
    var help = false
    var version = false
    var words: [String] = []

    static let usage = """
        usage: chorus [--host H] [--port N] [--ca FILE | --fingerprint SHA256 | --insecure]
                      [--user NAME (--password-file F | CHORUS_PASSWORD) | --token-file F (or CHORUS_TOKEN)]
                      [--json] [--no-replay] [--output FILE] [COMMAND ...]

        Without COMMAND: an interactive session (type commands; replies and live events
        appear as they come; reconnects by itself and replays what it missed; after login,
        shows what was said since the last session with this server and account). With a pipe
        as standard input, each line read is sent and the program ends after the last reply,
        with status 1 if any line was answered ERR.
        With COMMAND: sends that one request, prints its reply, exits 0 on OK, 1 on ERR.

          --host H               server address (default 127.0.0.1)
          --port N               server port (default 7667)
          --ca FILE              verify the server against this CA (or its own) certificate and its name
          --fingerprint SHA256   accept exactly the certificate with this SHA-256 fingerprint
                                 (AB:CD:..., any case, colons optional)
          --insecure             do not check the certificate at all
          --user NAME            log in as NAME; the password is the first line of
          --password-file F      F, or the CHORUS_PASSWORD environment variable; at a
                                 terminal with neither, chorus asks (without echo)
          --token-file F         log in with the bot token in F (or CHORUS_TOKEN)
          --json                 JSON lines instead of text (for bots)
          --no-replay            without COMMAND: do not show what was said since the last
                                 session (where it stops is still remembered)
          --output FILE          with COMMAND: write its reply to FILE instead of standard
                                 output (CALENDAR writes the .ics file itself either way)
          --help, --version

        Without --ca or --fingerprint, the certificate is trusted on first use and remembered
        in $XDG_CONFIG_HOME/chorus/known_hosts (~/.config/chorus/known_hosts); a certificate
        that changes afterwards is refused. Passwords and tokens are never taken as flags.
        Where a session stopped is kept in seen_events in the same folder.

        Exit status: 0 OK, 1 the server answered ERR, 2 usage, connection, certificate or
        login problems.

        Examples:
          chorus --user alice --password-file ~/.chorus-password
          chorus --user alice --password-file pw SAY "Flat 2B" Bins go out tonight
          CHORUS_TOKEN=... chorus --json TASKS mine
          chorus --user alice --password-file pw CALENDAR me > alice.ics
        """

    static func parse(_ arguments: [String]) throws(ClientFailure) -> ClientFlags {
        var flags = ClientFlags()
        var index = 0
        func value(of flag: String, inline: String?) throws(ClientFailure) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw ClientFailure("\(flag) needs a value; see chorus --help") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { break }
            if argument == "--" {
                index += 1
                break
            }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let flag = parts[0]
            let inline = parts.count == 2 ? parts[1] : nil
            switch flag {
            case "--host": flags.host = try value(of: flag, inline: inline)
            case "--port":
                let text = try value(of: flag, inline: inline)
                guard let port = Int(text), (1...65535).contains(port) else {
                    throw ClientFailure("--port needs a number from 1 to 65535, not \(text)")
                }
                flags.port = port
            case "--ca": flags.caFile = try value(of: flag, inline: inline)
            case "--fingerprint":
                let text = try value(of: flag, inline: inline)
                guard let pin = PinnedFingerprint(text) else {
                    throw ClientFailure("--fingerprint needs a SHA-256 fingerprint: 64 hex digits, colons optional")
                }
                flags.fingerprint = pin
            case "--insecure": flags.insecure = true
            case "--user": flags.user = try value(of: flag, inline: inline)
            case "--password-file": flags.passwordFile = try value(of: flag, inline: inline)
            case "--token-file": flags.tokenFile = try value(of: flag, inline: inline)
            case "--json": flags.json = true
            case "--output": flags.output = try value(of: flag, inline: inline)
            case "--no-replay": flags.noReplay = true
            case "--help": flags.help = true
            case "--version": flags.version = true
            case "--password", "--token":
                throw ClientFailure("\(flag) is not a flag: secrets on the command line show in ps; use \(flag)-file F or the environment")
            default:
                throw ClientFailure("unknown flag \(flag); see chorus --help")
            }
            index += 1
        }
        flags.words = Array(arguments[index...])
        let trustChoices = [flags.caFile != nil, flags.fingerprint != nil, flags.insecure].filter { $0 }.count
        guard trustChoices <= 1 else { throw ClientFailure("choose one of --ca, --fingerprint and --insecure") }
        guard flags.output == nil || !flags.words.isEmpty else { throw ClientFailure("--output needs a COMMAND; see chorus --help") }
        guard !flags.noReplay || flags.words.isEmpty else {
            throw ClientFailure("--no-replay is for sessions, not with a COMMAND; see chorus --help")
        }
        return flags
    }

    /// The certificate check the flags ask for; trust on first use when none is given.
    func trust(environment: [String: String]) -> TrustPolicy {
        if let caFile { return .certificateAuthority(caFile) }
        if let fingerprint { return .pinned(fingerprint) }
        if insecure { return .insecure }
        return .knownHosts(KnownHostsFile(environment: environment))
    }
}
