/// An error a client can be told about: a protocol status code and a one-line reason.
///
/// Every failure that reaches a client travels as one of these, from the handler or the
/// store to the reply renderer, so codes are decided in one place per cause.
public struct ChorusError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int
    public let message: String

    public init(_ code: Int, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code) \(message)" }

    // By code, for the wire's catalogue (`ChorusError+Catalogue.swift`). Internal, so other
    // modules take their words from it or from the domain's `DomainError`.
    static func syntax(_ message: String) -> ChorusError { ChorusError(400, message) }
    static func unauthorized(_ message: String) -> ChorusError { ChorusError(401, message) }
    static func forbidden(_ message: String) -> ChorusError { ChorusError(403, message) }
    static func notFound(_ message: String) -> ChorusError { ChorusError(404, message) }
    static func conflict(_ message: String) -> ChorusError { ChorusError(409, message) }
    static func tooLong(_ message: String) -> ChorusError { ChorusError(413, message) }
    static func badValue(_ message: String) -> ChorusError { ChorusError(422, message) }
    static func slowDown(_ message: String) -> ChorusError { ChorusError(429, message) }
    static func `internal`(_ message: String) -> ChorusError { ChorusError(500, message) }
    static func unavailable(_ message: String) -> ChorusError { ChorusError(503, message) }
}
