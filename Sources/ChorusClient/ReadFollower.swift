/// Which rooms the terminal has shown news of, to mark them read (`READ R ID`): what
/// `chorus` prints is seen. The client prints every event of the person's rooms as it
/// comes, so a room whose unread count grew since the client last looked (`ROOMS`) had
/// that news printed: it is marked read up to the newest event printed. Rooms whose
/// count was there before the client started stay unread (the start-up line named them),
/// unless the start-up replay showed everything missed since the last session.
///
/// Looks are at most one a second and only after something was printed, and every request
/// is the client's own (`@chorus.unread`, `@chorus.read`), pipelined with the person's
/// lines: typing never waits for them.
struct ReadFollower {
    static let interval = Duration.seconds(1)

    /// The newest event id printed.
    private(set) var printedUpTo: Int64 = 0
    /// Each room's count at the last look; nil before the first.
    private var known: [Int64: Int]?
    /// Something was printed since the last look.
    private var printedSince = false
    /// The start-up replay showed all that was missed: the first look reads every room.
    private var shownWholeAbsence = false
    private var lookedAt: ContinuousClock.Instant?
    /// A look was sent and is not answered yet.
    var inFlight = false

    mutating func printed(eventID: Int64) {
        printedUpTo = max(printedUpTo, eventID)
        printedSince = true
    }

    /// The start-up replay is over; `whole` when it left nothing out.
    mutating func absenceShown(whole: Bool) {
        shownWholeAbsence = whole && known == nil && printedUpTo > 0
    }

    /// Whether to send a look now: a first one, or after something was printed, a second
    /// after the last.
    func shouldLook(now: ContinuousClock.Instant) -> Bool {
        guard !inFlight else { return false }
        guard known != nil else { return true }
        guard printedSince, printedUpTo > 0 else { return false }
        return lookedAt.map { now - $0 >= Self.interval } ?? true
    }

    mutating func lookSent(now: ContinuousClock.Instant) {
        inFlight = true
        printedSince = false
        lookedAt = now
    }

    /// The counts a look found: the rooms to mark read up to `printedUpTo`.
    mutating func looked(_ counts: [Int64: Int]) -> [Int64] {
        inFlight = false
        guard let before = known else {
            let readAll = shownWholeAbsence
            known = counts
            guard readAll else { return [] }
            return mark(counts.filter { $0.value > 0 }.keys.sorted())
        }
        known = counts
        return mark(counts.filter { room, unread in unread > (before[room] ?? 0) }.keys.sorted())
    }

    /// A look that came back unreadable: try again after the interval.
    mutating func lookFailed() {
        inFlight = false
        printedSince = true
    }

    /// Marked read, their counts start again from nothing.
    private mutating func mark(_ rooms: [Int64]) -> [Int64] {
        guard printedUpTo > 0 else { return [] }
        for room in rooms { known?[room] = 0 }
        return rooms
    }
}
