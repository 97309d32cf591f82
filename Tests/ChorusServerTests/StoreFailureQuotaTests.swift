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
