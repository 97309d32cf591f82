import ChorusCore

/// What a push or mail about a notice says (CONTRACT §10's payload: title, body, url),
/// and the `Topic` that lets a newer push about the same task replace an older one.
/// Plain text: the service worker and the mail's text part show it as text.
public struct NoticeWording: Sendable, Equatable {
    public let title: String
    public let body: String
    /// The app's address, relative to the server's origin.
    public let url: String
    public let topic: String?

    public init(title: String, body: String, url: String, topic: String?) {
        self.title = title
        self.body = body
        self.url = url
        self.topic = topic
    }

    /// Longest title and body kept, in characters and in UTF-8 bytes: a push payload is at
    /// most ~4 KB once encrypted (combining marks make a short text long in bytes), and a
    /// phone shows a few lines.
    static let titleLength = 120
    static let bodyLength = 600
    static let titleBytes = 480
    static let bodyBytes = 2400

    public static func task(_ kind: NotifyKind, _ task: TaskRecord, detail: String) -> NoticeWording {
        let heading = switch kind {
        case .reminder: "Reminder"
        case .overdue: "Overdue"
        case .behind: "Behind schedule"
        case .assigned: "For you"
        case .comment: "New comment"
        case .mention, .dm: "Chorus"
        }
        let place = task.roomName.map { " · \($0)" } ?? ""
        return NoticeWording(title: cut("\(heading): \(task.title)", titleLength, titleBytes), body: cut(detail + place, bodyLength, bodyBytes),
                             url: "/#/tasks/\(task.id)", topic: topic(task: task.id))
    }

    public static func directMessage(from sender: String, text: String) -> NoticeWording {
        NoticeWording(title: cut("\(sender) wrote to you", titleLength, titleBytes), body: cut(text, bodyLength, bodyBytes), url: "/#/stream",
                      topic: nil)
    }

    public static func mention(by sender: String, room: (id: Int64, name: String)?, task: (id: Int64, title: String)?,
                               text: String) -> NoticeWording {
        let whereText = task.map { " on #\($0.id) \($0.title)" } ?? room.map { " in \($0.name)" } ?? ""
        let url = task.map { "/#/tasks/\($0.id)" } ?? room.map { "/#/rooms/\($0.id)/chat" } ?? "/"
        return NoticeWording(title: cut("\(sender) mentioned you\(whereText)", titleLength, titleBytes), body: cut(text, bodyLength, bodyBytes), url: url,
                             topic: nil)
    }

    /// `Topic` is at most 32 characters of the base64url alphabet (RFC 8030 §5.4).
    public static func topic(task: Int64) -> String { "task-\(task)" }

    /// At most `length` characters and `bytes` UTF-8 bytes, whole characters, an ellipsis
    /// where it was cut.
    static func cut(_ text: String, _ length: Int, _ bytes: Int) -> String {
        if text.count <= length && text.utf8.count <= bytes { return text }
        var kept = ""
        var used = 3  // the ellipsis
        for character in text.prefix(length - 1) {
            used += character.utf8.count
            if used > bytes { break }
            kept.append(character)
        }
        return kept + "…"
    }
}
