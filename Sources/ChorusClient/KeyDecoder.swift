/// A key the line editor understands.
public enum Key: Equatable {
    case character(Character)
    case enter, backspace, delete
    case left, right, home, end, up, down
    /// Ctrl-C: clear the line.
    case interrupt
    /// Ctrl-D: quit on an empty line, else delete under the cursor.
    case endOfFile
    /// Ctrl-U, Ctrl-K, Ctrl-W.
    case killToStart, killToEnd, deleteWordBack
}

/// Turns the bytes a terminal in raw mode sends into keys: UTF-8 characters, control keys,
/// and the escape sequences of arrows, Home, End and Delete (`ESC [ A`, `ESC O H`, `ESC [ 3 ~`).
/// Keeps partial sequences between reads, since a read can end in the middle of one.
public struct KeyDecoder {
    private var utf8: [UInt8] = []
    private var utf8Length = 0
    /// Bytes after ESC, while an escape sequence is being read.
    private var escape: [UInt8]?
    private var lastWasCarriageReturn = false

    public init() {}

    public mutating func keys(from bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        for byte in bytes {
            if let key = decode(byte) { keys.append(key) }
        }
        return keys
    }

    private mutating func decode(_ byte: UInt8) -> Key? {
        defer { lastWasCarriageReturn = byte == 0x0D }
        if escape != nil { return continueEscape(byte) }
        if !utf8.isEmpty { return continueCharacter(byte) }
        switch byte {
        case 0x1B: escape = []; return nil
        case 0x0D: return .enter
        case 0x0A: return lastWasCarriageReturn ? nil : .enter // CRLF from a paste is one Enter
        case 0x7F, 0x08: return .backspace
        case 0x01: return .home
        case 0x05: return .end
        case 0x02: return .left
        case 0x06: return .right
        case 0x10: return .up
        case 0x0E: return .down
        case 0x03: return .interrupt
        case 0x04: return .endOfFile
        case 0x15: return .killToStart
        case 0x0B: return .killToEnd
        case 0x17: return .deleteWordBack
        case 0x09: return .character(" ")
        case 0x20..<0x7F: return .character(Character(Unicode.Scalar(byte)))
        case 0xC0..<0xF8:
            utf8 = [byte]
            utf8Length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
            return nil
        default: return nil
        }
    }

    private mutating func continueCharacter(_ byte: UInt8) -> Key? {
        guard byte & 0xC0 == 0x80 else {
            // A broken sequence: drop it and read this byte afresh.
            utf8 = []
            return decode(byte)
        }
        utf8.append(byte)
        guard utf8.count == utf8Length else { return nil }
        defer { utf8 = [] }
        guard let text = String(validating: utf8, as: UTF8.self), let character = text.first else { return nil }
        return .character(character)
    }

    private mutating func continueEscape(_ byte: UInt8) -> Key? {
        var sequence = escape ?? []
        sequence.append(byte)
        escape = sequence
        guard let introducer = sequence.first, introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
            escape = nil // Alt+key and the like: ignored
            return nil
        }
        guard sequence.count >= 2, (0x40...0x7E).contains(byte) else {
            if sequence.count > 16 { escape = nil }
            return nil
        }
        escape = nil
        let parameters = String(decoding: sequence.dropFirst().dropLast(), as: UTF8.self)
        switch byte {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch parameters {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            default: return nil
            }
        default: return nil
        }
    }
}
