extension PostgresConnection {
    /// The chorusd nodes connected to this database now, by application name (`chorusd
    /// NODE`), leaving out this connection: tools that must find the store at rest
    /// (`copy-to-postgres`, `after-restore`) refuse while any is.
    func connectedNodes() throws -> [String] {
        try query("""
            SELECT DISTINCT application_name FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name LIKE 'chorusd %'
             ORDER BY 1
            """).rows.compactMap { $0.string(0) }
    }
}
