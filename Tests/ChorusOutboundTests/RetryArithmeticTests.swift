@testable import ChorusOutbound
import Foundation
import Testing

/// The queue's decisions as pure functions: how long to wait, what Retry-After says, and
/// what each status or failure means for the job.
@Suite struct RetryArithmeticTests {
    let policy = RetryPolicy(maxAttempts: 5, baseDelaySeconds: 1, maxDelaySeconds: 6, maxRetryAfterSeconds: 120)

    @Test func backoffDoublesWithHalfOfEachStepRandom() {
        #expect(policy.delay(afterAttempt: 1, retryAfterSeconds: nil, jitter: 0) == 0.5)
        #expect(policy.delay(afterAttempt: 1, retryAfterSeconds: nil, jitter: 1) == 1)
        #expect(policy.delay(afterAttempt: 2, retryAfterSeconds: nil, jitter: 0) == 1)
        #expect(policy.delay(afterAttempt: 2, retryAfterSeconds: nil, jitter: 0.5) == 1.5)
        #expect(policy.delay(afterAttempt: 3, retryAfterSeconds: nil, jitter: 1) == 4)
        // The step is capped at maxDelaySeconds: 8 would be next.
        #expect(policy.delay(afterAttempt: 4, retryAfterSeconds: nil, jitter: 1) == 6)
        #expect(policy.delay(afterAttempt: 4, retryAfterSeconds: nil, jitter: 0) == 3)
        // Out-of-range jitter is clamped rather than trusted.
        #expect(policy.delay(afterAttempt: 1, retryAfterSeconds: nil, jitter: 7) == 1)
    }

    @Test func theLastAttemptGetsNoRetry() {
        #expect(policy.delay(afterAttempt: 5, retryAfterSeconds: nil, jitter: 0.5) == nil)
        #expect(policy.delay(afterAttempt: 5, retryAfterSeconds: 1, jitter: 0.5) == nil)
        #expect(RetryPolicy(maxAttempts: 1).delay(afterAttempt: 1, retryAfterSeconds: nil, jitter: 0) == nil)
        // Huge attempt numbers do not overflow the doubling.
        #expect(RetryPolicy(maxAttempts: 1000, maxDelaySeconds: 60).delay(afterAttempt: 900, retryAfterSeconds: nil, jitter: 1) == 60)
    }

    @Test func retryAfterWinsAndIsCapped() {
        #expect(policy.delay(afterAttempt: 1, retryAfterSeconds: 30, jitter: 0) == 30)
        #expect(policy.delay(afterAttempt: 1, retryAfterSeconds: 0, jitter: 1) == 0)
        #expect(policy.delay(afterAttempt: 2, retryAfterSeconds: 86_400, jitter: 0) == 120)
    }

    @Test func retryAfterReadsSecondsAndDates() {
        let now = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.seconds(in: "120", now: now) == 120)
        #expect(RetryAfter.seconds(in: " 0 ", now: now) == 0)
        #expect(RetryAfter.seconds(in: "Sun, 06 Nov 1994 08:51:37 GMT", now: now) == 120)
        #expect(RetryAfter.seconds(in: "Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 0)
        // A date in the past means no wait, not a negative one.
        #expect(RetryAfter.seconds(in: "Sat, 05 Nov 1994 08:49:37 GMT", now: now) == 0)
        #expect(RetryAfter.seconds(in: "Thu, 01 Jan 1970 00:00:00 GMT", now: Date(timeIntervalSince1970: -10)) == 10)
        #expect(RetryAfter.seconds(in: "Wed, 02 Dec 2026 09:00:00 GMT", now: Date(timeIntervalSince1970: 1_796_200_000)) == 2_000)
        for junk in ["", "soon", "-5", "1.5", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT"] {
            #expect(RetryAfter.seconds(in: junk, now: now) == nil, "\(junk)")
        }
    }

    @Test func calendarArithmetic() {
        #expect(RetryAfter.daysSinceEpoch(year: 1970, month: 1, day: 1) == 0)
        #expect(RetryAfter.daysSinceEpoch(year: 2000, month: 3, day: 1) == 11_017)
        #expect(RetryAfter.daysSinceEpoch(year: 1969, month: 12, day: 31) == -1)
        #expect(RetryAfter.daysSinceEpoch(year: 2024, month: 2, day: 29) == 19_782)
    }

    @Test func verdicts() {
        #expect(DeliveryVerdict.judge(status: 201, retryAfter: nil) == .delivered)
        #expect(DeliveryVerdict.judge(status: 204, retryAfter: "3") == .delivered)
        #expect(DeliveryVerdict.judge(status: 404, retryAfter: nil) == .gone)
        #expect(DeliveryVerdict.judge(status: 410, retryAfter: nil) == .gone)
        #expect(DeliveryVerdict.judge(status: 429, retryAfter: "7") == .retry(retryAfter: "7"))
        #expect(DeliveryVerdict.judge(status: 500, retryAfter: nil) == .retry(retryAfter: nil))
        #expect(DeliveryVerdict.judge(status: 503, retryAfter: "1") == .retry(retryAfter: "1"))
        #expect(DeliveryVerdict.judge(status: 400, retryAfter: nil) == .rejected)
        #expect(DeliveryVerdict.judge(status: 413, retryAfter: nil) == .rejected)
        #expect(DeliveryVerdict.judge(status: 302, retryAfter: nil) == .rejected)
        #expect(DeliveryVerdict.judge(error: OutboundError(.addressRefused, origin: "https://x", "no")) == .refusedByPolicy)
        #expect(DeliveryVerdict.judge(error: OutboundError(.schemeRefused, origin: "http://x", "no")) == .refusedByPolicy)
        #expect(DeliveryVerdict.judge(error: OutboundError(.timedOut, origin: "https://x", "slow")) == .retry(retryAfter: nil))
        #expect(DeliveryVerdict.judge(error: OutboundError(.connection, origin: "https://x", "reset")) == .retry(retryAfter: nil))
        #expect(DeliveryVerdict.judge(error: OutboundError(.untrusted, origin: "https://x", "cert")) == .failed)
        #expect(DeliveryVerdict.judge(error: OutboundError(.responseTooLarge, origin: "https://x", "big")) == .failed)
    }
}
