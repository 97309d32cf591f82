import ChorusCore
import ChorusProtocol
import ChorusRendering
import ChorusStore
import Foundation

/// The zone a person reads times in (`NOTIFY tz=`, CONTRACT §10) when it is not the
/// server's. A session keeps its account's (`Session.zone`, read at login and changed by
/// `notify.tz` events); nil is the server's zone, in which every event's text line is
/// made already, so only readers elsewhere cost a rendering (once per zone per loop:
/// `PendingFanOut`).
struct ReaderZone: Sendable, Equatable {
    let identifier: String
    let calendar: Calendar

    static func == (a: ReaderZone, b: ReaderZone) -> Bool { a.identifier == b.identifier }

    /// The reader zone of a stored `tz`: nil for none, an unknown name, or the server's own zone.
    static func of(_ zone: String?, server: Calendar = .current) -> ReaderZone? {
        guard let zone, let calendar = server.inZone(named: zone),
              calendar.timeZone.identifier != server.timeZone.identifier else { return nil }
        return ReaderZone(identifier: calendar.timeZone.identifier, calendar: calendar)
    }

    /// The event that changes a person's zone (`NOTIFY tz=`): its payload's `tz` is the new one.
    static let changeEvent = "notify.tz"

    /// The zone a stored event sets, if it is a `notify.tz` (read back by another node's tail).
    static func set(by event: StoredEvent) -> String? {
        guard event.name == changeEvent,
              let fields = try? JSONSerialization.jsonObject(with: Data(event.payload.utf8)) as? [String: Any] else { return nil }
        return fields["tz"] as? String
    }

    /// The event's text-mode line as this reader sees it.
    func textLine(of event: RenderedEvent) -> [UInt8] {
        guard let marked = event.marked else { return event.text }
        return event.textLine(shown: TimeMarks.resolved(marked.text, calendar: calendar))
    }

    /// A stored event text as the server's zone shows it, when it holds times
    /// (`Event.rendering(…shown:)`); nil when it has none.
    static func shownByServer(_ text: String) -> String? {
        TimeMarks.marks(text) ? TimeMarks.resolved(text, calendar: .current) : nil
    }
}

extension Event {
    /// An event read back from the log, its times in the server's zone and kept for others.
    static func storedRendering(_ event: StoredEvent) -> RenderedEvent {
        storedRendering(id: event.id, name: event.name, at: event.at, by: event.by, payload: event.payload, text: event.text,
                        shown: ReaderZone.shownByServer(event.text))
    }
}
