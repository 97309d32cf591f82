/// What restoring a backup asks of ids (CONTRACT §12). A backup lacks the writes made
/// after it was taken, yet clients saw their ids: a message, task or event number handed
/// out again after the restore would point a client at a different thing, and a SYNC
/// cursor from the lost tail would be past the end of the log and find nothing.
public enum RestoreRules {
    /// The least jump: covers a lost tail of up to a million ids of each kind.
    public static let margin: Int64 = 1_000_000

    /// Where a counter goes after a restore, given the highest id it is known to have
    /// handed out (`used`). The lost tail is the writes between the backup and the loss;
    /// we assume it is no longer than everything before the backup, or a million ids,
    /// whichever is more: so the jump is `max(used, margin)`. Running it twice only jumps
    /// again, which is harmless (ids stay far below 2^52, where JSON readers lose digits,
    /// for any store this size).
    public static func counterAfterRestore(used: Int64) -> Int64 {
        let jump = max(used, margin)
        return used > Int64.max - jump ? Int64.max : used + jump
    }

    /// SYNC after `cursor` when the log's newest stored event is `logEnd`: the id to start
    /// over from when the cursor is past the end (it came from history a restore took
    /// away), nil for a cursor the log still covers, which is answered as always.
    public static func syncRestart(cursor: Int64, logEnd: Int64) -> Int64? {
        cursor > logEnd ? logEnd : nil
    }
}
