import ChorusClient
import ChorusCrypto
import ChorusSQLite
import ChorusTestSupport
import Foundation
import Testing

/// What the process guarantees when it dies: nothing acknowledged is lost.
/// A time limit turns a stuck subprocess into a failure instead of a stalled run.
@Suite(.timeLimit(.minutes(10))) struct DurabilityTests {
    /// SIGKILL at random moments during a stream of writes, many times: after each restart
    /// every acknowledged message is there, the database passes integrity_check, and the
    /// server starts.
    @Test func acknowledgedWritesSurviveSIGKILL() throws {
        let directory = try TemporaryDirectory()
        var generator = SystemRandomNumberGenerator()
        var acknowledged: [String] = []
        var room = 0
        for round in 0..<6 {
            let daemon = try ProcessTests.Daemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10", "--rate", "100000",
                                                  "--burst", "100000"], in: directory.path)
            #expect(try daemon.waitUntilListening(), "round \(round): the server did not start")
            let client = try TestClient(port: daemon.port, certificatePath: directory.path + "/certs/server.crt")
            if round == 0 {
                #expect(try client.last("REGISTER writer \"\(defaultPassword)\"").hasPrefix("OK"))
                try client.call("MODE json")
                room = (try client.json("ROOM CREATE Log")["room"] as? [String: Any])?["id"] as? Int ?? 0
            } else {
                #expect(try client.last("LOGIN writer \"\(defaultPassword)\"").hasPrefix("OK"))
                try client.call("MODE json")
            }
            // Pipeline writes; kill the server after a random number of acknowledgements.
            let killAfter = Int.random(in: 5...120, using: &generator)
            let total = 200
            try client.connection.sendRaw(Array((0..<total).map { "SAY \(room) r\(round)-\($0)\r\n" }.joined().utf8))
            for index in 0..<total {
                if index == killAfter { kill(daemon.process.processIdentifier, SIGKILL) }
                guard let line = try? client.connection.readLine(timeout: 10), let reply = line.data(using: .utf8),
                      let object = try? JSONSerialization.jsonObject(with: reply) as? [String: Any] else { break }
                if object["type"] as? String == "ok" { acknowledged.append("r\(round)-\(index)") }
            }
            try daemon.process.requireExit(within: 60)
            #expect(daemon.process.terminationReason == .uncaughtSignal)

            let database = try Database(path: directory.path + "/data/chorus.sqlite")
            let integrity = try database.prepare("PRAGMA integrity_check").rows { $0.text(0) }
            #expect(integrity == ["ok"], "round \(round)")
            let stored = Set(try database.prepare("SELECT text FROM messages").rows { $0.text(0) })
            let missing = acknowledged.filter { !stored.contains($0) }
            #expect(missing.isEmpty, "round \(round): acknowledged but lost: \(missing.prefix(5))")
            // Every stored message has its event: both went in one transaction.
            let events = try database.prepare("SELECT count(*) FROM events WHERE name = 'message'").row { $0.int(0) } ?? -1
            #expect(events == Int64(stored.count))
            database.close()
        }
        #expect(acknowledged.count > 30)
    }

    /// SIGHUP reloads the certificate: open sessions keep going, new ones see the new one.
    @Test func sighupReloadsTheCertificate() throws {
        let directory = try TemporaryDirectory()
        let daemon = try ProcessTests.Daemon(["--port", "0", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        let certificate = directory.path + "/certs/server.crt"
        let old = try CertificateFingerprint.sha256(pemFile: certificate)
        let open = try TestClient(port: daemon.port, certificatePath: certificate)
        #expect(try open.last("PING") == "OK PONG")
        // A new pair in place of the old one, then SIGHUP.
        let fresh = try TemporaryDirectory()
        let replacement = try SelfSignedCertificate.create(certificatePath: fresh.path + "/server.crt", keyPath: fresh.path + "/server.key")
        #expect(rename(fresh.path + "/server.crt", certificate) == 0)
        #expect(rename(fresh.path + "/server.key", directory.path + "/certs/server.key") == 0)
        #expect(replacement != old)
        kill(daemon.process.processIdentifier, SIGHUP)
        // New connections trust only the new certificate once the reload happened.
        var connected: TestClient?
        for _ in 0..<100 where connected == nil {
            connected = try? TestClient(port: daemon.port, certificatePath: certificate)
            if connected == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(connected != nil)
        #expect(try open.last("PING still") == "OK PONG still")
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }
}
