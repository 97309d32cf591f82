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
        // A text with times goes to text-mode readers in zones of their own as made for
        // each zone, once (`ReaderZone`); everyone else shares the one rendering.
        let marked = entry.event.marked != nil
        var zoned: [(zone: ReaderZone, line: [UInt8])] = []
        entry.event.json.withUnsafeBufferPointer { json in
            entry.event.text.withUnsafeBufferPointer { text in
                entry.event.webSocket.withUnsafeBufferPointer { webSocket in
                    Self.forEach(entry.recipients) { session in
                        guard session.id != entry.skipped else { return }
                        if marked, session.eventFormat == .text, let zone = session.zone {
                            if !zoned.contains(where: { $0.zone == zone }) { zoned.append((zone, zone.textLine(of: entry.event))) }
                            let line = zoned.first { $0.zone == zone }!.line
                            line.withUnsafeBufferPointer { Self.send($0, to: session, direct: direct) }
                            written += 1
                            return
                        }
                        let bytes = switch session.eventFormat {
                        case .text: text
                        case .json: json
                        case .webSocket: webSocket
                        }
                        Self.send(bytes, to: session, direct: direct)
                        written += 1
                    }
                }
            }
        }
        return written
    }

    /// One run's events joined in one format, and where each event ends in it (to leave
    /// out a recipient's own); empty for a format none of the run's recipients takes.
    private struct JoinedRun {
        var bytes: [UInt8] = []
        var ends: [Int] = []

        init(_ run: ArraySlice<Entry>, _ format: EventFormat, needed: Bool) {
            guard needed else { return }
            for entry in run {
                bytes.append(contentsOf: entry.event.bytes(for: format))
                ends.append(bytes.count)
            }
        }

        /// The run's text lines as a reader in `zone` sees them.
        init(_ run: ArraySlice<Entry>, zone: ReaderZone) {
            for entry in run {
                if entry.event.marked == nil {
                    bytes.append(contentsOf: entry.event.text)
                } else {
                    bytes.append(contentsOf: zone.textLine(of: entry.event))
                }
                ends.append(bytes.count)
            }
        }
    }

    /// Returns how many event × session writes the run made.
    private func write(run: ArraySlice<Entry>, direct: Bool) -> Int {
        var written = 0
        let recipients = run[run.startIndex].recipients
        // Only the formats someone takes are joined: a run with no WebSocket member never
        // copies its frames. A run with times in its texts is joined once more for each
        // zone its text-mode readers are in, when not the server's (`ReaderZone`).
        let marked = run.contains { $0.event.marked != nil }
        var takesText = false, takesJSON = false, takesWebSocket = false
        var zones: [ReaderZone] = []
        Self.forEach(recipients) { session in
            switch session.eventFormat {
            case .text:
                if marked, let zone = session.zone {
                    if !zones.contains(zone) { zones.append(zone) }
                } else {
                    takesText = true
                }
            case .json: takesJSON = true
            case .webSocket: takesWebSocket = true
            }
        }
        let text = JoinedRun(run, .text, needed: takesText)
        let json = JoinedRun(run, .json, needed: takesJSON)
        let webSocket = JoinedRun(run, .webSocket, needed: takesWebSocket)
        let zoned = zones.map { JoinedRun(run, zone: $0) }
        var issuers: [UInt64] = []
        for entry in run {
            if let skipped = entry.skipped, !issuers.contains(skipped) { issuers.append(skipped) }
        }
        let skips = run.map(\.skipped)
        text.bytes.withUnsafeBufferPointer { textBytes in
            json.bytes.withUnsafeBufferPointer { jsonBytes in
                webSocket.bytes.withUnsafeBufferPointer { webSocketBytes in
                    Self.forEach(recipients) { session in
                        let format = session.eventFormat
                        if marked, format == .text, let zone = session.zone, let index = zones.firstIndex(of: zone) {
                            written += zoned[index].bytes.withUnsafeBufferPointer { bytes in
                                Self.send(run: bytes, ends: zoned[index].ends, skips: skips, issuers: issuers, to: session,
                                          direct: direct)
                            }
                            return
                        }
                        let bytes = switch format {
                        case .text: textBytes
                        case .json: jsonBytes
                        case .webSocket: webSocketBytes
                        }
                        guard issuers.contains(session.id) else {
                            Self.send(bytes, to: session, direct: direct)
                            written += skips.count
                            return
                        }
                        let ends = switch format {
                        case .text: text.ends
                        case .json: json.ends
                        case .webSocket: webSocket.ends
                        }
                        written += Self.send(run: bytes, ends: ends, skips: skips, issuers: issuers, to: session, direct: direct)
                    }
                }
            }
        }
        return written
    }

    /// One run's joined events to one session, but those it caused; returns how many
    /// event writes that made.
    private static func send(run bytes: UnsafeBufferPointer<UInt8>, ends: [Int], skips: [UInt64?], issuers: [UInt64],
                             to session: Session, direct: Bool) -> Int {
        guard issuers.contains(session.id) else {
            send(bytes, to: session, direct: direct)
            return skips.count
        }
        var written = 0
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
