/// Why a run could not set up or measure: printed as one line, and the exit status is 1
/// (2 when it is the command line's fault: a bad flag, a node of `--servers` not there).
struct BenchFailure: Error, Sendable, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
