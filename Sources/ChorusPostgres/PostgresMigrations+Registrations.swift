extension PostgresMigrations {
    /// The sign-ups of the last hour, per address, for `--register-rate` (every node counts
    /// them together; `PostgresStore+Registrations.swift`). Throttle state only: `chorusd
    /// copy-to-postgres` does not copy it.
    static let registrations = """
        CREATE TABLE registrations (
          address text COLLATE "C" NOT NULL,
          at bigint NOT NULL
        );
        CREATE INDEX registrations_by_address ON registrations(address, at);
        CREATE INDEX registrations_by_time ON registrations(at);
        """
}
