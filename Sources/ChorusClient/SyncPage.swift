import ChorusProtocol

/// One reply to `SYNC AFTER_ID [LIMIT]`, in either mode: the events with their ids, a
/// key to recognise each one by, the line to show a person or bot, and where to go next.
///
/// Text mode lists `  #411 18:04 bob in Flat 2B: hi` and ends with
/// `OK N events after #410[ · more: SYNC 411]`; JSON mode has `events`, `more` and `last`.
public struct SyncPage {
    public struct Entry {
        public let id: Int64
        /// What the same event shown live is recognised by (`#ID`, see `EventCursor`).
        public let key: String
        /// `* TEXT [#ID]` in text mode, the event's JSON object in JSON mode.
        public let display: String
    }

    public let entries: [Entry]
    public let more: Bool
    /// The id to ask after next.
    public let last: Int64
    /// The cursor was past the end of the server's log (a backup was restored there):
    /// `last` is the log's end, to start over from; there are no entries.
    public let reset: Bool

    /// Nil when the reply is not a readable SYNC reply (an error, say).
    public init?(body: [ServerLine], final: ServerLine, after: Int64) {
        guard final.kind == .ok else { return nil }
        if let json = final.json {
            var entries: [Entry] = []
            for raw in JSONArraySlicer.elements(of: "events", in: final.raw) ?? [] {
                guard let id = (ServerLine.decode(raw)?["id"] as? Int).map(Int64.init) else { continue }
                entries.append(Entry(id: id, key: "#\(id)", display: raw))
            }
            self.entries = entries
            more = json["more"] as? Bool ?? false
            last = (json["last"] as? Int).map(Int64.init) ?? entries.last?.id ?? after
            reset = json["reset"] as? Bool ?? false
            return
        }
        // `OK history was restored: your cursor #833 is past the end (#830); start again from #830`
        if final.untagged.hasPrefix("OK history was restored"), let range = final.untagged.range(of: "start again from #"),
           let end = Int64(final.untagged[range.upperBound...].prefix { $0.isNumber }) {
            entries = []
            more = false
            last = end
            reset = true
            return
        }
        reset = false
        var entries: [Entry] = []
        for line in body {
            let text = line.untagged.drop { $0 == " " }
            guard text.hasPrefix("#"), let space = text.firstIndex(of: " "),
                  let id = Int64(text[text.index(after: text.startIndex)..<space]) else { continue }
            let rest = String(text[text.index(after: space)...])
            // Shown as the live event was: `* TEXT [#ID]`.
            entries.append(Entry(id: id, key: "#\(id)", display: Event.textLine(rest, id: id)))
        }
        self.entries = entries
        if let range = final.untagged.range(of: "more: SYNC "), let next = Int64(final.untagged[range.upperBound...].prefix { $0.isNumber }) {
            more = true
            last = next
        } else {
            more = false
            last = entries.last?.id ?? after
        }
    }
}
