import Foundation

extension Calendar {
    /// This calendar in the zone named `identifier` (an IANA name, as `NOTIFY tz=` keeps);
    /// nil for a name the system does not know. One rule for a person's date words, the
    /// times their replies show and their quiet hours (`NotifyChoices`, `ReaderZone`).
    public func inZone(named identifier: String) -> Calendar? {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        var calendar = self
        calendar.timeZone = zone
        return calendar
    }
}
