import Foundation

/// The rules of `NOTIFY` (CONTRACT §10): what a choice may be, who gets which notice
/// where and when, and how an e-mail address is proven.
public enum NotifyRules {
    /// `kinds=K,K,...`: known kind names, any case; an empty list turns every kind off.
    public static func kinds(_ text: String) throws(DomainError) -> Set<NotifyKind> {
        var kinds = Set<NotifyKind>()
        for word in text.split(separator: ",", omittingEmptySubsequences: true) {
            guard let kind = NotifyKind(rawValue: word.lowercased()) else { throw .unknownNoticeKind(String(word)) }
            kinds.insert(kind)
        }
        return kinds
    }

    /// `tz=Area/City`: a zone the system's time zone database knows by that name. UTC is
    /// also accepted; abbreviations like "EST" are not (they mean different things).
    public static func zone(_ text: String) throws(DomainError) -> String {
        guard text == "UTC" || (text.contains("/") && text.utf8.count <= 64), let zone = TimeZone(identifier: text) else {
            throw .unknownTimeZone(text)
        }
        return zone.identifier
    }

    /// Whether `kind` goes out by push or mail to a person with these choices.
    public static func wants(_ kind: NotifyKind, _ choices: NotifyChoices) -> Bool {
        choices.kinds.contains(kind) && (choices.push || choices.mailTo != nil)
    }

    /// When a notice made now may be sent: now, or the end of the person's quiet hours.
    public static func release(at now: Date, _ choices: NotifyChoices, server: Calendar = .current) -> Date {
        choices.quiet?.release(after: now, calendar: choices.calendar(server: server)) ?? now
    }

    // MARK: Proving an address

    /// A code lives this long, and this many wrong tries end it.
    public static let codeLifetime: TimeInterval = 30 * 60
    public static let codeTries = 5
    /// Digits in a code: a million codes, five tries each.
    public static let codeDigits = 6

    /// A new code may be asked for this long after the last: each one is a mail to an
    /// address nobody has proven yet, so asking cannot make the server a mail cannon.
    public static let codeInterval: TimeInterval = 60

    /// Seconds until a new code may be asked for, or nil when it may now (the waiting
    /// code was made `codeLifetime` before it expires).
    public static func codeRetryAfter(expires: Int64, now: Date) -> Int? {
        let made = Double(expires) - codeLifetime
        let wait = made + codeInterval - now.timeIntervalSince1970
        return wait > 0 ? Int(wait.rounded(.up)) : nil
    }

    /// What a `NOTIFY EMAIL VERIFY CODE` try finds.
    public enum CodeCheck: Equatable, Sendable {
        case proven
        case wrong(triesLeft: Int)
        case expired
    }

    /// `matches` is the comparison of the digests, done by the caller in constant time.
    public static func check(matches: Bool, expires: Int64, tries: Int, now: Date) -> CodeCheck {
        if Int64(now.timeIntervalSince1970) >= expires || tries >= codeTries { return .expired }
        if matches { return .proven }
        return .wrong(triesLeft: max(0, codeTries - tries - 1))
    }
}
