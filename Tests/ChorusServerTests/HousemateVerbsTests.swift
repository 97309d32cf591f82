import ChorusCore
import Foundation
import Testing

/// The two verbs added as one row plus one handler each, over real TLS: `TASKS @NAME`
/// (a housemate's tasks in the rooms you share) and `CALENDAR me`.
@Suite struct HousemateVerbsTests {
    /// Monday 7 Dec 2026, 10:00 in the server's time zone.
    static var start: Date {
        Calendar.current.date(from: DateComponents(year: 2026, month: 12, day: 7, hour: 10))!
    }

    /// alice and bob share Flat; alice and carol share Office; bob and carol share Gym;
    /// dave shares no room with anyone.
    private struct Household {
        let server: TestServer
        let alice, bob, carol, dave: Device
        let flat, office, gym: Int
    }

    private func household() throws -> Household {
        let server = try TestServer(clock: ManualClock(Self.start))
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let carol = try server.device("carol")
        let dave = try server.device("dave")
        let flat = id(try alice.ok("ROOM CREATE Flat")["room"])
        try alice.add("bob", to: flat)
        let office = id(try alice.ok("ROOM CREATE Office")["room"])
        try alice.add("carol", to: office)
        let gym = id(try bob.ok("ROOM CREATE Gym")["room"])
        try bob.add("carol", to: gym)
        return Household(server: server, alice: alice, bob: bob, carol: carol, dave: dave, flat: flat, office: office, gym: gym)
    }

    private func ids(_ reply: JSON) -> [Int] {
        (reply["tasks"] as? [JSON] ?? []).map { $0["id"] as? Int ?? -1 }
    }

    /// `TASKS @bob` lists what is assigned to bob in the rooms alice shares with him, soonest
    /// due first, with TASKS' filters; never his tasks in rooms alice is not in, his
    /// personal ones, or anyone else's.
    @Test func housemateTasksInSharedRoomsOnly() throws {
        let home = try household()
        let (alice, bob) = (home.alice, home.bob)
        let later = id(try alice.ok("TASK ADD \(home.flat) Hoover assign=bob due=2026-12-20")["task"])
        let soon = id(try alice.ok("TASK ADD \(home.flat) Bins assign=bob due=2026-12-08")["task"])
        let late = id(try alice.ok("TASK ADD \(home.flat) Descale assign=bob due=2026-12-01")["task"])
        let done = id(try alice.ok("TASK ADD \(home.flat) Dishes assign=bob")["task"])
        try bob.ok("TASK DONE \(done)")
        try alice.ok("TASK ADD \(home.flat) Windows assign=alice")
        try alice.ok("TASK ADD \(home.flat) Nobody's")
        try bob.ok("TASK ADD \(home.gym) Weights assign=bob")
        try bob.ok("TASK ADD me Secret")

        let open = try alice.ok("TASKS @bob")
        #expect(ids(open) == [late, soon, later])
        #expect((try alice.ok("TASKS @Bob open") as NSDictionary) == (open as NSDictionary))
        #expect(ids(try alice.ok("TASKS @bob done")) == [done])
        #expect(ids(try alice.ok("TASKS @bob overdue")) == [late])
        #expect(Set(ids(try alice.ok("TASKS @bob all"))) == [late, soon, later, done])
        // The shape is TASKS' own: the same TASK objects as the room's listing.
        let room = (try alice.ok("TASKS \(home.flat)")["tasks"] as? [JSON] ?? []).filter { [late, soon, later].contains($0["id"] as? Int ?? 0) }
        #expect((open["tasks"] as? [JSON] ?? []).map { $0 as NSDictionary } == room.map { $0 as NSDictionary })

        // Text mode: TASKS' lines, with whose they are in the summary.
        let text = try home.server.client()
        _ = try text.last("LOGIN alice \"\(defaultPassword)\"")
        let lines = try text.call("TASKS @bob")
        #expect(lines.last == "OK 3 tasks for bob (1 overdue)")
        #expect(lines.dropLast().count == 3)
        #expect(lines.first?.contains("#\(late)") == true && lines.first?.contains("Descale") == true)
    }

    /// Someone alice shares no room with answers exactly like a name that does not exist,
    /// so TASKS @NAME cannot tell which accounts exist; once bob leaves the only shared
    /// room he is a stranger too.
    @Test func strangersLookLikeUnknownNames() throws {
        let home = try household()
        let stranger = try home.alice.failure("TASKS @dave")
        let unknown = try home.alice.failure("TASKS @zed")
        #expect(stranger.code == 404 && unknown.code == 404)
        #expect(stranger.message == "no such user dave")
        #expect(unknown.message == "no such user zed")
        try home.alice.ok("TASK ADD \(home.flat) Bins assign=bob")
        #expect(ids(try home.alice.ok("TASKS @bob")).count == 1)
        try home.bob.ok("ROOM LEAVE \(home.flat)")
        #expect(try home.alice.failure("TASKS @bob") == (404, "no such user bob"))
        // bob still shares Gym with carol, who still sees his tasks there.
        try home.bob.ok("TASK ADD \(home.gym) Weights assign=bob")
        #expect(ids(try home.carol.ok("TASKS @bob")).count == 1)
    }

    /// `TASKS @yourself` is what is assigned to you in your rooms; someone in no room gets
    /// an empty list, not 404.
    @Test func yourselfToo() throws {
        let home = try household()
        let mine = id(try home.alice.ok("TASK ADD \(home.office) Report assign=alice")["task"])
        try home.alice.ok("TASK ADD me Personal")
        #expect(ids(try home.alice.ok("TASKS @alice")) == [mine])
        let dave = try home.dave.ok("TASKS @dave")
        #expect(ids(dave).isEmpty)
    }

    /// A room of yours named `@...` is still what TASKS @... lists, as before the new row;
    /// a bad filter is a usage error naming the new row.
    @Test func roomNamedWithAnAtComesFirst() throws {
        let home = try household()
        let room = id(try home.alice.ok("ROOM CREATE @bob")["room"])
        let chore = id(try home.alice.ok("TASK ADD \(room) Plants")["task"])
        #expect(ids(try home.alice.ok("TASKS @bob")) == [chore])
        #expect(ids(try home.bob.ok("TASKS @bob")).isEmpty) // bob is not in that room: his own tasks
        let bad = try home.alice.failure("TASKS @bob soon")
        #expect(bad.code == 400)
        #expect(bad.message == "unknown filter soon; usage: TASKS @NAME [open|done|overdue|all]")
    }

    /// `CALENDAR me` exports what is assigned to you in all your rooms and your personal
    /// tasks (the same file as `CALENDAR mine`), not other people's.
    @Test func calendarMe() throws {
        let home = try household()
        let alice = home.alice
        let flat = id(try alice.ok("TASK ADD \(home.flat) Bins assign=alice due=2026-12-09")["task"])
        let office = id(try alice.ok("TASK ADD \(home.office) Report assign=alice due=2026-12-11T15:00")["task"])
        let personal = id(try alice.ok("TASK ADD me Dentist due=2026-12-14")["task"])
        let bobs = id(try alice.ok("TASK ADD \(home.flat) Hoover assign=bob due=2026-12-10")["task"])
        let unassigned = id(try alice.ok("TASK ADD \(home.flat) Windows due=2026-12-10")["task"])
        try alice.ok("TASK ADD \(home.flat) Undated assign=alice")

        let reply = try alice.ok("CALENDAR me")
        let ics = reply["ics"] as? String ?? ""
        #expect(ics.hasPrefix("BEGIN:VCALENDAR\r\n") && ics.hasSuffix("END:VCALENDAR\r\n"))
        let uids = ics.components(separatedBy: "\r\n").filter { $0.hasPrefix("UID:") }
        #expect(uids == [flat, office, personal].map { "UID:task-\($0)@chorus" })
        #expect(!ics.contains("UID:task-\(bobs)@chorus") && !ics.contains("UID:task-\(unassigned)@chorus"))
        #expect(ics.contains("X-WR-CALNAME:Chorus: alice"))
        #expect(try alice.ok("CALENDAR ME")["ics"] as? String == ics)
        #expect(try alice.ok("CALENDAR mine")["ics"] as? String == ics)

        let text = try home.server.client()
        _ = try text.last("LOGIN alice \"\(defaultPassword)\"")
        let lines = try text.call("CALENDAR me")
        #expect(lines.last == "OK 3 tasks in the calendar")
        #expect(lines.first == "BEGIN:VCALENDAR")
        #expect(try home.alice.failure("CALENDAR me now").code == 400)
    }

    /// A room of yours named `me` is still what CALENDAR me exports, as before the new row.
    @Test func roomNamedMeComesFirst() throws {
        let home = try household()
        let room = id(try home.carol.ok("ROOM CREATE me")["room"])
        try home.carol.ok("TASK ADD \(room) Plants due=2026-12-09")
        let ics = try home.carol.ok("CALENDAR me")["ics"] as? String ?? ""
        #expect(ics.contains("X-WR-CALNAME:Chorus: me"))
        #expect(ics == (try home.carol.ok("CALENDAR \(room)")["ics"] as? String))
    }

    /// HELP lists both new rows with their usage.
    @Test func helpListsTheNewRows() throws {
        let home = try household()
        let usages = (try home.alice.ok("HELP TASKS")["commands"] as? [JSON] ?? []).map { $0["usage"] as? String ?? "" }
        #expect(usages == ["TASKS [R|mine|me] [open|done|overdue|all]", "TASKS @NAME [open|done|overdue|all]"])
        let calendar = (try home.alice.ok("HELP CALENDAR")["commands"] as? [JSON] ?? []).map { $0["usage"] as? String ?? "" }
        #expect(calendar == ["CALENDAR R|mine", "CALENDAR me", "CALENDAR LINK R|me", "CALENDAR UNLINK R|me"])
    }
}
