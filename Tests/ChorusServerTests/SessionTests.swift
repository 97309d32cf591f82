import ChorusClient
import Foundation
import Testing

/// The line protocol over real TLS: greeting, modes, tags, framing errors.
@Suite struct SessionTests {
    /// A new connection is greeted with one `* ` line that points at HELP.
    @Test func greetsWithAStarLine() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(client.greeting.hasPrefix("* chorus"))
        #expect(client.greeting.contains("HELP"))
    }

    /// PING answers in text and, after MODE json, as one JSON object carrying the tag.
    @Test func pingInBothModesWithTags() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(try client.last("PING") == "OK PONG")
        #expect(try client.last("@a1 ping hello") == "@a1 OK PONG hello")
        let mode = try client.json("@m MODE json")
        #expect(mode["type"] as? String == "ok")
        #expect(mode["tag"] as? String == "m")
        #expect(mode["mode"] as? String == "json")
        let pong = try client.json("@p2 PING x")
        #expect(pong["pong"] as? String == "x")
        #expect(pong["tag"] as? String == "p2")
        let untagged = try client.json("PING")
        #expect(untagged["tag"] == nil)
        #expect(untagged["pong"] is NSNull)
        #expect(try client.last("MODE text") == "OK mode text")
    }

    /// HELP lists every command as body lines before OK; HELP VERB shows one; unknown ones are 404.
    @Test func helpComesFromTheCommandTable() throws {
        let server = try TestServer()
        let client = try server.client()
        let all = try client.call("HELP")
        #expect(all.last?.hasPrefix("OK") == true)
        #expect(all.contains { $0.contains("REGISTER NAME PASSWORD") })
        #expect(all.contains { $0.contains("PING [TOKEN]") })
        let one = try client.call("help login")
        #expect(one.count == 2)
        #expect(one[0].contains("LOGIN NAME PASSWORD"))
        #expect(one[1] == "OK 1 command")
        #expect(try client.last("HELP FROBNICATE").hasPrefix("ERR 404"))

        // In JSON mode `commands` holds what the text lists: one subcommand, or a verb's.
        try client.call("MODE json")
        let usages = { (topic: String) throws -> [String] in
            let reply = try client.json("HELP \(topic)")
            return (reply["commands"] as? [[String: Any]] ?? []).compactMap { $0["usage"] as? String }
        }
        #expect(try usages("TASK EDIT").count == 1)
        #expect(try usages("TASK EDIT").first?.hasPrefix("TASK EDIT T") == true)
        #expect(try usages("ROOM").allSatisfy { $0.hasPrefix("ROOM ") })
        #expect(try usages("ROOM").count > 5)
    }

    /// Unknown verbs and wrong arity get 400 with the usage line, and the tag is kept.
    @Test func usageErrorsCarryTheUsageLine() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(try client.last("FROBNICATE now").hasPrefix("ERR 400 unknown command FROBNICATE"))
        let arity = try client.last("@t REGISTER onlyname")
        #expect(arity.hasPrefix("@t ERR 400"))
        #expect(arity.contains("usage: REGISTER NAME PASSWORD"))
        #expect(try client.last("MODE xml").contains("usage: MODE text|json"))
        #expect(try client.last("PING \"unterminated").hasPrefix("ERR 400"))
    }

    /// A line over the limit gets 413 and is skipped to its end; the next line works.
    @Test func overLongLineIsRefusedAndTheConnectionStaysUsable() throws {
        let server = try TestServer { $0.maxLine = 1024 }
        let client = try server.client()
        try client.connection.sendRaw(Array(repeating: UInt8(ascii: "a"), count: 5000) + [0x0d, 0x0a])
        #expect(try client.reply().last?.hasPrefix("ERR 413") == true)
        // The same once more, in pieces, with no newline for a while.
        for _ in 0..<10 { try client.connection.sendRaw(Array(repeating: UInt8(ascii: "b"), count: 700)) }
        try client.connection.sendRaw([0x0a])
        #expect(try client.reply().last?.hasPrefix("ERR 413") == true)
        #expect(try client.last("PING ok") == "OK PONG ok")
    }

    /// Invalid UTF-8 and binary junk get 400; empty lines are ignored; LF alone ends a line.
    @Test func malformedBytesGetClearErrors() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.connection.sendRaw([0x50, 0x49, 0x4e, 0x47, 0x20, 0xff, 0xfe, 0x0d, 0x0a])
        #expect(try client.reply().last == "ERR 400 invalid UTF-8")
        try client.connection.sendRaw([0x01, 0x02, 0x1b, 0x5b, 0x32, 0x4a, 0x0a])
        #expect(try client.reply().last?.hasPrefix("ERR 400") == true)
        try client.connection.sendRaw(Array("\r\n\n   \nPING lf\n".utf8))
        #expect(try client.reply().last == "OK PONG lf")
    }

    /// Many commands sent at once are answered one by one, in order, tags intact.
    @Test func pipelinedCommandsAnswerInOrder() throws {
        let server = try TestServer()
        let client = try server.client()
        var batch = "REGISTER pipe \"correct horse battery staple\"\r\n"
        for index in 0..<50 { batch += "@n\(index) PING \(index)\r\n" }
        batch += "@w WHOAMI\r\n"
        try client.connection.sendRaw(Array(batch.utf8))
        #expect(try client.reply().last?.hasPrefix("OK welcome pipe") == true)
        for index in 0..<50 {
            #expect(try client.reply().last == "@n\(index) OK PONG \(index)")
        }
        #expect(try client.reply().last == "@w OK pipe")
    }

    /// Pipelined room commands overlap on the server, yet every reply comes back in
    /// request order, mixed with commands that answer at once and with syntax errors.
    @Test func pipelinedHouseholdCommandsKeepOrder() throws {
        let server = try TestServer()
        let client = try server.user("orderly")
        #expect(try client.last("ROOM CREATE Flat").hasPrefix("OK created Flat (#1)"))
        var lines: [String] = []
        var expected: [String] = []
        for index in 0..<150 {
            switch index % 5 {
            case 0, 1, 2:
                lines.append("@s\(index) SAY 1 message \(index)")
                expected.append("@s\(index) OK said in Flat")
            case 3:
                lines.append("@p\(index) PING \(index)")
                expected.append("@p\(index) OK PONG \(index)")
            default:
                lines.append("@e\(index) SAY")
                expected.append("@e\(index) ERR 400 missing R; usage: SAY R TEXT...")
            }
        }
        lines.append("@h HISTORY 1 200")
        try client.connection.sendRaw(Array(lines.map { $0 + "\r\n" }.joined().utf8))
        for line in expected { #expect(try client.reply().last == line) }
        let history = try client.reply()
        #expect(history.last == "@h OK 90 messages in Flat")
        #expect(history.dropLast().map { $0.split(separator: " ").last.map(String.init) ?? "" }
            == (0..<150).filter { $0 % 5 < 3 }.map(String.init))
    }

    /// After a line had to wait for pipelined room commands, the session goes on reading:
    /// lines sent later are still answered.
    @Test func readingResumesAfterAHeldLine() throws {
        let server = try TestServer()
        let client = try server.user("patient")
        #expect(try client.last("ROOM CREATE Flat").hasPrefix("OK"))
        for round in 0..<20 {
            try client.connection.sendRaw(Array("@s\(round) SAY 1 hello\r\n@p\(round) PING\r\n".utf8))
            #expect(try client.reply().last == "@s\(round) OK said in Flat")
            #expect(try client.reply().last == "@p\(round) OK PONG")
            #expect(try client.last("@w\(round) WHOAMI") == "@w\(round) OK patient")
        }
    }

    /// QUIT answers OK and the server closes the connection.
    @Test func quitClosesAfterReplying() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(try client.last("QUIT") == "OK bye")
        #expect(try client.connection.readLine(timeout: 5) == nil)
    }

    /// A socket that never sends a line is closed after the handshake timeout.
    @Test func silentConnectionIsClosedAfterTheHandshakeTimeout() throws {
        let server = try TestServer { $0.handshakeTimeout = 1 }
        let client = try server.client()
        #expect(try client.connection.readLine(timeout: 5) == nil)
    }

    /// A session silent past the idle timeout is told why and closed; PING keeps one alive.
    @Test func idleSessionIsClosedAndPingKeepsItOpen() throws {
        // 2.2 s to spare between PINGs, for ThreadSanitizer on a loaded machine.
        let server = try TestServer { $0.idleTimeout = 3 }
        let quiet = try server.client()
        let chatty = try server.client()
        #expect(try quiet.last("PING") == "OK PONG")
        for _ in 0..<5 {
            Thread.sleep(forTimeInterval: 0.8)
            #expect(try chatty.last("PING") == "OK PONG")
        }
        let notice = try quiet.connection.readLine(timeout: 5)
        #expect(notice?.hasPrefix("ERR 429 idle") == true)
        #expect(try quiet.connection.readLine(timeout: 5) == nil)
        #expect(try chatty.last("PING") == "OK PONG")
    }
}
