import Foundation

/// TIME on the wire (CONTRACT §5): RFC 3339 in UTC with second precision.
public enum Timestamp {
    /// Written digit by digit: this runs for every message and event, and
    /// `String(format:)` showed up in profiles.
    public static func rfc3339(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var bytes = [UInt8](repeating: 0, count: 20)
        func put(_ value: Int, _ width: Int, at offset: Int) {
            var value = value
            for index in stride(from: offset + width - 1, through: offset, by: -1) {
                bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(Int(parts.tm_year) + 1900, 4, at: 0)
        bytes[4] = UInt8(ascii: "-")
        put(Int(parts.tm_mon) + 1, 2, at: 5)
        bytes[7] = UInt8(ascii: "-")
        put(Int(parts.tm_mday), 2, at: 8)
        bytes[10] = UInt8(ascii: "T")
        put(Int(parts.tm_hour), 2, at: 11)
        bytes[13] = UInt8(ascii: ":")
        put(Int(parts.tm_min), 2, at: 14)
        bytes[16] = UInt8(ascii: ":")
        put(Int(parts.tm_sec), 2, at: 17)
        bytes[19] = UInt8(ascii: "Z")
        return String(decoding: bytes, as: UTF8.self)
    }
}
