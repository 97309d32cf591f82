import CPostgres

extension PostgresConnection {
    /// Runs `body` between BEGIN and COMMIT, and rolls back when it throws.
    ///
    /// A statement that failed inside `body` aborts the whole transaction even if `body`
    /// caught the error: COMMIT would then quietly roll back, so that is reported as a
    /// failure instead of a success. When COMMIT itself fails with the connection lost
    /// (`unavailable`), whether it committed is unknown: the caller must find out
    /// (`pg_xact_status`) before telling anyone it did or did not.
    @discardableResult
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        guard isConnected else { throw Self.lost }
        guard transactionStatus == PQTRANS_IDLE else {
            throw PostgresError(sqlState: nil, kind: .failed, message: "a transaction is already open on this connection")
        }
        try execute("BEGIN")
        let value: T
        do {
            value = try body(self)
        } catch {
            rollBackQuietly()
            throw error
        }
        if transactionStatus == PQTRANS_INERROR {
            rollBackQuietly()
            throw PostgresError(sqlState: "25P02", kind: .failed,
                                message: "a statement in the transaction failed and was ignored: rolled back")
        }
        try execute("COMMIT")
        return value
    }

    /// Ends a failed transaction; on a lost connection there is nothing left to end.
    private func rollBackQuietly() {
        guard isConnected else { return }
        _ = try? execute("ROLLBACK")
    }
}
