import ChorusNet
import ChorusProtocol

/// Events handed to one loop during a turn, copied into their recipients' output just
/// before the turn's writes. Loop thread only.
///
/// A committed batch reaches a loop as one `FanOut` per command, so a turn often holds
/// dozens of events for the same room. Copied as they arrive, every event would visit
/// every recipient's session, connection and output buffer in turn; here each run of
/// events for the same recipients is joined once and appended to each recipient in one
/// piece (around the events a recipient caused itself, which it gets as replies).
///
/// Anything else written to a session must come after what is pending for it, so the hub
/// calls `flush` before it writes a reply, a `bye` or a stored notice, and before a line
/// runs (which may change the output mode); a session's output keeps the order it was
/// sent in. Flushing only copies into the sessions' queues: the turn still ends with one
/// write per session.
final class PendingFanOut: TurnPreparing {
    private struct Entry {
        let event: RenderedEvent
        /// Captured when the event arrived: a session that logs in later in the turn does
        /// not get events from before its login.
        let recipients: [Session]
        /// The session that caused it, which gets the reply instead.
        let skipped: UInt64?
    }

    private let loop: EventLoop
    private var entries: [Entry] = []
    /// Counts the event × session writes, once per flush.
    private let metrics: Metrics

    init(loop: EventLoop, metrics: Metrics) {
        self.loop = loop
        self.metrics = metrics
    }

    /// Queues `event` for `recipients` but `skipped`, to be written this turn.
    func add(_ event: RenderedEvent, to recipients: [Session], skipping skipped: UInt64?) {
        guard !recipients.isEmpty else { return }
        if entries.isEmpty { loop.prepareBeforeWrites(self) }
        entries.append(Entry(event: event, recipients: recipients, skipped: skipped))
    }

    /// At the turn's end a member's run of events usually is all it gets this turn, so it
    /// goes to OpenSSL straight from the joined buffer (`Connection.sendNow`) instead of
    /// being copied into the member's queue first.
    func prepareWrites() {
        write(direct: true)
    }

    /// Copies every queued event into its recipients' output now, so what is written to
    /// them next comes after.
    func flush() {
        write(direct: false)
    }

    /// With `direct`, writes to members with nothing else queued at once.
    private func write(direct: Bool) {
        guard !entries.isEmpty else { return }
        let queued = entries
        entries.removeAll(keepingCapacity: true)
        var start = queued.startIndex
        var written = 0
        while start < queued.endIndex {
            var end = start + 1
            while end < queued.endIndex && Self.same(queued[end].recipients, queued[start].recipients) { end += 1 }
            if end - start == 1 {
                written += write(queued[start], direct: direct)
            } else {
                written += write(run: queued[start..<end], direct: direct)
            }
            start = end
        }
        metrics.fanOutDelivered(written)
    }

    /// The recipients lists of one audience are the one array `SessionTable.recipients(of:)`
    /// cached, so comparing storage is enough; equal lists in different storage only
    /// make shorter runs.
    private static func same(_ a: [Session], _ b: [Session]) -> Bool {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress && a.count == b.count } }
    }

    /// Returns how many sessions it wrote the event to.
    private func write(_ entry: Entry, direct: Bool) -> Int {
        var written = 0
        entry.event.json.withUnsafeBufferPointer { json in
            entry.event.text.withUnsafeBufferPointer { text in
                Self.forEach(entry.recipients) { session in
                    if session.id != entry.skipped {
                        Self.send(session.mode == .json ? json : text, to: session, direct: direct)
                        written += 1
                    }
                }
            }
        }
        return written
    }

    /// Returns how many event × session writes the run made.
    private func write(run: ArraySlice<Entry>, direct: Bool) -> Int {
        var written = 0
        var json: [UInt8] = []
        var text: [UInt8] = []
        // Where each event ends in `json` and `text`, to leave out a recipient's own.
        var jsonEnds: [Int] = []
        var textEnds: [Int] = []
        var issuers: [UInt64] = []
        for entry in run {
            json.append(contentsOf: entry.event.json)
            text.append(contentsOf: entry.event.text)
            jsonEnds.append(json.count)
            textEnds.append(text.count)
            if let skipped = entry.skipped, !issuers.contains(skipped) { issuers.append(skipped) }
        }
        let skips = run.map(\.skipped)
        json.withUnsafeBufferPointer { json in
            text.withUnsafeBufferPointer { text in
                Self.forEach(run[run.startIndex].recipients) { session in
                    let isJSON = session.mode == .json
                    let bytes = isJSON ? json : text
                    guard issuers.contains(session.id) else {
                        Self.send(bytes, to: session, direct: direct)
                        written += skips.count
                        return
                    }
                    let ends = isJSON ? jsonEnds : textEnds
                    var from = 0
                    for index in skips.indices {
                        let eventStart = index == 0 ? 0 : ends[index - 1]
                        if skips[index] == session.id {
                            if from < eventStart { session.connection.send(UnsafeBufferPointer(rebasing: bytes[from..<eventStart])) }
                            from = ends[index]
                        } else {
                            written += 1
                        }
                    }
                    if from < bytes.count { session.connection.send(UnsafeBufferPointer(rebasing: bytes[from...])) }
                }
            }
        }
        return written
    }

    private static func send(_ bytes: UnsafeBufferPointer<UInt8>, to session: Session, direct: Bool) {
        if direct {
            session.connection.sendNow(bytes)
        } else {
            session.connection.send(bytes)
        }
    }

    /// Calls `body` with each session, borrowed: `sessions` keeps them alive, so each is
    /// used without a retain and release of its own (a tenth of the loop's time at a
    /// hundred recipients per event).
    private static func forEach(_ sessions: [Session], _ body: (Session) -> Void) {
        sessions.withUnsafeBufferPointer { sessions in
            for index in sessions.indices {
                Unmanaged.passUnretained(sessions[index])._withUnsafeGuaranteedRef { body($0) }
            }
        }
    }
}
