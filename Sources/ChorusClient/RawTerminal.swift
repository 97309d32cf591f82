import Glibc

/// The terminal on standard input switched to raw mode for the line editor (no echo, no
/// line buffering, Ctrl-C and Ctrl-D as keys), and back. Output processing stays on, so
/// "\n" still starts a new line at column 0.
public final class RawTerminal {
    private let descriptor: Int32
    private var original = termios()
    private var active = false

    public init(descriptor: Int32 = 0) {
        self.descriptor = descriptor
    }

    deinit {
        restore()
    }

    public static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// Columns of the terminal on `descriptor`; 80 when it cannot tell.
    public static func columns(of descriptor: Int32) -> Int {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Raw mode on; false when standard input is not a terminal.
    @discardableResult
    public func enable() -> Bool {
        guard !active, tcgetattr(descriptor, &original) == 0 else { return active }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        guard tcsetattr(descriptor, TCSANOW, &raw) == 0 else { return false }
        active = true
        return true
    }

    /// The terminal as it was before `enable()`.
    public func restore() {
        guard active else { return }
        tcsetattr(descriptor, TCSANOW, &original)
        active = false
    }
}
