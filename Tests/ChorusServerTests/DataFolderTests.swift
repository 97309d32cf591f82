import ChorusTestSupport
import Foundation
import Testing

/// The data folder as chorusd keeps it: one server at a time, and files only their
/// owner can read.
@Suite(.timeLimit(.minutes(10))) struct DataFolderTests {
    static func mode(_ path: String) -> Int {
        var status = stat()
        guard stat(path, &status) == 0 else { return -1 }
        return Int(status.st_mode) & 0o777
    }

    /// A second chorusd on a folder a running one uses: one line on standard error and
    /// nothing on standard output, exit 2, and the database untouched. Before, both ran, each with its own caches and event
    /// order. Once the first stops, the folder is free again.
    @Test func aSecondServerOnTheSameFolderRefusesToStart() throws {
        let directory = try TemporaryDirectory()
        let first = try ProcessTests.Daemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try first.waitUntilListening())
        // The default hash cost, so no low-cost warning shares standard error.
        let starting = try ProcessTests.Daemon(["--port", "0", "--data", "data"], in: directory.path)
        let deadline = Date().addingTimeInterval(20)
        while starting.process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if starting.process.isRunning {
            Issue.record("a second chorusd started on the same data folder")
            starting.process.terminate()
        }
        let second = starting.finish()
        #expect(second.status == 2)
        let lines = second.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(second.stderr)")
        #expect(lines.first?.contains("data folder data is in use by another chorusd (pid \(first.process.processIdentifier))") == true,
                "\(second.stderr)")
        // Nothing else: the lock is taken before the certificate is looked at.
        let said = starting.remainingOutput()
        #expect(said.isEmpty, "standard output: \(said)")
        // The first still serves.
        let client = try TestClient(port: first.port, certificatePath: directory.path + "/certs/server.crt")
        #expect(try client.last("PING") == "OK PONG")
        first.process.terminate()
        #expect(first.finish().status == 0)

        let third = try ProcessTests.Daemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try third.waitUntilListening())
        third.process.terminate()
        #expect(third.finish().status == 0)
    }

    /// A new data folder with a one-letter name, or nested, is made and served (`--data d`
    /// crashed chorusd with SIGILL while it worked out the parent folder).
    @Test func shortAndNestedFolderNamesAreMade() throws {
        for name in ["d", "x/y", "./z"] {
            let directory = try TemporaryDirectory()
            let daemon = try ProcessTests.Daemon(["--port", "0", "--data", name, "--scrypt-log-n", "10"], in: directory.path)
            #expect(try daemon.waitUntilListening(), "--data \(name)")
            daemon.process.terminate()
            #expect(daemon.finish().status == 0, "--data \(name)")
            #expect(FileManager.default.fileExists(atPath: directory.path + "/" + name + "/chorus.sqlite"), "--data \(name)")
        }
    }

    /// Under umask 000, a new data folder is 0700 and the database, its -wal and -shm
    /// and the lock file are 0600; in a folder that already existed too. Before, the
    /// database files were 0666 minus the umask: readable by everyone on the machine.
    @Test func dataFilesAreOwnerOnlyWhateverTheUmask() throws {
        let directory = try TemporaryDirectory()
        let existing = directory.path + "/existing"
        #expect(mkdir(existing, 0o755) == 0)
        for folder in ["fresh/data", "existing"] {
            let daemon = try ProcessTests.Daemon(
                ["-c", "umask 000 && exec \"$0\" --port 0 --scrypt-log-n 10 --data \(folder)", ProcessTests.chorusd],
                in: directory.path, executable: "/bin/sh")
            #expect(try daemon.waitUntilListening())
            let client = try TestClient(port: daemon.port, certificatePath: directory.path + "/certs/server.crt")
            #expect(try client.last("REGISTER umask \"correct horse battery staple\"").hasPrefix("OK"))
            let path = directory.path + "/" + folder
            for file in ["chorus.sqlite", "chorus.sqlite-wal", "chorus.sqlite-shm", "chorusd.lock"] {
                #expect(Self.mode(path + "/" + file) == 0o600, "\(folder)/\(file) is \(String(Self.mode(path + "/" + file), radix: 8))")
            }
            if folder == "fresh/data" { #expect(Self.mode(path) == 0o700) }
            daemon.process.terminate()
            #expect(daemon.finish().status == 0)
        }
        // The certificate's key, made under the same umask, is the owner's only too.
        #expect(Self.mode(directory.path + "/certs/server.key") == 0o600)
    }
}
