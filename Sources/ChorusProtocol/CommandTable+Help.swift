extension CommandTable {
    /// HELP's body: every usage line with its summary, or the rows of one verb.
    /// An unknown topic is a 404 so a typo is not mistaken for a command without help.
    public static func help(topic: String?) throws(ChorusError) -> [String] {
        let rows = try specs(forHelpTopic: topic)
        let width = min(rows.map(\.usage.terminalColumns).max() ?? 0, 44)
        return rows.map { spec in
            let usage = spec.usage.padded(toColumns: width)
            let login = spec.needsLogin ? "" : "  (no login needed)"
            return "  \(usage)  \(spec.summary)\(login)"
        }
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
