@testable import ChorusServer
import Foundation
import Testing

/// A run of store failures is logged a line a second, each line saying how many it left out.
@Suite struct StoreFailureQuotaTests {
    @Test func aBurstIsOneLineASecondWithTheCountLeftOut() {
        var quota = StoreFailureQuota()
        let start = Date(timeIntervalSince1970: 1_000_000)
        #expect(quota.admit(now: start) == 0, "the first failure is written")
        for step in 1...999 {
            #expect(quota.admit(now: start.addingTimeInterval(Double(step) / 1000)) == nil)
        }
        #expect(quota.admit(now: start.addingTimeInterval(1)) == 999, "the next second's line counts the rest")
        #expect(quota.admit(now: start.addingTimeInterval(1.5)) == nil)
        #expect(quota.admit(now: start.addingTimeInterval(5)) == 1)
        #expect(quota.admit(now: start.addingTimeInterval(7)) == 0, "a lone failure later is written as is")
    }
}

@Suite struct StoreFailureOutageTests {
    /// The count of a run belongs to its own outage: the first success after it reports
    /// what no line counted yet, and the next outage starts from nothing. Before, the 1
    /// left out of one outage was written at the start of the next.
    @Test func theLeftOutCountIsReportedWithItsOwnOutage() {
        var quota = StoreFailureQuota()
        let start = Date(timeIntervalSince1970: 1_000_000)
        #expect(quota.recovered() == nil, "no failure, no recovery line")
        #expect(quota.admit(now: start) == 0)
        #expect(quota.admit(now: start.addingTimeInterval(0.5)) == nil)
        let recovery = quota.recovered()
        #expect(recovery?.failures == 2 && recovery?.leftOut == 1)
        #expect(quota.recovered() == nil, "said once")
        #expect(quota.admit(now: start.addingTimeInterval(5)) == 0, "the next outage starts from nothing")
    }
}
