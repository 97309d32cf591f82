/// Who a line mentions: each `@name` (a name's characters, a-z 0-9 . _ -, any case) that
/// starts the text or follows a character that cannot be part of a name or an address,
/// so `bob@example.org` mentions nobody. A trailing dot ends a sentence, not the name.
public enum Mentions {
    /// At most this many names are taken from one line: a line naming the whole server
    /// notifies a room's worth, not thousands.
    public static let most = 20

    public static func names(in text: String) -> [String] {
        var names: [String] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count, names.count < most {
            defer { index += 1 }
            guard scalars[index] == "@", index == 0 || !(isNamePart(scalars[index - 1]) || scalars[index - 1] == "@") else { continue }
            var end = index + 1
            while end < scalars.count, isNamePart(scalars[end]) { end += 1 }
            // `@ann@host` is an address, not a mention.
            if end < scalars.count, scalars[end] == "@" {
                index = end - 1
                continue
            }
            var name = String(String.UnicodeScalarView(scalars[(index + 1)..<end])).lowercased()
            while name.hasSuffix(".") { name.removeLast() }
            if name.count >= 2, !names.contains(name) { names.append(name) }
            index = end - 1
        }
        return names
    }

    private static func isNamePart(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": true
        default: false
        }
    }
}
