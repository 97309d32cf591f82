import Glibc

/// Standard input as lines the person means to send. From a terminal: raw mode and the
/// line editor, drawing through the `Console`. From a pipe or file: plain lines, no
/// prompt, the end of input reported once everything was read.
public final class PersonInput {
    public enum Item: Equatable {
        case line(String)
        case end
    }

    public let descriptor: Int32 = 0
    private let console: Console
    private var editor: LineEditor?
    private let terminal: RawTerminal?
    private var decoder = KeyDecoder()
    private var partial: [UInt8] = []

    public init(console: Console) {
        self.console = console
        // The editor draws on standard output, so both ends must be the terminal.
        terminal = RawTerminal.isTerminal(0) && RawTerminal.isTerminal(1) ? RawTerminal(descriptor: 0) : nil
    }

    /// Raw mode and the prompt, for a terminal. Called once the first connection is made,
    /// so a trust-on-first-use question is asked on a terminal in its normal mode.
    public func start() {
        guard editor == nil, let terminal, terminal.enable() else { return }
        let editor = LineEditor()
        self.editor = editor
        console.editor = editor
        console.redrawPrompt()
    }

    public var isTerminal: Bool { editor != nil }

    /// Keeps a sent line for up/down, unless it carries a secret.
    public func remember(_ line: String) {
        let verb = line.split(separator: " ").first { !$0.hasPrefix("@") }?.uppercased() ?? ""
        guard !["LOGIN", "REGISTER", "PASSWORD", "AUTH"].contains(verb) else { return }
        editor?.remember(line)
    }

    /// The terminal as it was, the prompt gone.
    public func finish() {
        console.clearPrompt()
        console.editor = nil
        terminal?.restore()
    }

    /// Reads what standard input has (poll said it is readable).
    public func readAvailable() -> [Item] {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && (errno == EINTR || errno == EAGAIN) { return [] }
        guard count > 0 else {
            guard editor == nil, !partial.isEmpty else { return [.end] }
            defer { partial = [] }
            return [.line(Self.text(of: partial)), .end]
        }
        let bytes = Array(chunk[..<count])
        return editor == nil ? lines(from: bytes) : keys(from: bytes)
    }

    private func lines(from bytes: [UInt8]) -> [Item] {
        partial += bytes
        var items: [Item] = []
        while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
            items.append(.line(Self.text(of: partial[..<newline])))
            partial.removeSubrange(...newline)
        }
        return items
    }

    private func keys(from bytes: [UInt8]) -> [Item] {
        guard let editor else { return [] }
        var items: [Item] = []
        for key in decoder.keys(from: bytes) {
            switch editor.handle(key) {
            case .edited:
                console.redrawPrompt()
            case .submitted(let line):
                console.commitTypedLine(line)
                items.append(.line(line))
            case .endOfInput:
                items.append(.end)
                return items
            }
        }
        return items
    }

    /// A line without its CR, as UTF-8 (invalid bytes become U+FFFD; the server would refuse them anyway).
    private static func text(of bytes: some Collection<UInt8>) -> String {
        var line = Array(bytes)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }
}
