import Foundation

/// `repeat=daily|weekly|monthly|Nd`: how far the next occurrence's due date lies from the
/// previous one's.
public enum RepeatRule: Sendable, Equatable {
    case days(Int)
    case months(Int)

    public static let accepted = "daily, weekly, monthly or Nd (1-365)"

    public init(parsing raw: String) throws(ChorusError) {
        switch raw.lowercased() {
        case "daily": self = .days(1)
        case "weekly": self = .days(7)
        case "monthly": self = .months(1)
        default:
            let word = raw.lowercased()
            guard word.hasSuffix("d"), let count = Int(word.dropLast()), (1...365).contains(count) else {
                throw .badValue("bad repeat \(raw): use \(RepeatRule.accepted)")
            }
            self = .days(count)
        }
    }

    /// The stored and shown form: `daily`, `weekly`, `monthly`, `3d`.
    public var stored: String {
        switch self {
        case .days(1): return "daily"
        case .days(7): return "weekly"
        case .months(1): return "monthly"
        case .days(let count): return "\(count)d"
        case .months(let count): return "\(count * 30)d"
        }
    }

    /// The next due after `due` (stored form): a date stays a date, a time stays a time.
    /// Without a previous due, one period after today.
    public func next(after due: When?, now: Date, calendar: Calendar = .current) -> When {
        let base: Date
        let dateOnly: Bool
        if let due, let moment = due.dateOnly ? When.localDate(due.stored, calendar: calendar) : When.utcInstant(due.stored) {
            base = moment
            dateOnly = due.dateOnly
        } else {
            base = calendar.startOfDay(for: now)
            dateOnly = true
        }
        let next: Date
        switch self {
        case .days(let count): next = calendar.date(byAdding: .day, value: count, to: base) ?? base
        case .months(let count): next = calendar.date(byAdding: .month, value: count, to: base) ?? base
        }
        return dateOnly ? When(stored: When.dateString(next, calendar: calendar), dateOnly: true)
            : When(stored: Timestamp.rfc3339(next), dateOnly: false)
    }

    /// The name after `current` in a rotation (the first when `current` is not in it).
    public static func nextInRotation(_ names: [String], after current: String?) -> String? {
        guard !names.isEmpty else { return nil }
        guard let current, let index = names.firstIndex(of: current) else { return names[0] }
        return names[(index + 1) % names.count]
    }
}
