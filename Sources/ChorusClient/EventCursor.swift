/// What the interactive client has shown of the event stream, so that after a dropped
/// connection `SYNC` shows exactly what was missed: nothing twice, nothing lost.
///
/// It keeps:
/// - `last`: an event id such that every event up to it that this person should see has
///   been shown (live, or as the reply to their own command);
/// - `pending`: the events shown live since, by key: `#id`, from the JSON `id` or the
///   text line's closing `[#id]`.
///
/// `last` moves forward only through SYNC replies. The server answers a session's requests
/// in order and hands out each command's events in the loop turn of its reply, after the
/// commit that numbered them, so by the time a SYNC reply arrives, every live event it
/// lists has already arrived before it, and every live event after it has a larger id.
/// While connected the client sends a quiet `SYNC last` after activity (a live event, a
/// reply to a command of the person's): each listed event was shown live (and leaves
/// `pending`) or was caused by this session (its reply was shown). After a reconnect,
/// `SYNC last` is the replay: an event whose key is pending was shown live before the
/// drop and is skipped; all others were missed and are shown.
public struct EventCursor {
    public private(set) var last: Int64
    private var pending: [String] = []

    public init(last: Int64) {
        self.last = last
    }

    /// A live event was shown.
    public mutating func shownLive(key: String) {
        pending.append(key)
        // Bounded: a quiet SYNC follows each event, so only a long outage can pile these up.
        if pending.count > 10_000 { pending.removeFirst() }
    }

    /// The server's log ends before `last`: a backup was restored there and the events
    /// after `end` this person saw are gone. Starts over from the log's end.
    public mutating func restart(at end: Int64) {
        last = end
        pending.removeAll()
    }

    /// Takes in one page of a SYNC after `last`; returns the entries to show when replaying.
    /// Without `replaying`, the page only moves the cursor (its events were all seen).
    public mutating func absorb(_ page: SyncPage, replaying: Bool) -> [SyncPage.Entry] {
        var missed: [SyncPage.Entry] = []
        for entry in page.entries {
            if let index = pending.firstIndex(of: entry.key) {
                pending.remove(at: index)
            } else if replaying {
                missed.append(entry)
            }
        }
        last = max(last, page.last)
        // On the final page every event shown before its reply is at or below `last`.
        if !page.more { pending.removeAll() }
        return missed
    }
}
