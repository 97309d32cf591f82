/// Who may reach whom (CONTRACT §11): on a server strangers share, nobody is put in a
/// room, or sent a DM, by someone they share no household with unless they say yes.
/// The store gives the facts (shared rooms, blocks, open invitations, removals); these
/// functions decide.
public enum Consent {
    /// What ROOM ADD does for someone who is not a member yet.
    public enum Addition: Equatable, Sendable {
        /// A housemate (they share a room with the caller now) who has not blocked the caller.
        case atOnce
        /// Anyone else is asked: they join with ROOM ACCEPT, or say no with ROOM DECLINE.
        case invitation
        /// They blocked the caller: nothing reaches them, and the reply is an invitation's,
        /// so the caller cannot tell.
        case dropped
    }

    /// Invitations one person may have waiting for an answer at a time: enough for any
    /// household, few enough that one account cannot invite the whole server.
    public static let maxOpenInvitations = 50

    /// ROOM ADD of someone who is not a housemate, with `open` invitations of the caller's
    /// still unanswered. Asked before knowing whether the invitee blocked the caller, so
    /// the refusal does not depend on it.
    public static func requireMayInvite(open: Int) throws(DomainError) {
        guard open < maxOpenInvitations else { throw .tooManyOpenInvitations(max: maxOpenInvitations) }
    }

    /// A blocked caller is never added at once, whatever rooms they share.
    public static func addition(sharesARoom: Bool, blockedByThem: Bool) -> Addition {
        if blockedByThem { return .dropped }
        return sharesARoom ? .atOnce : .invitation
    }

    /// What becomes of a DM.
    public enum Delivery: Equatable, Sendable {
        case delivered
        /// The recipient blocked the sender: kept as sent for the sender alone.
        case dropped
    }

    /// DM USER: only a housemate (or oneself) is reached; a stranger gets the answer a name
    /// nobody has gets, so a DM cannot probe who exists or reach anyone uninvited.
    public static func directMessage(to typed: String, found: Int64?, caller: Int64, sharedRooms: [Int64],
                                     blockedByThem: Bool) throws(DomainError) -> Delivery {
        _ = try Permissions.requireHousemate(named: typed, found: found, caller: caller, sharedRooms: sharedRooms)
        return blockedByThem ? .dropped : .delivered
    }

    /// BLOCK USER: anyone but oneself.
    public static func requireBlockable(_ account: (id: Int64, name: String), caller: Int64) throws(DomainError) {
        guard account.id != caller else { throw .blockSelf }
    }

    /// ROOM ACCEPT / DECLINE R: R is the room's id, or a name unique among the rooms the
    /// caller is invited to. No invitation answers alike for a room that exists and one that does not.
    public static func invitation(_ reference: String, among open: [InvitationRecord]) throws(DomainError) -> InvitationRecord {
        let digits = reference.hasPrefix("#") ? String(reference.dropFirst()) : reference
        if let id = Int64(digits) {
            guard let found = open.first(where: { $0.room == id }) else { throw .noInvitation(reference) }
            return found
        }
        let wanted = reference.lowercased()
        let named = open.filter { $0.roomName.lowercased() == wanted }
        guard let first = named.first else { throw .noInvitation(reference) }
        guard named.count == 1 else { throw .ambiguousRoomName(reference, ids: named.map(\.room)) }
        return first
    }
}
