import CPostgres
import Foundation

/// One libpq connection, used by one thread at a time. Every failure is a `PostgresError`.
///
/// Statements go out with their parameters apart from the SQL text (`PQexecParams`, text
/// format), so no value is ever spliced into a statement.
public final class PostgresConnection {
    /// Nil once closed, so a use after `close()` throws instead of touching freed memory.
    private(set) var handle: OpaquePointer?
    /// Names of the statements `queryPrepared` made on this session, by SQL text.
    private var preparedNames: [String: String] = [:]

    /// Settings every connection gets unless the connection string says otherwise: a dead
    /// peer must be noticed in seconds, not after the kernel's two hours of silence.
    static let defaults: KeyValuePairs<String, String> = [
        "connect_timeout": "10",
        "keepalives": "1", "keepalives_idle": "5", "keepalives_interval": "2", "keepalives_count": "3",
        "tcp_user_timeout": "10000",
    ]

    /// Connects with `conninfo`, a libpq URI (`postgresql://…`) or `key=value` string, so
    /// libpq's `PG*` variables, `~/.pgpass` and `sslmode` apply as in every libpq program.
    /// The client encoding is always UTF-8: Swift strings are.
    public init(_ conninfo: String, applicationName: String = "chorus") throws {
        // A malformed string would otherwise read as "cannot connect", which sends an
        // admin looking at the network instead of at the flag.
        var parseError: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &parseError) else {
            let reason = parseError.map { String(cString: $0) } ?? "out of memory"
            PQfreemem(parseError)
            throw PostgresError(sqlState: nil, kind: .failed, message: "invalid connection string: \(Self.oneLine(reason))")
        }
        PQconninfoFree(options)

        // Later keys override earlier ones, and the expanded `dbname` (the whole string)
        // sits between: it overrides the defaults, and cannot change the encoding.
        var pairs = Self.defaults.map { ($0.key, $0.value) }
        pairs.append(("fallback_application_name", applicationName))
        pairs.append(("dbname", conninfo))
        pairs.append(("client_encoding", "UTF8"))
        let keys = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer { (keys + values).forEach { free($0) } }
        let connection = (keys.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keyList in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { valueList in
                PQconnectdbParams(keyList.baseAddress, valueList.baseAddress, 1)
            }
        }
        guard let connection else {
            throw PostgresError(sqlState: nil, kind: .unavailable, message: "cannot connect: libpq is out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = Self.oneLine(String(cString: PQerrorMessage(connection)))
            PQfinish(connection)
            throw PostgresError(sqlState: nil, kind: .unavailable, message: "cannot connect to PostgreSQL: \(reason)")
        }
        cpostgres_silence_notices(connection)
        handle = connection
    }

    deinit { close() }

    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// False once libpq has seen the connection break (or after `close()`); `reset()`
    /// connects again with the same settings.
    public var isConnected: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The server process serving this connection (`pg_terminate_backend` takes it).
    public var backendPID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// The server's version as a number, 150018 for 15.18.
    public var serverVersion: Int { handle.map { Int(PQserverVersion($0)) } ?? 0 }

    /// What changes whenever the server recovers from a crash, as `PostgresSession.configure`
    /// read it; nil until then and after each `reset()`.
    var recoveryMark: String?

    /// Whether a transaction is open, and whether a statement in it failed.
    var transactionStatus: PGTransactionStatusType { handle.map { PQtransactionStatus($0) } ?? PQTRANS_UNKNOWN }

    /// Connects again with the settings of the first connection, after the server went away.
    public func reset() throws {
        let connection = try liveHandle(allowBroken: true)
        PQreset(connection)
        preparedNames = [:]
        recoveryMark = nil
        guard PQstatus(connection) == CONNECTION_OK else {
            throw error(doing: "reconnecting", result: nil)
        }
        cpostgres_silence_notices(connection)
    }

    /// Runs one statement (`$1`, `$2`… for `parameters`) and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) throws -> PostgresResult {
        let connection = try liveHandle()
        return try withParameters(parameters, doing: sql) { count, values in
            PQexecParams(connection, sql, count, nil, values, nil, nil, 0)
        }
    }

    /// `query` through a statement prepared once per connection and SQL text: the server
    /// parses and plans it once, not on every call (the store's statements are constant
    /// text, so the set stays small). A reconnect forgets them, as the server does.
    public func queryPrepared(_ sql: String, _ parameters: [PostgresValue] = []) throws -> PostgresResult {
        let connection = try liveHandle()
        let name: String
        if let known = preparedNames[sql] {
            name = known
        } else {
            name = "chorus_\(preparedNames.count + 1)"
            guard let made = PQprepare(connection, name, sql, 0, nil) else { throw error(doing: sql, result: nil) }
            defer { PQclear(made) }
            guard PQresultStatus(made) == PGRES_COMMAND_OK else { throw error(doing: sql, result: made) }
            preparedNames[sql] = name
        }
        return try withParameters(parameters, doing: sql) { count, values in
            PQexecPrepared(connection, name, count, values, nil, nil, 0)
        }
    }

    /// Passes the parameters as C strings to `send`, and turns its result into rows or an error.
    private func withParameters(_ parameters: [PostgresValue], doing sql: String,
                                _ send: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> OpaquePointer?) throws -> PostgresResult {
        let texts = parameters.map { $0.textFormat.map { strdup($0) } ?? nil }
        defer { texts.forEach { free($0) } }
        let result = texts.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
            send(Int32(values.count), values.baseAddress)
        }
        guard let result else { throw error(doing: sql, result: nil) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(taking: result)
        default:
            let failure = error(doing: sql, result: result)
            PQclear(result)
            throw failure
        }
    }

    /// Runs one statement for its effect and returns how many rows it touched.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws -> Int64 {
        try query(sql, parameters).affectedRows
    }

    /// Runs several statements given as one text, with no parameters (`PQexec`): only for
    /// the schema's own constant SQL, never for anything carrying a value.
    public func executeScript(_ sql: String) throws {
        let connection = try liveHandle()
        guard let result = PQexec(connection, sql) else { throw error(doing: "running a script", result: nil) }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: throw error(doing: "running a script", result: result)
        }
    }

    private func liveHandle(allowBroken: Bool = false) throws -> OpaquePointer {
        guard let handle else { throw Self.closed }
        // A broken connection is not retried behind the caller's back: the caller decides
        // when to reset, and learns that a statement may not have run.
        if !allowBroken, PQstatus(handle) != CONNECTION_OK { throw Self.lost }
        return handle
    }

    static let closed = PostgresError(sqlState: nil, kind: .unavailable, message: "the PostgreSQL connection is closed")
    static let lost = PostgresError(sqlState: nil, kind: .unavailable, message: "the connection to PostgreSQL is lost")

    /// The failure of `doing`, with the server's SQLSTATE when the result carries one.
    /// A failure with no SQLSTATE is libpq's own, not the server's: the link failed (the
    /// server closed it, a send broke), even while libpq still calls the connection OK,
    /// as it does for a moment after a server's crash (seen as `BEGIN` answering 500).
    private func error(doing: String, result: OpaquePointer?) -> PostgresError {
        let sqlState = result.flatMap { cpostgres_sqlstate($0) }.map { String(cString: $0) }
        let lost = handle.map { PQstatus($0) != CONNECTION_OK } ?? true || sqlState == nil
        let text = result.map { String(cString: PQresultErrorMessage($0)) } ?? ""
        let reason = text.isEmpty ? handle.map { String(cString: PQerrorMessage($0)) } ?? "" : text
        return PostgresError(sqlState: sqlState, connectionLost: lost, message: "\(Self.statement(doing)): \(Self.oneLine(reason))")
    }

    /// libpq's messages end in a newline and may span lines (DETAIL, HINT): one log line.
    /// The server's quote of the statement (`LINE 1: CREATE …` and its caret) is left out:
    /// the log names the statement once, shortened (`statement`).
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("LINE ") && !$0.allSatisfy { $0 == "^" } && !$0.isEmpty }
            .joined(separator: " ")
    }

    /// What a failed statement was, for its error: its first words on one line. Schema
    /// statements run to dozens of lines, and a refusal must stay one.
    static func statement(_ sql: String) -> String {
        let flat = sql.split(whereSeparator: { $0.isNewline || $0 == " " || $0 == "\t" }).joined(separator: " ")
        return flat.count <= 60 ? flat : flat.prefix(60) + "…"
    }
}

@available(*, unavailable) extension PostgresConnection: Sendable {}
