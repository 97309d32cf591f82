import Glibc

/// Asks for a password at the terminal on standard input with echo off, as `sudo` and
/// `ssh` do: the line discipline still edits the line (backspace, Ctrl-U), but nothing
/// typed shows. The terminal's settings come back afterwards, and also when a signal
/// (Ctrl-C, a kill) ends the program mid-prompt.
public enum PasswordPrompt {
    /// The longest password the server accepts (AccountRules.passwordBytes): a longer
    /// line is not kept in memory, and cannot be one.
    public static let maxBytes = 1024

    /// Nil when standard input is not a terminal or the reading ended without a line.
    /// Throws when the line is longer than `maxBytes` (read to its end, so nothing of it
    /// is left on the terminal for the next read).
    public static func ask(_ prompt: String, descriptor: Int32 = 0) throws(ClientFailure) -> String? {
        guard isatty(descriptor) == 1, tcgetattr(descriptor, &TerminalRestore.saved) == 0 else { return nil }
        TerminalRestore.descriptor = descriptor
        var quiet = TerminalRestore.saved
        // ECHONL too: the Enter that ends the line would otherwise show; a newline is written below.
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK | ECHONL)
        let previous = TerminalRestore.catchSignals()
        defer {
            TerminalRestore.restore()
            TerminalRestore.release(previous)
        }
        guard tcsetattr(descriptor, TCSAFLUSH, &quiet) == 0 else { return nil }
        writeToStandardError(prompt)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var ended = false
        var overlong = false
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { break }
            if byte == UInt8(ascii: "\n") {
                ended = true
                break
            }
            // One byte more than the bound, for a "\r" that is not counted.
            if line.count <= maxBytes { line.append(byte) } else { overlong = true }
        }
        writeToStandardError("\n")
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        if overlong || line.count > maxBytes {
            throw ClientFailure("the password typed is longer than \(maxBytes) bytes, the most a Chorus password can be")
        }
        guard ended || !line.isEmpty else { return nil }
        return String(decoding: line, as: UTF8.self)
    }

    private static func writeToStandardError(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}

/// The terminal's settings while a prompt has echo off, for a signal handler to put back.
/// A handler can capture nothing, so these are globals; they are written only on the
/// thread that prompts, before the handlers are installed.
private enum TerminalRestore {
    nonisolated(unsafe) static var saved = termios()
    nonisolated(unsafe) static var descriptor: Int32 = -1
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    static func restore() {
        guard descriptor >= 0 else { return }
        tcsetattr(descriptor, TCSANOW, &saved)
    }

    /// The signal mask before `catchSignals`.
    nonisolated(unsafe) static var mask = sigset_t()

    /// Installs the restoring handler, and unblocks its signals (a parent may have started
    /// us with them blocked, and then they would wait until after the prompt); returns
    /// the handlers it replaced.
    static func catchSignals() -> [sigaction] {
        var wanted = sigset_t()
        sigemptyset(&wanted)
        for number in signals { sigaddset(&wanted, number) }
        defer { pthread_sigmask(SIG_UNBLOCK, &wanted, &mask) }
        return signals.map { number in
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                // tcsetattr, signal and raise are async-signal-safe.
                tcsetattr(TerminalRestore.descriptor, TCSANOW, &TerminalRestore.saved)
                signal(number, SIG_DFL)
                raise(number)
            }
            sigemptyset(&action.sa_mask)
            var old = sigaction()
            sigaction(number, &action, &old)
            return old
        }
    }

    static func release(_ previous: [sigaction]) {
        for (number, old) in zip(signals, previous) {
            var old = old
            sigaction(number, &old, nil)
        }
        pthread_sigmask(SIG_SETMASK, &mask, nil)
        descriptor = -1
    }
}
