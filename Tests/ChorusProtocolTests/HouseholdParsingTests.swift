@testable import ChorusProtocol
import Testing

/// Sub-verbs, text verbs and `key=value` options, as the room, task and chat rows use them.
@Suite("RequestParser: rooms, tasks and chat")
struct HouseholdParsingTests {
    // MARK: Sub-verbs

    /// Sub-verbs are case-insensitive like verbs, and the request is named by its row.
    @Test(arguments: ["ROOM SHOW 3", "room show 3", "Room Show 3", "rOOM sHOW 3"])
    func subverbsCaseInsensitive(text: String) throws {
        let parsed = try request(text)
        #expect(parsed.command == Command.Room(room: "3"))
        #expect(parsed.verb == "ROOM SHOW")
        #expect(parsed.needsLogin)
    }

    /// An unknown sub-verb gets ERR 400 listing the usage of every sub-verb of that verb, keeping the tag.
    @Test func unknownSubverb() throws {
        let result = try failure("@s1 ROOM FLY 3")
        #expect(result.error.code == 400)
        #expect(result.tag == "s1")
        #expect(result.error.message.contains("unknown ROOM command"))
        #expect(result.error.message.contains("ROOM CREATE NAME..."))
        #expect(result.error.message.contains("ROOM JOIN CODE"))
    }

    /// A verb that needs a sub-verb, given none, gets ERR 400 saying it is missing.
    @Test func missingSubverb() throws {
        let result = try failure("TASK")
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("missing TASK command"))
        #expect(result.error.message.contains("TASK ADD R|me TITLE"))
    }

    /// A room name with spaces is given as one quoted argument.
    @Test func quotedRoomName() throws {
        #expect(try request(#"ROOM SHOW "Flat 2B""#).command == Command.Room(room: "Flat 2B"))
        #expect(try request(#"ROOM ADD "Flat 2B" bob"#).command == Command.RoomWord(room: "Flat 2B", word: "bob"))
    }

    /// ROOM ROLE takes owner, admin or member in any case; anything else is ERR 400.
    @Test func roomRole() throws {
        #expect(try request("ROOM ROLE 3 bob ADMIN").command == Command.RoomRole(room: "3", user: "bob", role: .admin))
        let result = try failure("ROOM ROLE 3 bob king")
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("unknown role king"))
        #expect(result.error.message.contains("usage: ROOM ROLE R USER owner|admin|member"))
    }

    // MARK: Text verbs

    /// SAY takes the rest of the line verbatim as the text: quotes, backslashes and `=` included.
    @Test func sayTextVerbatim() throws {
        #expect(try request(#"SAY kitchen He said "hi" \o/ a=b"#).command
            == Command.Message(to: "kitchen", text: #"He said "hi" \o/ a=b"#))
        #expect(try request(#"SAY 3 "quoted whole""#).command == Command.Message(to: "3", text: #""quoted whole""#))
        #expect(try request(#"SAY 3 \n stays two characters"#).command == Command.Message(to: "3", text: #"\n stays two characters"#))
    }

    /// A text verb's fixed argument may be quoted; the text starts after it.
    @Test func sayQuotedRoom() throws {
        #expect(try request(#"@m1 say "Flat 2B"   who took my milk?"#).command
            == Command.Message(to: "Flat 2B", text: "who took my milk?"))
    }

    /// A text verb without its text gets ERR 400 with the usage line.
    @Test(arguments: ["SAY 3", "SAY 3    ", "SAY"])
    func sayMissingText(text: String) throws {
        let result = try failure(text)
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("usage: SAY R TEXT..."))
    }

    /// SAY with nothing after it says the room is what is missing first.
    @Test func sayWithNothingNamesRoomAsMissing() throws {
        #expect(try failure("SAY").error.message.hasPrefix("missing R;"))
    }

    /// ROOM CREATE takes the whole rest of the line as the room name.
    @Test func roomCreateName() throws {
        #expect(try request("ROOM CREATE Flat 2B").command == Command.Word(value: "Flat 2B"))
        #expect(try request(#"room create  Flat "2B""#).command == Command.Word(value: #"Flat "2B""#))
        let missing = try failure("ROOM CREATE")
        #expect(missing.error.code == 400)
        #expect(missing.error.message.contains("usage: ROOM CREATE NAME..."))
    }

    /// ROOM RENAME takes a room and then the rest of the line as the new name.
    @Test func roomRename() throws {
        #expect(try request(#"ROOM RENAME "Flat 2B" Flat 3C (the big one)"#).command
            == Command.RoomWord(room: "Flat 2B", word: "Flat 3C (the big one)"))
    }

    /// COMMENT takes a task number (with or without `#`) and the rest of the line.
    @Test func comment() throws {
        #expect(try request("COMMENT #12 looks good, thanks!").command == Command.TaskText(task: 12, text: "looks good, thanks!"))
        #expect(try request("comment 12 ok").command == Command.TaskText(task: 12, text: "ok"))
    }

    /// A task given as anything but a positive number gets ERR 400 explaining tasks are named by number.
    @Test(arguments: ["COMMENT trash hi", "TASK DONE 0", "TASK DONE -3", "TASK SHOW #", "TASK REOPEN 1.5"])
    func taskMustBeNumber(text: String) throws {
        let result = try failure(text)
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("a task is named by its number"))
    }

    /// A task TITLE is not a text verb: a title with spaces must be quoted.
    @Test func taskTitleMustBeQuoted() throws {
        let result = try failure("TASK ADD me Take out trash")
        #expect(result.error.code == 400)
        #expect(result.error.message.contains(#"too many arguments (an argument of several words goes in "double quotes")"#))
        #expect(try request(#"TASK ADD me "Take out trash""#).command
            == Command.TaskAdd(place: .personal, title: "Take out trash", options: []))
    }

    // MARK: Options

    /// Options a command takes are collected by key, in any case, with quoted values unquoted.
    @Test func taskAddOptions() throws {
        let parsed = try request(#"TASK ADD "Flat 2B" "Descale kettle" notes="use the \"good\" vinegar" DUE=+2d points=3"#)
        #expect(parsed.command == Command.TaskAdd(place: .room("Flat 2B"), title: "Descale kettle",
                                                 options: [.due(DateWord(text: "+2d", form: .daysAhead(2))),
                                                           .notes(#"use the "good" vinegar"#), .points(3)]))
    }

    /// Options may come before, between or after the positional arguments.
    @Test func optionsAnywhere() throws {
        #expect(try request("TASK ADD due=today me chores").command
            == Command.TaskAdd(place: .personal, title: "chores", options: [.due(DateWord(text: "today", form: .today))]))
        #expect(try request("ROOM INVITE uses=2 3 expires=friday").command
            == Command.RoomInvite(room: "3", uses: 2, expires: DateWord(text: "friday", form: .weekday(5))))
    }

    /// `key=` with nothing after it is an empty value, which TASK EDIT uses to clear a field.
    @Test func emptyOptionValue() throws {
        #expect(try request("TASK EDIT 12 notes=").command == Command.TaskEdit(task: 12, options: [.notes("")]))
        #expect(try request("TASK EDIT #12 notes= due=friday").command
            == Command.TaskEdit(task: 12, options: [.due(DateWord(text: "friday", form: .weekday(5))), .notes("")]))
        #expect(try request(#"TASK EDIT 12 notes="""#).command == Command.TaskEdit(task: 12, options: [.notes("")]))
    }

    /// An option the command does not take gets ERR 400 naming it, with the usage line.
    @Test func unknownOption() throws {
        let result = try failure("@i ROOM INVITE 3 colour=red")
        #expect(result.error.code == 400)
        #expect(result.tag == "i")
        #expect(result.error.message.contains("unknown option colour"))
        #expect(result.error.message.contains("usage: ROOM INVITE R [uses=N] [expires=WHEN]"))
    }

    /// The same option twice gets ERR 400 instead of one silently winning.
    @Test func optionTwice() throws {
        let result = try failure("ROOM INVITE 3 uses=1 USES=2")
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("option uses given twice"))
    }

    /// TASK EDIT with no option gets ERR 400 "nothing to change"; it cannot reassign (that is TASK ASSIGN).
    @Test func taskEditNeedsOptions() throws {
        #expect(try failure("TASK EDIT 12").error.message.contains("nothing to change"))
        #expect(try failure("TASK EDIT 12 assign=bob").error.message.contains("unknown option assign"))
        #expect(try request("TASK EDIT 12 title=\"New title\"").command == Command.TaskEdit(task: 12, options: [.title("New title")]))
    }

    /// A quoted `key=value` word on a command with options is a plain argument.
    @Test func quotedEqualsIsArgumentEvenWithOptions() throws {
        #expect(try request(#"TASK ADD me "x=y""#).command == Command.TaskAdd(place: .personal, title: "x=y", options: []))
    }

    // MARK: Other rows

    /// TASK ASSIGN with `-` unassigns.
    @Test func taskAssign() throws {
        #expect(try request("TASK ASSIGN 12 -").command == Command.TaskAssign(task: 12, user: nil))
        #expect(try request("TASK ASSIGN #12 bob").command == Command.TaskAssign(task: 12, user: "bob"))
    }

    /// TASKS alone, with a scope, with a filter, or both; a lone filter word means your tasks.
    @Test func tasksScopesAndFilters() throws {
        #expect(try request("TASKS").command == Command.Tasks(scope: .mine, filter: .open))
        #expect(try request("TASKS DONE").command == Command.Tasks(scope: .mine, filter: .done))
        #expect(try request("tasks mine OPEN").command == Command.Tasks(scope: .mine, filter: .open))
        #expect(try request("TASKS 3").command == Command.Tasks(scope: .room("3"), filter: .open))
        #expect(try failure("TASKS 3 open now").error.code == 400)
    }

    /// HISTORY takes a room, an optional limit and a `before=ID` option.
    @Test func history() throws {
        #expect(try request("HISTORY 3").command == Command.History(room: "3", limit: nil, before: nil))
        #expect(try request("HISTORY 3 50 before=100").command == Command.History(room: "3", limit: 50, before: 100))
    }

    /// Every room, task and chat command requires a login.
    @Test func householdCommandsNeedLogin() throws {
        for text in ["ROOMS", "ROOM CREATE x", "ROOM JOIN abc", "TASK DONE 1", "TASKS", "SAY 1 hi", "COMMENT 1 hi", "HISTORY 1"] {
            #expect(try request(text).needsLogin, "\(text)")
        }
    }
}
