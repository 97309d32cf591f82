/// `repeat=daily|weekly|monthly|Nd` as typed: the parser checks the word; the domain's
/// `RepeatRule` says when the next occurrence falls.
public enum RepeatWord: Sendable, Equatable {
    /// Every `count` days, 1-365 (daily is 1, weekly 7).
    case days(Int)
    case monthly

    public static let accepted = "daily, weekly, monthly or Nd (1-365)"

    public init(parsing raw: String) throws(ChorusError) {
        let word = raw.lowercased()
        switch word {
        case "daily": self = .days(1)
        case "weekly": self = .days(7)
        case "monthly": self = .monthly
        default:
            guard word.hasSuffix("d"), let count = Int(word.dropLast()), (1...365).contains(count) else {
                throw .badRepeat(raw)
            }
            self = .days(count)
        }
    }
}
