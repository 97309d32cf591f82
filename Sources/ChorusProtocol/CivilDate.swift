/// A date of the proleptic Gregorian calendar, without a time zone: the `YYYY-MM-DD` of
/// the wire (CONTRACT §4, §5). It lives here, below the domain, because the request
/// parser checks typed dates and the domain reads stored ones by the same rule.
public struct CivilDate: Sendable, Equatable {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// `YYYY-MM-DD` read, only if it is a real date from 1970 to 9999.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10),
              (1970...9999).contains(year), (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(year: year, month: month)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// `YYYY-MM-DD`.
    public var text: String {
        func digits(_ value: Int, _ count: Int) -> String {
            let plain = String(value)
            return String(repeating: "0", count: max(0, count - plain.count)) + plain
        }
        return "\(digits(year, 4))-\(digits(month, 2))-\(digits(day, 2))"
    }

    /// How many days `month` of `year` has.
    public static func daysIn(year: Int, month: Int) -> Int {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }
}
