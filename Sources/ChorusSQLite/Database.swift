import CSQLite
import Foundation
import ChorusStore

/// One SQLite connection, used by one thread only.
///
/// While the server runs, the only connection that writes is the one owned by
/// `DatabaseQueue`; this type is also used directly by tests and command-line tools.
public final class Database {
    public let path: String
    /// Nil once closed, so use after `close()` throws instead of touching freed memory.
    private var handle: OpaquePointer?
    /// Prepared statements by SQL text. Only constant SQL is ever prepared, so this stays small.
    private var statements: [String: Statement] = [:]
    /// Gives nested savepoints distinct names, which keeps error messages readable.
    private var savepointDepth = 0
    /// Room member lists and members' access (`memberIDs(ofRoom:)`, `roomAccess`), kept
    /// right by triggers and hooks.
    let memberCache = MemberCache()
    /// Pages in the write-ahead log after the last commit, and the most it has held, kept
    /// by the WAL hook once `deferCheckpoints()` is on (Database+Checkpoint.swift).
    var logPages: Int32 = 0
    var peakLogPages: Int32 = 0

    /// Opens (creating) the file, sets the connection up and applies pending migrations.
    ///
    /// Every failure names the path, because the usual cause is a wrong or unwritable folder.
    public convenience init(path: String) throws {
        try self.init(path: path, migrations: Migrations.all)
    }

    /// Opens with only `migrations` applied, so tests can make a file as an earlier
    /// version left it.
    init(path: String, migrations: [Migration]) throws {
        self.path = path
        Self.restrictToOwner(path)
        var connection: OpaquePointer?
        // NOMUTEX: one thread owns a connection, so SQLite's own locking would only cost time.
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &connection, flags, nil)
        guard rc == SQLITE_OK, let connection else {
            let error = StoreError(code: rc, connection: connection, doing: "cannot open database \(path)")
            sqlite3_close_v2(connection)
            throw error
        }
        handle = connection
        do {
            try configure()
            try migrate(migrations)
            try memberCache.install(on: self, handle: connection)
        } catch let error as StoreError {
            close()
            throw error.doing("database \(path)")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private func configure() throws {
        let connection = try liveHandle()
        sqlite3_extended_result_codes(connection, 1)
        // WAL lets readers (backups, tools) run alongside the writer; a file system that
        // cannot do WAL silently keeps the old mode, so check what SQLite actually chose.
        let mode = try prepare("PRAGMA journal_mode=WAL").row { $0.text(0) }
        guard mode?.lowercased() == "wal" else {
            throw StoreError(code: SQLITE_CANTOPEN, message: "could not switch to WAL journal mode (got \(mode ?? "nothing"))")
        }
        // FULL: a committed message must survive power loss, since "OK" was already sent.
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA foreign_keys=ON")
        try execute("PRAGMA busy_timeout=5000")
        // SQLite saves the pages a savepoint changes in a statement journal. When every
        // queued job ran in one, that journal, on disk in /var/tmp, took most of the
        // server's write() calls (eight pages per chat line); the savepoints that remain
        // (guarded reruns, nested `savepoint` calls) keep it in memory.
        try execute("PRAGMA temp_store=MEMORY")
    }

    func liveHandle() throws -> OpaquePointer {
        guard let handle else {
            throw StoreError(code: SQLITE_MISUSE, message: "database \(path) is closed")
        }
        return handle
    }

    /// Runs SQL text as is (one or more statements). Only for schema and pragmas:
    /// anything carrying user values goes through `prepare` and binding.
    public func execute(_ sql: String) throws {
        let connection = try liveHandle()
        var errorText: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(connection, sql, nil, nil, &errorText)
        defer { sqlite3_free(errorText) }
        guard rc == SQLITE_OK else {
            let reason = errorText.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            throw StoreError(code: rc, message: "executing \(Self.summary(sql)): \(reason)")
        }
    }

    /// A prepared statement for one SQL statement, reset and cleared, cached per text.
    ///
    /// If the cached one is still mid-way through its rows (the same query nested inside
    /// its own `map`), a fresh, uncached statement is returned instead of disturbing it.
    public func prepare(_ sql: String) throws -> Statement {
        if let cached = statements[sql] {
            if !cached.isBusy {
                cached.reset()
                return cached
            }
            return try compile(sql, persistent: false)
        }
        let statement = try compile(sql, persistent: true)
        statements[sql] = statement
        return statement
    }

    private func compile(_ sql: String, persistent: Bool) throws -> Statement {
        let connection = try liveHandle()
        var compiled: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        // The tail points into the C string, so read it while that string is alive.
        let (rc, rest) = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(connection, text, -1, flags, &compiled, &tail)
            return (rc, tail.map { String(cString: $0) } ?? "")
        }
        guard rc == SQLITE_OK else {
            throw StoreError(code: rc, connection: connection, doing: "preparing \(Self.summary(sql))")
        }
        guard let compiled else {
            throw StoreError(code: SQLITE_MISUSE, message: "no SQL statement in \(Self.summary(sql))")
        }
        // A second statement after the first would be silently ignored; refuse it instead.
        if !rest.allSatisfy(\.isWhitespace) {
            sqlite3_finalize(compiled)
            throw StoreError(code: SQLITE_MISUSE, message: "prepare takes one statement: \(Self.summary(sql))")
        }
        return Statement(sql: sql, handle: compiled)
    }

    /// Rows inserted, updated or deleted on this connection so far: a job that failed
    /// without moving it changed nothing that would need undoing.
    var totalChanges: Int64 {
        guard let handle else { return 0 }
        return sqlite3_total_changes64(handle)
    }

    /// True while a transaction is open. SQLite can roll one back by itself (disk full,
    /// I/O error), which is how the queue notices that a batch was lost.
    public var isInTransaction: Bool {
        guard let handle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }

    /// Runs `body` in `BEGIN IMMEDIATE ... COMMIT`, rolling back if it throws.
    ///
    /// Inside an open transaction (as in every `DatabaseQueue` job) it becomes a savepoint,
    /// so repository code can ask for atomicity without knowing who is calling it.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction { return try savepoint(body) }
        // IMMEDIATE takes the write lock now, so a busy database fails here and not half way.
        try execute("BEGIN IMMEDIATE")
        let result: T
        do {
            result = try body()
            try execute("COMMIT")
        } catch {
            rollback()
            throw error
        }
        return result
    }

    /// Rolls back whatever transaction is open; a failure here has nothing left to undo.
    func rollback() {
        if isInTransaction { try? execute("ROLLBACK") }
    }

    /// Runs `body` in a savepoint: on throw only its own changes are undone and the
    /// enclosing transaction carries on.
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "chorus_sp\(savepointDepth)"
        // Prepared and cached like any statement: every command runs inside one.
        try prepare("SAVEPOINT \(name)").run()
        let result: T
        do {
            result = try body()
        } catch {
            // If SQLite already rolled the whole transaction back, the savepoint is gone
            // and there is nothing to undo; the original error is the one that matters.
            try? execute("ROLLBACK TO \(name)")
            try? execute("RELEASE \(name)")
            throw error
        }
        try prepare("RELEASE \(name)").run()
        return result
    }

    public var lastInsertRowID: Int64 {
        guard let handle else { return 0 }
        return sqlite3_last_insert_rowid(handle)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int {
        guard let handle else { return 0 }
        return Int(sqlite3_changes64(handle))
    }

    /// Caps the file at `pages` pages (4 KiB each by default): a write past it fails as a full disk
    /// would (`SQLITE_FULL`), which is how the tests reach that path without filling one.
    public func limitSize(toPages pages: Int) throws {
        try execute("PRAGMA max_page_count = \(pages)")
    }

    /// `PRAGMA user_version`, which records how many migrations were applied.
    public var schemaVersion: Int {
        get throws {
            Int(try prepare("PRAGMA user_version").row { $0.int(0) } ?? 0)
        }
    }

    /// Finalizes cached statements and closes. Safe to call more than once.
    ///
    /// `sqlite3_close_v2` defers the real close until any statement still held
    /// elsewhere is finalized, so a stray reference cannot make this fail.
    public func close() {
        for statement in statements.values { statement.finalize() }
        statements = [:]
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
    }

    /// The start of some SQL, for error messages.
    static func summary(_ sql: String) -> String {
        let line = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return line.count > 80 ? String(line.prefix(80)) + "..." : line
    }
}

/// A connection belongs to one thread; `DatabaseQueue` is the way to share one.
@available(*, unavailable)
extension Database: Sendable {}

extension Database {
    /// Makes the database file readable and writable by its owner only (0600), whatever
    /// the umask: it holds password hashes and everyone's messages. A new file is created
    /// empty with that mode, which SQLite takes as a new database; SQLite gives the -wal
    /// and -shm files it makes later the database file's mode. Files an older version
    /// left with a wider mode are narrowed.
    static func restrictToOwner(_ path: String) {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        let fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 {
            _ = fchmod(fd, 0o600)
            Glibc.close(fd)
        }
        for suffix in ["-wal", "-shm", "-journal"] where access(path + suffix, F_OK) == 0 {
            _ = chmod(path + suffix, 0o600)
        }
    }
}
