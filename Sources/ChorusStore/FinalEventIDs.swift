/// Event ids an engine hands out only when a batch commits (PostgreSQL takes its counter
/// row last: CLUSTER.md, "Event ids: one counter row, taken last").
///
/// `Store.stageEvent` may return a provisional id, `-k` for the batch's k-th staged event;
/// the executor turns it into the final one after COMMIT, before the job's completion
/// sees its result (`HoldsProvisionalEventIDs`). Final ids are positive.
public struct FinalEventIDs: Sendable {
    /// The final id of provisional id `-k`, at index k - 1.
    private let finals: [Int64]

    public init(_ finals: [Int64]) { self.finals = finals }

    public static let none = FinalEventIDs([])

    public var isEmpty: Bool { finals.isEmpty }

    public static func isProvisional(_ id: Int64) -> Bool { id < 0 }

    /// The final id for `id`; a final id stays as it is.
    public func final(_ id: Int64) -> Int64 {
        guard id < 0 else { return id }
        let index = Int(-id) - 1
        precondition(index < finals.count, "provisional event id \(id) has no final id in this batch")
        return finals[index]
    }
}

/// A job result that may hold provisional event ids: the executor gives it the batch's
/// final ids after COMMIT and completes the job with what this returns.
public protocol HoldsProvisionalEventIDs: Sendable {
    func resolvingEventIDs(_ ids: FinalEventIDs) -> Self
}

extension Store {
    /// An engine that knows ids inside the job (SQLite) stores the event at once.
    public func stageEvent(room: Int64?, user: Int64?, name: String, by: String?, at: String,
                           payload: String, text: String, audience: [Int64]) throws -> Int64 {
        try appendEvent(room: room, user: user, name: name, by: by, at: at, payload: payload, text: text, audience: audience)
    }

    public func stageSessionControl(_ control: SessionControl) throws -> Int64? {
        try appendSessionControl(control)
    }
}
