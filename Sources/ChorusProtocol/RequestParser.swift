/// Turns one request line into a typed `Request` (CONTRACT §2):
/// `[@TAG] VERB [SUBVERB] ARGS...`, with quoted words, `key=value` options and, for text
/// verbs, the rest of the line taken verbatim.
public enum RequestParser {
    public enum Outcome: Equatable, Sendable {
        /// Nothing but spaces: ignored, like an empty line.
        case empty
        case request(Request)
        /// The tag is kept when it was readable, so the error reply carries it.
        case failure(tag: String?, ChorusError)
    }

    public static let maxTagLength = 64

    public static func parse(_ bytes: [UInt8]) -> Outcome {
        guard let line = String(validating: bytes, as: UTF8.self) else {
            return .failure(tag: readableTag(bytes), .invalidUTF8)
        }
        return parse(line)
    }

    /// The tag of a line that is otherwise unreadable (bad UTF-8, too long), so its error
    /// still carries it. `cutShort`: `bytes` are only the line's first bytes, so a tag
    /// counts only when a blank ends it within them.
    public static func readableTag(_ bytes: [UInt8], cutShort: Bool = false) -> String? {
        let start = bytes.firstIndex { !LineScanner.isSpace($0) } ?? bytes.endIndex
        guard start < bytes.endIndex, bytes[start] == UInt8(ascii: "@") else { return nil }
        let name = bytes[(start + 1)...].prefix { !LineScanner.isSpace($0) }
        if cutShort && name.endIndex == bytes.endIndex { return nil }
        guard !name.isEmpty, name.count <= maxTagLength, name.allSatisfy(isTagByte) else { return nil }
        return String(decoding: name, as: UTF8.self)
    }

    public static func parse(_ line: String) -> Outcome {
        var scanner = LineScanner(Array(line.utf8))
        scanner.skipSpaces()
        if scanner.atEnd { return .empty }

        var tag: String?
        if scanner.peek == UInt8(ascii: "@") {
            let word = scanner.bareWord()
            let name = word.dropFirst()
            guard !name.isEmpty, name.count <= maxTagLength, name.utf8.allSatisfy(isTagByte) else {
                return .failure(tag: nil, .badTag)
            }
            tag = String(name)
            scanner.skipSpaces()
        }
        if let control = scanner.firstControlCharacter() {
            return .failure(tag: tag, .controlCharacter(control))
        }
        do throws(ChorusError) {
            let request = try parseCommand(&scanner, tag: tag)
            return .request(request)
        } catch {
            return .failure(tag: tag, error)
        }
    }

    private static func parseCommand(_ scanner: inout LineScanner, tag: String?) throws(ChorusError) -> Request {
        let verb = scanner.bareWord().uppercased()
        if verb.isEmpty {
            throw .missingCommand
        }
        // Only a verb with keyword or @NAME rows needs the next word to pick its row; SAY
        // and most others skip making it.
        var lookahead = scanner
        var word = ""
        if CommandTable.picksRowByNextWord(verb) {
            lookahead.skipSpaces()
            word = lookahead.bareWord()
        }
        let spec: CommandSpec
        var mention: String?
        switch CommandTable.select(verb: verb, next: word) {
        case .row(let row, let takesWord):
            spec = row
            if takesWord {
                scanner = lookahead
                if case .mention = row.head { mention = String(word.dropFirst()) }
            }
        case .unknownVerb:
            throw .unknownCommand(verb)
        case .missingSubverb:
            throw .missingSubverb(verb, usages: CommandTable.usages(forVerb: verb))
        case .unknownSubverb:
            throw .unknownSubverb(verb, usages: CommandTable.usages(forVerb: verb))
        }
        let arguments = try readArguments(&scanner, spec: spec, mention: mention)
        return Request(tag: tag, command: try spec.command(from: arguments), verb: spec.name, kind: spec.kind,
                       needsLogin: spec.needsLogin)
    }

    private static func readArguments(_ scanner: inout LineScanner, spec: CommandSpec, mention: String?) throws(ChorusError) -> ParsedArguments {
        var positional: [String] = []
        var options: [String: String] = [:]
        let usage = spec.usage

        if let textName = spec.text {
            for argument in spec.arguments {
                scanner.skipSpaces()
                guard !scanner.atEnd else { throw .missingArgument(argument.name, usage: usage) }
                positional.append(try scanner.word(usage: usage))
            }
            scanner.skipSpaces()
            let text = scanner.rest()
            guard !text.isEmpty else { throw .missingArgument(textName, usage: usage) }
            return ParsedArguments(positional: positional, options: [:], text: text, mention: mention, usage: usage)
        }

        let allowedOptions = Set(spec.optionKeys)
        while true {
            scanner.skipSpaces()
            if scanner.atEnd { break }
            if let key = scanner.optionKey() {
                guard allowedOptions.contains(key) else {
                    throw allowedOptions.isEmpty ? .takesNoOptions(spec.name, usage: usage) : .unknownOption(key, usage: usage)
                }
                guard options[key] == nil else { throw .optionTwice(key, usage: usage) }
                options[key] = try scanner.word(usage: usage)
            } else {
                positional.append(try scanner.word(usage: usage))
            }
        }
        guard positional.count >= spec.minimumArguments else {
            throw .missingArgument(spec.arguments[positional.count].name, usage: usage)
        }
        guard positional.count <= spec.arguments.count else {
            throw .tooManyArguments(usage: usage)
        }
        return ParsedArguments(positional: positional, options: options, text: nil, mention: mention, usage: usage)
    }

    static func isTagByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: ":"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}

/// A cursor over the bytes of one line. Every syntax character is ASCII, so slicing at
/// them keeps valid UTF-8 valid.
struct LineScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[index] }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    mutating func skipSpaces() {
        while let byte = peek, LineScanner.isSpace(byte) { index += 1 }
    }

    /// Control characters other than tab are refused: they would garble other people's terminals.
    func firstControlCharacter() -> UInt8? {
        bytes[index...].first { ($0 < 0x20 && $0 != UInt8(ascii: "\t")) || $0 == 0x7f }
    }

    /// Up to the next space, taken literally.
    mutating func bareWord() -> String {
        let start = index
        while let byte = peek, !LineScanner.isSpace(byte) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// The whole character that starts at `position`, for error messages.
    func character(at position: Int) -> String {
        let end = min(bytes.count, position + 4)
        return String(decoding: bytes[position..<end], as: UTF8.self).first.map(String.init) ?? "?"
    }

    /// Everything left, verbatim (a text verb's text).
    mutating func rest() -> String {
        defer { index = bytes.count }
        return String(decoding: bytes[index...], as: UTF8.self)
    }

    /// When the cursor is at `key=`, consumes it and returns the key (lower-cased).
    mutating func optionKey() -> String? {
        var cursor = index
        while cursor < bytes.count {
            let byte = bytes[cursor]
            let isKeyByte = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "_")
            if !isKeyByte { break }
            cursor += 1
        }
        guard cursor > index, cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") else { return nil }
        let key = String(decoding: bytes[index..<cursor], as: UTF8.self).lowercased()
        index = cursor + 1
        return key
    }

    /// A bare word or a quoted string with `\"`, `\\` and `\n` escapes. After an option's
    /// `=`, an immediate space means an empty value.
    mutating func word(usage: String) throws(ChorusError) -> String {
        guard peek == UInt8(ascii: "\"") else { return bareWord() }
        index += 1
        var out: [UInt8] = []
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                if let next = peek, !LineScanner.isSpace(next) {
                    throw .quoteNotAtWordEnd(usage: usage)
                }
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { break }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): out.append(escaped)
                case UInt8(ascii: "\\"): out.append(escaped)
                case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
                default:
                    throw .unknownEscape(character(at: index - 1), usage: usage)
                }
            default:
                out.append(byte)
            }
        }
        throw .unterminatedQuote(usage: usage)
    }
}
