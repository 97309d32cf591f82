import ChorusOutbound
import ChorusStore

/// Notices by mail (`--smtp`, `--mail-from`): each claimed row becomes one message — the
/// notice's title as subject, its body as text, a link to what it is about in the app,
/// and the person's one-click stop link (`List-Unsubscribe`, `MailStopPath`) — handed to
/// the mail queue's own threads.
final class SMTPNoticeMailer: NoticeMailer {
    private let queue: MailQueue
    private let from: MailAddress
    /// Where links in a mail point: the server's public origin, known once it listens.
    private let origin: @Sendable () -> String

    init(smtp: SMTPSettings, origin: @escaping @Sendable () -> String) {
        queue = MailQueue(settings: OutboundQueue.Settings(name: "chorus-mail"), smtp: smtp)
        from = smtp.mailFrom
        self.origin = origin
    }

    func send(_ notice: ClaimedNotice, to address: String, completion: @escaping @Sendable (MailSent) -> Void) -> Bool {
        let message: MailMessage
        do {
            message = try Self.message(notice, from: from, to: address, origin: origin())
        } catch {
            // An address or link this mail cannot carry: never deliverable, so given up now.
            completion(.failed("\(error)"))
            return true
        }
        let admission = queue.submit(message) { report in
            switch report.outcome {
            case .delivered: completion(.sent)
            case .rejected(let error), .failed(let error), .gaveUp(let error): completion(.failed("\(error)"))
            case .abandoned: completion(.abandoned)
            }
        }
        return admission == .accepted
    }

    func stop() { queue.shutdown() }

    /// The message for one claimed row. The code mail (`email.verify`) has no stop link:
    /// it is the one mail an unproven address gets.
    static func message(_ notice: ClaimedNotice, from: MailAddress, to address: String, origin: String) throws -> MailMessage {
        let to = try MailAddress(parsing: address)
        let link = try MailMessage.Link(url: MailLinkURL(origin + notice.url),
                                        label: notice.kind == "email.verify" ? "Open Chorus's settings" : "Open in Chorus")
        let unsubscribe = try notice.kind == "email.verify" ? nil : notice.mailStop.map { try MailLinkURL(origin + MailStopPath.prefix + $0) }
        return MailMessage(from: from, to: to, subject: notice.title, text: notice.body, link: link, unsubscribe: unsubscribe)
    }
}
