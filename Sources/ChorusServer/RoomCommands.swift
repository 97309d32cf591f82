import ChorusCore
import ChorusRendering
import ChorusCrypto
import ChorusStore
import Foundation

/// ROOMS and ROOM ...: households, their members, roles and invite codes.
extension CommandContext {
    static let maxRoomName = 100

    /// ROOMS: the caller's rooms, then the rooms they are invited to (name and inviter only).
    func rooms() throws -> CommandResult {
        let rooms = try db.rooms(ofUser: caller.id, now: now)
        let invitations = try db.invitations(ofUser: caller.id)
        var summary = rooms.count == 1 ? "1 room" : "\(rooms.count) rooms"
        if !invitations.isEmpty { summary += invitations.count == 1 ? " · 1 invitation" : " · \(invitations.count) invitations" }
        return result(.ok(summary, body: rooms.map(present.roomLine) + invitations.map(present.invitationLine),
                          [("rooms", .array(rooms.map { present.room($0) } + invitations.map(present.invitation)))]))
    }

    /// ROOM CREATE NAME...
    func roomCreate(name raw: String) throws -> CommandResult {
        let name = try Self.roomName(raw)
        let id = try db.createRoom(name: name, ownerID: caller.id, created: timestamp)
        guard let room = try db.room(id: id, forUser: caller.id, now: now) else { throw ChorusError.roomVanished }
        let event = try emitToRoom("member.added", room: id, payload: [("user", .string(caller.name)), ("role", .string("owner"))],
                                   text: "\(caller.name) created \(name) (#\(id))")
        try db.openMembership(room: id, user: caller.id, fromEvent: event)
        return result(.ok("created \(name) (#\(id)) — you are its owner", [("room", present.room(room))]))
    }

    /// ROOM SHOW R
    func roomShow(_ reference: String) throws -> CommandResult {
        let room = try roomRecord(try room(reference))
        let members = try db.members(ofRoom: room.id)
        let body = ["  \(room.name) (#\(room.id))  \(Presentation.bar(room.progress))  \(room.open) open"]
            + members.map { member in
                let online = self.online.contains(member.userID) ? "online" : ""
                return "    \(member.name.padded(toColumns: 20))  \(member.role.rawValue.padded(toColumns: 6))  \(online)"
            }
        let shape = present.room(room, members: members.map { ($0, online.contains($0.userID)) })
        return result(.ok("\(members.count) member\(members.count == 1 ? "" : "s")", body: body, [("room", shape)]))
    }

    /// ROOM RENAME R NAME...
    func roomRename(_ reference: String, to raw: String) throws -> CommandResult {
        let room = try room(reference, atLeast: .admin, to: "rename it")
        let name = try Self.roomName(raw)
        try db.renameRoom(room.id, to: name)
        try emitToRoom("room.renamed", room: room.id, payload: [("name", .string(name)), ("old_name", .string(room.name))],
                       text: "\(caller.name) renamed \(room.name) to \(name)")
        return try roomReply("renamed \(room.name) to \(name)", room.id)
    }

    /// ROOM REMOVE R USER: a member leaves, or an invitation not yet answered is withdrawn;
    /// either way no invite code of the room lets them back until an owner or admin adds them.
    func roomRemove(_ reference: String, user name: String) throws -> CommandResult {
        let room = try room(reference, atLeast: .admin, to: "remove members")
        let account = try user(named: name)
        let role = try db.role(ofUser: account.id, inRoom: room.id)
        if role == nil {
            // Invited, declined, never asked, or dropped by a block: one answer for all, so
            // the reply tells the caller none of those apart (CONTRACT §11).
            _ = try db.deleteInvitation(room: room.id, user: account.id)
            try db.recordRemoval(room: room.id, user: account.id, at: timestamp)
            return try roomReply("\(account.name) is not in \(room.name): any invitation is withdrawn, and its invite codes no longer let them in",
                                 room.id)
        }
        try Permissions.requireRemovable((account.id, account.name), role: role, from: room, caller: caller.id)
        let audience = try db.memberIDs(ofRoom: room.id)
        let chores = try openTasks(of: account, in: room.id)
        try db.removeMember(room: room.id, user: account.id)
        // Out of the room, out of its calendar feed (CONTRACT §9).
        _ = try db.deleteCalendarLink(user: account.id, room: room.id)
        try db.recordRemoval(room: room.id, user: account.id, at: timestamp)
        let event = try emit("member.removed", room: room.id, payload: [("room", .int(room.id)), ("user", .string(account.name))],
                             text: "\(caller.name) removed \(account.name) from \(room.name)", audience: audience)
        try db.closeMembership(room: room.id, user: account.id, atEvent: event)
        try announceUnassigned(chores, from: account.name)
        return try roomReply("removed \(account.name) from \(room.name)", room.id)
    }

    /// ROOM LEAVE R
    func roomLeave(_ reference: String) throws -> CommandResult {
        let room = try room(reference)
        try Permissions.requireMayLeave(room)
        let audience = try db.memberIDs(ofRoom: room.id)
        let chores = try openTasks(of: try user(named: caller.name), in: room.id)
        try db.removeMember(room: room.id, user: caller.id)
        _ = try db.deleteCalendarLink(user: caller.id, room: room.id)
        let event = try emit("member.removed", room: room.id, payload: [("room", .int(room.id)), ("user", .string(caller.name))],
                             text: "\(caller.name) left \(room.name)", audience: audience)
        try db.closeMembership(room: room.id, user: caller.id, atEvent: event)
        try announceUnassigned(chores, from: caller.name)
        return result(.ok("left \(room.name)", [("room", .int(room.id))]))
    }

    /// ROOM ROLE R USER owner|admin|member
    func roomRole(_ reference: String, user name: String, role word: RoleName) throws -> CommandResult {
        let role = Role(word)
        let room = try room(reference, atLeast: .owner, to: "change roles")
        let account = try user(named: name)
        let current = try db.role(ofUser: account.id, inRoom: room.id)
        let handover = try Permissions.roleChange(of: (account.id, account.name), from: current, to: role, in: room, caller: caller.id)
        try db.setRole(room: room.id, user: account.id, role: role)
        try emitToRoom("member.role", room: room.id, payload: [("user", .string(account.name)), ("role", .string(role.rawValue))],
                       text: "\(caller.name) made \(account.name) \(role.rawValue) of \(room.name)")
        if handover {
            // Handing over: the old owner stays on as an admin.
            try db.setRole(room: room.id, user: caller.id, role: .admin)
            try emitToRoom("member.role", room: room.id, payload: [("user", .string(caller.name)), ("role", .string("admin"))],
                           text: "\(caller.name) is now admin of \(room.name)")
        }
        return try roomReply("\(account.name) is now \(role.rawValue) of \(room.name)", room.id)
    }

    /// ROOM DELETE R
    func roomDelete(_ reference: String) throws -> CommandResult {
        let room = try room(reference, atLeast: .owner, to: "delete it")
        let audience = try db.memberIDs(ofRoom: room.id)
        try db.deleteRoom(room.id)
        let event = try emit("room.deleted", room: room.id, payload: [("room", .int(room.id)), ("name", .string(room.name))],
                             text: "\(caller.name) deleted \(room.name) with its tasks and messages", audience: audience)
        try db.closeMembership(room: room.id, user: nil, atEvent: event)
        return result(.ok("deleted \(room.name)", [("room", .int(room.id))]))
    }

    // MARK: Invites

    /// ROOM INVITE R [uses=N] [expires=WHEN]
    func roomInvite(_ reference: String, uses: Int?, expires word: DateWord?) throws -> CommandResult {
        let room = try room(reference, atLeast: .admin, to: "invite")
        let expires = Timestamp.rfc3339(try InviteRules.expiry(word, now: now))
        let code = InviteCode.make()
        try db.createInvite(code: code, room: room.id, createdBy: caller.id, usesLeft: uses, expires: expires, created: timestamp)
        let usesText = uses.map { "\($0) use\($0 == 1 ? "" : "s")" } ?? "unlimited uses"
        return result(.ok("invite code \(code) for \(room.name) · \(usesText) · until \(expires) · join with ROOM JOIN \(code)",
                          [("code", .string(code)), ("room", .int(room.id)), ("uses_left", uses.map { .int($0) } ?? .null),
                           ("expires", .string(expires))]))
    }

    /// ROOM INVITES R
    func roomInvites(_ reference: String) throws -> CommandResult {
        let room = try room(reference, atLeast: .admin, to: "see its invites")
        let invites = try db.invites(ofRoom: room.id).filter { !InviteRules.isExpired($0, now: now) }
        let body = invites.map { invite in
            "  \(invite.code)  \(invite.usesLeft.map { "\($0) left" } ?? "unlimited")  until \(invite.expires ?? "-")  by \(invite.createdBy)"
        }
        return result(.ok("\(invites.count) invite\(invites.count == 1 ? "" : "s")", body: body,
                          [("invites", .array(invites.map(present.invite)))]))
    }

    /// ROOM UNINVITE R CODE
    func roomUninvite(_ reference: String, code raw: String) throws -> CommandResult {
        let room = try room(reference, atLeast: .admin, to: "cancel invites")
        guard let code = InviteCode.normalized(raw), try db.deleteInvite(code: code, room: room.id) else {
            throw DomainError.noSuchInviteInRoom(code: raw, room: room.name)
        }
        return result(.ok("cancelled \(code)", [("code", .string(code))]))
    }

    /// ROOM JOIN CODE
    func roomJoin(code raw: String) throws -> CommandResult {
        let code = InviteCode.normalized(raw)
        let found = try code.flatMap { try db.invite(code: $0) }
        let isMember = try found.map { try db.role(ofUser: caller.id, inRoom: $0.room) != nil } ?? false
        let wasRemoved = try found.map { try db.wasRemoved(user: caller.id, from: $0.room) } ?? false
        let invite = try InviteRules.requireJoinable(found, typed: raw, isMember: isMember, wasRemoved: wasRemoved, now: now)
        let room = try join(invite, typed: raw)
        return result(.ok("joined \(room.name) (#\(room.id))", [("room", present.room(room))]))
    }

    /// REGISTER NAME PASSWORD invite=CODE, in the new account's own job (the caller): the
    /// code must let someone in now (`SignUpRules.requireUsableInvite`), and joining is
    /// ROOM JOIN's, so a failure undoes the account with it.
    func joinAsNewAccount(code raw: String, mode: RegistrationMode) throws -> RoomRecord {
        let found = try InviteCode.normalized(raw).flatMap { try db.invite(code: $0) }
        return try join(try SignUpRules.requireUsableInvite(found, typed: raw, mode: mode, now: now), typed: raw)
    }

    /// Makes the caller a member by a code already checked: one use of it, `member.added`
    /// to the room, and the caller's membership span from that event.
    private func join(_ invite: InviteRecord, typed raw: String) throws -> RoomRecord {
        try db.addMember(room: invite.room, user: caller.id, role: .member, joined: timestamp)
        try db.useInvite(code: invite.code)
        // In by a code: an invitation to the same room has nothing left to ask.
        _ = try db.deleteInvitation(room: invite.room, user: caller.id)
        guard let room = try db.room(id: invite.room, forUser: caller.id, now: now) else { throw DomainError.noSuchInvite(raw) }
        let event = try emitToRoom("member.added", room: room.id, payload: [("user", .string(caller.name)), ("role", .string("member"))],
                                   text: "\(caller.name) joined \(room.name) with an invite from \(invite.createdBy)")
        try db.openMembership(room: room.id, user: caller.id, fromEvent: event)
        return ReadMarker.justJoined(room)
    }

    /// The open tasks someone holds in a room, before they leave it.
    private func openTasks(of account: AccountRecord, in room: Int64) throws -> [Int64] {
        try db.tasks(in: .room(room), done: false).filter { $0.assignee == account.name }.map(\.id)
    }

    /// Someone left: their chores went back to the pool; the room hears of each one.
    private func announceUnassigned(_ tasks: [Int64], from name: String) throws {
        for id in tasks {
            guard let task = try db.task(id: id) else { continue }
            try emitTask("task.updated", task, text: "#\(id) \(task.title) is unassigned: \(name) left \(task.roomName ?? "the room")")
        }
    }

    /// An OK whose JSON carries the room as the caller now sees it.
    func roomReply(_ summary: String, _ id: Int64) throws -> CommandResult {
        let room = try db.room(id: id, forUser: caller.id, now: now)
        return result(.ok(summary, [("room", room.map { present.room($0) } ?? .int(id))]))
    }

    static func roomName(_ raw: String) throws -> String {
        try FieldText.oneLine(raw, "a room name", maxCharacters: maxRoomName)
    }
}

/// Invite codes people can read out and type: 16 characters from an alphabet without
/// look-alikes (no 0/O, 1/I/L), about 79 bits of randomness, shown in groups of four.
enum InviteCode {
    static let alphabet = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ")

    static func make() -> String {
        // 31 symbols: draw bytes and reject the top values so every symbol is equally likely.
        var symbols: [Character] = []
        while symbols.count < 16 {
            for byte in SecureRandom.bytes(32) where Int(byte) < 248 && symbols.count < 16 {
                symbols.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return stride(from: 0, to: 16, by: 4).map { String(symbols[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// Case, spaces and dashes do not matter when typing a code.
    static func normalized(_ raw: String) -> String? {
        let symbols = raw.uppercased().filter { $0 != "-" && $0 != " " }
        guard symbols.count == 16, symbols.allSatisfy(alphabet.contains) else { return nil }
        let array = Array(symbols)
        return stride(from: 0, to: 16, by: 4).map { String(array[$0..<$0 + 4]) }.joined(separator: "-")
    }
}
