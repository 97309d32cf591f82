import ChorusClient
import Foundation
import Glibc
import Testing

/// `chorus --user NAME` with no password file: at a terminal it asks, without echo;
/// elsewhere it says what it needs, as before.
@Suite(.timeLimit(.minutes(10))) struct PasswordPromptTests {
    static func echoIsOn(_ terminal: PseudoTerminal) -> Bool {
        var settings = termios()
        guard tcgetattr(terminal.follower.fileDescriptor, &settings) == 0 else { return false }
        return settings.c_lflag & tcflag_t(ECHO) != 0
    }

    /// The typed password logs in and never shows on the terminal; echo is back after.
    /// Before, chorus refused at once: "--user alice needs a password".
    @Test func atATerminalThePasswordIsAskedWithoutEcho() throws {
        let house = try ClientProcessTests.Household()
        let terminal = try PseudoTerminal()
        #expect(Self.echoIsOn(terminal))
        let run = try ChorusRun(house.connection + ["--user", "alice", "WHOAMI"], home: house.home.path,
                                standardInput: terminal.follower)
        #expect(run.waitForOutput("Password for alice: ", onErrors: true), "\(run.stderr.text)")
        terminal.type(ClientProcessTests.password + "\n")
        let result = run.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("OK alice"), "\(result)")
        // Whatever the terminal showed: not the password (with echo on, the line discipline
        // would have written every typed character back).
        _ = terminal.wait(timeout: 1) { $0.contains(ClientProcessTests.password) }
        #expect(!terminal.output.contains(ClientProcessTests.password), "echoed: \(terminal.output)")
        #expect(!result.stderr.contains(ClientProcessTests.password))
        #expect(Self.echoIsOn(terminal))
    }

    /// A line longer than any password (1024 bytes) is refused at the prompt, with the
    /// reason, and never sent. Before, the prompt kept however much was typed and sent it.
    @Test func anOverlongPasswordAtThePromptIsRefused() throws {
        let house = try ClientProcessTests.Household()
        let terminal = try PseudoTerminal()
        let run = try ChorusRun(house.connection + ["--user", "alice", "WHOAMI"], home: house.home.path,
                                standardInput: terminal.follower)
        #expect(run.waitForOutput("Password for alice: ", onErrors: true), "\(run.stderr.text)")
        terminal.type(String(repeating: "x", count: 1500) + "\n")
        let result = run.finish()
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("the password typed is longer than 1024 bytes"), "\(result.stderr)")
        #expect(!result.stderr.contains("login failed"))
        #expect(Self.echoIsOn(terminal))
    }

    /// Ctrl-C (SIGINT) at the prompt ends chorus with the terminal's echo back on.
    @Test func interruptedAtThePromptTheTerminalIsRestored() throws {
        let house = try ClientProcessTests.Household()
        let terminal = try PseudoTerminal()
        let run = try ChorusRun(house.connection + ["--user", "alice", "WHOAMI"], home: house.home.path,
                                standardInput: terminal.follower)
        #expect(run.waitForOutput("Password for alice: ", onErrors: true), "\(run.stderr.text)")
        #expect(!Self.echoIsOn(terminal))
        run.process.interrupt()
        let deadline = Date().addingTimeInterval(20)
        while run.process.isRunning && Date() < deadline { usleep(20_000) }
        if run.process.isRunning {
            Issue.record("chorus kept running after SIGINT")
            kill(run.process.processIdentifier, SIGKILL)
        }
        let result = run.finish()
        #expect(result.status != 0)
        #expect(Self.echoIsOn(terminal))
    }

    /// Not at a terminal: no prompt, the same refusal as before.
    @Test func withoutATerminalAPasswordSourceIsRequired() throws {
        let house = try ClientProcessTests.Household()
        let result = try house.run(house.connection + ["--user", "alice", "WHOAMI"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--user alice needs a password"), "\(result.stderr)")
        #expect(!result.stderr.contains("Password for"))
    }
}
