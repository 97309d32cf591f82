extension CommandTable {
    /// The widest line HELP sends: a terminal's 80 columns, with a margin.
    public static let helpColumns = 78

    /// HELP's body: every usage line with its summary, or the rows of one verb.
    /// An unknown topic is a 404 so a typo is not mistaken for a command without help.
    /// A row too wide for `helpColumns` is wrapped: its usage (options carried over onto
    /// indented continuation lines), then its summary on a line of its own, indented.
    public static func help(topic: String?) throws(ChorusError) -> [String] {
        let rows = try specs(forHelpTopic: topic)
        let width = min(rows.map(\.usage.terminalColumns).max() ?? 0, 44)
        return rows.flatMap { (spec) -> [String] in
            let login = spec.needsLogin ? "" : "  (no login needed)"
            let whole = "  \(spec.usage.padded(toColumns: width))  \(spec.summary)\(login)"
            guard whole.terminalColumns > helpColumns else { return [whole] }
            var usage = wrapped([spec.usageHead] + spec.options.map { "[\($0)]" }, indent: "      ")
            usage[0] = "  " + usage[0].dropFirst(6)
            let summary = (spec.summary + login).split(separator: " ").map(String.init)
            return usage + wrapped(summary, indent: "      ")
        }
    }

    /// Words joined by blanks into lines of at most `helpColumns`, each starting with
    /// `indent`; a word wider than a line has one to itself.
    static func wrapped(_ words: [String], indent: String) -> [String] {
        var lines: [String] = []
        var line = indent
        for word in words {
            if line != indent && (line + " " + word).terminalColumns > helpColumns {
                lines.append(line)
                line = indent
            }
            line += (line == indent ? "" : " ") + word
        }
        if line != indent { lines.append(line) }
        return lines
    }

    /// The commands `HELP TOPIC` is about: all of them, one verb's, or one subcommand.
    public static func specs(forHelpTopic topic: String?) throws(ChorusError) -> [CommandSpec] {
        let words = (topic ?? "").uppercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let topic, !words.isEmpty else { return all }
        let rows = all.filter { $0.verb == words[0] && (words.count < 2 || $0.subverb?.uppercased() == words[1]) }
        guard !rows.isEmpty else { throw .noHelpTopic(topic.uppercased()) }
        return rows
    }
}
