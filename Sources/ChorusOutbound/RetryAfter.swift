import Foundation

/// A Retry-After header (RFC 9110 §10.2.3) as a wait from `now`: delta-seconds, or an
/// HTTP-date in the IMF-fixdate form every current server sends
/// (`Sun, 06 Nov 1994 08:49:37 GMT`). A date already past means no wait; anything
/// unreadable is nil, and the caller falls back to its own backoff.
public enum RetryAfter {
    public static func seconds(in header: String, now: Date) -> Double? {
        let text = header.trimmed(of: " \t")
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Digits beyond what a Double can hold exactly are still "a very long time".
            return Double(text).map { min($0, 1e12) }
        }
        guard let date = imfFixdate(text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// `DAY, DD MON YYYY HH:MM:SS GMT`, nothing more or less.
    static func imfFixdate(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), days.contains(String(parts[0].dropLast())),
              parts[1].count == 2, let day = Int(parts[1]),
              let monthIndex = months.firstIndex(of: parts[2]),
              parts[3].count == 4, let year = Int(parts[3]),
              parts[5] == "GMT"
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let epochDays = daysSinceEpoch(year: year, month: monthIndex + 1, day: day)
        let seconds = epochDays * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (the civil-from-days
    /// arithmetic, run backwards), so parsing needs no calendar or time zone object.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
