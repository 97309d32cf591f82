import ChorusProtocol
import Foundation

extension LatencyHistogram {
    /// `{"count":..,"p10":..,"p50":..,"p90":..,"p99":..,"p999":..,"max":..,"mean":..}` in
    /// milliseconds. p10 and p90 show the shape: a wide body and a long tail call for
    /// different fixes.
    var json: JSONValue {
        .object([
            ("count", .int(Int64(count))),
            ("p10", .number(percentileMilliseconds(0.10), digits: 3)),
            ("p50", .number(percentileMilliseconds(0.50), digits: 3)),
            ("p90", .number(percentileMilliseconds(0.90), digits: 3)),
            ("p99", .number(percentileMilliseconds(0.99), digits: 3)),
            ("p999", .number(percentileMilliseconds(0.999), digits: 3)),
            ("max", .number(maxMilliseconds, digits: 3)),
            ("mean", .number(meanMilliseconds, digits: 3)),
        ])
    }

    /// "p50 1.23 ms · p99 4.56 ms · p99.9 7.89 ms · max 12.3 ms"
    var summary: String {
        String(format: "p50 %.3f ms · p99 %.3f ms · p99.9 %.3f ms · max %.3f ms",
               percentileMilliseconds(0.50), percentileMilliseconds(0.99), percentileMilliseconds(0.999), maxMilliseconds)
    }
}
