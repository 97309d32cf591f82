import ChorusNet
import Foundation
import Testing

/// `--send-timeout`: output that waits with the socket taking nothing for that long closes
/// the connection; a peer that reads, however slowly, keeps it.
@Suite struct SendTimeoutTests {
    /// Output the peer never takes: closed once it has waited the timeout, not before.
    @Test func aPeerThatReadsNothingIsClosedAfterTheSendTimeout() throws {
        let link = try LoopbackConnection(maxQueuedBytes: 4 << 20, sendTimeout: 1, smallSendBuffer: true)
        let queued = Date()
        try link.onConnection { $0.send(Payload.lines(256, of: 4000)) }
        // Still queued after the turn's write: the peer's socket is full.
        let waiting = try link.onConnection { $0.queuedBytes }
        #expect(waiting > 0)
        #expect(link.waitFor { $0.closed })
        #expect(link.record.limit == .sendTimeout)
        #expect(link.record.closeReason == "send timeout: the client took no output for 1 s")
        #expect(Date().timeIntervalSince(queued) >= 1)
    }

    /// The peer takes a 4000-byte line every 20 ms: the output the kernel cannot hold
    /// (some 500 KB) waits for it for seconds in all, but never a whole second without
    /// the socket taking some, so the stall check passes it again and again.
    @Test func aSlowReaderIsNotClosed() throws {
        let link = try LoopbackConnection(maxQueuedBytes: 4 << 20, sendTimeout: 1, smallSendBuffer: true)
        let lines = 150
        try link.onConnection { $0.send(Payload.lines(lines, of: 4000)) }
        var read = 0
        while read < lines, let line = try link.client.readLine() {
            #expect(line.utf8.count == 3998)
            read += 1
            usleep(20_000)
        }
        #expect(read == lines)
        #expect(!link.record.closed)
        #expect(try link.onConnection { $0.isOpen })
    }
}
