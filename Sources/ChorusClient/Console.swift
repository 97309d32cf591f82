import Glibc

/// Where the person reads: server lines on standard output, the client's own notices on
/// standard error. Colours only when standard output is a terminal and `NO_COLOR` is not
/// set. While a line editor shows a prompt, every line goes above it: clear the prompt
/// line, print, redraw the prompt and the half-typed text, so nothing gets garbled.
public final class Console {
    public enum Style {
        case plain, event, ok, error, notice
    }

    public let colours: Bool
    /// The prompt being shown, in an interactive terminal session.
    public var editor: LineEditor?

    public init(colours: Bool, editor: LineEditor? = nil) {
        self.colours = colours
        self.editor = editor
    }

    /// Colours when standard output is a terminal and NO_COLOR (any non-empty value) is unset.
    public static func wantsColours(environment: [String: String]) -> Bool {
        isatty(1) == 1 && (environment["NO_COLOR"] ?? "").isEmpty
    }

    /// A line from the server, above the prompt. Its control characters are shown as
    /// visible escapes (`TerminalSafeText`): the server must not steer the terminal.
    public func show(_ line: String, style: Style) {
        var out = editor == nil ? "" : "\r\u{1B}[K"
        out += painted(TerminalSafeText.line(line), style) + "\n"
        if let editor { out += editor.rendering(columns: RawTerminal.columns(of: 1)) }
        Self.write(out, to: 1)
    }

    /// The client's own news ("reconnecting in 2 s"), on standard error, above the prompt.
    /// It may quote the server (an error's message), so it is made safe like a server line.
    public func notice(_ text: String) {
        if editor != nil { Self.write("\r\u{1B}[K", to: 1) }
        let line = "chorus: " + TerminalSafeText.line(text)
        Self.write((isatty(2) == 1 ? painted(line, .notice) : line) + "\n", to: 2)
        redrawPrompt()
    }

    /// Draws the prompt and the text being typed again (after an edit, or a notice).
    public func redrawPrompt() {
        guard let editor else { return }
        Self.write(editor.rendering(columns: RawTerminal.columns(of: 1)), to: 1)
    }

    /// Leaves the typed line on screen as it was sent and starts a fresh prompt under it.
    public func commitTypedLine(_ line: String) {
        guard let editor else { return }
        Self.write("\r\u{1B}[K" + editor.prompt + line + "\n" + editor.rendering(columns: RawTerminal.columns(of: 1)), to: 1)
    }

    /// Removes the prompt before the program ends.
    public func clearPrompt() {
        if editor != nil { Self.write("\r\u{1B}[K", to: 1) }
    }

    private func painted(_ line: String, _ style: Style) -> String {
        guard colours else { return line }
        let code: String
        switch style {
        case .plain: return line
        case .event: code = "36"
        case .ok: code = "32"
        case .error: code = "31"
        case .notice: code = "2"
        }
        return "\u{1B}[\(code)m" + line + "\u{1B}[0m"
    }

    /// Writes all of it, retrying after interruptions; a closed output is ignored here
    /// (the session notices the end of its input or connection soon enough).
    static func write(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}
