/// How a queued message ended; its completion gets exactly one, with the attempts made.
public struct MailReport: Sendable {
    public let outcome: MailOutcome
    /// Attempts that reached the mail server (0 when abandoned before the first).
    public let attempts: Int
}

public enum MailOutcome: Sendable {
    /// The server took the message (250 after the data).
    case delivered
    /// A 5xx: the server will not take this message (recipient, sender or content).
    case rejected(MailError)
    /// A failure retrying will not change: login refused, certificate, no STARTTLS.
    case failed(MailError)
    /// Still deferred or failing after the last attempt allowed; what the last one got.
    case gaveUp(MailError)
    /// The queue shut down before the message was sent.
    case abandoned
}

/// What the mail queue has done since it started, for /metrics and the log.
public struct MailCounters: Sendable, Equatable {
    public var sent = 0
    /// Attempts that failed and were scheduled again.
    public var retried = 0
    public var gaveUp = 0
    /// Messages rejected (5xx) or failed for good.
    public var failed = 0
    /// Submissions refused because the queue was full.
    public var droppedFull = 0
    public var abandoned = 0

    public init() {}
}

extension MailCounters: DeliveryCounting {
    mutating func count(_ outcome: MailOutcome) {
        switch outcome {
        case .delivered: sent += 1
        case .rejected, .failed: failed += 1
        case .gaveUp: gaveUp += 1
        case .abandoned: abandoned += 1
        }
    }
}
