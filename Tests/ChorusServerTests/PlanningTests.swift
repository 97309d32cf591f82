import ChorusCore
import ChorusSQLite
import Foundation
import Testing

/// Planning over real TLS with a clock the test moves: overdue, reminders, behind
/// schedule, offline notices, repeats with rotation, STATS, CALENDAR, DM and SYNC.
@Suite struct PlanningTests {
    /// Monday 7 Dec 2026, 10:00 in the server's time zone.
    static var start: Date {
        Calendar.current.date(from: DateComponents(year: 2026, month: 12, day: 7, hour: 10))!
    }

    /// A household (alice owner, bob and carol members) on a manual clock, all in JSON mode.
    /// Two loops at least, so alice (loop 0) and bob (loop 1) are apart and replies wait for
    /// the other loop's writes, as on any machine with more than one core.
    private func household() throws -> (server: TestServer, clock: ManualClock, alice: Device, bob: Device, carol: Device, room: Int) {
        let clock = ManualClock(Self.start)
        let server = try TestServer(clock: clock) { $0.loops = max(2, $0.loops) }
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let carol = try server.device("carol")
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        try alice.add("bob", to: room)
        try alice.add("carol", to: room)
        _ = try bob.drain()
        _ = try carol.drain()
        return (server, clock, alice, bob, carol, room)
    }

    /// Moves the clock and waits until the scheduler's check has written what it fired,
    /// so "nothing came" after a tick means the server sent nothing.
    private func tick(_ server: TestServer, _ clock: ManualClock, hours: Double) {
        clock.advance(by: hours * 3600)
        let checked = DispatchSemaphore(value: 0)
        server.server?.checkNotices { checked.signal() }
        #expect(checked.wait(timeout: .now() + 10) == .success, "the notice check did not finish")
    }

    /// An open task passing its due time tells every member once; a done one never.
    @Test func overdueFiresOnceForEveryone() throws {
        let (server, clock, alice, bob, carol, room) = try household()
        let task = id(try alice.ok("TASK ADD \(room) Bins due=+2h assign=bob")["task"])
        let finished = id(try alice.ok("TASK ADD \(room) Dishes due=+2h")["task"])
        try alice.ok("TASK DONE \(finished)")
        _ = try bob.drain()
        _ = try carol.drain()
        tick(server, clock, hours: 1)
        try bob.expectQuiet("before the due time")
        tick(server, clock, hours: 2)
        for device in [alice, bob, carol] {
            let event = try device.event()
            #expect(event["event"] as? String == "task.overdue")
            #expect(event["by"] is NSNull)
            #expect(object(event["task"])["id"] as? Int == task)
            #expect(object(event["task"])["overdue"] as? Bool == true)
        }
        tick(server, clock, hours: 5)
        for device in [alice, bob, carol] { try device.expectQuiet("a second time") }
    }

    /// A due date set in the past is reported at once, to the one who set it too, after
    /// the reply that told them of the task (before, it came first while the reply waited
    /// for the other loop's writes).
    @Test func pastDueIsReportedAtOnce() throws {
        let (_, _, alice, bob, _, room) = try household()
        try alice.ok("TASK ADD \(room) Kettle due=2026-12-01")
        #expect(alice.client.events.isEmpty, "an event came before the reply: \(alice.client.events)")
        #expect(try alice.event()["event"] as? String == "task.overdue")
        #expect(try bob.event()["event"] as? String == "task.added")
        #expect(try bob.event()["event"] as? String == "task.overdue")
    }

    /// A reminder goes to the assignee only, or to the whole room when nobody has the task.
    @Test func remindersGoToTheAssignee() throws {
        let (server, clock, alice, bob, carol, room) = try household()
        try alice.ok("TASK ADD \(room) Bins remind=+1h assign=bob")
        try alice.ok("TASK ADD \(room) Plants remind=+3h")
        _ = try bob.drain()
        _ = try carol.drain()
        tick(server, clock, hours: 1.5)
        let reminder = try bob.event()
        #expect(reminder["event"] as? String == "task.reminder")
        #expect(object(reminder["task"])["title"] as? String == "Bins")
        try alice.expectQuiet("for bob's reminder")
        try carol.expectQuiet("for bob's reminder")
        tick(server, clock, hours: 2)
        for device in [alice, bob, carol] {
            let event = try device.event()
            #expect(event["event"] as? String == "task.reminder")
            #expect(object(event["task"])["title"] as? String == "Plants")
        }
    }

    /// A notice for someone with no session waits for their next login.
    @Test func noticesWaitForOfflineUsers() throws {
        let (server, clock, alice, bob, _, room) = try household()
        try alice.ok("TASK ADD \(room) Bins remind=+1h assign=bob")
        bob.client.connection.close()
        tick(server, clock, hours: 2)
        try alice.expectQuiet("for bob's reminder")
        let again = try server.client()
        let login = try again.call("LOGIN bob \"\(defaultPassword)\"")
        #expect(login.last?.hasPrefix("OK logged in as bob") == true)
        let notice = try again.nextEvent()
        #expect(notice.hasPrefix("* reminder: #"))
        #expect(notice.contains("Bins"))
        // Delivered once: a second login gets nothing.
        let third = try server.client()
        #expect(try third.call("LOGIN bob \"\(defaultPassword)\"").last?.hasPrefix("OK") == true)
        #expect(try third.last("PING") == "OK PONG")
        #expect(third.events.isEmpty)
    }

    /// What came due while the server was down fires when it starts again; people who
    /// were not connected get it at their next login.
    @Test func noticesOwedDuringDowntimeGoOutAtStart() throws {
        let (server, clock, alice, _, _, room) = try household()
        try alice.ok("TASK ADD \(room) Bins due=+1h assign=bob")
        server.stop()
        clock.advance(by: 3 * 3600)
        try server.restart()
        // Nobody is connected: the start-up check keeps the notice for each member.
        let database = try Database(path: server.configuration.databasePath)
        defer { database.close() }
        var kept: Int64 = 0
        for _ in 0..<200 where kept < 3 {
            kept = try database.prepare("SELECT count(*) FROM pending_notices").row { $0.int(0) } ?? 0
            if kept < 3 { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(kept == 3)
        let carol = try server.client()
        #expect(try carol.call("LOGIN carol \"\(defaultPassword)\"").last?.hasPrefix("OK") == true)
        let notice = try carol.nextEvent()
        #expect(notice.hasPrefix("* overdue: #"))
        #expect(notice.contains("Bins"))
    }

    /// A task whose plan (start + estimate) has ended unfinished is flagged behind, once.
    @Test func behindSchedule() throws {
        let (server, clock, alice, bob, _, room) = try household()
        let task = id(try alice.ok("TASK ADD \(room) Essay start=today estimate=2 due=+7d")["task"])
        _ = try bob.drain()
        tick(server, clock, hours: 24)
        try bob.expectQuiet("while the plan runs")
        #expect(object(try bob.ok("TASK SHOW \(task)")["task"])["behind"] as? Bool == false)
        tick(server, clock, hours: 26)
        let event = try bob.event()
        #expect(event["event"] as? String == "task.behind")
        #expect(object(try bob.ok("TASK SHOW \(task)")["task"])["behind"] as? Bool == true)
        tick(server, clock, hours: 24)
        try bob.expectQuiet("a second time")
    }

    /// A task at 100 % is not behind, so nobody is told it is: neither one whose progress
    /// was reported, nor a parent whose subtasks all finished after it was written. One
    /// that falls back below 100 % is told of again.
    @Test func noBehindNoticeAtFullProgress() throws {
        let (server, clock, alice, bob, _, room) = try household()
        let essay = id(try alice.ok("TASK ADD \(room) Essay start=today estimate=2")["task"])
        let move = id(try alice.ok("TASK ADD \(room) Move start=today estimate=2")["task"])
        let pack = id(try alice.ok("TASK ADD \(room) Pack parent=\(move)")["task"])
        try alice.ok("TASK PROGRESS \(essay) 100")
        try alice.ok("TASK DONE \(pack)")
        _ = try bob.drain()
        tick(server, clock, hours: 50)
        try bob.expectQuiet("a task at 100 % is not behind")
        #expect(object(try bob.ok("TASK SHOW \(essay)")["task"])["behind"] as? Bool == false)
        #expect(object(try bob.ok("TASK SHOW \(move)")["task"])["behind"] as? Bool == false)
        try alice.ok("TASK PROGRESS \(essay) 80")
        tick(server, clock, hours: 1)
        let behind = try bob.drain().filter { $0["event"] as? String == "task.behind" }
        #expect(behind.map { object($0["task"])["id"] as? Int } == [essay])
    }

    /// Finishing a repeating task makes the next one, due a period after the last due, for the next person.
    @Test func repeatsRotateThroughTheHousehold() throws {
        let (_, _, alice, bob, carol, room) = try household()
        var task = object(try alice.ok("TASK ADD \(room) Bins due=2026-12-08 repeat=weekly rotate=alice,bob,carol assign=alice")["task"])
        let expected = [("bob", "2026-12-15"), ("carol", "2026-12-22"), ("alice", "2026-12-29")]
        for (person, due) in expected {
            let done = try alice.ok("TASK DONE \(task["id"] as? Int ?? -1)")
            let next = object(done["next"])
            #expect(next["assignee"] as? String == person)
            #expect(next["due"] as? String == due)
            #expect(next["repeat"] as? String == "weekly")
            #expect(next["status"] as? String == "open")
            task = next
        }
        // The finished ones stay on record.
        let all = try bob.ok("TASKS \(room) all")["tasks"] as? [JSON] ?? []
        #expect(all.count == 4)
        #expect(all.filter { $0["status"] as? String == "done" }.count == 3)
        // Others were told of each new occurrence.
        let added = try carol.drain().filter { $0["event"] as? String == "task.added" }
        #expect(added.count == 4)
    }

    /// Reopening a finished repeating task and finishing it again makes no second next
    /// occurrence: one per period. Once that occurrence is deleted, finishing makes one again.
    @Test func reopenAndFinishAgainMakesOneOccurrence() throws {
        let (_, _, alice, _, carol, room) = try household()
        let task = id(try alice.ok("TASK ADD \(room) Bins due=2026-12-08 repeat=weekly")["task"])
        let next = id(try alice.ok("TASK DONE \(task)")["next"])
        #expect(next > task)
        try alice.ok("TASK REOPEN \(task)")
        let again = try alice.ok("TASK DONE \(task)")
        #expect(again["next"] == nil, "a second occurrence: \(again)")
        let open = try alice.ok("TASKS \(room) open")["tasks"] as? [JSON] ?? []
        #expect(open.map { $0["id"] as? Int } == [next])
        #expect(try carol.drain().filter { $0["event"] as? String == "task.added" }.count == 2)
        // The text reply names the one made before.
        let text = try alice.client.call("MODE text").last ?? ""
        #expect(text.hasPrefix("OK"))
        try alice.client.call("TASK REOPEN \(task)")
        #expect(try alice.client.last("TASK DONE \(task)").contains("next: #\(next) made before"))
        try alice.client.call("MODE json")
        // Deleted, the occurrence no longer stands for the period.
        try alice.ok("TASK DELETE \(next)")
        try alice.ok("TASK REOPEN \(task)")
        #expect(object(try alice.ok("TASK DONE \(task)")["next"])["due"] as? String == "2026-12-15")
        try alice.ok("TASK REOPEN \(task)")
        #expect(try alice.ok("TASK DONE \(task)")["next"] == nil)
    }

    /// A monthly series keeps its day of the month: 31 Jan, 28 Feb, 31 Mar, 30 Apr, also
    /// after a restart (the day is stored with the task).
    @Test func monthlyRepeatsKeepTheirDay() throws {
        let (server, _, alice, _, _, room) = try household()
        var task = id(try alice.ok("TASK ADD \(room) Rent due=2027-01-31 repeat=monthly")["task"])
        var dues: [String] = []
        for round in 0..<4 {
            if round == 2 { try server.restart() }
            let device = round < 2 ? alice : try server.device("alice", label: "alice \(round)", register: false)
            let next = object(try device.ok("TASK DONE \(task)")["next"])
            dues.append(next["due"] as? String ?? "?")
            task = next["id"] as? Int ?? -1
        }
        #expect(dues == ["2027-02-28", "2027-03-31", "2027-04-30", "2027-05-31"])
        // A due set by hand starts the series on its own day.
        let edited = try server.device("alice", label: "alice edits", register: false)
        try edited.ok("TASK EDIT \(task) due=2027-06-15")
        #expect(object(try edited.ok("TASK DONE \(task)")["next"])["due"] as? String == "2027-07-15")
    }

    /// A weekly chore finished three weeks late comes back on its weekday, ahead, not
    /// overdue; its start and reminder move by as many days as its due.
    @Test func lateChoreComesBackOnItsWeekday() throws {
        let (server, clock, alice, _, _, room) = try household()
        let task = id(try alice.ok("TASK ADD \(room) Bins due=2026-12-08 start=2026-12-07 remind=2026-12-08T08:00 repeat=weekly")["task"])
        // Thursday 31 Dec: the dues of 8, 15, 22 and 29 Dec have passed.
        tick(server, clock, hours: 24 * 24)
        let done = try alice.ok("TASK DONE \(task)")
        let next = object(done["next"])
        #expect(next["due"] as? String == "2027-01-05")
        #expect(next["overdue"] as? Bool == false)
        #expect(next["days_left"] as? Int == 5)
        #expect(next["start"] as? String == "2027-01-04")
        let remind = try When.parse("2027-01-05T08:00", now: Self.start).stored
        #expect(next["remind"] as? String == remind)
        // Finished on time, the next one is a week on.
        let following = object(try alice.ok("TASK DONE \(next["id"] as? Int ?? -1)")["next"])
        #expect(following["due"] as? String == "2027-01-12")
    }

    /// The next turn follows the previous assignee, whoever finished: not the finisher
    /// when nobody or an outsider had it, past members who left, and nobody when the
    /// previous assignee of a task without a rota has left.
    @Test func rotationFollowsThePreviousAssignee() throws {
        let (server, _, alice, bob, carol, room) = try household()
        let dave = try server.device("dave")
        try alice.add("dave", to: room)
        func nextAssignee(_ options: String, finisher: Device) throws -> Any? {
            let task = id(try alice.ok("TASK ADD \(room) Bins due=2026-12-08 repeat=weekly \(options)")["task"])
            return object(try finisher.ok("TASK DONE \(task)")["next"])["assignee"]
        }
        // Nobody had it: the rota starts at its first name, not after bob who did it.
        #expect(try nextAssignee("rotate=alice,bob,carol", finisher: bob) as? String == "alice")
        // Someone outside the rota had it: the first name again.
        #expect(try nextAssignee("rotate=alice,bob,carol assign=dave", finisher: bob) as? String == "alice")
        // Finished by someone outside the rota: still the turn after alice's.
        #expect(try nextAssignee("rotate=alice,bob,carol assign=alice", finisher: dave) as? String == "bob")
        #expect(try nextAssignee("rotate=alice,bob,carol assign=bob", finisher: carol) as? String == "carol")
        // bob left: passed over.
        let afterBob = id(try alice.ok("TASK ADD \(room) Bins due=2026-12-08 repeat=weekly rotate=alice,bob,carol assign=alice")["task"])
        try bob.ok("ROOM LEAVE \(room)")
        #expect(object(try alice.ok("TASK DONE \(afterBob)")["next"])["assignee"] as? String == "carol")
        // Without a rota the same person keeps it, unless they left the room.
        #expect(try nextAssignee("assign=carol", finisher: alice) as? String == "carol")
        let leaving = id(try alice.ok("TASK ADD \(room) Plants due=2026-12-08 repeat=weekly assign=carol")["task"])
        try carol.ok("ROOM LEAVE \(room)")
        #expect(object(try alice.ok("TASK DONE \(leaving)")["next"])["assignee"] is NSNull)
    }

    /// Bad dates, repeats and rotations are 422 naming what is accepted.
    @Test func badPlanningValues() throws {
        let (_, _, alice, _, _, room) = try household()
        #expect(try alice.failure("TASK ADD \(room) X due=someday").code == 422)
        #expect(try alice.failure("TASK ADD \(room) X remind=2026-02-30").code == 422)
        let repeatError = try alice.failure("TASK ADD \(room) X repeat=fortnightly")
        #expect(repeatError.code == 422)
        #expect(repeatError.message.contains("daily, weekly, monthly"))
        #expect(try alice.failure("TASK ADD \(room) X rotate=alice,nobody").code == 404)
        #expect(try alice.failure("TASK ADD me X rotate=alice").code == 422)
    }

    /// STATS counts done, open, overdue and points per member; "week" only what was
    /// finished in the last seven days.
    @Test func stats() throws {
        let (server, clock, alice, bob, _, room) = try household()
        let old = id(try alice.ok("TASK ADD \(room) Windows points=3")["task"])
        try bob.ok("TASK DONE \(old)")
        tick(server, clock, hours: 8 * 24)
        let heavy = id(try alice.ok("TASK ADD \(room) Clean points=5 assign=bob")["task"])
        try alice.ok("TASK ADD \(room) Late due=2026-12-01 assign=bob")
        try alice.ok("TASK ADD \(room) Open assign=alice")
        try bob.ok("TASK DONE \(heavy)")
        let stats = try alice.ok("STATS \(room)")
        let members = Dictionary(uniqueKeysWithValues: (stats["members"] as? [JSON] ?? []).map { ($0["name"] as? String ?? "", $0) })
        #expect(members["bob"]?["done"] as? Int == 2)
        #expect(members["bob"]?["points"] as? Int == 8)
        #expect(object(members["bob"]?["week"])["done"] as? Int == 1)
        #expect(object(members["bob"]?["week"])["points"] as? Int == 5)
        #expect(members["bob"]?["open"] as? Int == 1)
        #expect(members["bob"]?["overdue"] as? Int == 1)
        #expect(members["alice"]?["open"] as? Int == 1)
        #expect(members["carol"]?["done"] as? Int == 0)
        #expect(object(stats["room"])["id"] as? Int == room)
        #expect((try alice.ok("STATS")["rooms"] as? [JSON])?.count == 1)
    }

    /// CALENDAR is RFC 5545: CRLF lines of at most 75 octets, escaped text, stable UIDs,
    /// all-day dates, and an alarm for a reminder.
    @Test func calendarExport() throws {
        let (_, _, alice, _, _, room) = try household()
        let task = id(try alice.ok("TASK ADD \(room) \"Bins, recycling; and glass\" due=2026-12-09 remind=2026-12-09T08:30")["task"])
        try alice.ok("TASK ADD \(room) \"\(String(repeating: "Très long titre ", count: 8))\" due=2026-12-10T18:00")
        try alice.ok("TASK ADD \(room) \"No date\"")
        let ics = try alice.ok("CALENDAR \(room)")["ics"] as? String ?? ""
        #expect(ics.hasPrefix("BEGIN:VCALENDAR\r\n"))
        #expect(ics.hasSuffix("END:VCALENDAR\r\n"))
        let physical = ics.components(separatedBy: "\r\n").dropLast()
        #expect(physical.allSatisfy { $0.utf8.count <= 75 })
        #expect(!ics.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        // Unfold (RFC 5545 §3.1) and read the properties back.
        let lines = ics.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n")
        #expect(lines.filter { $0 == "BEGIN:VEVENT" }.count == 2)
        #expect(lines.contains("UID:task-\(task)@chorus"))
        #expect(lines.contains("DTSTART;VALUE=DATE:20261209"))
        #expect(lines.contains("DTEND;VALUE=DATE:20261210"))
        #expect(lines.contains("SUMMARY:Bins\\, recycling\\; and glass"))
        #expect(lines.contains { $0.hasPrefix("SUMMARY:Très long titre Très long titre") && $0.count > 100 })
        let utc = When(stored: try When.parse("2026-12-10T18:00", now: Self.start).stored)!
        #expect(lines.contains("DTSTART:" + utc.stored.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")))
        #expect(lines.contains("BEGIN:VALARM"))
        #expect(lines.contains { $0.hasPrefix("TRIGGER;VALUE=DATE-TIME:20261209T") })
        // The same task keeps its UID in a later export.
        let again = try alice.ok("CALENDAR mine")["ics"] as? String ?? ""
        #expect(!again.contains("UID:task-\(task)@chorus")) // not assigned to alice, not personal
        try alice.ok("TASK ASSIGN \(task) alice")
        #expect((try alice.ok("CALENDAR mine")["ics"] as? String ?? "").contains("UID:task-\(task)@chorus"))
    }

    /// A finished task stays in the calendar for 30 days, then leaves it; open ones stay.
    @Test func calendarKeepsFinishedTasksForAMonth() throws {
        let (server, clock, alice, _, _, room) = try household()
        let finished = id(try alice.ok("TASK ADD \(room) Gutters due=2026-12-08")["task"])
        let open = id(try alice.ok("TASK ADD \(room) Boiler due=2027-03-01")["task"])
        try alice.ok("TASK DONE \(finished)")
        func uids() throws -> [String] {
            let ics = try alice.ok("CALENDAR \(room)")["ics"] as? String ?? ""
            return ics.components(separatedBy: "\r\n").filter { $0.hasPrefix("UID:") }
        }
        #expect(try uids() == ["UID:task-\(finished)@chorus", "UID:task-\(open)@chorus"])
        tick(server, clock, hours: 29 * 24)
        #expect(try uids().count == 2)
        tick(server, clock, hours: 2 * 24)
        #expect(try uids() == ["UID:task-\(open)@chorus"])
    }

    /// A DM reaches the recipient's sessions and the sender's other ones, nobody else.
    @Test func directMessages() throws {
        let (server, _, alice, bob, carol, _) = try household()
        let alicePhone = try server.device("alice", label: "alice phone", register: false)
        let sent = try alice.ok("DM bob hello, bob")
        #expect(object(sent["message"])["to"] as? String == "bob")
        for device in [bob, alicePhone] {
            let event = try device.event()
            #expect(event["event"] as? String == "dm")
            #expect(object(event["message"])["text"] as? String == "hello, bob")
            #expect(object(event["message"])["from"] as? String == "alice")
        }
        try alice.expectQuiet("for its own DM")
        try carol.expectQuiet("for a DM between others")
        #expect(try alice.failure("DM nobody hi").code == 404)
    }

    /// After a disconnect, SYNC returns exactly the missed events of the user's rooms, DMs
    /// and notices, in order, and nothing from rooms they are not in.
    @Test func syncAfterDisconnect() throws {
        let (server, _, alice, bob, carol, room) = try household()
        let other = id(try carol.ok("ROOM CREATE Carol's den")["room"])
        try bob.ok("TASK ADD \(room) Before")
        let last = try alice.event()["id"] as? Int ?? 0
        bob.client.connection.close()

        try alice.ok("SAY \(room) while you were out")
        try carol.ok("SAY \(other) secret")
        try alice.ok("DM bob psst")
        try alice.ok("TASK ADD \(room) Late due=2026-12-01")
        try carol.ok("DM alice not for bob")

        let back = try server.device("bob", label: "bob again", register: false)
        let sync = try back.ok("SYNC \(last)")
        let events = sync["events"] as? [JSON] ?? []
        let names = events.map { $0["event"] as? String ?? "" }
        #expect(names == ["message", "dm", "task.added", "task.overdue"])
        #expect(events.allSatisfy { ($0["room"] as? Int).map { $0 == room } ?? true })
        let ids = events.compactMap { $0["id"] as? Int }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count && (ids.first ?? 0) > last)
        #expect(sync["more"] as? Bool == false)
        // Paging: one at a time walks the same list.
        var after = last
        var paged: [String] = []
        while true {
            let page = try back.ok("SYNC \(after) 1")
            let batch = page["events"] as? [JSON] ?? []
            paged += batch.map { $0["event"] as? String ?? "" }
            after = page["last"] as? Int ?? after
            if page["more"] as? Bool != true { break }
        }
        #expect(paged == names)
    }

    /// Events of a room before joining and after leaving are not replayed.
    @Test func syncRespectsMembershipSpans() throws {
        let (_, _, alice, bob, carol, room) = try household()
        try alice.ok("SAY \(room) everyone hears this")
        try carol.ok("ROOM LEAVE \(room)")
        try alice.ok("SAY \(room) after carol left")
        let sync = try carol.ok("SYNC 0 500")
        let texts = (sync["events"] as? [JSON] ?? []).compactMap { object($0["message"])["text"] as? String }
        #expect(texts == ["everyone hears this"])
        let names = (sync["events"] as? [JSON] ?? []).map { $0["event"] as? String ?? "" }
        // Invited (carol shared no room with alice), in, out.
        #expect(names.prefix(2) == ["room.invited", "member.added"])
        #expect(names.last == "member.removed")
        // Bob, still a member, hears both.
        let bobTexts = (try bob.ok("SYNC 0 500")["events"] as? [JSON] ?? []).compactMap { object($0["message"])["text"] as? String }
        #expect(bobTexts == ["everyone hears this", "after carol left"])
    }
}
