/// Rows for a person's notice choices (CONTRACT §10): channels, kinds, quiet hours, zone,
/// and proving an e-mail address.
extension CommandTable {
    static let notifyCommands: [CommandSpec] = [
        CommandSpec("NOTIFY", kind: .household,
                    options: ["push=on|off", "email=on|off", "kinds=K,K,...", "quiet=HH:MM-HH:MM|off", "tz=Area/City"],
                    summary: "show or set how notices reach you while you are not looking") { args throws(ChorusError) in
            func onOff(_ key: String) throws(ChorusError) -> Bool? {
                guard let raw = args.options[key] else { return nil }
                switch raw.lowercased() {
                case "on": return true
                case "off": return false
                default: throw .badOnOff(key, raw)
                }
            }
            let quiet = args.options["quiet"].map { $0.lowercased() == "off" ? "" : $0 }
            return Command.Notify(push: try onOff("push"), email: try onOff("email"), kinds: args.options["kinds"], quiet: quiet,
                                  zone: args.options["tz"])
        },
        CommandSpec("NOTIFY", "EMAIL", kind: .household, arguments: [.init("ADDRESS|VERIFY"), .init("CODE", optional: true)],
                    summary: "send a code to prove an address (NOTIFY EMAIL ADDRESS), then turn mail on (NOTIFY EMAIL VERIFY CODE)") {
            args throws(ChorusError) in
            if args[0].uppercased() == "VERIFY" {
                guard let code = args.optional(1) else { throw .missingArgument("CODE", usage: args.usage) }
                return Command.NotifyEmail(address: nil, code: code)
            }
            guard args.optional(1) == nil else { throw .tooManyArguments(usage: args.usage) }
            return Command.NotifyEmail(address: args[0], code: nil)
        },
    ]
}

extension Command {
    /// NOTIFY [push=] [email=] [kinds=] [quiet=] [tz=]: nil is "leave as it is"; `quiet`
    /// "" is off. Kinds, quiet hours and the zone are checked by the domain (422).
    public struct Notify: ParsedCommand {
        public let push: Bool?
        public let email: Bool?
        public let kinds: String?
        public let quiet: String?
        public let zone: String?

        public var changesNothing: Bool { push == nil && email == nil && kinds == nil && quiet == nil && zone == nil }
    }

    /// NOTIFY EMAIL ADDRESS, or NOTIFY EMAIL VERIFY CODE.
    public struct NotifyEmail: ParsedCommand {
        public let address: String?
        public let code: String?
    }
}
