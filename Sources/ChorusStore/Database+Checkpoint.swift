import CSQLite

/// When the write-ahead log is copied back into the database file.
///
/// SQLite's automatic checkpoint runs inside whichever COMMIT pushes the log past 1,000
/// pages: that commit also copies the pages into the database file and syncs it, before
/// anyone whose line was in the batch hears back (a few milliseconds every tenth of a
/// second under chat load, far more on a slow disk). `DatabaseQueue` turns it off
/// (`deferCheckpoints`) and checkpoints between batches instead, after a batch's
/// completions have handed its replies on: when no job is waiting, or at the latest once
/// the log reaches `checkpointDeadlinePages`.
///
/// (A checkpoint on a thread of its own was tried: under steady small commits it never
/// caught up with the writer, so SQLite could never start the log over, the log grew, and
/// its constant syncs cost a fifth of the durable write rate.)
extension Database {
    /// Log pages after which a checkpoint is due: SQLite's own default.
    static let checkpointPages: Int32 = 1000
    /// Log pages after which a checkpoint runs even while jobs wait.
    static let checkpointDeadlinePages: Int32 = 8 * checkpointPages

    /// Stops SQLite from checkpointing inside commits; `logPages` follows the log instead.
    func deferCheckpoints() throws {
        let connection = try liveHandle()
        sqlite3_wal_hook(connection, { context, _, _, pages in
            if let context { Unmanaged<Database>.fromOpaque(context).takeUnretainedValue().logPages = pages }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Copies what it can of the log back into the database file (PASSIVE: readers and
    /// writers elsewhere are not waited for). Once all of it is copied, SQLite starts the
    /// log over at the next write.
    func checkpoint() throws {
        let connection = try liveHandle()
        logPages = 0
        let rc = sqlite3_wal_checkpoint_v2(connection, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        guard rc == SQLITE_OK || rc == SQLITE_BUSY else {
            throw StoreError(code: rc, connection: connection, doing: "checkpoint")
        }
    }
}
