import ChorusNet
import Testing

/// `--sendq`: output queued past the limit closes the connection at once, except a reply
/// to a client whose queue was at most half full before it.
@Suite struct OutputQueueTests {
    /// Within the limit everything queued in a turn reaches the peer.
    @Test func queueWithinTheLimitIsWritten() throws {
        let link = try LoopbackConnection(maxQueuedBytes: 1000)
        try link.onConnection { connection in
            connection.send(Payload.line(500))
            connection.send(Payload.line(500))
        }
        #expect(try link.client.readLine()?.utf8.count == 498)
        #expect(try link.client.readLine()?.utf8.count == 498)
        #expect(!link.record.closed)
    }

    /// One byte past the limit, the connection closes with the sendq reason and its queue
    /// is dropped: the peer sees the connection end, not the output.
    @Test func queuePastTheLimitClosesWithTheSendqReason() throws {
        let link = try LoopbackConnection(maxQueuedBytes: 1000)
        let open = try link.onConnection { connection -> Bool in
            connection.send(Payload.line(500))
            connection.send(Payload.line(501))
            return connection.isOpen
        }
        #expect(!open)
        #expect(link.record.limit == .sendq)
        #expect(link.record.closeReason == "send queue over 1000 bytes")
        #expect(try link.client.readLine() == nil)
    }

    /// A reply may take the queue past the limit when the queue was at most half full
    /// before it: the client was reading and asked for it.
    @Test func replyPassesTheLimitWhenTheQueueWasAtMostHalfFull() throws {
        let link = try LoopbackConnection(maxQueuedBytes: 1000)
        let open = try link.onConnection { connection -> Bool in
            connection.send(Payload.line(500))
            connection.sendReply(Payload.line(3000))
            return connection.isOpen
        }
        #expect(open)
        #expect(try link.client.readLine()?.utf8.count == 498)
        #expect(try link.client.readLine()?.utf8.count == 2998)
        #expect(!link.record.closed)
    }

    /// Past half, a reply counts like any output: pipelined replies to a client that
    /// stopped reading cannot grow the queue without bound.
    @Test func replyPastTheLimitClosesWhenTheQueueWasOverHalf() throws {
        let link = try LoopbackConnection(maxQueuedBytes: 1000)
        let open = try link.onConnection { connection -> Bool in
            connection.sendReply(Payload.line(400))
            connection.sendReply(Payload.line(400))
            let afterTwo = connection.isOpen
            connection.sendReply(Payload.line(400))
            return afterTwo && !connection.isOpen
        }
        #expect(open)
        #expect(link.record.limit == .sendq)
    }

    /// An event is never allowed past the limit, however empty the queue was.
    @Test func eventPastTheLimitClosesEvenFromAnEmptyQueue() throws {
        let link = try LoopbackConnection(maxQueuedBytes: 1000)
        try link.onConnection { $0.send(Payload.line(1001)) }
        #expect(link.record.limit == .sendq)
        #expect(try link.client.readLine() == nil)
    }
}
