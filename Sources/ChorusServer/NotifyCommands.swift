import ChorusCore
import ChorusCrypto
import ChorusOutbound
import ChorusProtocol
import ChorusStore
import Foundation

/// NOTIFY and NOTIFY EMAIL (CONTRACT §10): a person's choices about notices that reach
/// them while they are not looking, and proving the address mail goes to.
extension CommandContext {
    /// NOTIFY [push=on|off] [email=on|off] [kinds=K,...] [quiet=HH:MM-HH:MM|off] [tz=Area/City]
    func notify(_ command: Command.Notify) throws -> CommandResult {
        let kept = try db.notifyChoices(ofUser: caller.id)
        var choices = kept ?? .defaults
        if let push = command.push { choices.push = push }
        if let email = command.email {
            if email && choices.emailAddress == nil { throw DomainError.noEmailAddress }
            choices.emailOn = email
        }
        if let kinds = command.kinds { choices.kinds = try NotifyRules.kinds(kinds) }
        if let quiet = command.quiet { choices.quiet = quiet.isEmpty ? nil : try QuietHours(parsing: quiet) }
        if let zone = command.zone { choices.zone = try NotifyRules.zone(zone) }
        if !command.changesNothing && choices != kept {
            try db.saveNotifyChoices(choices, user: caller.id)
            // Notices already waiting (quiet hours) for a channel or kind now off are not sent.
            try db.dropUnwantedNotices(user: caller.id, choices: choices)
        }
        if choices.zone != (kept ?? .defaults).zone { try emitZoneChange(choices.zoneName()) }
        return result(.ok(command.changesNothing ? "notices" : "notices set", body: Self.notifyLines(choices),
                          [("notify", Self.notifyShape(choices))]))
    }

    /// `notify.tz` to the caller's sessions, which show times in `zone` from this event
    /// on (`Hub.deliver`); stored, so sessions on other nodes learn it from the log.
    private func emitZoneChange(_ zone: String) throws {
        try emit(ReaderZone.changeEvent, room: nil, user: caller.id, payload: [("tz", .string(zone))],
                 text: "your times are shown in \(zone) now", audience: [caller.id])
        markZoneChange(zone)
    }

    /// NOTIFY EMAIL ADDRESS: a code to the address, by mail; the address is used only once
    /// the code comes back (`notifyEmailVerify`).
    func notifyEmail(address: String) throws -> CommandResult {
        guard mailEnabled else { throw DomainError.mailNotConfigured }
        do {
            _ = try MailAddress(parsing: address)
        } catch {
            throw DomainError.badEmailAddress(address)
        }
        if let waiting = try db.emailCode(ofUser: caller.id),
           let wait = NotifyRules.codeRetryAfter(expires: waiting.expires, now: now) {
            throw DomainError.emailCodeTooSoon(retryAfter: wait)
        }
        let code = Self.newEmailCode()
        let expires = Int64(now.addingTimeInterval(NotifyRules.codeLifetime).timeIntervalSince1970)
        try db.saveEmailCode(user: caller.id, address: address, digest: Digest.sha256Hex(code), expires: expires)
        let minutes = Int(NotifyRules.codeLifetime / 60)
        try db.queueNotice(QueuedNotice(
            user: caller.id, event: "email.verify", title: "Your Chorus code: \(code)",
            body: "\(caller.name), your code is \(code). Type NOTIFY EMAIL VERIFY \(code), or enter it in the app's settings, within \(minutes) minutes. If you did not ask for it, ignore this mail.",
            url: "/#/settings", topic: nil, urgency: "normal", ttl: Int(NotifyRules.codeLifetime),
            notBefore: Int64(now.timeIntervalSince1970), push: false, mailTo: address), created: timestamp)
        queuedNotices += 1
        return result(.ok("a code is on its way to \(address)", [("email", .string(address)), ("expires", .string(Timestamp.rfc3339(
            Date(timeIntervalSince1970: Double(expires)))))]))
    }

    /// NOTIFY EMAIL VERIFY CODE: the address is proven and mail turns on.
    func notifyEmailVerify(code: String) throws -> CommandResult {
        guard let waiting = try db.emailCode(ofUser: caller.id) else { throw DomainError.noEmailCode }
        let typed = code.filter { !$0.isWhitespace && $0 != "-" }
        let matches = constantTimeEquals(Array(Digest.sha256Hex(typed).utf8), Array(waiting.digest.utf8))
        switch NotifyRules.check(matches: matches, expires: waiting.expires, tries: waiting.tries, now: now) {
        // Answered, not thrown: a thrown error undoes the command's writes, and the try
        // must count (else the five tries would never run out).
        case .expired:
            try db.deleteEmailCode(user: caller.id)
            return result(.error(ChorusError(DomainError.noEmailCode)))
        case .wrong(let left):
            try db.countEmailCodeTry(user: caller.id)
            return result(.error(ChorusError(DomainError.wrongEmailCode(triesLeft: left))))
        case .proven:
            try db.deleteEmailCode(user: caller.id)
            var choices = try db.notifyChoices(ofUser: caller.id) ?? .defaults
            choices.emailAddress = waiting.address
            choices.emailOn = true
            try db.saveNotifyChoices(choices, user: caller.id)
            // A new link each time an address is proven: an old mail's link stops nothing.
            try db.setMailStop(user: caller.id, token: Base64URL.encode(SecureRandom.bytes(24)))
            return result(.ok("mail goes to \(waiting.address) now", body: Self.notifyLines(choices),
                              [("notify", Self.notifyShape(choices))]))
        }
    }

    /// Six random digits, evenly spread (a byte pair's value below the largest multiple of a million is kept).
    static func newEmailCode() -> String {
        while true {
            let bytes = SecureRandom.bytes(4)
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let limit = UInt32.max - UInt32.max % 1_000_000
            guard value < limit else { continue }
            let digits = String(value % 1_000_000)
            return String(repeating: "0", count: NotifyRules.codeDigits - digits.count) + digits
        }
    }

    /// CONTRACT §10's shape.
    static func notifyShape(_ choices: NotifyChoices) -> JSONValue {
        .object([("push", .bool(choices.push)), ("email", .string(choices.mailTo)),
                 ("kinds", .array(choices.kinds.sorted().map { .string($0.rawValue) })), ("quiet", .string(choices.quiet?.text)),
                 ("tz", .string(choices.zoneName()))])
    }

    static func notifyLines(_ choices: NotifyChoices) -> [String] {
        ["  push    \(choices.push ? "on" : "off")",
         "  email   \(choices.mailTo ?? (choices.emailAddress.map { "off (\($0))" } ?? "off"))",
         "  kinds   \(choices.kinds.isEmpty ? "none" : choices.kinds.sorted().map(\.rawValue).joined(separator: ","))",
         "  quiet   \(choices.quiet?.text ?? "off")",
         "  tz      \(choices.zoneName())"]
    }
}
