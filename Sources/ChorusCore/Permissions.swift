/// Who may see and do what in a room. The handlers look things up and ask here; nothing
/// here reads the store. A room or task the caller cannot see is refused exactly like one
/// that does not exist (`noSuch…`, never a "forbidden"), so outsiders learn nothing.
public enum Permissions {
    /// A room by reference, as the caller sees it: `access` is the caller's membership of
    /// the room it names (nil when not a member or no such room).
    public static func visibleRoom(_ access: RoomAccess?, reference: String) throws(DomainError) -> RoomAccess {
        guard let access else { throw .noSuchRoom(reference) }
        return access
    }

    /// The one room among the caller's rooms a name picks (`ids`: those with that name).
    public static func roomNamed(_ name: String, among ids: [Int64]) throws(DomainError) -> Int64 {
        guard let first = ids.first else { throw .noSuchRoom(name) }
        guard ids.count == 1 else { throw .ambiguousRoomName(name, ids: ids) }
        return first
    }

    /// TASKS @NAME: NAME is a housemate, someone the caller shares a room with now, or the
    /// caller. Anyone else, a stranger or a name nobody has (`found` nil), is "no such
    /// user" alike, so the verb tells nobody which accounts exist.
    public static func requireHousemate(named typed: String, found: Int64?, caller: Int64,
                                        sharedRooms: [Int64]) throws(DomainError) -> Int64 {
        guard let found, found == caller || !sharedRooms.isEmpty else { throw .noSuchUser(typed) }
        return found
    }

    /// The caller must hold at least `role` in the room to do `action`.
    public static func require(_ role: Role, in room: RoomAccess, to action: String) throws(DomainError) {
        guard room.role >= role else { throw .roleRequired(role, room: room.name, action: action) }
    }

    /// A task the caller may see: one in a room they belong to (`role`: theirs there, nil
    /// when not a member), or their own personal task. Returns `role`.
    public static func visibleTask(_ task: TaskRecord, caller: Int64, role: Role?) throws(DomainError) -> Role? {
        if task.room != nil {
            guard let role else { throw .noSuchTask(task.id) }
            return role
        }
        guard task.ownerID == caller else { throw .noSuchTask(task.id) }
        return nil
    }

    /// Editing and deleting a room task: its creator, or an admin or owner of its room.
    /// A personal task is its owner's, who has already been let see it.
    public static func requireEditable(_ task: TaskRecord, caller: Int64, role: Role?, to action: String) throws(DomainError) {
        if task.room != nil && task.creatorID != caller && (role ?? .member) < .admin {
            throw .onlyCreatorOrAdmin(task: task.id, room: task.roomName, action: action)
        }
    }

    /// Who can take a task: a member of its room (`role`: the account's there), or for a
    /// personal task only its owner.
    public static func requireAssignable(_ account: (id: Int64, name: String), to task: TaskRecord, role: Role?) throws(DomainError) {
        if task.room != nil {
            guard role != nil else { throw .notAMember(user: account.name, room: task.roomName) }
        } else if account.id != task.ownerID {
            throw .personalTaskAssignee
        }
    }

    /// ROOM REMOVE: not oneself (that is leaving), never the owner, and an admin only by the owner.
    /// `role`: the removed account's (nil when not a member).
    public static func requireRemovable(_ account: (id: Int64, name: String), role: Role?, from room: RoomAccess,
                                        caller: Int64) throws(DomainError) {
        guard let role else { throw .notAMember(user: account.name, room: room.name) }
        if account.id == caller { throw .removeSelf(room: room.name) }
        guard role != .owner else { throw .removeOwner(room: room.name) }
        guard role < room.role else { throw .removeAdmin(room: room.name) }
    }

    /// ROOM LEAVE: anyone but the owner, who hands the room over first.
    public static func requireMayLeave(_ room: RoomAccess) throws(DomainError) {
        guard room.role != .owner else { throw .ownerLeaving(room: room.name, id: room.id) }
    }

    /// ROOM ROLE (the caller is the owner): gives `account` the role `new`. True when that
    /// hands the room over, and the caller steps down to admin.
    public static func roleChange(of account: (id: Int64, name: String), from current: Role?, to new: Role, in room: RoomAccess,
                                  caller: Int64) throws(DomainError) -> Bool {
        guard let current else { throw .notAMember(user: account.name, room: room.name) }
        guard account.id != caller else { throw .ownerKeepsRole }
        guard current != new else { throw .alreadyHasRole(user: account.name, role: new, room: room.name) }
        return new == .owner
    }
}
