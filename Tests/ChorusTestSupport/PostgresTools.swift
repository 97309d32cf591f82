import Foundation

/// The PostgreSQL server programs on this machine, and how to run them: as the
/// `postgres` user when the tests run as root (the server refuses to run as root).
public struct PostgresTools: Sendable {
    /// The folder holding initdb, pg_ctl and postgres.
    public let binaries: String
    /// Set when running as root: the account the server runs as.
    public let user: (name: String, uid: uid_t, gid: gid_t)?

    /// The tools, or why the PostgreSQL tests cannot run here.
    public static let found: Result<PostgresTools, ToolsMissing> = locate()

    public struct ToolsMissing: Error, CustomStringConvertible {
        public let description: String
    }

    private static func locate() -> Result<PostgresTools, ToolsMissing> {
        guard let binaries = serverBinaries() else {
            return .failure(ToolsMissing(description: "the PostgreSQL server programs (initdb, pg_ctl) are not installed "
                + "(looked in `pg_config --bindir` and /usr/lib/postgresql/*/bin; apt-get install postgresql)"))
        }
        guard geteuid() == 0 else { return .success(PostgresTools(binaries: binaries, user: nil)) }
        guard let account = getpwnam("postgres"), runuser != nil else {
            return .failure(ToolsMissing(description: "running as root, and there is no postgres user or no runuser "
                + "to run the PostgreSQL server as (the postgresql package makes the user)"))
        }
        return .success(PostgresTools(binaries: binaries, user: ("postgres", account.pointee.pw_uid, account.pointee.pw_gid)))
    }

    private static let runuser = ["/usr/sbin/runuser", "/sbin/runuser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// `pg_config --bindir` first (it names the installed version), then the newest
    /// /usr/lib/postgresql/N/bin; pg_config alone (libpq-dev) is not enough.
    private static func serverBinaries() -> String? {
        var candidates: [String] = []
        if let said = try? output(of: "/usr/bin/env", ["pg_config", "--bindir"]) {
            candidates.append(said.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        candidates += versions.compactMap(Int.init).sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin" }
        return candidates.first { folder in
            ["initdb", "pg_ctl", "postgres"].allSatisfy { FileManager.default.isExecutableFile(atPath: folder + "/" + $0) }
        }
    }

    /// The command line that runs `tool` from the server folder as the server's user.
    public func commandLine(_ tool: String, _ arguments: [String]) -> (program: String, arguments: [String]) {
        let program = binaries + "/" + tool
        guard let user, let runuser = Self.runuser else { return (program, arguments) }
        return (runuser, ["-u", user.name, "--", program] + arguments)
    }

    /// Runs `tool` to its end in `folder`; throws with its output when it fails.
    public func run(_ tool: String, _ arguments: [String], in folder: String, timeout: Double = 180) throws {
        let (program, arguments) = commandLine(tool, arguments)
        try Self.output(of: program, arguments, in: folder, timeout: timeout)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's
    /// Glibc module does not import: looked up by name, nil where it is missing.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Runs a program to its end and returns what it wrote (standard output and error).
    /// One still running after `timeout` seconds (more than `pg_ctl -w -t 60` takes) is
    /// killed, and that is thrown.
    ///
    /// posix_spawn and waitpid, not Foundation's Process: Process learns of the end
    /// through a descriptor the child inherits, and the server pg_ctl leaves running
    /// inherits it too, so waiting for `pg_ctl start` never returned. The output goes to a
    /// file for the same reason: the server must not hold a pipe of ours open.
    @discardableResult
    public static func output(of program: String, _ arguments: [String], in folder: String? = nil,
                              timeout: Double = 180) throws -> String {
        let outputPath = NSTemporaryDirectory() + "chorus-pg-output-" + UUID().uuidString
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of ours: a server left running would hold, for its whole life, any
        // descriptor another test had open at that moment (a chorusd's standard error pipe
        // whose reader a test closed, which then never broke: LogProcessTests flaked so).
        _ = closeFrom?(&actions, 3)
        // Another cluster's PG* settings must not steer this one's tools.
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        environment["LC_ALL"] = "C"
        // glibc's addchdir_np is not imported into Swift: a shell changes folder, then execs.
        let line = folder.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0, program] + arguments } ?? [program] + arguments
        let argv = line.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, line[0], &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw CommandFailed(description: "cannot run \(program): errno \(spawned)")
        }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        var ended = false
        while !ended && Date() < deadline {
            let waited = waitpid(child, &status, WNOHANG)
            if waited == child || (waited < 0 && errno != EINTR) { ended = true } else { usleep(10_000) }
        }
        if !ended {
            // SIGKILL cannot be blocked, so the wait for the child after it is short.
            kill(child, SIGKILL)
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            let said = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw CommandFailed(description: "\(([program] + arguments).joined(separator: " ")) did not end within "
                + "\(Int(timeout)) s and was killed: \(said)")
        }
        let said = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // Exited normally (no signal) with status 0.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw CommandFailed(description: "\(([program] + arguments).joined(separator: " ")) failed "
                + "(wait status \(status)): \(said)")
        }
        return said
    }

    public struct CommandFailed: Error, CustomStringConvertible {
        public let description: String
    }
}
