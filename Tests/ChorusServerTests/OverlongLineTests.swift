import ChorusClient
import Foundation
import Testing

/// Lines over `--max-line`: the server keeps no more than one line's worth of them, the
/// connection stays usable after their newline, and their `ERR 413` carries their tag.
@Suite(.timeLimit(.minutes(10))) struct OverlongLineTests {
    /// 64 MiB with no newline, before login and again after, to a chorusd subprocess:
    /// its peak memory grows by less than 16 MiB each time, and after a newline the same
    /// connection answers. Before, the framer kept every byte after the first 413 until a
    /// newline came.
    @Test func endlessLineDoesNotGrowTheServer() throws {
        let directory = try TemporaryDirectory()
        let daemon = try ProcessTests.Daemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        let pid = daemon.process.processIdentifier
        let client = try TestClient(port: daemon.port, certificatePath: directory.path + "/certs/server.crt")
        let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)

        for stage in ["before login", "after login"] {
            #expect(try client.last("PING warm") == "OK PONG warm")
            let before = try Self.memoryKiB(pid, "VmRSS")
            try client.connection.sendRaw(Array("@big PING ".utf8))
            for _ in 0..<64 { try client.connection.sendRaw(piece) }
            // Reported as soon as it is too long, with its tag, long before its newline.
            #expect(try client.reply().last == "@big ERR 413 line longer than 8192 bytes; discarded", "\(stage)")
            try client.connection.sendRaw(Array("xx\r\n".utf8))
            #expect(try client.last("PING after") == "OK PONG after", "\(stage)")
            // The peak, so memory freed once the newline came still counts.
            let peak = try Self.memoryKiB(pid, "VmHWM")
            #expect(peak - before < 16 * 1024, "\(stage): \(before) KiB before, peak \(peak) KiB")
            if stage == "before login" {
                #expect(try client.last("REGISTER lena \"correct horse battery staple\"").hasPrefix("OK"))
            }
        }
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }

    /// A hundred strangers each send 32 KiB of one-byte lines and read nothing: past the
    /// rate limit's burst their lines wait, and the server holds them at about their own
    /// size (a few MiB in all). Before, each waiting line was an array of its own, some
    /// forty times its size: tens of MiB here, gigabytes at --max-connections.
    @Test func waitingShortLinesCostAboutTheirSize() throws {
        let directory = try TemporaryDirectory()
        let daemon = try ProcessTests.Daemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        let pid = daemon.process.processIdentifier
        let clients = try (0..<100).map { _ in try TestClient(port: daemon.port, certificatePath: directory.path + "/certs/server.crt") }
        for client in clients { #expect(try client.last("PING ready") == "OK PONG ready") }
        let before = try Self.memoryKiB(pid, "VmRSS")
        let burst = [UInt8](repeating: 0, count: 32 * 1024).enumerated().map { $0.offset % 2 == 0 ? UInt8(ascii: "P") : UInt8(ascii: "\n") }
        for client in clients { try client.connection.sendRaw(burst) }
        // Time for every session to read what it will before the rate limit stops it.
        Thread.sleep(forTimeInterval: 1.5)
        let after = try Self.memoryKiB(pid, "VmRSS")
        #expect(after - before < 16 * 1024, "\(before) KiB before, \(after) KiB with the lines waiting")
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }

    /// `@t6 REGISTER bob xxxx…`: the 413 carries t6, in text and in JSON mode, whether the
    /// newline came or not, and for the smaller limit before login too.
    @Test func overlongLineReplyCarriesItsTag() throws {
        let server = try TestServer { $0.maxLine = 8192 }
        let client = try server.client()
        let long = String(repeating: "x", count: 9000)
        #expect(try client.last("@t6 REGISTER bob \(long)") == "@t6 ERR 413 line longer than 8192 bytes; discarded")
        #expect(try client.last("@t7 PING \(String(repeating: "y", count: 5000))")
            == "@t7 ERR 413 before login, lines are at most 4096 bytes")
        // Never ended: answered at once, tag and all; the rest of it is skipped.
        try client.connection.sendRaw(Array("@t8 PING \(long)".utf8))
        #expect(try client.reply().last == "@t8 ERR 413 line longer than 8192 bytes; discarded")
        try client.connection.sendRaw(Array("\(long)\r\n".utf8))
        #expect(try client.last("@t9 PING") == "@t9 OK PONG")
        // Untagged stays untagged; a malformed tag is not echoed.
        #expect(try client.last("REGISTER bob \(long)") == "ERR 413 line longer than 8192 bytes; discarded")
        #expect(try client.last("@bad!tag REGISTER bob \(long)") == "ERR 413 line longer than 8192 bytes; discarded")

        #expect(try client.json("MODE json")["mode"] as? String == "json")
        let tooLong = try client.json("@j1 REGISTER bob \(long)")
        #expect(tooLong["type"] as? String == "error")
        #expect(tooLong["tag"] as? String == "j1")
        #expect(tooLong["code"] as? Int == 413)
        let beforeLogin = try client.json("@j2 PING \(String(repeating: "y", count: 5000))")
        #expect(beforeLogin["tag"] as? String == "j2")
        #expect(beforeLogin["code"] as? Int == 413)
        #expect(try client.json("@j3 PING")["pong"] is NSNull)
    }

    /// A field of /proc/PID/status, in KiB.
    static func memoryKiB(_ pid: Int32, _ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
              let value = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap({ Int($0) })
        else { throw LineClient.Failure("no \(field) in /proc/\(pid)/status") }
        return value
    }
}
