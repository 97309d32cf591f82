/// Why a request was refused: the status to answer with, and a few English words for the
/// body. The server answers it and closes the connection.
public struct HTTPRefusal: Sendable, Equatable, Error {
    public let status: Int
    public let reason: String

    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    static func badRequest(_ reason: String) -> HTTPRefusal {
        HTTPRefusal(status: 400, reason: reason)
    }
}
