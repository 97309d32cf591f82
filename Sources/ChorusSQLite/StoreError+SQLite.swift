import CSQLite
import ChorusStore

/// SQLite's result codes, sorted into the store's kinds of failure. The code itself goes
/// into the message, for the log.
extension StoreError {
    /// `code` is a primary or extended result code (extended ones are on for every connection).
    init(code: Int32, message: String) {
        self.init(Self.kind(ofSQLiteCode: code), message: "\(message) (SQLite \(code))")
    }

    /// Reads the connection's current error text; `doing` says what we were attempting.
    init(code: Int32, connection: OpaquePointer?, doing: String) {
        let reason: String
        if let connection, let text = sqlite3_errmsg(connection) {
            reason = String(cString: text)
        } else if let text = sqlite3_errstr(code) {
            reason = String(cString: text)
        } else {
            reason = "unknown error"
        }
        self.init(code: code, message: "\(doing): \(reason)")
    }

    static func kind(ofSQLiteCode code: Int32) -> Kind {
        switch code & 0xff {
        case SQLITE_CONSTRAINT:
            // UNIQUE or PRIMARY KEY: the usual "already exists".
            code == SQLITE_CONSTRAINT | (8 << 8) || code == SQLITE_CONSTRAINT | (6 << 8) ? .duplicate : .constraint
        case SQLITE_FULL: .full
        // The disk or file is unusable, or another connection holds the lock.
        case SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_BUSY, SQLITE_LOCKED:
            .unavailable
        default: .failed
        }
    }
}
