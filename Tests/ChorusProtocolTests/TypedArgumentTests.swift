@testable import ChorusProtocol
import Testing

/// Rows read their values once: handlers get numbers, roles, filters, dates and options,
/// and a bad value is refused by the parser with the wording and status it always had.
@Suite("CommandTable: typed arguments")
struct TypedArgumentTests {
    /// `TASK PROGRESS` takes 0-100, with or without `%`; anything else is 422.
    @Test func percents() throws {
        #expect(try request("TASK PROGRESS 3 40%").command == Command.TaskProgress(task: 3, percent: 40))
        #expect(try request("TASK PROGRESS #3 100").command == Command.TaskProgress(task: 3, percent: 100))
        for bad in ["101", "-1", "half", "50%%", "4.5"] {
            let result = try failure("TASK PROGRESS 3 \(bad)")
            #expect(result.error == .badValue("progress is a whole percentage 0-100, not \(bad)"))
        }
    }

    /// Roles, filters and scopes are values, whatever their case.
    @Test func rolesFiltersAndScopes() throws {
        #expect(try request("ROOM ROLE 3 bob Owner").command == Command.RoomRole(room: "3", user: "bob", role: .owner))
        #expect(try request("TASKS ME overdue").command == Command.Tasks(scope: .personal, filter: .overdue))
        #expect(try request("TASKS open done").command == Command.Tasks(scope: .room("open"), filter: .done))
        #expect(try request("TASK ADD ME x").command == Command.TaskAdd(place: .personal, title: "x", options: []))
        #expect(try request("CALENDAR MINE").command == Command.Calendar(scope: .mine))
        #expect(try request("CALENDAR Flat").command == Command.Calendar(scope: .room("Flat")))
        let bad = try failure("TASKS 3 soon")
        #expect(bad.error == .syntax("unknown filter soon; usage: TASKS [R|mine|me] [open|done|overdue|all]"))
    }

    /// `TASKS @NAME` is its own row; a lone `@` is still a room word of TASKS.
    @Test func housemateRow() throws {
        let parsed = try request("tasks @Bob DONE")
        #expect(parsed.command == Command.TasksOfHousemate(user: "Bob", filter: .done))
        #expect(parsed.verb == "TASKS @NAME")
        #expect(parsed.kind == .household)
        #expect(try request("TASKS @bob").command == Command.TasksOfHousemate(user: "bob", filter: .open))
        #expect(try request("TASKS @").command == Command.Tasks(scope: .room("@"), filter: .open))
        #expect(try failure("TASKS @bob open now").error.code == 400)
        #expect(try failure("TASKS @bob soon").error == .syntax("unknown filter soon; usage: TASKS @NAME [open|done|overdue|all]"))
    }

    /// `CALENDAR me` is its own row next to `CALENDAR R|mine`, which keeps its errors.
    @Test func calendarMeRow() throws {
        #expect(try request("CALENDAR me").command == Command.Plain())
        #expect(try request("calendar ME").verb == "CALENDAR me")
        #expect(try failure("CALENDAR").error == .syntax("missing R|mine; usage: CALENDAR R|mine"))
        #expect(try failure("CALENDAR me now").error.code == 400)
        #expect(try CommandTable.help(topic: "calendar me").filter { !$0.hasPrefix("      ") }.count == 1)
        #expect(try CommandTable.help(topic: "TASKS @name").first?.contains("TASKS @NAME [open|done|overdue|all]") == true)
    }

    /// Limits and ids are numbers; HISTORY's bad values stay 422, SYNC's usage errors 400.
    @Test func limits() throws {
        #expect(try request("HISTORY 3 500").command == Command.History(room: "3", limit: 500, before: nil))
        #expect(try failure("HISTORY 3 0").error == .badValue("LIMIT is a positive number, not 0"))
        #expect(try failure("HISTORY 3 before=x").error == .badValue("before is a message id, not x"))
        #expect(try failure("HISTORY 3 before=").error == .badValue("before is a message id, not "))
        #expect(try failure("SYNC 3 0").error.code == 400)
        #expect(try request("ROOM INVITE 3 uses=").command == Command.RoomInvite(room: "3", uses: nil, expires: nil))
        #expect(try failure("ROOM INVITE 3 uses=1001").error == .badValue("uses is 1-1000, not 1001"))
    }

    /// Task options come in key order, typed; an empty value clears; bad values are 422
    /// with the wording the handlers used to give.
    @Test func taskOptions() throws {
        let parsed = try request(#"TASK ADD 3 x rotate="alice, bob,,carol" points= estimate=2.5 parent=#7 repeat=3D assign=- due="#)
        #expect(parsed.command == Command.TaskAdd(place: .room("3"), title: "x", options: [
            .assign(nil), .due(nil), .estimate(2.5), .parent(7), .points(nil), .repeat(.days(3)), .rotate(["alice", "bob", "carol"]),
        ]))
        let cases: [(String, ChorusError)] = [
            ("due=someday", .badValue("bad date someday: use \(DateWord.accepted)")),
            ("remind=2026-02-30", .badValue("bad date 2026-02-30: use \(DateWord.accepted)")),
            ("estimate=-1", .badValue("estimate is a number of days 0-3650, not -1")),
            ("points=1001", .badValue("points is a whole number 0-1000, not 1001")),
            ("parent=x", .badValue("parent is a task number, not x")),
            ("parent=x7", .badValue("parent is a task number, not x7")),
            ("repeat=yearly", .badValue("bad repeat yearly: use daily, weekly, monthly or Nd (1-365)")),
        ]
        for (option, error) in cases {
            #expect(try failure("TASK EDIT 5 \(option)").error == error, "\(option)")
        }
        // The ranges' edges.
        for bad in ["-1", "3650.5", "nan", "inf", "two"] {
            #expect(try failure("TASK EDIT 5 estimate=\(bad)").error == .badValue("estimate is a number of days 0-3650, not \(bad)"))
        }
        for bad in ["-1", "1001", "1.5"] {
            #expect(try failure("TASK EDIT 5 points=\(bad)").error == .badValue("points is a whole number 0-1000, not \(bad)"))
        }
        #expect(try request("TASK EDIT 5 estimate=3650 points=0").command
                == Command.TaskEdit(task: 5, options: [.estimate(3650), .points(0)]))
        // The first bad value in key order is the one reported, as when handlers checked them.
        #expect(try failure("TASK ADD me x points=x due=x").error.message.hasPrefix("bad date x"))
    }

    /// A WHEN is read into its form; placing it in time is the domain's (it needs the clock).
    @Test func dateWords() throws {
        let forms: [(String, DateWord.Form)] = [
            ("today", .today), ("TOMORROW", .tomorrow), ("+3d", .daysAhead(3)), ("+2h", .hoursAhead(2)), ("+90m", .minutesAhead(90)),
            ("fri", .weekday(5)), ("Sunday", .weekday(0)), ("2026-12-05", .date(CivilDate(year: 2026, month: 12, day: 5))),
            ("2026-12-05T18:30", .localTime(CivilDate(year: 2026, month: 12, day: 5), hour: 18, minute: 30)),
            ("2026-12-05T18:30Z", .utcTime(CivilDate(year: 2026, month: 12, day: 5), hour: 18, minute: 30, second: 0)),
            ("2026-12-05T18:30:07Z", .utcTime(CivilDate(year: 2026, month: 12, day: 5), hour: 18, minute: 30, second: 7)),
        ]
        for (text, form) in forms {
            #expect(try DateWord(parsing: text) == DateWord(text: text, form: form), "\(text)")
        }
        for bad in ["", "+3w", "+3651d", "2026-13-01", "1969-12-31", "2026-12-05T24:00", "2026-12-05 18:30", "fr",
                    "2026-12-05T18:30z", "2026-12-05T24:00Z", "2026-12-05T18:3+Z", "2026-12-05T18:30:60Z", "2026-12-05T18:30+01:00"] {
            #expect(throws: ChorusError.self, "\(bad)") { try DateWord(parsing: bad) }
        }
    }
}
