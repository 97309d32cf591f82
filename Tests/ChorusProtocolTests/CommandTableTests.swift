@testable import ChorusProtocol
import Foundation
import Testing

@Suite("CommandTable")
struct CommandTableTests {
    /// Every usage line begins with the command's own name, so HELP and usage errors say what to type.
    @Test func usageStartsWithName() {
        for spec in CommandTable.all {
            #expect(spec.usage == spec.name || spec.usage.hasPrefix(spec.name + " "), "usage \(spec.usage)")
            #expect(spec.name.hasPrefix(spec.verb))
        }
    }

    /// No two rows answer to the same verb and sub-verb.
    @Test func noDuplicateRows() {
        var seen: Set<String> = []
        for spec in CommandTable.all {
            let key = spec.verb + " " + (spec.subverb ?? "")
            #expect(!seen.contains(key), "duplicate row \(key)")
            seen.insert(key)
        }
    }

    /// Every row can be found whatever case the user types it in.
    @Test func rowsFoundCaseInsensitively() {
        for spec in CommandTable.all {
            let found = CommandTable.spec(verb: spec.verb.lowercased(), subverb: spec.subverb?.lowercased())
            #expect(found?.name == spec.name)
            #expect(CommandTable.rows(forVerb: spec.verb.lowercased()).contains { $0.name == spec.name })
        }
        #expect(CommandTable.spec(verb: "FROB", subverb: nil) == nil)
        #expect(CommandTable.rows(forVerb: "frob").isEmpty)
    }

    /// The contract's session and account commands are all present with their documented usage.
    @Test func contractCommandsPresent() {
        let usages = Set(CommandTable.all.map(\.usage))
        for usage in ["HELP [VERB] [SUBVERB]", "MODE text|json", "PING [TOKEN]", "QUIT", "REGISTER NAME PASSWORD [invite=CODE]",
                      "LOGIN NAME PASSWORD", "LOGOUT", "WHOAMI", "PASSWORD OLD NEW"] {
            #expect(usages.contains(usage), "missing \(usage)")
        }
    }

    /// Only the commands a stranger needs work before logging in.
    @Test func loginRequirements() {
        for verb in ["HELP", "MODE", "PING", "QUIT", "REGISTER", "LOGIN"] {
            #expect(CommandTable.spec(verb: verb, subverb: nil)?.needsLogin == false, "\(verb)")
        }
        for verb in ["LOGOUT", "WHOAMI", "PASSWORD"] {
            #expect(CommandTable.spec(verb: verb, subverb: nil)?.needsLogin == true, "\(verb)")
        }
    }

    /// HELP with no topic lists every row, in table order, each with its usage and summary;
    /// a row too wide for 78 columns wraps, its options and then its summary on indented
    /// lines of their own, and no line is wider.
    @Test func helpListsEveryRow() throws {
        let lines = try CommandTable.help(topic: nil)
        #expect(lines.allSatisfy { $0.terminalColumns <= CommandTable.helpColumns }, "\(lines.filter { $0.terminalColumns > 78 })")
        let starts = lines.enumerated().filter { !$0.element.hasPrefix("      ") }
        #expect(starts.count == CommandTable.all.count)
        for (index, (start, spec)) in zip(starts, CommandTable.all).enumerated() {
            #expect(start.element.hasPrefix("  " + spec.usageHead), "\(start.element)")
            let end = index + 1 < starts.count ? starts[index + 1].offset : lines.count
            let row = lines[start.offset..<end].map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            let words = row.split(separator: " ").joined(separator: " ")
            #expect(words.contains(spec.summary), "\(row)")
            for option in spec.options { #expect(words.contains("[\(option)]"), "\(row)") }
            #expect(words.hasSuffix("(no login needed)") == !spec.needsLogin, "\(row)")
        }
    }

    /// HELP lines start with spaces, so they never look like a final line or an event.
    @Test func helpLinesIndented() throws {
        for line in try CommandTable.help(topic: nil) {
            #expect(line.hasPrefix("  "))
            #expect(!line.contains("\n"))
        }
    }

    /// `HELP ping` shows just PING's line, whatever the case of the topic.
    @Test(arguments: ["ping", "PING", "Ping"])
    func helpOneTopic(topic: String) throws {
        let lines = try CommandTable.help(topic: topic)
        #expect(lines.filter { !$0.hasPrefix("      ") }.count == 1)
        #expect(lines.first?.contains("PING [TOKEN]") == true)
        #expect(lines.joined(separator: " ").split(separator: " ").joined(separator: " ").contains("check the connection"))
    }

    /// HELP for an unknown topic gets ERR 404, so a typo is not mistaken for a command without help.
    @Test(arguments: ["frob", "ping extra", "REGISTERX"])
    func helpUnknownTopic(topic: String) {
        #expect(throws: ChorusError.self) { try CommandTable.help(topic: topic) }
        do {
            _ = try CommandTable.help(topic: topic)
        } catch {
            #expect(error.code == 404)
            #expect(error.message.contains(topic.uppercased()))
        }
    }

    /// `HELP ""` (an empty quoted topic) gets a reply instead of crashing the process.
    @Test func helpEmptyTopicDoesNotCrash() async {
        await #expect(processExitsWith: .success) {
            guard case .request(let request) = RequestParser.parse(#"HELP """#),
                  let help = request.command(as: Command.Help.self) else { return }
            _ = try? CommandTable.help(topic: help.topic)
        }
    }

    /// `HELP " "` (a blank quoted topic) gets a reply instead of crashing the process.
    @Test func helpBlankTopicDoesNotCrash() async {
        await #expect(processExitsWith: .success) {
            guard case .request(let request) = RequestParser.parse(#"HELP " " """#),
                  let help = request.command(as: Command.Help.self) else { return }
            _ = try? CommandTable.help(topic: help.topic)
        }
    }
}

@Suite("CommandTable: sub-verbs and text verbs")
struct CommandTableSubverbTests {
    /// ROOM and TASK pick rows by a keyword, TASKS by an `@NAME`, CALENDAR by `me`; PING
    /// and SAY have one row, so the parser need not read ahead.
    @Test func whichVerbsReadTheNextWord() {
        for verb in ["ROOM", "TASK", "TASKS", "CALENDAR", "TOKEN", "ADMIN"] {
            #expect(CommandTable.picksRowByNextWord(verb), "\(verb)")
        }
        for verb in ["PING", "SAY", "SYNC", "FROB"] {
            #expect(!CommandTable.picksRowByNextWord(verb), "\(verb)")
        }
    }

    /// The word after the verb tells a verb's rows apart (a keyword, an `@NAME`, or neither),
    /// with at most one row for `@NAME` and one for neither, so the parser never has to guess.
    @Test func verbsConsistentAboutSubverbs() {
        for verb in Set(CommandTable.all.map(\.verb)) {
            let rows = CommandTable.rows(forVerb: verb)
            #expect(rows.filter { $0.head == .verbOnly }.count <= 1, "\(verb)")
            #expect(rows.filter { if case .mention = $0.head { true } else { false } }.count <= 1, "\(verb)")
            #expect(rows.allSatisfy { !($0.subverb ?? "").isEmpty || $0.head == .verbOnly }, "\(verb)")
            for row in rows {
                if case .keyword(let word) = row.head { #expect(!word.hasPrefix("@") && !word.contains(" "), "\(row.name)") }
            }
        }
    }

    /// The contract's text verbs that exist take the rest of the line; the task TITLE does not.
    @Test func textVerbs() {
        for name in ["SAY", "COMMENT", "ROOM CREATE", "ROOM RENAME"] {
            let words = name.split(separator: " ").map(String.init)
            let spec = CommandTable.spec(verb: words[0], subverb: words.count > 1 ? words[1] : nil)
            #expect(spec?.text != nil, "\(name) is a text verb")
            #expect(spec?.usage.hasSuffix("...") == true)
        }
        #expect(CommandTable.spec(verb: "TASK", subverb: "ADD")?.text == nil)
    }

    /// A text verb takes no options (they would be swallowed by the text).
    @Test func textVerbsTakeNoOptions() {
        for spec in CommandTable.all where spec.text != nil {
            #expect(spec.options.isEmpty, "\(spec.name)")
        }
    }

    /// Option usage words are `key=PLACEHOLDER`, with keys the parser can read (letters and `_`).
    @Test func optionKeysReadable() {
        for spec in CommandTable.all {
            for (option, key) in zip(spec.options, spec.optionKeys) {
                #expect(option.hasPrefix(key + "="), "\(spec.name): \(option)")
                #expect(!key.isEmpty && key.allSatisfy { $0.isLetter || $0 == "_" } && key == key.lowercased(), "\(spec.name): \(key)")
            }
        }
    }

    /// `HELP room` lists every ROOM row; `HELP room create` just one.
    @Test func helpForVerbWithSubverbs() throws {
        // A row's first line is the one not indented as a continuation.
        let rooms = try CommandTable.help(topic: "room").filter { !$0.hasPrefix("      ") }
        #expect(rooms.count == CommandTable.rows(forVerb: "ROOM").count)
        #expect(rooms.count > 1)
        #expect(rooms.allSatisfy { $0.hasPrefix("  ROOM ") })
        let create = try CommandTable.help(topic: "room create").filter { !$0.hasPrefix("      ") }
        #expect(create.count == 1)
        #expect(create.first?.contains("ROOM CREATE NAME...") == true)
        #expect(throws: ChorusError.self) { try CommandTable.help(topic: "room fly") }
    }

    /// `HELP ROOMS` shows the ROOMS row only, not the ROOM rows.
    @Test func helpRoomsIsNotRoom() throws {
        let lines = try CommandTable.help(topic: "rooms")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("  ROOMS ") == true)
    }
}
