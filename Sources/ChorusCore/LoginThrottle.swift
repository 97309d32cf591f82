import Foundation

/// Failed-login throttling (CONTRACT §4, NIST SP 800-63B §5.2.2):
/// - per account name and address: after 5 failures in a row, that address gets 429 for
///   that name for a delay that doubles with each further failure, up to an hour; so an
///   attacker elsewhere cannot lock the real user out of their own address;
/// - per account name across all addresses: past 100 failures in a row, 429 everywhere
///   on the same doubling schedule, so no account sees unlimited guesses.
/// A success resets both. Time is a parameter; memory is bounded.
public struct LoginThrottle: Sendable {
    public static let perAddressFailures = 5
    public static let perNameFailures = 100
    public static let firstDelay: Double = 30
    public static let longestDelay: Double = 3600
    /// Entries kept before quiet ones are forgotten.
    public static let capacity = 50_000

    struct Record: Sendable {
        var failures = 0
        var blockedUntil: Date = .distantPast
        var lastFailure: Date = .distantPast
    }

    private var byNameAndAddress: [String: Record] = [:]
    private var byName: [String: Record] = [:]

    public init() {}

    /// Seconds to wait before this name may try from this address, or nil when allowed.
    public func wait(name: String, address: String, now: Date) -> Double? {
        let blocked = [byNameAndAddress[Self.key(name, address)], byName[name]]
            .compactMap { $0?.blockedUntil }
            .filter { $0 > now }
            .max()
        return blocked.map { $0.timeIntervalSince(now) }
    }

    public mutating func recordFailure(name: String, address: String, now: Date) {
        Self.fail(&byNameAndAddress[Self.key(name, address), default: Record()], threshold: Self.perAddressFailures, now: now)
        Self.fail(&byName[name, default: Record()], threshold: Self.perNameFailures, now: now)
        if byNameAndAddress.count + byName.count > Self.capacity { forgetQuiet(now: now) }
    }

    public mutating func recordSuccess(name: String, address: String) {
        byNameAndAddress[Self.key(name, address)] = nil
        byName[name] = nil
    }

    private static func fail(_ record: inout Record, threshold: Int, now: Date) {
        record.failures += 1
        record.lastFailure = now
        if let until = blockedUntil(failures: record.failures, threshold: threshold, now: now) {
            record.blockedUntil = until
        }
    }

    /// When a count that has just reached `failures` (at `now`) stops blocking, or nil when
    /// it is still under `threshold`: the same rule for counts kept elsewhere (a database
    /// several nodes share).
    public static func blockedUntil(failures: Int, threshold: Int, now: Date) -> Date? {
        let over = failures - threshold
        guard over >= 0 else { return nil }
        return now.addingTimeInterval(min(longestDelay, firstDelay * pow(2, Double(min(over, 20)))))
    }

    /// Drops records that are not blocking anyone and saw no failure for an hour.
    private mutating func forgetQuiet(now: Date) {
        let quiet = { (record: Record) in record.blockedUntil <= now && now.timeIntervalSince(record.lastFailure) > 3600 }
        byNameAndAddress = byNameAndAddress.filter { !quiet($0.value) }
        byName = byName.filter { !quiet($0.value) }
    }

    private static func key(_ name: String, _ address: String) -> String { name + "\u{0}" + address }
}
