import CSQLite
import ChorusStore

/// When the write-ahead log is copied back into the database file.
///
/// SQLite's automatic checkpoint runs inside whichever COMMIT pushes the log past 1,000
/// pages: that commit also copies the pages into the database file and syncs it, before
/// anyone whose line was in the batch hears back (a few milliseconds every tenth of a
/// second under chat load, far more on a slow disk). `DatabaseQueue` turns it off
/// (`deferCheckpoints`) and checkpoints between batches instead, after a batch's
/// completions have handed its replies on (`QueueWorker.checkpointIfDue`):
/// - when no job is waiting, it copies the log back at once;
/// - while jobs keep coming, `CheckpointHelper` copies the bulk of it on its own thread,
///   and the queue then copies the few pages committed meanwhile;
/// - past `checkpointDeadlinePages` it copies regardless.
extension Database {
    /// Log pages after which a checkpoint is due: SQLite's own default.
    static let checkpointPages: Int32 = 1000
    /// Log pages after which a checkpoint runs even while jobs wait.
    static let checkpointDeadlinePages: Int32 = 8 * checkpointPages

    /// Stops SQLite from checkpointing inside commits; `logPages` follows the log instead.
    func deferCheckpoints() throws {
        let connection = try liveHandle()
        sqlite3_wal_hook(connection, { context, _, _, pages in
            if let context {
                let database = Unmanaged<Database>.fromOpaque(context).takeUnretainedValue()
                database.logPages = pages
                database.peakLogPages = max(database.peakLogPages, pages)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Copies what it can of the log back into the database file (PASSIVE: readers and
    /// writers elsewhere are not waited for). Once all of it is copied, SQLite starts the
    /// log over at the next write. True when all of it was copied.
    @discardableResult
    func checkpoint() throws -> Bool {
        let connection = try liveHandle()
        logPages = 0
        var logFrames: Int32 = 0
        var copiedFrames: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(connection, "main", SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copiedFrames)
        if rc == SQLITE_BUSY { return false }
        guard rc == SQLITE_OK else {
            throw StoreError(code: rc, connection: connection, doing: "checkpoint")
        }
        return copiedFrames == logFrames
    }
}
