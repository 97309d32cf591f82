import ChorusProtocol
import Foundation

extension JSONValue {
    /// A fractional number with a fixed number of decimals (JSONValue has no doubles).
    static func number(_ value: Double, digits: Int) -> JSONValue {
        guard value.isFinite else { return .null }
        return .raw(String(format: "%.\(digits)f", value))
    }
}
