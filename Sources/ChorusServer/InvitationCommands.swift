import ChorusCore
import ChorusRendering
import ChorusStore

/// ROOM ADD, ACCEPT and DECLINE: a housemate is added at once, anyone else is asked
/// (CONTRACT §11; the rule is ChorusCore's `Consent`).
extension CommandContext {
    /// ROOM ADD R USER
    func roomAdd(_ reference: String, user name: String) throws -> CommandResult {
        let room = try room(reference, atLeast: .admin, to: "add members")
        let account = try user(named: name)
        if try db.role(ofUser: account.id, inRoom: room.id) != nil {
            throw DomainError.alreadyMember(user: account.name, room: room.name)
        }
        let shared = try db.sharedRoomIDs(of: caller.id, and: account.id)
        if shared.isEmpty { try Consent.requireMayInvite(open: try db.openInvitations(from: caller.id)) }
        switch Consent.addition(sharesARoom: !shared.isEmpty, blockedByThem: try db.hasBlocked(account.id, caller.id)) {
        case .atOnce:
            return try addAtOnce(account, to: room)
        case .invitation:
            if try db.addInvitation(room: room.id, user: account.id, invitedBy: caller.id, created: timestamp) {
                try emit(NoticeKind.invitationEventName, room: room.id, user: account.id,
                         payload: [("room", .int(room.id)), ("name", .string(room.name)), ("invited_by", .string(caller.name)),
                                   ("user", .string(account.name))],
                         text: "\(caller.name) invited you to \(room.name) (#\(room.id)) — ROOM ACCEPT \(room.id) to join, "
                             + "ROOM DECLINE \(room.id) to say no",
                         audience: [account.id], heldForLogin: true)
            }
            return try invitedReply(account, to: room)
        case .dropped:
            // Word for word what an invitation answers: the caller cannot tell.
            return try invitedReply(account, to: room)
        }
    }

    private func addAtOnce(_ account: AccountRecord, to room: RoomAccess) throws -> CommandResult {
        do {
            try db.addMember(room: room.id, user: account.id, role: .member, joined: timestamp)
        } catch let error as StoreError where error.kind == .duplicate {
            throw DomainError.alreadyMember(user: account.name, room: room.name)
        }
        _ = try db.deleteInvitation(room: room.id, user: account.id)
        // An owner or admin took them back in: a removal no longer keeps them out.
        try db.forgetRemoval(room: room.id, user: account.id)
        let event = try emitToRoom("member.added", room: room.id, payload: [("user", .string(account.name)), ("role", .string("member"))],
                                   text: "\(caller.name) added \(account.name) to \(room.name)")
        try db.openMembership(room: room.id, user: account.id, fromEvent: event)
        var done = try roomReply("added \(account.name) to \(room.name)", room.id)
        done.reply.fields.insert(("invited", .bool(false)), at: 0)
        return done
    }

    private func invitedReply(_ account: AccountRecord, to room: RoomAccess) throws -> CommandResult {
        let shown = try db.room(id: room.id, forUser: caller.id, now: now)
        return result(.ok("invited \(account.name) to \(room.name) — they are in once they accept",
                          [("invited", .bool(true)), ("room", shown.map { present.room($0) } ?? .int(room.id))]))
    }

    /// ROOM ACCEPT R: the invitation becomes a membership.
    func roomAccept(_ reference: String) throws -> CommandResult {
        let invitation = try Consent.invitation(reference, among: try db.invitations(ofUser: caller.id))
        // The row is the claim: of two answers racing (two devices, two nodes), one finds it.
        guard try db.deleteInvitation(room: invitation.room, user: caller.id) else { throw DomainError.noInvitation(reference) }
        do {
            try db.addMember(room: invitation.room, user: caller.id, role: .member, joined: timestamp)
        } catch let error as StoreError where error.kind == .duplicate {
            throw DomainError.alreadyInRoom(invitation.room)
        }
        // Asked by an owner or admin and now in: a removal no longer keeps them out.
        try db.forgetRemoval(room: invitation.room, user: caller.id)
        guard let room = try db.room(id: invitation.room, forUser: caller.id, now: now) else { throw DomainError.noInvitation(reference) }
        let event = try emitToRoom("member.added", room: room.id, payload: [("user", .string(caller.name)), ("role", .string("member"))],
                                   text: "\(caller.name) joined \(room.name) at \(invitation.invitedBy)'s invitation")
        try db.openMembership(room: room.id, user: caller.id, fromEvent: event)
        return result(.ok("joined \(room.name) (#\(room.id))", [("room", present.room(ReadMarker.justJoined(room)))]))
    }

    /// ROOM DECLINE R: the invitation ends; nobody is told.
    func roomDecline(_ reference: String) throws -> CommandResult {
        let invitation = try Consent.invitation(reference, among: try db.invitations(ofUser: caller.id))
        guard try db.deleteInvitation(room: invitation.room, user: caller.id) else { throw DomainError.noInvitation(reference) }
        return result(.ok("declined the invitation to \(invitation.roomName)", [("room", .int(invitation.room))]))
    }
}
