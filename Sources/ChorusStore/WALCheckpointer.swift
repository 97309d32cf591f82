import CLinux
import CSQLite
import ChorusLocking
import Dispatch
import Foundation

/// Copies the write-ahead log back into the database file on a thread of its own, so the
/// queue's thread never does it inside a commit.
///
/// SQLite's automatic checkpoint runs in whichever COMMIT pushes the log past 1,000 pages:
/// that commit also writes those pages to the database file and syncs it, and every
/// client whose line was in the batch waits for it (a few milliseconds every tenth of a
/// second under load, far more on a slow disk). Here the writer's connection has a WAL hook
/// instead (`Database.handCheckpoints(to:)`): past `threshold` pages it only signals this
/// thread, which checkpoints PASSIVE through its own connection. PASSIVE never waits for
/// the writer, and the writer never waits for it; once everything in the log has been
/// copied back, SQLite starts the log over at the writer's next transaction.
///
/// Should this thread fall far behind (`writerFallback` pages), the writer checkpoints
/// itself, as SQLite would have, so the log cannot grow without bound.
public final class WALCheckpointer: Sendable {
    /// Pages in the log before a checkpoint is asked for: SQLite's own default.
    public static let threshold: Int32 = 1000
    /// Pages in the log at which the writer stops relying on this thread.
    public static let writerFallback: Int32 = 20 * threshold

    private struct State {
        var requested = false
        var closing = false
        var sleeping = false
        /// Checkpoints run so far, and how many pages they copied back; for tests.
        var passes = 0
        var pagesCopied = 0
    }

    private let path: String
    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Opens a connection of its own to `path` (already in WAL mode: the writer set it) and
    /// starts the thread.
    public init(path: String) throws {
        self.path = path
        var connection: OpaquePointer?
        var rc = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        // A connection finds the log only once it has read the file; until then a
        // checkpoint through it quietly does nothing.
        if rc == SQLITE_OK { rc = sqlite3_exec(connection, "SELECT count(*) FROM sqlite_schema", nil, nil, nil) }
        guard rc == SQLITE_OK, let connection else {
            let error = StoreError(code: rc, connection: connection, doing: "cannot open database \(path) for checkpoints")
            sqlite3_close_v2(connection)
            throw error
        }
        // The handle crosses to the new thread once, here, and is used by it alone.
        let handle = UncheckedHandle(connection)
        let thread = Thread { [self] in
            clinux_set_thread_name("chorus-ckpt")
            run(on: handle.connection)
        }
        thread.name = "chorus-ckpt"
        thread.start()
    }

    /// Called by the writer's WAL hook after a commit: `pages` are in the log now.
    /// Returns true when the writer should checkpoint itself (this thread is far behind).
    func logGrew(to pages: Int32) -> Bool {
        if pages >= Self.writerFallback { return true }
        guard pages >= Self.threshold else { return false }
        let signal: Bool = state.withLock { state in
            guard !state.closing else { return false }
            state.requested = true
            guard state.sleeping else { return false }
            state.sleeping = false
            return true
        }
        if signal { wake.signal() }
        return false
    }

    /// Finishes a checkpoint under way, closes the connection and ends the thread. The
    /// writer calls this before closing its own connection, so that the writer is the last
    /// to close and SQLite checkpoints everything and removes the log then.
    public func stop() {
        let signal: Bool = state.withLock { state in
            guard !state.closing else { return false }
            state.closing = true
            state.sleeping = false
            return true
        }
        guard signal else { return }
        wake.signal()
        finished.wait()
    }

    /// Checkpoints run so far and the pages they copied back.
    public var progress: (passes: Int, pagesCopied: Int) {
        state.withLock { ($0.passes, $0.pagesCopied) }
    }

    private func run(on connection: OpaquePointer) {
        defer {
            sqlite3_close_v2(connection)
            finished.signal()
        }
        while waitForRequest() {
            var logPages: Int32 = 0
            var copied: Int32 = 0
            // SQLITE_BUSY means another checkpoint holds the lock (the writer's fallback):
            // nothing to do until the next request.
            let rc = sqlite3_wal_checkpoint_v2(connection, "main", SQLITE_CHECKPOINT_PASSIVE, &logPages, &copied)
            state.withLock { state in
                state.passes += 1
                if rc == SQLITE_OK { state.pagesCopied += Int(max(copied, 0)) }
            }
        }
    }

    /// Waits for `logGrew` or `stop`; false once stopping.
    private func waitForRequest() -> Bool {
        while true {
            let next: Bool? = state.withLock { state in
                if state.closing { return false }
                if state.requested {
                    state.requested = false
                    return true
                }
                state.sleeping = true
                return nil
            }
            if let next { return next }
            wake.wait()
        }
    }
}

/// A connection handed to the checkpoint thread when it starts; nothing else touches it.
private struct UncheckedHandle: @unchecked Sendable {
    let connection: OpaquePointer
    init(_ connection: OpaquePointer) { self.connection = connection }
}

extension Database {
    /// Replaces SQLite's automatic checkpoint on this connection with `checkpointer`:
    /// after each commit the log's size goes to it, and this connection checkpoints only
    /// when the checkpointer has fallen `WALCheckpointer.writerFallback` pages behind.
    /// `checkpointer` must outlive the connection (the hook holds it unretained).
    public func handCheckpoints(to checkpointer: WALCheckpointer) throws {
        let connection = try liveHandle()
        sqlite3_wal_hook(connection, { context, db, name, pages in
            guard let context else { return SQLITE_OK }
            let checkpointer = Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue()
            if checkpointer.logGrew(to: pages) {
                _ = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }
}
