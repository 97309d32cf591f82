import ChorusCore
import ChorusStore
import Foundation
import Testing

/// Unread markers and counts (`ReadMarker`), on every engine.
@Suite struct ReadMarkerStoreTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    /// A room's unread count is its messages and comments after the later of the marker
    /// and the member's joining, by anyone else; other events, personal events and one's
    /// own words do not count. ROOMS and a single room agree; markers are per person.
    @Test(arguments: StoreEngine.all) func unreadCountsWhatOthersSaidAfterTheMarker(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let now = self.now
        let room = home.room
        func say(_ name: String, by: String?, user: Int64? = nil) throws -> Int64 {
            try store.run { try $0.appendEvent(room: room, user: user, name: name, by: by, at: "t", payload: "{}", text: "") }
        }
        func unread(_ user: Int64) throws -> [Int] {
            let listed = try store.run { try $0.rooms(ofUser: user, now: now).map(\.unread) }
            let single = try store.run { try $0.room(id: room, forUser: user, now: now)?.unread }
            #expect(listed == [single ?? -1], "ROOMS and ROOM agree")
            return listed
        }
        // Said before bob joined: history to him, news to nobody else yet.
        _ = try say("message", by: "alice")
        let joined = try say("member.added", by: "alice")
        try store.run { db in
            try db.addMember(room: room, user: home.bob, role: .member, joined: "t")
            try db.openMembership(room: room, user: home.bob, fromEvent: joined)
        }
        #expect(try unread(home.bob) == [0])
        let first = try say("message", by: "alice")
        _ = try say("comment", by: "alice")
        _ = try say("task.added", by: "alice")
        _ = try say("message", by: "bob")
        _ = try say("room.invited", by: "alice", user: home.bob)
        let last = try say("message", by: "alice")
        #expect(try unread(home.bob) == [3])
        #expect(try unread(home.alice) == [1], "alice: bob's message; her own words are not news to her")

        #expect(try store.run { try $0.readMarker(user: home.bob, room: room) } == 0)
        try store.run { try $0.setReadMarker(user: home.bob, room: room, event: first) }
        #expect(try store.run { try $0.readMarker(user: home.bob, room: room) } == first)
        #expect(try unread(home.bob) == [2])
        #expect(try unread(home.alice) == [1], "bob's marker is his alone")
        try store.run { try $0.setReadMarker(user: home.bob, room: room, event: last) }
        #expect(try unread(home.bob) == [0])
        _ = try say("comment", by: "alice")
        #expect(try unread(home.bob) == [1])

        // The marker goes with the room.
        try store.run { try $0.deleteRoom(room) }
        #expect(try store.run { try $0.readMarker(user: home.bob, room: room) } == 0)
    }

    /// A count has no ceiling: a member who never read 1,005 messages has 1,005 unread
    /// (kept as they were said, not counted when asked). A READ takes off exactly what it
    /// passes; a marker moved back changes nothing; rejoining starts again at nothing.
    @Test(arguments: StoreEngine.all) func aCountIsExactHoweverLong(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let now = self.now
        try store.run { db in
            try db.addMember(room: home.room, user: home.bob, role: .member, joined: "t")
            for _ in 0..<1005 {
                _ = try db.appendEvent(room: home.room, user: nil, name: "message", by: "alice", at: "t", payload: "{}", text: "")
            }
        }
        func unread() throws -> Int? { try store.run { try $0.room(id: home.room, forUser: home.bob, now: now)?.unread } }
        #expect(try store.run { try $0.rooms(ofUser: home.bob, now: now).map(\.unread) } == [1005])
        let last = try store.run { try $0.lastEventID() }
        try store.run { try $0.setReadMarker(user: home.bob, room: home.room, event: last - 7) }
        #expect(try unread() == 7)
        try store.run { try $0.setReadMarker(user: home.bob, room: home.room, event: last - 500) }
        #expect(try store.run { try $0.readMarker(user: home.bob, room: home.room) } == last - 7, "a marker never moves back")
        #expect(try unread() == 7)
        try store.run { db in
            try db.removeMember(room: home.room, user: home.bob)
            _ = try db.appendEvent(room: home.room, user: nil, name: "message", by: "alice", at: "t", payload: "{}", text: "")
            try db.addMember(room: home.room, user: home.bob, role: .member, joined: "t")
        }
        #expect(try unread() == 0, "what was said while away is history")
        _ = try store.run { try $0.appendEvent(room: home.room, user: nil, name: "comment", by: "alice", at: "t", payload: "{}", text: "") }
        #expect(try unread() == 1)
    }

    /// ROOMS gives each room its own count, in one query, for many rooms.
    @Test(arguments: StoreEngine.all) func eachRoomHasItsOwnCount(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let now = self.now
        let rooms = try store.run { db in
            try (1...5).map { n in
                let room = try db.createRoom(name: "Room \(n)", ownerID: home.bob, created: "t")
                try db.addMember(room: room, user: home.alice, role: .member, joined: "t")
                for _ in 0..<n { _ = try db.appendEvent(room: room, user: nil, name: "message", by: "bob", at: "t", payload: "{}", text: "") }
                return room
            }
        }
        let counts = try store.run { try $0.rooms(ofUser: home.alice, now: now).map { ($0.id, $0.unread) } }
        #expect(counts.map(\.0) == [home.room] + rooms)
        #expect(counts.map(\.1) == [0, 1, 2, 3, 4, 5])
    }
}
