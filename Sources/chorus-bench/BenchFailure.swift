/// Why a run could not set up or measure: printed as one line, and the exit status is 1.
struct BenchFailure: Error, Sendable, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
