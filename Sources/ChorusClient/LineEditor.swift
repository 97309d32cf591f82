import ChorusProtocol

/// The small line editor of an interactive session: printable input, backspace and delete,
/// left/right, Home/End (Ctrl-A/Ctrl-E), up/down through the lines typed so far (kept in
/// memory only), Enter sends, Ctrl-C clears, Ctrl-D on an empty line quits.
///
/// It owns the text and draws itself; `Console` decides when. A long line scrolls
/// sideways inside the terminal width instead of wrapping, so one carriage return and
/// one erase always clear it. Widths are counted in terminal columns (`TerminalWidth`):
/// a CJK character or an emoji takes two, a combining mark none.
public final class LineEditor {
    public enum Outcome: Equatable {
        case edited
        case submitted(String)
        case endOfInput
    }

    public let prompt: String
    private var buffer: [Character] = []
    private var cursor = 0
    private var history: [String] = []
    /// The history line being shown while browsing with up/down; nil for the new line.
    private var historyIndex: Int?
    /// The new line as it was before browsing started.
    private var draft: [Character] = []

    public init(prompt: String = "> ") {
        self.prompt = prompt
    }

    public var text: String { String(buffer) }

    /// Adds a sent line to the history (the caller leaves out lines with passwords).
    public func remember(_ line: String) {
        guard !line.isEmpty, history.last != line else { return }
        history.append(line)
        if history.count > 1000 { history.removeFirst() }
    }

    public func handle(_ key: Key) -> Outcome {
        switch key {
        case .character(let character):
            buffer.insert(character, at: cursor)
            cursor += 1
        case .backspace:
            guard cursor > 0 else { break }
            cursor -= 1
            buffer.remove(at: cursor)
        case .delete:
            if cursor < buffer.count { buffer.remove(at: cursor) }
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(buffer.count, cursor + 1)
        case .home: cursor = 0
        case .end: cursor = buffer.count
        case .up: browse(by: -1)
        case .down: browse(by: 1)
        case .interrupt: replace(with: [])
        case .killToStart:
            buffer.removeSubrange(0..<cursor)
            cursor = 0
        case .killToEnd: buffer.removeSubrange(cursor...)
        case .deleteWordBack:
            var start = cursor
            while start > 0, buffer[start - 1] == " " { start -= 1 }
            while start > 0, buffer[start - 1] != " " { start -= 1 }
            buffer.removeSubrange(start..<cursor)
            cursor = start
        case .endOfFile:
            if buffer.isEmpty { return .endOfInput }
            if cursor < buffer.count { buffer.remove(at: cursor) }
        case .enter:
            let line = String(buffer)
            replace(with: [])
            return .submitted(line)
        }
        return .edited
    }

    /// Up (-1) and down (+1) through the history; past the newest line is the draft again.
    private func browse(by step: Int) {
        guard !history.isEmpty else { return }
        let current = historyIndex ?? history.count
        let next = min(max(current + step, 0), history.count)
        guard next != current else { return }
        if historyIndex == nil { draft = buffer }
        if next == history.count {
            historyIndex = nil
            buffer = draft
        } else {
            historyIndex = next
            buffer = Array(history[next])
        }
        cursor = buffer.count
    }

    private func replace(with characters: [Character]) {
        buffer = characters
        cursor = characters.count
        historyIndex = nil
        draft = []
    }

    /// Carriage return, prompt, the visible part of the line, erase to the end, and the
    /// cursor moved back to where it belongs.
    public func rendering(columns: Int) -> String {
        let room = max(8, columns - TerminalWidth.of(prompt) - 1)
        let widths = buffer.map(TerminalWidth.of)
        // Scroll just far enough that the text before the cursor, and the cell under it,
        // fit; then show as much after the cursor as still fits.
        var start = 0
        var beforeCursor = widths[..<cursor].reduce(0, +)
        let cursorCell = cursor < widths.count ? max(widths[cursor], 1) : 1
        while beforeCursor + cursorCell > room && start < cursor {
            beforeCursor -= widths[start]
            start += 1
        }
        var end = cursor
        var used = beforeCursor
        while end < widths.count && used + widths[end] <= room {
            used += widths[end]
            end += 1
        }
        let back = used - beforeCursor
        return "\r" + prompt + String(buffer[start..<end]) + "\u{1B}[K" + (back > 0 ? "\u{1B}[\(back)D" : "")
    }
}
