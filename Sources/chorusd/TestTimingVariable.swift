import ChorusServer
import Foundation

/// What the `CHORUS_TEST_*_TIMING` variables share: seconds separated by commas. They are
/// for tests only, not flags, so nobody tunes a deployment with them by accident.
enum TestTimingVariable {
    /// The numbers variable `name` holds, or nil when it is unset or empty. Throws, naming
    /// `shape`, when one is not a positive number or there are not `counts` of them.
    static func seconds(_ name: String, in environment: [String: String], counts: ClosedRange<Int>,
                        shape: String) throws(StartupError) -> [Double]? {
        guard let text = environment[name], !text.isEmpty else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { Double($0.trimmingCharacters(in: .whitespaces)) }
        let numbers = parts.compactMap { $0 }.filter { $0 > 0 && $0.isFinite }
        guard numbers.count == parts.count, counts.contains(numbers.count) else {
            throw StartupError("\(name) must be \(shape) in positive seconds, not \(text)")
        }
        return numbers
    }
}
