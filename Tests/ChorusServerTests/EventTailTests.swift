@testable import ChorusServer
import ChorusLocking
import ChorusStore
import Dispatch
import Foundation
import Testing

/// The tail's merge (`TailOrder`, `EventTail`) against a fake feed: this node's jobs and
/// other nodes' rows come out in one id order, replies without events keep their place,
/// and a node's own next job needs no read of the log.
@Suite(.timeLimit(.minutes(10))) struct EventTailTests {
    /// A log in memory, shared by "me" and other nodes.
    final class FakeFeed: EventFeed, @unchecked Sendable {
        struct Log {
            var newest: Int64 = 0
            var rows: [FeedRecord] = []
            var counterReads = 0
            var rowReads = 0
            var rings = 0
            var doorbell = false
        }

        let node = "me"
        let log = Locked(Log())
        private let wake = DispatchSemaphore(value: 0)

        init(startingAt newest: Int64 = 0) { log.withLock { $0.newest = newest } }

        /// Commits rows as `node` wrote them.
        func commit(_ ids: [Int64], by node: String) {
            log.withLock { log in
                for id in ids {
                    let event = StoredEvent(id: id, room: 1, name: "message", by: node, at: "t", payload: "{}", text: "\(id)")
                    log.rows.append(FeedRecord(id: id, node: node, body: .event(event, audience: [1])))
                    log.newest = max(log.newest, id)
                }
            }
        }

        func ringFromElsewhere() {
            log.withLock { $0.doorbell = true }
            wake.signal()
        }

        func newestEventID() throws -> Int64 { log.withLock { $0.counterReads += 1; return $0.newest } }

        func records(after: Int64, upTo: Int64, limit: Int, includingOwn: Bool) throws -> [FeedRecord] {
            log.withLock { log in
                log.rowReads += 1
                return Array(log.rows.filter { $0.id > after && $0.id <= upTo && (includingOwn || $0.node != node) }
                    .sorted { $0.id < $1.id }.prefix(limit))
            }
        }

        func waitForDoorbell(timeout: Double) -> FeedWake {
            guard wake.wait(timeout: .now() + timeout) == .success else { return .timedOut }
            return log.withLock { log in
                defer { log.doorbell = false }
                return log.doorbell ? .doorbell : .interrupted
            }
        }

        func interrupt() { wake.signal() }
        func ringDoorbell() throws { log.withLock { $0.rings += 1 } }
        func close() {}
    }

    /// What the tail handed out, in order: "own:X", "stale:X" or "row:ID".
    final class Recorder: Sendable {
        let steps = Locked<[String]>([])

        func record(_ step: TailOrder<String, String>.Step) {
            switch step {
            case .own(let name, let stale): steps.withLock { $0.append((stale ? "stale:" : "own:") + name) }
            case .foreign(let name): steps.withLock { $0.append(name) }
            }
        }

        var all: [String] { steps.withLock { $0 } }

        /// Waits until `count` steps came.
        func wait(for count: Int, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
            let deadline = Date().addingTimeInterval(10)
            while all.count < count && Date() < deadline { usleep(2_000) }
            #expect(all.count >= count, "only \(all)", sourceLocation: sourceLocation)
            return all
        }
    }

    static func makeTail(_ feed: FakeFeed, _ recorder: Recorder, poll: Double = 60, ownStall: Double = 60) throws
        -> EventTail<String, String> {
        var settings = EventTail<String, String>.Settings()
        settings.pollInterval = poll
        settings.ownStall = ownStall
        return try EventTail(feed: feed, settings: settings, render: { rows in rows.map { ($0.id...$0.id, "row:\($0.id)") } },
                             deliver: recorder.record, delivered: {})
    }

    /// On one node the next own job goes at once, on the publishing thread, and the log
    /// is not read for it (the start's one counter read aside).
    @Test func anOwnJobThatIsNextNeedsNoQuery() throws {
        let feed = FakeFeed(startingAt: 10)
        let recorder = Recorder()
        let tail = try Self.makeTail(feed, recorder)
        feed.commit([11, 12], by: "me")
        tail.publish("a", ids: 11...12)
        tail.publish("reply", ids: nil)
        feed.commit([13], by: "me")
        tail.publish("b", ids: 13...13)
        #expect(recorder.all == ["own:a", "own:reply", "own:b"])
        #expect(feed.log.withLock { ($0.counterReads, $0.rowReads) } == (1, 0))
        #expect(tail.deliveredUpTo == 13)
        tail.stop()
    }

    /// Another node's rows committed before an own job are read and delivered first; a
    /// reply without events published behind the job waits for it: the issuer hears of
    /// earlier events before its reply.
    @Test func earlierForeignRowsGoBeforeTheIssuersPart() throws {
        let feed = FakeFeed()
        let recorder = Recorder()
        let tail = try Self.makeTail(feed, recorder)
        feed.commit([1, 2], by: "other")
        feed.commit([3], by: "me")
        tail.publish("a", ids: 3...3)
        tail.publish("failed", ids: nil)
        #expect(recorder.all.isEmpty, "an own job after unread rows waits for them")
        tail.start()
        #expect(recorder.wait(for: 4) == ["row:1", "row:2", "own:a", "own:failed"])
        tail.stop()
    }

    /// A reply that shows the log up to an id (SYNC) waits until every row up to there
    /// went out, so nothing it shows arrives live after it.
    @Test func aSyncReplyWaitsForTheRowsItShows() throws {
        let feed = FakeFeed()
        let recorder = Recorder()
        let tail = try Self.makeTail(feed, recorder)
        feed.commit([1, 2], by: "other")
        tail.publish("sync", ids: nil, after: 2)
        tail.publish("ping", ids: nil)
        #expect(recorder.all.isEmpty)
        tail.start()
        #expect(recorder.wait(for: 4) == ["row:1", "row:2", "own:sync", "own:ping"])
        tail.stop()
    }

    /// Own jobs and other nodes' rows interleaved: one id order, nothing twice.
    @Test func interleavedNodesComeOutInIDOrder() throws {
        let feed = FakeFeed()
        let recorder = Recorder()
        let tail = try Self.makeTail(feed, recorder)
        feed.commit([1], by: "other")
        feed.commit([2], by: "me")
        feed.commit([3], by: "third")
        feed.commit([4, 5], by: "me")
        feed.commit([6], by: "other")
        tail.publish("a", ids: 2...2)
        tail.publish("reply", ids: nil)
        tail.publish("b", ids: 4...5)
        tail.start()
        #expect(recorder.wait(for: 6) == ["row:1", "own:a", "own:reply", "row:3", "own:b", "row:6"])
        feed.commit([7], by: "other")
        feed.ringFromElsewhere()
        #expect(recorder.wait(for: 7).last == "row:7")
        #expect(tail.deliveredUpTo == 7)
        tail.stop()
    }

    /// A row read while an own id before it has not completed yet waits; the completion
    /// then delivers both, on the publishing thread.
    @Test func rowsAfterAnOwnCommitWaitForItsCompletion() throws {
        let feed = FakeFeed()
        let recorder = Recorder()
        let tail = try Self.makeTail(feed, recorder, poll: 0.02)
        feed.commit([1], by: "other")
        feed.commit([2], by: "me")
        feed.commit([3], by: "other")
        tail.start()
        #expect(recorder.wait(for: 1) == ["row:1"])
        // Several polls later row 3 is still held behind id 2.
        let reads = feed.log.withLock { $0.counterReads }
        while feed.log.withLock({ $0.counterReads }) < reads + 3 { usleep(2_000) }
        #expect(recorder.all == ["row:1"])
        tail.publish("a", ids: 2...2)
        #expect(recorder.all == ["row:1", "own:a", "row:3"])
        tail.stop()
    }

    /// An own id whose completion never comes (a COMMIT settled as unknown) is read back
    /// from the log after a while; a completion that turns up after that sends only its reply.
    @Test func anOwnIDWithNoCompletionIsReadBack() throws {
        let feed = FakeFeed()
        let recorder = Recorder()
        let tail = try Self.makeTail(feed, recorder, poll: 0.02, ownStall: 0.2)
        feed.commit([1], by: "other")
        feed.commit([2], by: "me")
        feed.commit([3], by: "other")
        tail.start()
        #expect(recorder.wait(for: 3) == ["row:1", "row:2", "row:3"])
        tail.publish("late", ids: 2...2)
        #expect(recorder.all.last == "stale:late")
        tail.stop()
    }

    /// The doorbell rings once per batch that had own events, and not for one without.
    @Test func aBatchWithEventsRingsOnce() throws {
        let feed = FakeFeed()
        let recorder = Recorder()
        let tail = try Self.makeTail(feed, recorder)
        tail.start()
        tail.publish("reply", ids: nil)
        tail.batchEnded()
        feed.commit([1, 2], by: "me")
        tail.publish("a", ids: 1...1)
        tail.publish("b", ids: 2...2)
        tail.batchEnded()
        let deadline = Date().addingTimeInterval(10)
        while feed.log.withLock({ $0.rings }) == 0 && Date() < deadline { usleep(2_000) }
        tail.batchEnded()
        tail.stop()
        #expect(feed.log.withLock { $0.rings } == 1)
    }

    /// The pure rule: a stale own item, and foreign runs already passed, are not delivered twice.
    @Test func theOrderNeverRepeatsAnID() {
        var order = TailOrder<String, String>(startingAfter: 0)
        order.addForeign([(1...2, "r1-2"), (4...4, "r4")], readUpTo: 4)
        #expect(order.next().map(describe) == "r1-2")
        #expect(order.next() == nil)
        #expect(order.ownGap == 3...3)
        order.addOwn("a", ids: 3...3)
        #expect(order.ownGap == nil)
        #expect(order.next().map(describe) == "own:a")
        #expect(order.next().map(describe) == "r4")
        order.addOwn("again", ids: 3...3)
        #expect(order.next().map(describe) == "stale:again")
        order.addForeign([(4...4, "r4 twice"), (5...5, "r5")], readUpTo: 5)
        #expect(order.next().map(describe) == "r5")
        #expect(order.deliveredUpTo == 5)
    }

    private func describe(_ step: TailOrder<String, String>.Step) -> String {
        switch step {
        case .own(let name, let stale): (stale ? "stale:" : "own:") + name
        case .foreign(let name): name
        }
    }
}
