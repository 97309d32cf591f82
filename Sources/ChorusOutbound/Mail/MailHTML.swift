/// The HTML alternative of a notice: the same text as the plain part, every character of
/// it escaped (titles and names come from users, and a mail reader renders what is not),
/// paragraphs at blank lines, the task link as a link, and the unsubscribe link small.
enum MailHTML {
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// One line per returned element (the caller encodes them).
    static func document(title: String, lines: [String], link: MailMessage.Link?, unsubscribe: MailLinkURL?) -> [String] {
        var html = [
            "<!DOCTYPE html>",
            "<html><head><meta charset=\"utf-8\"><title>\(escaped(title))</title></head>",
            "<body style=\"font-family:sans-serif\">",
        ]
        for paragraph in paragraphs(lines) {
            // One output line per input line, so no line grows past what the user wrote.
            for (index, line) in paragraph.enumerated() {
                let start = index == 0 ? "<p>" : ""
                let end = index == paragraph.count - 1 ? "</p>" : "<br>"
                html.append(start + escaped(line) + end)
            }
        }
        if let link {
            html.append("<p><a href=\"\(link.url.text)\">\(escaped(link.label))</a></p>")
        }
        if let unsubscribe {
            html.append("<p style=\"font-size:small;color:#666\"><a href=\"\(unsubscribe.text)\">Unsubscribe from these e-mails</a></p>")
        }
        html.append("</body></html>")
        return html
    }

    /// Runs of non-empty lines.
    private static func paragraphs(_ lines: [String]) -> [[String]] {
        var result: [[String]] = []
        var current: [String] = []
        for line in lines {
            if line.trimmed(of: " \t").isEmpty {
                if !current.isEmpty { result.append(current) }
                current = []
            } else {
                current.append(line)
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }
}
