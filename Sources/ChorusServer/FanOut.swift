import ChorusCore
import ChorusNet

/// What one committed database job sends to every loop: its events, and the sessions it
/// closes. Made on the database thread right after the commit and handed to each loop
/// once, so fan-out crosses threads once per loop per job, not once per recipient.
/// The event bus hands these out in commit order (`EventBus`, `EventOrder`).
struct FanOut: Sendable {
    let deliveries: [Delivery]
    /// The session whose command this was: it gets a reply instead of the event.
    let issuer: UInt64?
    let closeUsers: [Int64]
    let closeReason: String
    let closeToken: Int64?
    /// Set when some deliveries are notices: the loops' reports decide which of them
    /// nobody received, to be kept for the next login.
    private let noticeTicket: UInt64?

    init(_ result: CommandResult, issuer: UInt64?, state: ServerState, loops: Int) {
        deliveries = result.deliveries
        self.issuer = issuer
        closeUsers = result.closeUsers
        closeReason = result.closeReason
        closeToken = result.closeToken
        let notices = result.deliveries.filter(\.isNotice).flatMap { delivery in
            delivery.audience.map { UserNotice(user: $0, event: delivery.id) }
        }
        noticeTicket = notices.isEmpty ? nil : state.notices.opened(notices, loops: loops)
        if !deliveries.isEmpty { state.recordEvents(deliveries.count) }
    }

    /// Whether loops other than the issuer's have anything to do.
    var isEmpty: Bool { deliveries.isEmpty && closeUsers.isEmpty && closeToken == nil }

    /// Runs on one loop, with its hub. On the issuer's loop (`withReply`) the issuing
    /// session's notices are left out here: they follow its reply (`Hub.queueReply`).
    func run(on hub: Hub, withReply: Bool = false) {
        let reached = hub.deliver(deliveries, except: issuer, noticesToo: withReply)
        if !closeUsers.isEmpty { hub.closeSessions(ofUsers: closeUsers, reason: closeReason) }
        if let closeToken { hub.closeSessions(ofToken: closeToken) }
        if let noticeTicket { hub.state.notices.delivered(noticeTicket, reached: reached) }
    }
}
