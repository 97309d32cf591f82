/// How a queued job ended; its completion gets exactly one, with the attempts made.
public struct DeliveryReport: Sendable {
    public let outcome: DeliveryOutcome
    /// Attempts that reached the transport (0 when abandoned before the first).
    public let attempts: Int
}

public enum DeliveryOutcome: Sendable {
    /// A 2xx.
    case delivered(OutboundResponse)
    /// 404 or 410: the caller ends the subscription.
    case gone(status: Int)
    /// Another status that retrying will not change (4xx, 3xx).
    case rejected(OutboundResponse)
    /// Not https, or no address the guard would connect to.
    case refusedByPolicy(OutboundError)
    /// A transfer failure retrying will not change (certificate, oversized answer).
    case failed(OutboundError)
    /// Still failing after the last attempt allowed; what the last one got.
    case gaveUp(LastFailure)
    /// The queue shut down before the job ended.
    case abandoned

    public enum LastFailure: Sendable {
        case status(Int)
        case error(OutboundError)
    }
}

/// What the queue has done since it started, for /metrics.
public struct OutboundCounters: Sendable, Equatable {
    /// Jobs delivered (2xx).
    public var sent = 0
    /// Attempts that failed and were scheduled again.
    public var retried = 0
    /// Jobs that ran out of attempts.
    public var gaveUp = 0
    /// Jobs answered 404/410.
    public var gone = 0
    /// Jobs rejected for good: another status, or a transfer failure not worth retrying.
    public var failed = 0
    /// Jobs the request-forgery guard stopped.
    public var refusedByPolicy = 0
    /// Submissions refused because the queue was full.
    public var droppedFull = 0
    /// Jobs ended by shutdown.
    public var abandoned = 0

    public init() {}
}

extension OutboundCounters: DeliveryCounting {
    mutating func count(_ outcome: DeliveryOutcome) {
        switch outcome {
        case .delivered: sent += 1
        case .gone: gone += 1
        case .rejected, .failed: failed += 1
        case .refusedByPolicy: refusedByPolicy += 1
        case .gaveUp: gaveUp += 1
        case .abandoned: abandoned += 1
        }
    }
}
