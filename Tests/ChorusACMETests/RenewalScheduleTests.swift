import ChorusACME
import Testing

/// The renewal rule (two thirds of a certificate's life) and the retry backoff, on their own.
@Suite struct RenewalScheduleTests {
    @Test func aNinetyDayCertificateRenewsWithThirtyDaysLeft() {
        let day: Int64 = 86_400
        let issued: Int64 = 1_700_000_000
        let renewAt = RenewalSchedule.renewalTime(notBefore: issued, notAfter: issued + 90 * day)
        #expect(renewAt == issued + 60 * day)
        #expect(!RenewalSchedule.isDue(now: renewAt - 1, notBefore: issued, notAfter: issued + 90 * day))
        #expect(RenewalSchedule.isDue(now: renewAt, notBefore: issued, notAfter: issued + 90 * day))
    }

    @Test func aTestsRenewAfterOnlyEverMakesRenewalSooner() {
        #expect(RenewalSchedule.renewalTime(notBefore: 0, notAfter: 3000, renewAfter: 5) == 5)
        #expect(RenewalSchedule.renewalTime(notBefore: 0, notAfter: 3000, renewAfter: 10_000) == 2000)
    }

    @Test func anExpiredOrBackwardsCertificateIsDueAtOnce() {
        #expect(RenewalSchedule.isDue(now: 10, notBefore: 5, notAfter: 5))
        #expect(RenewalSchedule.isDue(now: 10, notBefore: 9, notAfter: 1))
    }

    @Test func failuresBackOffDoublingUpToADay() {
        #expect(RenewalSchedule.retryDelay(failures: 0) == 0)
        #expect(RenewalSchedule.retryDelay(failures: 1) == 60)
        #expect(RenewalSchedule.retryDelay(failures: 2) == 120)
        #expect(RenewalSchedule.retryDelay(failures: 5) == 960)
        #expect(RenewalSchedule.retryDelay(failures: 20) == 86_400)
        #expect(RenewalSchedule.retryDelay(failures: 1_000) == 86_400)
        #expect(RenewalSchedule.retryDelay(failures: 3, first: 1) == 4)
    }
}
