import CLinux
import CSQLite
import ChorusLocking
import Dispatch
import Foundation
import ChorusStore

/// Copies the bulk of the write-ahead log back into the database file on a thread of its
/// own, for a queue that is never idle long enough to do it between batches.
///
/// The queue asks once per log (`copyOnce`); this thread then runs one PASSIVE checkpoint
/// through its own connection, copying everything committed so far while the writer goes
/// on. The writer, seeing it done (`copied`), finishes with a checkpoint of its own between
/// batches: only what was committed meanwhile is left, and once the whole log is copied
/// SQLite starts it over. (Left to itself, a thread like this never catches up with a
/// writer that commits all the time, and the log never starts over.)
final class CheckpointHelper: Sendable {
    private struct State {
        /// A copy was asked for since the log was last started over.
        var requested = false
        /// The thread has a copy to make.
        var pending = false
        /// The copy asked for is made.
        var copied = false
        var closing = false
        var sleeping = false
        /// Copies made so far, for tests.
        var passes = 0
    }

    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Opens a connection of its own to `path` (already in WAL mode) and starts the thread.
    init(path: String) throws {
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
        let handle = HelperConnection(connection)
        let thread = Thread { [self] in
            clinux_set_thread_name("chorus-ckpt")
            run(on: handle.connection)
        }
        thread.name = "chorus-ckpt"
        thread.start()
    }

    /// Starts one background copy of the log, unless one was asked for since `reset`.
    func copyOnce() {
        let signal: Bool = state.withLock { state in
            guard !state.closing, !state.requested else { return false }
            state.requested = true
            state.pending = true
            guard state.sleeping else { return false }
            state.sleeping = false
            return true
        }
        if signal { wake.signal() }
    }

    /// The copy asked for has been made.
    var copied: Bool { state.withLock { $0.copied } }

    /// Copies made so far.
    var passes: Int { state.withLock { $0.passes } }

    /// The writer copied the rest and the log starts over: the next copy is for the new one.
    func reset() {
        state.withLock { state in
            state.requested = false
            state.copied = false
        }
    }

    /// Waits for a copy under way, closes the connection and ends the thread. Call it
    /// before the writer closes, so that the writer's connection is the last and SQLite
    /// copies the log back whole and removes it then.
    func stop() {
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

    private func run(on connection: OpaquePointer) {
        defer {
            sqlite3_close_v2(connection)
            finished.signal()
        }
        while waitForRequest() {
            // SQLITE_BUSY: the writer is checkpointing itself; nothing is lost.
            _ = sqlite3_wal_checkpoint_v2(connection, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            state.withLock { state in
                state.copied = true
                state.passes += 1
            }
        }
    }

    /// Waits for `copyOnce` or `stop`; false once stopping.
    private func waitForRequest() -> Bool {
        while true {
            let proceed: Bool? = state.withLock { state in
                if state.closing { return false }
                if state.pending {
                    state.pending = false
                    return true
                }
                state.sleeping = true
                return nil
            }
            if let proceed { return proceed }
            wake.wait()
        }
    }
}

/// The helper's connection, handed to its thread once at start; nothing else touches it.
private struct HelperConnection: @unchecked Sendable {
    let connection: OpaquePointer
    init(_ connection: OpaquePointer) { self.connection = connection }
}
