/// One id counter `chorusd after-restore` moved: the table (or `event_counter`), the
/// highest id it was known to have handed out, and where its next id now starts above.
public struct CounterMove: Sendable, Equatable {
    public let counter: String
    public let from: Int64
    public let to: Int64

    public init(counter: String, from: Int64, to: Int64) {
        self.counter = counter
        self.from = from
        self.to = to
    }
}
