import ChorusCore
import ChorusNet
import ChorusStore

/// What one committed database job sends to every loop: its events, and the sessions it
/// closes. Made on the database thread right after the commit and handed to each loop
/// once, so fan-out crosses threads once per loop per job, not once per recipient.
/// The event bus hands these out in id order (`EventBus`, `EventOrder`); a tail makes
/// them from other nodes' rows too (`init(foreign:)`).
struct FanOut: Sendable {
    let deliveries: [Delivery]
    /// The session whose command this was: it gets a reply instead of the event.
    let issuer: UInt64?
    let closeUsers: [Int64]
    let closeReason: String
    let closeToken: Int64?
    /// The log ids it covers, events and a session control alike (consecutive: a batch's
    /// events take their ids from the counter in one statement); nil when none.
    let ids: ClosedRange<Int64>?
    /// The reply shows the log up to here (`CommandResult.seenUpTo`).
    let seenUpTo: Int64?
    /// Set when some deliveries are notices: the loops' reports decide which of them
    /// nobody received, to be kept for the next login.
    private let noticeTicket: UInt64?
    /// Another node's notices are among the deliveries: the loops report whom they reached
    /// (`NoticeLedger`, with no ticket).
    private let foreignNotices: Bool

    init(_ result: CommandResult, issuer: UInt64?, state: ServerState, loops: Int) {
        deliveries = result.deliveries
        self.issuer = issuer
        closeUsers = result.closeUsers
        closeReason = result.closeReason
        closeToken = result.closeToken
        let first = result.deliveries.first?.id ?? result.controlID
        let last = result.controlID ?? result.deliveries.last?.id
        ids = first.flatMap { first in last.map { first...max(first, $0) } }
        seenUpTo = result.seenUpTo
        let notices = result.deliveries.filter(\.isNotice).flatMap { delivery in
            delivery.audience.map { UserNotice(user: $0, event: delivery.id) }
        }
        noticeTicket = notices.isEmpty ? nil : state.notices.opened(notices, loops: loops)
        foreignNotices = false
        if !deliveries.isEmpty { state.recordEvents(deliveries.count) }
    }

    /// Other nodes' events or one session control, read from the log (`TailEventBus`).
    /// Nobody here issued them, so every session of the audience gets them; notices among
    /// them were held for their audience by the node that stored them, and the loops here
    /// report whom they reached.
    init(foreign deliveries: [Delivery], control: SessionControl?, ids: ClosedRange<Int64>) {
        self.init(deliveries: deliveries, issuer: nil, closeUsers: control?.closeUsers ?? [], closeReason: control?.reason ?? "",
                  closeToken: control?.closeToken, ids: ids, noticeTicket: nil,
                  foreignNotices: deliveries.contains(where: \.isNotice))
    }

    private init(deliveries: [Delivery], issuer: UInt64?, closeUsers: [Int64], closeReason: String, closeToken: Int64?,
                 ids: ClosedRange<Int64>?, noticeTicket: UInt64?, foreignNotices: Bool) {
        self.deliveries = deliveries
        self.issuer = issuer
        self.closeUsers = closeUsers
        self.closeReason = closeReason
        self.closeToken = closeToken
        self.ids = ids
        self.noticeTicket = noticeTicket
        self.foreignNotices = foreignNotices
        seenUpTo = nil
    }

    /// The same job once its events went out from the log already (`TailOrder`, stale):
    /// nothing is delivered or closed again. Its notices' reports still arrive, so the
    /// ledger may hold some for a login: at worst one is told twice, never lost.
    var withoutDeliveries: FanOut {
        FanOut(deliveries: [], issuer: issuer, closeUsers: [], closeReason: "", closeToken: nil, ids: nil,
               noticeTicket: noticeTicket, foreignNotices: false)
    }

    /// Whether loops other than the issuer's have anything to do.
    var isEmpty: Bool { deliveries.isEmpty && closeUsers.isEmpty && closeToken == nil && noticeTicket == nil && !foreignNotices }

    /// Runs on one loop, with its hub. On the issuer's loop (`withReply`) the issuing
    /// session's notices are left out here: they follow its reply (`Hub.queueReply`).
    func run(on hub: Hub, withReply: Bool = false) {
        let reached = hub.deliver(deliveries, except: issuer, noticesToo: withReply)
        if !closeUsers.isEmpty { hub.closeSessions(ofUsers: closeUsers, reason: closeReason) }
        if let closeToken { hub.closeSessions(ofToken: closeToken) }
        if noticeTicket != nil || foreignNotices { hub.state.notices.delivered(noticeTicket, reached: reached) }
    }
}
