import ChorusProtocol

/// Turns the words a shell hands over into the one request line a person would have typed,
/// so `chorus SAY "Flat 2B" Bins tonight` sends `SAY "Flat 2B" Bins tonight`.
///
/// The command table decides: a text verb's text is the remaining words joined with
/// spaces, verbatim; every other word that would not survive as one bare word (spaces,
/// quotes, backslashes, a `key=` the command does not take) is quoted.
public enum RequestLineBuilder {
    public static func line(from words: [String]) throws(ClientFailure) -> String {
        var rest = words[...]
        var parts: [String] = []
        if let first = rest.first, first.hasPrefix("@") {
            parts.append(first)
            rest = rest.dropFirst()
        }
        guard let verb = rest.popFirst() else { throw ClientFailure("no command given; see chorus --help") }
        let spec = try lookUp(verb: verb, next: rest.first)
        parts.append(spec.verb)
        // A keyword is written as the table spells it; an `@NAME` stays as typed.
        if case .keyword(let keyword) = spec.head, rest.popFirst() != nil { parts.append(keyword) }
        if case .mention = spec.head, let mention = rest.popFirst() { parts.append(quotedIfNeeded(mention)) }

        if spec.text != nil {
            let fixed = rest.prefix(spec.arguments.count)
            parts += fixed.map { quotedIfNeeded($0) }
            let text = rest.dropFirst(fixed.count).joined(separator: " ")
            // A line break would end this request and start another one.
            guard !text.contains(where: \.isNewline) else {
                throw ClientFailure("the text of \(spec.name) cannot contain a line break")
            }
            if !text.isEmpty { parts.append(text) }
        } else {
            let keys = Set(spec.optionKeys)
            parts += rest.map { argument($0, optionKeys: keys) }
        }
        let line = parts.joined(separator: " ")
        // The server's own parser checks arity and syntax here, so usage errors exit 2 before connecting.
        if case .failure(_, let error) = RequestParser.parse(line) {
            throw ClientFailure(error.message)
        }
        return line
    }

    /// The row for `VERB [SUBVERB]`, picked as the server picks it (`CommandTable.select`);
    private static func lookUp(verb: String, next word: String?) throws(ClientFailure) -> CommandSpec {
        let usages = CommandTable.usages(forVerb: verb)
        switch CommandTable.select(verb: verb, next: word ?? "") {
        case .row(let spec, _): return spec
        case .unknownVerb: throw ClientFailure("unknown command \(verb); try chorus HELP")
        case .missingSubverb: throw ClientFailure("missing \(verb.uppercased()) command; usage: \(usages)")
        case .unknownSubverb: throw ClientFailure("unknown \(verb.uppercased()) command \(word ?? ""); usage: \(usages)")
        }
    }

    /// One argument of a non-text verb: an option the command takes keeps its `key=` bare
    /// and has its value quoted when needed; anything else is one (possibly quoted) word.
    static func argument(_ word: String, optionKeys: Set<String>) -> String {
        if let key = optionKey(of: word) {
            if optionKeys.contains(key.lowercased()) {
                let value = String(word.dropFirst(key.count + 1))
                return key + "=" + (value.isEmpty ? "" : quotedIfNeeded(value))
            }
            // Quoted, `a=b` is a plain argument rather than an option the command refuses.
            return quoted(word)
        }
        return quotedIfNeeded(word)
    }

    /// `key` when the word reads as `key=value` to the server (letters and `_` before `=`).
    static func optionKey(of word: String) -> String? {
        guard let equals = word.firstIndex(of: "=") else { return nil }
        let key = word[..<equals]
        guard !key.isEmpty, key.unicodeScalars.allSatisfy({ $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) }) else {
            return nil
        }
        return String(key)
    }

    /// The word as is when it is one bare word, else quoted.
    public static func quotedIfNeeded(_ word: String) -> String {
        let special: Set<Character> = [" ", "\t", "\"", "\\", "\n"]
        return word.isEmpty || word.contains(where: special.contains) ? quoted(word) : word
    }

    /// `"..."` with the three escapes the server reads: `\"`, `\\` and `\n`.
    public static func quoted(_ word: String) -> String {
        var out = "\""
        for character in word {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out + "\""
    }
}
