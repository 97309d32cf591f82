import ChorusCore
import ChorusStore
import Foundation

/// The login throttle every node counts together (CLUSTER.md, Login throttle): one row per
/// name and address and one per name (address ''), in `login_failures`. An attempt is
/// counted before its password is hashed, under both rows' locks, so parallel guesses on
/// several nodes cannot pass the limits; a success deletes both rows.
extension PostgresStore {
    /// How long after its last failure a count that no longer blocks is forgotten.
    static let quietLoginFailures: Double = 3600

    public func admitLoginAttempt(name: String, address: String, now: Date) throws -> Double? {
        // The per-name row is '': an address is never empty (two rows must stay two).
        let address = address.isEmpty ? "-" : address
        // Creates the missing rows and locks both, always in the same order ('' first), so
        // two attempts on one name wait for each other instead of both passing a check.
        let counts = try rows("""
            INSERT INTO login_failures AS f (name, address) VALUES ($1, ''), ($1, $2)
            ON CONFLICT (name, address) DO UPDATE SET failures = f.failures
            RETURNING address, failures, extract(epoch FROM blocked_until)::float8
            """, [.text(name), .text(address)]) { row in
            (perName: row.text(0).isEmpty, failures: Int(try row.int(1)), blockedUntil: try row.double(2))
        }
        writes += 1
        let seconds = now.timeIntervalSince1970
        if let until = counts.compactMap(\.blockedUntil).max(), until > seconds { return until - seconds }
        func until(perName: Bool) -> PostgresValue {
            let failures = (counts.first { $0.perName == perName }?.failures ?? 0) + 1
            let threshold = perName ? LoginThrottle.perNameFailures : LoginThrottle.perAddressFailures
            return .init(LoginThrottle.blockedUntil(failures: failures, threshold: threshold, now: now)?.timeIntervalSince1970)
        }
        try write("""
            UPDATE login_failures SET failures = failures + 1, last_failure = to_timestamp($3::float8),
                   blocked_until = coalesce(to_timestamp(CASE WHEN address = '' THEN $4::float8 ELSE $5::float8 END), blocked_until)
             WHERE name = $1 AND address IN ('', $2)
            """, [.text(name), .text(address), .double(seconds), until(perName: true), until(perName: false)])
        return nil
    }

    public func forgetLoginFailures(name: String, address: String) throws {
        let address = address.isEmpty ? "-" : address
        try write("DELETE FROM login_failures WHERE name = $1 AND address IN ('', $2)", [.text(name), .text(address)])
    }

    /// Drops counts that block nobody and saw no failure for an hour, so names tried once
    /// do not pile up (`LoginThrottle` forgets the same ones).
    public func forgetQuietLoginFailures(now: Date) throws {
        let seconds = now.timeIntervalSince1970
        try write("""
            DELETE FROM login_failures
             WHERE (blocked_until IS NULL OR blocked_until <= to_timestamp($1::float8))
               AND (last_failure IS NULL OR last_failure < to_timestamp($1::float8 - $2::float8))
            """, [.double(seconds), .double(Self.quietLoginFailures)])
    }
}
