import ChorusProtocol
import Glibc

/// One member session of the fan-out room, as a receiver of everyone's messages and, for
/// the first `senders` members, a sender too. Loop thread only.
final class FanoutMember {
    let number: Int
    let session: BenchSession
    /// Messages this member should get as events: everyone's but its own.
    var expected = 0
    var received = 0
    var duplicates = 0
    /// One bit per (sender, sequence), so a duplicate is told from a new message exactly.
    private var seen: [UInt64] = []
    private var messagesPerSender = 0
    private(set) var sent = 0
    var acked = 0

    init(number: Int, session: BenchSession) {
        self.number = number
        self.session = session
    }

    func prepare(senders: Int, messages: Int) {
        messagesPerSender = messages
        expected = senders * messages - (number < senders ? messages : 0)
        seen = [UInt64](repeating: 0, count: (senders * messages + 63) / 64)
    }

    /// Marks (sender, sequence) as received; false when it had been already.
    func markReceived(sender: Int, sequence: Int) -> Bool {
        let bit = sender * messagesPerSender + sequence
        let mask = UInt64(1) << UInt64(bit & 63)
        if seen[bit >> 6] & mask != 0 { return false }
        seen[bit >> 6] |= mask
        return true
    }

    /// The next sequence number to send.
    func takeSequence() -> Int {
        defer { sent += 1 }
        return sent
    }

    /// The text of a message: `~SENDTIME~SENDER~SEQUENCE~` padded with `x` to `payload`
    /// bytes. '~' appears nowhere else in a message event, so receivers find it with one
    /// memchr instead of parsing JSON.
    static func appendText(to out: inout [UInt8], sentAt: UInt64, sender: Int, sequence: Int, payload: Int) {
        let start = out.count
        out.append(0x7E)
        DecimalBytes.append(sentAt, to: &out)
        out.append(0x7E)
        DecimalBytes.append(UInt64(sender), to: &out)
        out.append(0x7E)
        DecimalBytes.append(UInt64(sequence), to: &out)
        out.append(0x7E)
        let written = out.count - start
        if written < payload { out.append(contentsOf: repeatElement(UInt8(ascii: "x"), count: payload - written)) }
    }

    /// Reads `~SENDTIME~SENDER~SEQUENCE~` from a line holding a message text.
    static func parseText(_ line: UnsafeRawBufferPointer) -> (sentAt: UInt64, sender: Int, sequence: Int)? {
        guard let base = line.baseAddress, let tilde = memchr(base, 0x7E, line.count) else { return nil }
        var index = base.distance(to: UnsafeRawPointer(tilde)) + 1
        guard let sentAt = ServerLine.decimal(line, from: &index), index < line.count, line[index] == 0x7E else { return nil }
        index += 1
        guard let sender = ServerLine.decimal(line, from: &index), index < line.count, line[index] == 0x7E else { return nil }
        index += 1
        guard let sequence = ServerLine.decimal(line, from: &index) else { return nil }
        return (sentAt, Int(sender), Int(sequence))
    }
}
