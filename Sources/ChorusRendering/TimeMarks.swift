import ChorusCore
import Foundation

/// Times inside an event's text, kept as instants until a reader's zone is known
/// (CONTRACT §10: text mode shows a person's times in their `tz`).
///
/// An event's text is stored and sent to many people, each maybe in a zone of their own,
/// so where it shows a time its text holds a mark instead: U+001E, a style letter, the
/// Unix seconds (and for a due text the stored due value), U+001F. `resolved` writes
/// each mark out for one calendar. Every stored field refuses C0 controls
/// (`FieldText`), so nothing a person types can make a mark; one that does not parse is
/// left as it is, and text mode shows its controls as U+FFFD (`TextLine.sanitized`).
public enum TimeMarks {
    static let open: UInt8 = 0x1E
    static let close: UInt8 = 0x1F

    /// "18:04" (`Presentation.clock`) at `date`, in the reader's zone.
    public static func clock(_ date: Date) -> String {
        "\u{1E}c\(seconds(date))\u{1F}"
    }

    /// The task's due text (`Presentation.dueText`) as of `now`, in the reader's zone:
    /// "due today 18:00" for one reader is "due tomorrow 07:00" for another.
    public static func dueText(_ task: TaskRecord, now: Date) -> String {
        if task.done { return "done" }
        guard let due = task.due else { return "" }
        return "\u{1E}d\(seconds(now)) \(due)\u{1F}"
    }

    /// Whether `text` holds a mark to resolve.
    public static func marks(_ text: String) -> Bool {
        text.utf8.contains(open)
    }

    /// `text` with every mark written out for `calendar`; `text` itself when it has none.
    /// Fan-out calls it once per event for each zone among the readers: what lies between
    /// marks is copied in runs, not byte by byte.
    public static func resolved(_ text: String, calendar: Calendar) -> String {
        guard marks(text) else { return text }
        var text = text
        return text.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var copied = 0
            var searched = 0
            while let start = bytes[searched...].firstIndex(of: open) {
                searched = start + 1
                guard let end = bytes[searched...].firstIndex(of: close),
                      let shown = shown(bytes[searched..<end], calendar: calendar) else { continue }
                out.append(contentsOf: bytes[copied..<start])
                out.append(contentsOf: shown.utf8)
                copied = end + 1
                searched = copied
            }
            out.append(contentsOf: bytes[copied...])
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// One mark's body (between its delimiters) written out; nil when it is not a mark.
    private static func shown(_ body: Slice<UnsafeBufferPointer<UInt8>>, calendar: Calendar) -> String? {
        guard let style = body.first else { return nil }
        let rest = body.dropFirst()
        let digitsEnd = rest.firstIndex(where: { !(0x30...0x39).contains($0) }) ?? rest.endIndex
        guard digitsEnd > rest.startIndex, digitsEnd - rest.startIndex <= 12 else { return nil }
        let seconds = rest[..<digitsEnd].reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
        let instant = Date(timeIntervalSince1970: Double(seconds))
        switch style {
        case UInt8(ascii: "c") where digitsEnd == rest.endIndex:
            return Presentation.clock(instant, in: calendar.timeZone)
        case UInt8(ascii: "d") where digitsEnd < rest.endIndex && rest[digitsEnd] == UInt8(ascii: " "):
            let due = String(decoding: rest[(digitsEnd + 1)...], as: UTF8.self)
            guard When(stored: due) != nil else { return nil }
            return Presentation(now: instant, calendar: calendar).dueText(due: due, done: false)
        default:
            return nil
        }
    }

    private static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }
}
