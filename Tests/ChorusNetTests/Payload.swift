/// Output for a connection to queue: CRLF-ended lines of a known length, so the peer can
/// count what arrived with `LineClient.readLine`.
enum Payload {
    /// One line of `length` bytes, its CRLF included.
    static func line(_ length: Int) -> [UInt8] {
        precondition(length >= 2)
        return [UInt8](repeating: UInt8(ascii: "x"), count: length - 2) + [13, 10]
    }

    /// `count` such lines, one after another.
    static func lines(_ count: Int, of length: Int) -> [UInt8] {
        Array([[UInt8]](repeating: line(length), count: count).joined())
    }
}
