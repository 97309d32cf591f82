/// Every refusal of the wire itself, worded once: the parser's usage and value errors, the
/// framing and session limits, and the server's internal failures. The domain's refusals
/// are ChorusCore's `DomainError`; nothing else spells out a message a client receives.
extension ChorusError {
    // MARK: Reading the line (400 unless said)

    public static let invalidUTF8 = ChorusError.syntax("invalid UTF-8")
    public static let badTag = ChorusError.syntax("bad tag: @ and 1-64 of A-Z a-z 0-9 . _ : -")
    public static let missingCommand = ChorusError.syntax("missing command; try HELP")

    public static func controlCharacter(_ byte: UInt8) -> ChorusError {
        let hex = String(byte, radix: 16)
        return .syntax("control character 0x\(hex.count == 1 ? "0" + hex : hex) in line")
    }

    public static func unknownCommand(_ verb: String) -> ChorusError { .syntax("unknown command \(verb); try HELP") }

    public static func missingSubverb(_ verb: String, usages: String) -> ChorusError {
        .syntax("missing \(verb) command; usage: \(usages)")
    }

    public static func unknownSubverb(_ verb: String, usages: String) -> ChorusError {
        .syntax("unknown \(verb) command; usage: \(usages)")
    }

    /// 404, so a typo is not mistaken for a command without help.
    public static func noHelpTopic(_ topic: String) -> ChorusError { .notFound("no command \(topic); try HELP") }

    /// A word of TASK options that names no field (the table lets only known keys through).
    public static func unknownTaskOption(_ key: String) -> ChorusError { .syntax("unknown option \(key)") }

    // MARK: Usage errors: the reason, then the row's usage line

    static func usage(_ usage: String, _ reason: String) -> ChorusError { .syntax("\(reason); usage: \(usage)") }

    public static func missingArgument(_ name: String, usage: String) -> ChorusError { .usage(usage, "missing \(name)") }
    public static func takesNoOptions(_ verb: String, usage: String) -> ChorusError { .usage(usage, "\(verb) takes no options") }
    public static func unknownOption(_ key: String, usage: String) -> ChorusError { .usage(usage, "unknown option \(key)") }
    public static func optionTwice(_ key: String, usage: String) -> ChorusError { .usage(usage, "option \(key) given twice") }

    /// Usually a title or name of several words typed without quotes.
    public static func tooManyArguments(usage: String) -> ChorusError {
        .usage(usage, "too many arguments (an argument of several words goes in \"double quotes\")")
    }

    public static func quoteNotAtWordEnd(usage: String) -> ChorusError { .usage(usage, "a closing quote must end the word") }
    public static func unterminatedQuote(usage: String) -> ChorusError { .usage(usage, "unterminated quote") }

    public static func unknownEscape(_ character: String, usage: String) -> ChorusError {
        .usage(usage, "unknown escape \\\(character) (use \\\" \\\\ \\n)")
    }

    public static func unknownMode(_ word: String, usage: String) -> ChorusError { .usage(usage, "unknown mode \(word)") }
    /// MODE text on a WebSocket, whose frames each hold one JSON object (CONTRACT §9).
    public static let webSocketSpeaksJSON = ChorusError.badValue("a WebSocket session speaks JSON only")
    public static func unknownRole(_ word: String, usage: String) -> ChorusError { .usage(usage, "unknown role \(word)") }
    public static func unknownFilter(_ word: String, usage: String) -> ChorusError { .usage(usage, "unknown filter \(word)") }
    public static func nothingToChange(usage: String) -> ChorusError { .usage(usage, "nothing to change") }

    public static func notATaskNumber(_ word: String, usage: String) -> ChorusError {
        .usage(usage, "a task is named by its number, not \(word)")
    }

    public static func notARoomID(_ word: String, usage: String) -> ChorusError {
        .usage(usage, "ADMIN DELETE takes a room id, not \(word)")
    }

    public static func notAnEventID(_ word: String, usage: String) -> ChorusError {
        .usage(usage, "AFTER_ID is an event id, not \(word)")
    }

    public static func notASubscriptionID(_ word: String, usage: String) -> ChorusError {
        .usage(usage, "a push subscription is named by its id (PUSH LIST), not \(word)")
    }

    public static func notAReadEventID(_ word: String, usage: String) -> ChorusError {
        .usage(usage, "EVENT_ID is an event id, not \(word)")
    }

    /// SYNC's positional LIMIT: a usage error. HISTORY's `limit=` option is `badLimit` (422).
    public static func limitNotPositive(_ word: String, usage: String) -> ChorusError { .usage(usage, limitReason(word)) }

    // MARK: Values the parser refuses (422)

    /// Digits too many for a number say so, rather than that LIMIT is not positive.
    private static func limitReason(_ word: String) -> String {
        guard !word.isEmpty, word.utf8.allSatisfy({ (48...57).contains($0) }), word.contains(where: { $0 != "0" }) else {
            return "LIMIT is a positive number, not \(word)"
        }
        return "LIMIT \(word) is too large: a positive number up to \(Int.max)"
    }

    public static func badLimit(_ word: String) -> ChorusError { .badValue(limitReason(word)) }
    public static func badBefore(_ word: String) -> ChorusError { .badValue("before is a message id, not \(word)") }
    public static func badUses(_ word: String) -> ChorusError { .badValue("uses is 1-1000, not \(word)") }
    public static func badOnOff(_ key: String, _ word: String) -> ChorusError { .badValue("\(key) is on or off, not \(word)") }
    public static func badTokenKind(_ word: String) -> ChorusError { .badValue("kind is device or bot, not \(word)") }
    public static func badProgress(_ word: String) -> ChorusError { .badValue("progress is a whole percentage 0-100, not \(word)") }
    public static func badEstimate(_ word: String) -> ChorusError { .badValue("estimate is a number of days 0-3650, not \(word)") }
    public static func badPoints(_ word: String) -> ChorusError { .badValue("points is a whole number 0-1000, not \(word)") }
    public static func badParent(_ word: String) -> ChorusError { .badValue("parent is a task number, not \(word)") }
    public static func badDate(_ word: String) -> ChorusError { .badValue("bad date \(word): use \(DateWord.accepted)") }
    public static func badRepeat(_ word: String) -> ChorusError { .badValue("bad repeat \(word): use \(RepeatWord.accepted)") }

    // MARK: Framing and session limits

    public static func lineTooLong(max: Int) -> ChorusError { .tooLong("line longer than \(max) bytes; discarded") }
    public static func preLoginLineTooLong(max: Int) -> ChorusError { .tooLong("before login, lines are at most \(max) bytes") }
    public static func idle(seconds: Int) -> ChorusError { .slowDown("idle for \(seconds) s; closing (PING keeps a session open)") }
    public static let serverFull = ChorusError.unavailable("too many connections to this server; try again later")

    public static func tooManyConnections(from address: String) -> ChorusError {
        .unavailable("too many connections from \(address); close some and try again")
    }

    public static let loginsBusy = ChorusError.unavailable("too many logins in progress; try again in a moment")

    // MARK: Store failures that bring no reason of their own

    public static let storageConflict = ChorusError.conflict("conflicts with existing data")
    public static let storageNotFound = ChorusError.notFound("not found")
    public static let storageFull = ChorusError.unavailable("storage full")
    public static let storageUnavailable = ChorusError.unavailable("storage unavailable")
    public static let storageFailed = ChorusError.internal("storage error")

    /// This refusal's code with a store's own wording ("you already have a token labelled x"), if it gave one.
    public func worded(_ reason: String?) -> ChorusError { reason.map { ChorusError(code, $0) } ?? self }

    // MARK: Internal failures (500): bugs or a broken system, never a client's doing

    public static let internalError = ChorusError.internal("internal error")
    public static let hashFailed = ChorusError.internal("could not hash the password")
    public static func noHandler(_ verb: String) -> ChorusError { .internal("\(verb) has no handler") }

    public static func routeMismatch(_ verb: String) -> ChorusError {
        .internal("\(verb) built another command than its route reads")
    }

    /// A row read back inside the command that just wrote it is missing.
    public static let roomVanished = ChorusError.internal("room vanished")
    public static func taskVanished(_ id: Int64) -> ChorusError { .internal("task \(id) vanished") }
}
