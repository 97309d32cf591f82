import ChorusProtocol

/// Unread counts as the server tells them (Protocol.md §8, unread markers), in either
/// mode: the login reply's, for the line the client says when it starts, and ROOMS', for
/// following what the terminal printed (`ReadFollower`).
enum UnreadRooms {
    /// "3 new in Flat 2B", one per room with news, from LOGIN's or AUTH's OK: JSON
    /// `unread`, or the text line's ` · 3 new in Flat 2B` parts. Room names are the
    /// server's; they are made safe to print.
    static func loginNews(_ reply: ServerLine) -> [String] {
        guard reply.kind == .ok else { return [] }
        if let json = reply.json {
            return (json["unread"] as? [[String: Any]] ?? []).compactMap { room in
                guard let count = room["unread"] as? Int, count > 0, let name = room["name"] as? String else { return nil }
                return "\(count) new in \(TerminalSafeText.line(name))"
            }
        }
        return reply.untagged.components(separatedBy: " · ").compactMap { part in
            let words = part.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard words.count == 4, let count = Int(words[0]), count > 0, words[1] == "new", words[2] == "in" else { return nil }
            return "\(count) new in \(TerminalSafeText.line(String(words[3])))"
        }
    }

    /// Each room's unread count by id, from a ROOMS reply: JSON `rooms`, or text body lines
    /// `  #3    Flat 2B ...  owner  2 new` (a room with nothing unread ends with its role,
    /// an invitation has no count). Nil for a reply that is not a room list.
    static func counts(body: [ServerLine], final: ServerLine) -> [Int64: Int]? {
        guard final.kind == .ok else { return nil }
        var counts: [Int64: Int] = [:]
        if let json = final.json {
            guard let rooms = json["rooms"] as? [[String: Any]] else { return nil }
            for room in rooms {
                guard let id = room["id"] as? Int, let unread = room["unread"] as? Int else { continue }
                counts[Int64(id)] = unread
            }
            return counts
        }
        for line in body {
            let words = line.untagged.split(separator: " ")
            guard let first = words.first, first.hasPrefix("#"), let id = Int64(first.dropFirst()) else { continue }
            if words.count >= 3, words.last == "new", let unread = Int(words[words.count - 2]) {
                counts[id] = unread
            } else {
                counts[id] = 0
            }
        }
        return counts
    }
}
