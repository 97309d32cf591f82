import Foundation
import Testing

/// Tasks: listings and their filters, due dates, subtasks, finishing, editing, bad values,
/// and how they read in text mode.
@Suite struct TaskTests {
    /// A household room with alice (owner) and bob (member), both in JSON mode.
    private func household() throws -> (server: TestServer, alice: Device, bob: Device, room: Int) {
        let server = try TestServer()
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        try alice.add("bob", to: room)
        _ = try bob.drain()
        return (server, alice, bob, room)
    }

    private func ids(_ reply: JSON) -> [Int] {
        (reply["tasks"] as? [JSON] ?? []).map { $0["id"] as? Int ?? -1 }
    }

    /// The task ids `line` lists for `device` must be `expected`, in that order.
    private func expectTasks(_ device: Device, _ line: String, _ expected: [Int],
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let listed = ids(try device.ok(line, sourceLocation: sourceLocation))
        #expect(listed == expected, "\(device.label): \(line)", sourceLocation: sourceLocation)
    }

    /// "YYYY-MM-DD" for a day `offset` days from today, in the server's (this process's) time zone.
    private func day(_ offset: Int) -> String {
        let calendar = Calendar.current
        let date = calendar.date(byAdding: .day, value: offset, to: calendar.startOfDay(for: Date()))!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// TASKS, TASKS mine, TASKS me, TASKS R all/done and TASKS overdue list the right tasks, soonest due first, with overdue and days_left.
    @Test func listingsAndFilters() throws {
        let (_, alice, bob, room) = try household()
        func add(_ line: String) throws -> Int { id(try alice.ok(line)["task"]) }
        let kettle = try add("TASK ADD \(room) \"Descale kettle\" due=2020-01-01 assign=alice")
        let plants = try add("TASK ADD \(room) \"Water plants\" due=+3d assign=alice")
        let trash = try add("TASK ADD \(room) \"Take out trash\" due=tomorrow assign=alice")
        let shelf = try add("TASK ADD \(room) \"Fix shelf\" assign=bob")
        let milk = try add("TASK ADD \(room) \"Buy milk\"")
        let mop = try add("TASK ADD \(room) \"Mop floor\" assign=alice")
        try alice.ok("TASK DONE \(mop)")
        let mum = try add("TASK ADD me \"Call mum\" due=+2d")
        let passport = try add("TASK ADD me \"Renew passport\" assign=alice")
        let bobsOwn = id(try bob.ok("TASK ADD me \"Bob's dentist\"")["task"])

        try expectTasks(alice, "TASKS", [kettle, trash, mum, plants, passport])
        try expectTasks(alice, "TASKS mine", [kettle, trash, mum, plants, passport])
        try expectTasks(alice, "TASKS mine open", [kettle, trash, mum, plants, passport])
        try expectTasks(alice, "TASKS me", [mum, passport])
        try expectTasks(alice, "TASKS \(room)", [kettle, trash, plants, shelf, milk])
        try expectTasks(alice, "TASKS \(room) all", [kettle, trash, plants, shelf, milk, mop])
        try expectTasks(alice, "TASKS \(room) done", [mop])
        try expectTasks(alice, "TASKS overdue", [kettle])
        try expectTasks(alice, "TASKS mine done", [mop])
        try expectTasks(bob, "TASKS", [shelf, bobsOwn])
        try expectTasks(bob, "TASKS me", [bobsOwn])
        try expectTasks(bob, "TASKS \(room) overdue", [kettle])

        let byID = Dictionary(uniqueKeysWithValues: (try alice.ok("TASKS \(room) all")["tasks"] as? [JSON] ?? []).map {
            ($0["id"] as? Int ?? -1, $0)
        })
        #expect(byID[kettle]?["overdue"] as? Bool == true)
        #expect((byID[kettle]?["days_left"] as? Int ?? 0) < 0)
        #expect(byID[kettle]?["due"] as? String == "2020-01-01")
        #expect(byID[trash]?["overdue"] as? Bool == false)
        #expect(byID[trash]?["days_left"] as? Int == 1)
        #expect(byID[trash]?["due"] as? String == day(1))
        #expect(byID[plants]?["days_left"] as? Int == 3)
        #expect(byID[shelf]?["due"] is NSNull)
        #expect(byID[shelf]?["days_left"] is NSNull)
        #expect(byID[shelf]?["assignee"] as? String == "bob")
        #expect(byID[milk]?["assignee"] is NSNull)
        // A finished task is never overdue.
        #expect(byID[mop]?["overdue"] as? Bool == false)
        #expect(try alice.code("TASKS \(room) later") == 400)
    }

    /// "Soonest due first" compares moments: a task due at 09:00 tomorrow comes before one due (by the end of) tomorrow.
    @Test func dueTimesSortWithDueDates() throws {
        let (_, alice, _, room) = try household()
        let evening = id(try alice.ok("TASK ADD \(room) \"Any time tomorrow\" due=\(day(1)) assign=alice")["task"])
        let morning = id(try alice.ok("TASK ADD \(room) \"Tomorrow 9 sharp\" due=\(day(1))T09:00 assign=alice")["task"])
        let today = id(try alice.ok("TASK ADD \(room) \"Today\" due=today assign=alice")["task"])
        try expectTasks(alice, "TASKS", [today, morning, evening])
    }

    /// TASK ADD stores the task before it reads its options, so `parent=` naming the id the
    /// new task is about to get found the task itself ("cannot be its own parent"). To the
    /// user that task did not exist: it is an unknown task, and nothing is left behind.
    @Test func parentNamingTheNewTaskIsUnknown() throws {
        let (_, alice, _, room) = try household()
        let first = id(try alice.ok("TASK ADD \(room) Hoover")["task"])
        let refused = try alice.failure("TASK ADD \(room) \"Wipe counters\" parent=\(first + 1)")
        #expect(refused.code == 404)
        #expect(refused.message == "no such task \(first + 1)")
        try expectTasks(alice, "TASKS \(room) all", [first])
        // Editing a task to be its own parent is still the clearer 422.
        let own = try alice.failure("TASK EDIT \(first) parent=\(first)")
        #expect(own.code == 422)
        #expect(own.message == "a task cannot be its own parent")
    }

    /// A parent's progress is its subtasks' progress weighted by points; it cannot be set directly; subtasks go one level deep.
    @Test func subtasksRollUp() throws {
        let (_, alice, bob, room) = try household()
        let parent = id(try alice.ok("TASK ADD \(room) \"Clean the flat\"")["task"])
        let kitchen = id(try alice.ok("TASK ADD \(room) Kitchen parent=\(parent)")["task"])
        let bathroom = object(try bob.ok("TASK ADD \(room) Bathroom parent=#\(parent) points=3")["task"])
        #expect(bathroom["parent"] as? Int == parent)
        #expect(bathroom["points"] as? Int == 3)

        try bob.ok("TASK PROGRESS \(bathroom["id"] as? Int ?? -1) 40")
        var shown = object(try alice.ok("TASK SHOW \(parent)")["task"])
        #expect(shown["progress"] as? Int == 30) // (0×1 + 40×3) / 4
        let subtasks = (shown["subtasks"] as? [JSON] ?? []).map { $0["id"] as? Int ?? -1 }
        #expect(subtasks == [kitchen, bathroom["id"] as? Int ?? -1])

        try alice.ok("TASK DONE \(kitchen)")
        shown = object(try alice.ok("TASK SHOW \(parent)")["task"])
        #expect(shown["progress"] as? Int == 55) // (100×1 + 40×3) / 4
        #expect(shown["status"] as? String == "open")
        // The room's bar counts top-level tasks only: the parent's 55%.
        let rooms = try alice.ok("ROOMS")["rooms"] as? [JSON] ?? []
        #expect(rooms.first?["progress"] as? Int == 55)
        #expect(rooms.first?["open"] as? Int == 1)

        #expect(try alice.code("TASK PROGRESS \(parent) 50") == 409)
        let before = ids(try alice.ok("TASKS \(room) all"))
        #expect(try alice.code("TASK ADD \(room) \"Under the sink\" parent=\(kitchen)") == 422)
        #expect(try alice.code("TASK EDIT \(parent) parent=\(kitchen)") == 422)
        #expect(try alice.code("TASK EDIT \(parent) parent=\(parent)") == 422)
        // A refused TASK ADD leaves nothing behind.
        try expectTasks(alice, "TASKS \(room) all", before)
        // A subtask lives in its parent's room.
        let other = id(try alice.ok("ROOM CREATE Allotment")["room"])
        #expect(try alice.code("TASK ADD \(other) Weeding parent=\(parent)") == 422)

        // Deleting the parent takes its subtasks with it.
        try alice.ok("TASK DELETE \(parent)")
        for gone in [parent, kitchen, bathroom["id"] as? Int ?? -1] {
            #expect(try bob.code("TASK SHOW \(gone)") == 404, "TASK SHOW \(gone)")
        }
        try expectTasks(bob, "TASKS \(room) all", [])
    }

    /// TASK DONE sets status done, progress 100 and done_at, moves the room's progress, and cannot be repeated; TASK REOPEN opens it again at the progress it had.
    @Test func doneAndReopen() throws {
        let (_, alice, bob, room) = try household()
        let trash = id(try alice.ok("TASK ADD \(room) \"Take out trash\"")["task"])
        try alice.ok("TASK ADD \(room) \"Descale kettle\"")
        try bob.ok("TASK PROGRESS \(trash) 40")
        func roomProgress() throws -> Int? {
            (try alice.ok("ROOMS")["rooms"] as? [JSON])?.first { $0["id"] as? Int == room }?["progress"] as? Int
        }
        #expect(try roomProgress() == 20)

        let done = object(try bob.ok("TASK DONE \(trash)")["task"])
        #expect(done["status"] as? String == "done")
        #expect(done["progress"] as? Int == 100)
        let doneAt = done["done_at"] as? String ?? ""
        #expect(doneAt.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/) != nil, "done_at \(doneAt)")
        #expect(try roomProgress() == 50)
        #expect(try alice.code("TASK DONE \(trash)") == 409)
        #expect(try alice.code("TASK PROGRESS \(trash) 50") == 409)
        try expectTasks(alice, "TASKS \(room) done", [trash])

        let reopened = object(try alice.ok("TASK REOPEN \(trash)")["task"])
        #expect(reopened["status"] as? String == "open")
        #expect(reopened["done_at"] is NSNull)
        // It gets back the progress it had before it was finished.
        #expect(reopened["progress"] as? Int == 40)
        #expect(try roomProgress() == 20)
        #expect(try alice.code("TASK REOPEN \(trash)") == 409)
        try expectTasks(alice, "TASKS \(room) done", [])
        #expect(ids(try alice.ok("TASKS \(room)")).contains(trash))
    }

    /// TASK EDIT changes fields and an empty value clears one; bad dates, points and percentages are 422 and change nothing.
    @Test func editingAndBadValues() throws {
        let (_, alice, bob, room) = try household()
        let task = object(try alice.ok("TASK ADD \(room) \"Defrost freezer\" notes=\"use towels\" due=tomorrow points=2 estimate=1")["task"])
        let number = task["id"] as? Int ?? -1
        #expect(task["notes"] as? String == "use towels")
        #expect(task["points"] as? Int == 2)
        #expect(task["due"] as? String == day(1))

        let renamed = object(try alice.ok("TASK EDIT \(number) title=\"Defrost the freezer\" due=2031-05-04")["task"])
        #expect(renamed["title"] as? String == "Defrost the freezer")
        #expect(renamed["due"] as? String == "2031-05-04")
        #expect(renamed["notes"] as? String == "use towels")

        let cleared = object(try alice.ok("TASK EDIT \(number) notes= due= estimate=")["task"])
        #expect(cleared["notes"] is NSNull)
        #expect(cleared["due"] is NSNull)
        #expect(cleared["days_left"] is NSNull)
        #expect(cleared["estimate"] is NSNull)
        #expect(cleared["title"] as? String == "Defrost the freezer")

        for line in ["TASK EDIT \(number) due=someday", "TASK EDIT \(number) due=2026-02-30", "TASK EDIT \(number) points=-1",
                     "TASK EDIT \(number) points=many", "TASK EDIT \(number) estimate=-2", "TASK EDIT \(number) title=\"\"",
                     "TASK PROGRESS \(number) 150", "TASK PROGRESS \(number) -5", "TASK PROGRESS \(number) half",
                     "TASK ASSIGN \(number) nobody-here"] {
            let answer = try alice.failure(line)
            #expect(answer.code == (line.contains("nobody") ? 404 : 422), "\(line) → \(answer)")
        }
        let unchanged = object(try alice.ok("TASK SHOW \(number)")["task"])
        #expect(unchanged["title"] as? String == "Defrost the freezer")
        #expect(unchanged["points"] as? Int == 2)
        #expect(unchanged["progress"] as? Int == 0)
        #expect(unchanged["due"] is NSNull)

        let count = ids(try alice.ok("TASKS \(room) all")).count
        #expect(try alice.code("TASK ADD \(room) \"Paint fence\" due=someday") == 422)
        #expect(try alice.code("TASK ADD \(room) \"Paint fence\" points=-1") == 422)
        #expect(try bob.code("TASK ADD \(room) \"Paint fence\" assign=nobody-here") == 404)
        #expect(ids(try alice.ok("TASKS \(room) all")).count == count)
    }

    /// A personal task (TASK ADD me) has no room, shows in its owner's lists, and does not exist for anyone else.
    @Test func personalTasks() throws {
        let (server, alice, bob, room) = try household()
        let laptop = try server.device("alice", label: "alice's laptop", register: false)
        let task = object(try alice.ok("TASK ADD me \"Call mum\" due=tomorrow")["task"])
        let number = task["id"] as? Int ?? -1
        #expect(task["room"] is NSNull)
        // Only the owner's other session hears about it.
        try expectFanout("task.added", by: "alice", room: nil, issuer: alice, to: [laptop], notTo: [bob])
        try expectTasks(alice, "TASKS me", [number])
        try expectTasks(alice, "TASKS", [number])
        #expect(!ids(try alice.ok("TASKS \(room) all")).contains(number))
        #expect(try alice.code("TASK ASSIGN \(number) bob") == 403)
        for line in ["TASK SHOW \(number)", "TASK DONE \(number)", "COMMENT \(number) hi"] {
            #expect(try bob.code(line) == 404, "\(line)")
        }
        try alice.ok("COMMENT \(number) ring before 8")
        try expectFanout("comment", by: "alice", room: nil, issuer: alice, to: [laptop], notTo: [bob])
        try alice.ok("TASK DONE \(number)")
        try expectFanout("task.done", by: "alice", room: nil, issuer: alice, to: [laptop], notTo: [bob])
    }

    /// A title, a room name or another one-line field holding a line break or a control
    /// character is refused (422) by every command that sets one, so no bot pastes a second
    /// request out of it; notes may hold newlines.
    @Test func oneLineFieldsRefuseLineBreaks() throws {
        let (_, alice, bob, room) = try household()
        let injected = try alice.failure("TASK ADD \(room) \"Dishes\\nSAY \(room) injected\"")
        #expect(injected.code == 422, "\(injected)")
        #expect(injected.message.contains("one line"), "\(injected)")
        let task = id(try alice.ok("TASK ADD \(room) Dishes")["task"])
        #expect(try alice.code("TASK EDIT \(task) title=\"Dishes\\nSAY \(room) injected\"") == 422)
        #expect(try alice.code("TASK ADD \(room) \"tab\tinside\"") == 422)
        #expect(try alice.code("TASK ADD \(room) \"next line\u{85}NEL\"") == 422)
        #expect(try alice.code("TASK ADD \(room) \"separator\u{2028}line\"") == 422)
        #expect(try alice.code("ROOM CREATE Flat\u{85}SAY 1 x") == 422)
        #expect(try alice.code("ROOM RENAME \(room) Flat\tB") == 422)
        #expect(try alice.code("SAY \(room) bell\u{9B}") == 422)
        #expect(object(try alice.ok("TASK SHOW \(task)")["task"])["title"] as? String == "Dishes")
        // Notes are free text and may span lines; a carriage return they may not hold.
        try alice.ok("TASK EDIT \(task) notes=\"soap under the sink\\nsponge in the drawer\"")
        #expect(object(try bob.ok("TASK SHOW \(task)")["task"])["notes"] as? String == "soap under the sink\nsponge in the drawer")
        #expect(try alice.code("TASK EDIT \(task) notes=\"a\u{85}b\"") == 422)
        // Nothing was said in the room.
        #expect((try bob.ok("HISTORY \(room)")["messages"] as? [JSON])?.isEmpty == true)
    }

    /// In text mode, listings show progress bars like [####------]  40% and say "overdue" or "due tomorrow"; TASK DONE reports the room's new bar.
    @Test func textModeReadsLikeTheContract() throws {
        let server = try TestServer()
        let alice = try server.user("alice")
        #expect(try alice.last("ROOM CREATE Flat 2B").hasPrefix("OK created Flat 2B"))
        let added = try alice.call("TASK ADD \"Flat 2B\" \"Take out trash\" due=tomorrow assign=alice")
        #expect(added.last?.hasPrefix("OK added #") == true, "\(added)")
        let trash = added.last.flatMap { $0.firstMatch(of: /#(\d+)/).map { String($0.1) } } ?? "?"
        try alice.call("TASK ADD \"Flat 2B\" \"Descale kettle\" due=2020-01-01 assign=alice")
        #expect(try alice.last("TASK PROGRESS \(trash) 40").contains("[####------]  40%"))

        let listing = try alice.call("TASKS")
        #expect(listing.count == 3, "\(listing)")
        #expect(listing.last == "OK 2 tasks (1 overdue)")
        let kettleLine = listing.first { $0.contains("Descale kettle") } ?? ""
        let trashLine = listing.first { $0.contains("Take out trash") } ?? ""
        #expect(listing.first == kettleLine, "overdue first: \(listing)")
        #expect(kettleLine.contains("[----------]   0%"), "\(kettleLine)")
        #expect(kettleLine.contains("days overdue"), "\(kettleLine)")
        #expect(kettleLine.contains("Flat 2B"), "\(kettleLine)")
        #expect(trashLine.contains("#\(trash)"), "\(trashLine)")
        #expect(trashLine.contains("[####------]  40%"), "\(trashLine)")
        #expect(trashLine.contains("due tomorrow"), "\(trashLine)")
        for line in listing.dropLast() {
            #expect(!line.hasPrefix("OK") && !line.hasPrefix("ERR") && !line.hasPrefix("*"), "body line \(line)")
        }

        let done = try alice.last("TASK DONE \(trash)")
        #expect(done.hasPrefix("OK #\(trash) Take out trash"), "\(done)")
        #expect(done.contains("done"), "\(done)")
        #expect(done.contains("Flat 2B now [#####-----]  50%"), "\(done)")
        let rooms = try alice.call("ROOMS")
        #expect(rooms.last == "OK 1 room")
        #expect(rooms.first?.contains("[#####-----]  50%") == true, "\(rooms)")
        let shown = try alice.call("TASK SHOW \(trash)")
        #expect(shown.first?.contains("[##########] 100%") == true, "\(shown)")
        #expect(shown.first?.contains("done") == true, "\(shown)")
    }
}
