import ChorusCore
import Foundation
import Testing

/// The failed-login throttle of CONTRACT §4, with time as a parameter.
@Suite struct LoginThrottleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Five failures in a row from one address block that name there, not elsewhere.
    @Test func blocksOneAddressAfterFiveFailures() {
        var throttle = LoginThrottle()
        for _ in 0..<4 { throttle.recordFailure(name: "alice", address: "198.51.100.7", now: start) }
        #expect(throttle.wait(name: "alice", address: "198.51.100.7", now: start) == nil)
        throttle.recordFailure(name: "alice", address: "198.51.100.7", now: start)
        #expect(throttle.wait(name: "alice", address: "198.51.100.7", now: start) == LoginThrottle.firstDelay)
        // The real alice at home is not locked out, and other names are not either.
        #expect(throttle.wait(name: "alice", address: "203.0.113.5", now: start) == nil)
        #expect(throttle.wait(name: "bob", address: "198.51.100.7", now: start) == nil)
        // The block ends.
        #expect(throttle.wait(name: "alice", address: "198.51.100.7", now: start.addingTimeInterval(31)) == nil)
    }

    /// Each further failure doubles the delay, up to an hour.
    @Test func delaysDoubleUpToAnHour() {
        var throttle = LoginThrottle()
        var now = start
        var delays: [Double] = []
        for _ in 0..<14 {
            throttle.recordFailure(name: "alice", address: "198.51.100.7", now: now)
            if let wait = throttle.wait(name: "alice", address: "198.51.100.7", now: now) {
                delays.append(wait)
                now = now.addingTimeInterval(wait)
            }
        }
        #expect(Array(delays.prefix(4)) == [30, 60, 120, 240])
        #expect(delays.last == 3600)
    }

    /// Past 100 failures in a row from all addresses together, the name is blocked everywhere.
    @Test func blocksEverywhereAfterAHundred() {
        var throttle = LoginThrottle()
        for index in 0..<100 {
            throttle.recordFailure(name: "alice", address: "198.51.100.\(index)", now: start)
        }
        #expect(throttle.wait(name: "alice", address: "203.0.113.5", now: start) != nil)
        #expect(throttle.wait(name: "bob", address: "203.0.113.5", now: start) == nil)
    }

    /// A success resets both counts.
    @Test func successResets() {
        var throttle = LoginThrottle()
        for _ in 0..<4 { throttle.recordFailure(name: "alice", address: "a", now: start) }
        throttle.recordSuccess(name: "alice", address: "a")
        for _ in 0..<4 { throttle.recordFailure(name: "alice", address: "a", now: start) }
        #expect(throttle.wait(name: "alice", address: "a", now: start) == nil)
    }
}
