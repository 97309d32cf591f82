import ChorusCore
import ChorusStore
import Foundation
import Testing

/// Rooms, members, invites, tasks and chat, on every engine.
@Suite struct HouseholdStoreTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    /// The creator is the owner; adding twice is a duplicate; members are listed owner first.
    @Test(arguments: StoreEngine.all) func roomsAndMembers(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let now = self.now
        try store.run { try $0.addMember(room: home.room, user: home.bob, role: .member, joined: "t") }
        let again = #expect(throws: StoreError.self) {
            try store.run { try $0.addMember(room: home.room, user: home.bob, role: .member, joined: "t") }
        }
        #expect(again?.kind == .duplicate && again?.reason == "already a member")
        #expect(try store.run { try $0.members(ofRoom: home.room).map(\.name) } == ["alice", "bob"])
        #expect(try store.run { try $0.role(ofUser: home.alice, inRoom: home.room) } == .owner)
        #expect(try store.run { try $0.rooms(ofUser: home.bob, now: now).map(\.name) } == ["Flat 2B"])
        #expect(try store.run { try $0.room(id: home.room, forUser: home.bob + 1, now: now) } == nil)
        #expect(try store.run { try $0.roomIDs(named: "flat 2b", forUser: home.alice) } == [home.room])
        #expect(try store.run { try $0.roomIDs(named: "flat 2b", forUser: home.bob + 1) } == [])
    }

    /// Fan-out's member lists and every room command's access check follow each change:
    /// adds, role changes, renames, removals, and the room's deletion.
    @Test(arguments: StoreEngine.all) func membersAndAccessFollowEveryChange(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let carol = try store.run { try $0.createAccount(name: "carol", passwordHash: "x", created: "t").id }
        func ids() throws -> [Int64] { try store.run { try $0.memberIDs(ofRoom: home.room) } }
        func access(_ user: Int64) throws -> RoomAccess? { try store.run { try $0.roomAccess(id: home.room, forUser: user) } }
        #expect(try ids() == [home.alice])
        try store.run { try $0.addMember(room: home.room, user: carol, role: .member, joined: "t") }
        try store.run { try $0.addMember(room: home.room, user: home.bob, role: .member, joined: "t") }
        #expect(try ids() == [home.alice, home.bob, carol])
        #expect(try ids() == [home.alice, home.bob, carol])
        #expect(try access(home.bob) == RoomAccess(id: home.room, name: "Flat 2B", role: .member))
        try store.run { try $0.setRole(room: home.room, user: home.bob, role: .admin) }
        #expect(try access(home.bob)?.role == .admin)
        try store.run { try $0.renameRoom(home.room, to: "Flat 3C") }
        #expect(try access(home.alice)?.name == "Flat 3C")
        #expect(try access(home.bob)?.name == "Flat 3C")
        try store.run { try $0.removeMember(room: home.room, user: home.bob) }
        #expect(try ids() == [home.alice, carol])
        #expect(try access(home.bob) == nil)
        try store.run { try $0.deleteRoom(home.room) }
        #expect(try ids() == [])
        #expect(try access(home.alice) == nil)
    }

    /// A unit of work that throws keeps none of its changes, and reads after it (the
    /// member list, which fan-out may cache) say so; one on another connection is seen.
    @Test(arguments: StoreEngine.all) func aUnitOfWorkThatThrowsKeepsNothing(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        struct Undo: Error {}
        let seenInside = Collected<[Int64]>()
        #expect(throws: Undo.self) {
            try store.run { db in
                try db.addMember(room: home.room, user: home.bob, role: .member, joined: "t")
                seenInside.append(try db.memberIDs(ofRoom: home.room))
                _ = try db.appendEvent(room: home.room, user: nil, name: "member.added", by: "alice", at: "t", payload: "{}", text: "")
                throw Undo()
            }
        }
        // Inside, the unit sees its own change (it may run more than once before it is reported).
        #expect(!seenInside.all.isEmpty && seenInside.all.allSatisfy { $0 == [home.alice, home.bob] })
        #expect(try store.run { try $0.memberIDs(ofRoom: home.room) } == [home.alice])
        #expect(try store.run { try $0.role(ofUser: home.bob, inRoom: home.room) } == nil)
        #expect(try store.run { try $0.lastEventID() } == 0)

        let other = try store.openAnother()
        defer { other.close() }
        try other.sync { try $0.addMember(room: home.room, user: home.bob, role: .member, joined: "t") }
        #expect(try store.run { try $0.memberIDs(ofRoom: home.room) } == [home.alice, home.bob])
    }

    /// Deleting a room takes its members, invites, tasks (and subtasks and comments) and messages along.
    @Test(arguments: StoreEngine.all) func deletingARoomCascades(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let now = self.now
        let (task, sub) = try store.run { db in
            let task = try db.insertTask(TaskDraft(room: home.room, owner: nil, title: "Trash", creator: home.alice, created: "t"))
            var draft = TaskDraft(room: home.room, owner: nil, title: "Bag", creator: home.alice, created: "t")
            draft.parent = task
            let sub = try db.insertTask(draft)
            _ = try db.insertComment(task: task, sender: home.alice, text: "hi", at: "t")
            _ = try db.insertMessage(room: home.room, sender: home.alice, text: "hello", at: "t")
            try db.createInvite(code: "AAAA-BBBB-CCCC-DDDD", room: home.room, createdBy: home.alice, usesLeft: 1, expires: nil, created: "t")
            try db.deleteRoom(home.room)
            return (task, sub)
        }
        let left = try store.run { db in
            (try db.members(ofRoom: home.room).count, try db.task(id: task), try db.task(id: sub),
             try db.comments(onTask: task, room: home.room).count, try db.history(room: home.room, limit: 10, beforeID: nil).count,
             try db.invite(code: "AAAA-BBBB-CCCC-DDDD"), try db.rooms(ofUser: home.alice, now: now).count)
        }
        #expect(left.0 == 0 && left.1 == nil && left.2 == nil && left.3 == 0 && left.4 == 0 && left.5 == nil && left.6 == 0)
    }

    /// An invite lists, counts down its uses and is gone at zero; one without a limit stays.
    @Test(arguments: StoreEngine.all) func invites(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        try store.run { db in
            try db.createInvite(code: "TWO", room: home.room, createdBy: home.alice, usesLeft: 2, expires: "2030-01-01T00:00:00Z", created: "t1")
            try db.createInvite(code: "ANY", room: home.room, createdBy: home.alice, usesLeft: nil, expires: nil, created: "t2")
        }
        #expect(try store.run { try $0.invites(ofRoom: home.room) } == [
            InviteRecord(code: "TWO", room: home.room, usesLeft: 2, expires: "2030-01-01T00:00:00Z", createdBy: "alice", created: "t1"),
            InviteRecord(code: "ANY", room: home.room, usesLeft: nil, expires: nil, createdBy: "alice", created: "t2"),
        ])
        try store.run { try $0.useInvite(code: "TWO") }
        #expect(try store.run { try $0.invite(code: "TWO")?.usesLeft } == 1)
        try store.run { try $0.useInvite(code: "TWO") }
        #expect(try store.run { try $0.invite(code: "TWO") } == nil)
        try store.run { try $0.useInvite(code: "ANY") }
        #expect(try store.run { try $0.invite(code: "ANY")?.usesLeft } == .some(nil))
        #expect(try store.run { try $0.deleteInvite(code: "ANY", room: home.room + 1) } == false)
        #expect(try store.run { try $0.deleteInvite(code: "ANY", room: home.room) })
        #expect(try store.run { try $0.invites(ofRoom: home.room) } == [])
    }

    /// Removing a member hands their chores in that room back to nobody.
    @Test(arguments: StoreEngine.all) func removingAMemberUnassignsTheirTasks(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let task = try store.run { db in
            try db.addMember(room: home.room, user: home.bob, role: .member, joined: "t")
            var draft = TaskDraft(room: home.room, owner: nil, title: "Trash", creator: home.alice, created: "t")
            draft.assignee = home.bob
            return try db.insertTask(draft)
        }
        #expect(try store.run { try $0.task(id: task)?.assignee } == "bob")
        try store.run { try $0.removeMember(room: home.room, user: home.bob) }
        #expect(try store.run { try $0.task(id: task)?.assignee } == nil)
    }

    /// HISTORY pages: the newest before an id, returned oldest first.
    @Test(arguments: StoreEngine.all) func historyPages(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let ids = try store.run { db in
            try (1...10).map { try db.insertMessage(room: home.room, sender: home.alice, text: "m\($0)", at: "t") }
        }
        #expect(try store.run { try $0.history(room: home.room, limit: 3, beforeID: nil).map(\.text) } == ["m8", "m9", "m10"])
        #expect(try store.run { try $0.history(room: home.room, limit: 3, beforeID: ids[7]).map(\.text) } == ["m5", "m6", "m7"])
        #expect(try store.run { try $0.history(room: home.room, limit: 3, beforeID: nil).map(\.from) } == ["alice", "alice", "alice"])
    }

    /// Deleting the newest room, task or token and making another gives it a new number:
    /// old chat lines, replays and calendar entries never point at a stranger's.
    @Test(arguments: StoreEngine.all) func idsAreNeverReused(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let alice = try store.run { try $0.createAccount(name: "alice", passwordHash: "x", created: "t").id }
        let rooms = try store.run { db in
            let first = try db.createRoom(name: "Flat 2B", ownerID: alice, created: "t")
            try db.deleteRoom(first)
            return (first, try db.createRoom(name: "Stranger's flat", ownerID: alice, created: "t"))
        }
        #expect(rooms.1 > rooms.0)
        let tasks = try store.run { db in
            let first = try db.insertTask(TaskDraft(room: rooms.1, owner: nil, title: "Bins", creator: alice, created: "t"))
            try db.deleteTask(id: first)
            return (first, try db.insertTask(TaskDraft(room: rooms.1, owner: nil, title: "Dishes", creator: alice, created: "t")))
        }
        #expect(tasks.1 > tasks.0)
        let tokens = try store.run { db in
            let first = try db.createToken(user: alice, label: "bot", kind: .bot, digest: "d1", created: "t").id
            _ = try db.revokeToken(user: alice, label: "bot")
            return (first, try db.createToken(user: alice, label: "bot", kind: .bot, digest: "d2", created: "t").id)
        }
        #expect(tokens.1 > tokens.0)
    }
}
