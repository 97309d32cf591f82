@testable import ChorusServer
import Testing

/// The session's input state machine: when lines run, wait or are held, and what the
/// socket is told to do.
@Suite struct SessionInputTests {
    typealias Input = SessionInput<String>

    /// A new session reads, takes lines from the framer and runs them at once.
    @Test func aNewSessionReadsAndRuns() {
        var input = Input()
        #expect(input.isReading)
        #expect(input.isIdle)
        guard case .fresh = input.next() else { Issue.record("expected a fresh line"); return }
        let step1 = input.admit("PING", overlaps: false)
        #expect(step1 == .run)
        #expect(input.isReading)
    }

    /// Household commands overlap while others are in flight; anything else is held until
    /// they answer, and comes back first once they have.
    @Test func aLineWaitsForTheCommandsBeforeIt() {
        var input = Input()
        let step2 = input.admit("SAY 1 a", overlaps: true)
        #expect(step2 == .run)
        input.sent()
        let step3 = input.admit("SAY 1 b", overlaps: true)
        #expect(step3 == .run)
        input.sent()
        #expect(!input.isIdle)
        let step4 = input.admit("PING", overlaps: false)
        #expect(step4 == .hold)
        #expect(!input.isReading)
        // One answer back: the held line is tried again and, one command still in flight,
        // held again.
        input.answered()
        guard case .held(let early) = input.next() else { Issue.record("expected the held line"); return }
        let step5 = input.admit(early, overlaps: false)
        #expect(step5 == .hold)
        input.answered()
        guard case .held(let line) = input.next() else { Issue.record("expected the held line"); return }
        #expect(line == "PING")
        let step6 = input.admit(line, overlaps: false)
        #expect(step6 == .run)
        #expect(input.isReading)
        #expect(input.isIdle)
    }

    /// At `maxInFlight` even a household command waits.
    @Test func theInFlightCapHoldsHouseholdCommands() {
        var input = Input()
        for _ in 0..<Input.maxInFlight - 1 { input.sent() }
        let step7 = input.admit("SAY 1 x", overlaps: true)
        #expect(step7 == .run)
        input.sent()
        let step8 = input.admit("SAY 1 y", overlaps: true)
        #expect(step8 == .hold)
        input.answered()
        guard case .held = input.next() else { Issue.record("expected the held line"); return }
        let step9 = input.admit("SAY 1 y", overlaps: true)
        #expect(step9 == .run)
    }

    /// A command that changes the session runs alone: reading pauses until it answers.
    @Test func aLoginRunsAlone() {
        var input = Input()
        let step10 = input.runAlone()
        #expect(step10 == .pauseReading)
        #expect(!input.isReading)
        #expect(!input.isIdle)
        guard case .stop = input.next() else { Issue.record("nothing runs beside it"); return }
        let step11 = input.answeredAlone()
        #expect(step11 == .resumeReading)
        #expect(input.isReading)
        #expect(input.isIdle)
    }

    /// Out of tokens the socket pauses; a token resumes it, and only then.
    @Test func theRateLimitPausesAndResumes() {
        var input = Input()
        let step12 = input.tokenBack()
        #expect(step12 == .none)
        let step13 = input.outOfTokens()
        #expect(step13 == .pauseReading)
        guard case .stop = input.next() else { Issue.record("no line without a token"); return }
        #expect(input.isIdle)
        let step14 = input.tokenBack()
        #expect(step14 == .resumeReading)
        #expect(input.isReading)
    }

    /// Shutdown takes no more lines: a held one is dropped, while commands in flight and
    /// one running alone keep the session busy until they answer.
    @Test func closingWaitsOnlyForRepliesOwed() {
        var holding = Input()
        holding.sent()
        _ = holding.admit("PING", overlaps: false)
        let step15 = holding.close()
        #expect(step15 == .none)
        guard case .stop = holding.next() else { Issue.record("a closing session takes nothing"); return }
        #expect(!holding.isIdle)
        holding.answered()
        #expect(holding.isIdle)

        var alone = Input()
        _ = alone.runAlone()
        let step16 = alone.close()
        #expect(step16 == .none)
        #expect(!alone.isIdle)
        let step17 = alone.answeredAlone()
        #expect(step17 == .none)
        #expect(alone.isIdle)
        #expect(!alone.isReading)

        var reading = Input()
        let step18 = reading.close()
        #expect(step18 == .pauseReading)
        let step19 = reading.tokenBack()
        #expect(step19 == .none)
        #expect(!reading.isReading)
    }

}
