import ChorusNet
import Testing

/// Input waits in the kernel while the owner pauses reading or while output is queued past
/// half of `--sendq`; it is delivered once reading may go on.
@Suite struct ReadPauseTests {
    @Test func pausedReadingDeliversNothingAndResumingDeliversWhatWaited() throws {
        let link = try LoopbackConnection(maxQueuedBytes: 1 << 20)
        try link.onConnection { $0.pauseReading() }
        try link.client.send("one")
        try link.client.send("two")
        #expect(try link.waitUntilBytesWaitUnread())
        #expect(link.record.received.isEmpty)
        try link.onConnection { $0.resumeReading() }
        #expect(link.waitFor { $0.receivedText == "one\r\ntwo\r\n" })
    }

    /// A peer that does not read its output cannot make the server take more input (and
    /// queue more replies): reading waits until the queue drains.
    @Test func outputPastHalfTheLimitPausesInputUntilItDrains() throws {
        let link = try LoopbackConnection(maxQueuedBytes: 2_000_000, smallSendBuffer: true)
        let lines = 375
        try link.onConnection { $0.send(Payload.lines(lines, of: 4000)) }
        #expect(try link.onConnection { $0.queuedBytes } > 1_000_000)
        try link.client.send("ping")
        #expect(try link.waitUntilBytesWaitUnread())
        #expect(link.record.received.isEmpty)
        var read = 0
        while read < lines, try link.client.readLine() != nil { read += 1 }
        #expect(read == lines)
        #expect(link.waitFor { $0.receivedText == "ping\r\n" })
        #expect(!link.record.closed)
    }
}
