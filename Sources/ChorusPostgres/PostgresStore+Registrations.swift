import ChorusStore

/// The sign-ups of the last hour, per address, counted by every node together
/// (`--register-rate`, `SignUpRules`).
extension PostgresStore {
    /// The advisory lock class of sign-up counts ("CHRG"); the address's hash is the other
    /// key. Two-key advisory locks never meet the schema's one-key lock.
    static let registrationLockClass: Int64 = 0x4348_5247

    /// Takes the address's transaction lock first: a REGISTER from the same address on
    /// another node waits here until this batch commits, then counts this one's row, so
    /// no number of nodes lets an address past the limit. (Addresses whose hashes collide
    /// only wait for each other.) Old rows go with `SKIP LOCKED`: two nodes sweeping at
    /// once take different rows instead of waiting on, or deadlocking over, the same ones.
    public func registrations(from address: String, since: Int64) throws -> [Int64] {
        _ = try rows("SELECT pg_advisory_xact_lock($1::int, hashtext($2))",
                     [.int(Self.registrationLockClass), .text(address)]) { _ in () }
        try write("""
            DELETE FROM registrations WHERE ctid IN
              (SELECT ctid FROM registrations WHERE at < $1 FOR UPDATE SKIP LOCKED)
            """, [.int(since)])
        return try rows("SELECT at FROM registrations WHERE address = $1 AND at >= $2 ORDER BY at",
                        [.text(address), .int(since)]) { try $0.int(0) }
    }

    public func recordRegistration(from address: String, at: Int64) throws {
        try write("INSERT INTO registrations (address, at) VALUES ($1, $2)", [.text(address), .int(at)])
    }
}
