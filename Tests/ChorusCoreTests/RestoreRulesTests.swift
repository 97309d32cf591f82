import ChorusCore
import Testing

/// The two rules of a restore (CONTRACT §12): how far counters jump, and when a SYNC
/// cursor is past the end of the log.
struct RestoreRulesTests {
    @Test func countersJumpByTheirWholeHistoryOrAMillion() {
        #expect(RestoreRules.counterAfterRestore(used: 0) == 1_000_000)
        #expect(RestoreRules.counterAfterRestore(used: 830) == 1_000_830)
        #expect(RestoreRules.counterAfterRestore(used: 5_000_000) == 10_000_000)
        // Never wraps around.
        #expect(RestoreRules.counterAfterRestore(used: Int64.max - 10) == Int64.max)
    }

    @Test func onlyACursorPastTheEndStartsOver() {
        #expect(RestoreRules.syncRestart(cursor: 833, logEnd: 830) == 830)
        #expect(RestoreRules.syncRestart(cursor: 830, logEnd: 830) == nil)
        #expect(RestoreRules.syncRestart(cursor: 0, logEnd: 830) == nil)
        #expect(RestoreRules.syncRestart(cursor: 1, logEnd: 0) == 0)
        #expect(RestoreRules.syncRestart(cursor: 0, logEnd: 0) == nil)
    }
}
