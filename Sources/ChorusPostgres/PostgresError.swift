import ChorusStore

/// A failure from libpq or the server, with the server's SQLSTATE when it sent one.
///
/// Code that runs units of work turns it into the engine-neutral `StoreError` at the seam
/// (`storeError`); the SQLSTATE stays available for what only PostgreSQL callers decide
/// (rerun a batch after a deadlock, 40P01).
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE ("23505"); nil when libpq failed on its own (no
    /// server, a lost connection, a bad connection string).
    public let sqlState: String?
    /// Which kind of store failure this is (`StoreError+Postgres.swift`).
    public let kind: StoreError.Kind
    /// What was being done and libpq's or the server's words, for the log.
    public let message: String

    public init(sqlState: String?, kind: StoreError.Kind, message: String) {
        self.sqlState = sqlState
        self.kind = kind
        self.message = message
    }

    /// A failure the server reported with `sqlState`; `connectionLost` when libpq says the
    /// connection is gone, which makes any SQLSTATE `unavailable`.
    init(sqlState: String?, connectionLost: Bool, message: String) {
        self.init(sqlState: sqlState, kind: StoreError.kind(ofSQLState: sqlState, connectionLost: connectionLost), message: message)
    }

    /// The same failure as the store seam speaks it; the SQLSTATE goes into the message.
    public var storeError: StoreError {
        StoreError(kind, message: sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message, cause: cause)
    }

    /// What an admin must fix, when it is one of the four the log names. A refused
    /// connection has no SQLSTATE (libpq reports it before a session exists), so its words
    /// decide.
    public var cause: String? {
        switch sqlState {
        case "28P01", "28000": return "authentication failed"  // invalid_password, invalid_authorization_specification
        case "42501": return "permission denied"  // insufficient_privilege
        case "57014", "55P03", "25P03": return "timeout"
        default: break
        }
        let words = message.lowercased()
        if words.contains("password authentication failed") || words.contains("no password supplied")
            || words.contains("authentication failed") || words.contains("pg_hba.conf") {
            return "authentication failed"
        }
        if words.contains("permission denied") { return "permission denied" }
        if words.contains("timeout expired") || words.contains("timed out") { return "timeout" }
        return kind == .unavailable ? "unreachable" : nil
    }

    public var description: String { "PostgreSQL error (\(cause ?? "\(kind)")\(sqlState.map { ", \($0)" } ?? "")): \(message)" }
}
