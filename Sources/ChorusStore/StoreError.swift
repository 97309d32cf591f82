import CSQLite
import ChorusCore

/// A failed SQLite call, with SQLite's result code kept.
///
/// The code is kept so callers can tell "the disk is full" from "that name is taken"
/// without parsing text; `chorusError` is what a client may be told.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// Primary or extended result code (extended codes are enabled on every connection).
    public let code: Int32
    /// `sqlite3_errmsg` plus what was being done.
    public let message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
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

    /// The primary code: the low byte of an extended one.
    public var primaryCode: Int32 { code & 0xff }

    public var isConstraint: Bool { primaryCode == SQLITE_CONSTRAINT }
    /// The extended code for a UNIQUE (or PRIMARY KEY) violation, the usual "already exists".
    public var isUniqueViolation: Bool {
        code == SQLITE_CONSTRAINT | (8 << 8) || code == SQLITE_CONSTRAINT | (6 << 8)
    }
    public var isFull: Bool { primaryCode == SQLITE_FULL }
    /// The disk or file is unusable: nothing the client did, and retrying later may help.
    public var isIO: Bool {
        switch primaryCode {
        case SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_CORRUPT, SQLITE_NOTADB: true
        default: false
        }
    }
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    /// What a client is told. Internal details stay in the log, never on the wire;
    /// repositories map constraints to a clearer message before this is needed.
    public var chorusError: ChorusError {
        if isConstraint { return .conflict("conflicts with existing data") }
        if isFull { return .unavailable("storage full") }
        if isIO || isBusy { return .unavailable("storage unavailable") }
        return .internal("storage error")
    }

    public var description: String { "SQLite error \(code): \(message)" }
}
