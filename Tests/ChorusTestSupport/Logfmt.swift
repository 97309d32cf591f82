/// A strict logfmt reader for tests: `key=value` pairs separated by one space, values bare
/// or quoted with `\"`, `\\`, `\n`, `\r`, `\t` and `\uXXXX` escapes. nil for anything else,
/// so a test that parses every line catches one that is not logfmt.
public enum Logfmt {
    public static func parse(_ line: String) -> [(key: String, value: String)]? {
        var fields: [(key: String, value: String)] = []
        var scalars = Array(line.unicodeScalars)[...]
        while !scalars.isEmpty {
            guard let equals = scalars.firstIndex(of: "="), equals > scalars.startIndex else { return nil }
            let key = String(String.UnicodeScalarView(scalars[scalars.startIndex..<equals]))
            guard !key.contains(" "), !key.contains("\"") else { return nil }
            scalars = scalars[(equals + 1)...]
            var value = String.UnicodeScalarView()
            if scalars.first == "\"" {
                scalars = scalars.dropFirst()
                var closed = false
                while let scalar = scalars.popFirst() {
                    if scalar == "\"" { closed = true; break }
                    guard scalar == "\\" else { value.append(scalar); continue }
                    switch scalars.popFirst() {
                    case "\"": value.append("\"")
                    case "\\": value.append("\\")
                    case "n": value.append("\n")
                    case "r": value.append("\r")
                    case "t": value.append("\t")
                    case "u":
                        guard scalars.count >= 4, let code = UInt32(String(String.UnicodeScalarView(scalars.prefix(4))), radix: 16),
                              let decoded = Unicode.Scalar(code) else { return nil }
                        value.append(decoded)
                        scalars = scalars.dropFirst(4)
                    default: return nil
                    }
                }
                guard closed else { return nil }
            } else {
                while let scalar = scalars.first, scalar != " " {
                    guard scalar != "\"", scalar != "=", scalar.value >= 0x20 else { return nil }
                    value.append(scalar)
                    scalars = scalars.dropFirst()
                }
                if value.isEmpty { return nil }
            }
            fields.append((key, String(value)))
            if let next = scalars.first {
                guard next == " " else { return nil }
                scalars = scalars.dropFirst()
                if scalars.isEmpty { return nil }
            }
        }
        return fields
    }
}
