/// What one attempt's result means for the job, as CONTRACT §10 says: 2xx delivered,
/// 404/410 the subscription is gone, 429 and 5xx and a broken connection retried,
/// anything else a permanent failure.
public enum DeliveryVerdict: Sendable, Equatable {
    case delivered
    case gone
    /// Try again; the server's Retry-After header when it sent one.
    case retry(retryAfter: String?)
    case rejected
    case refusedByPolicy
    case failed

    public static func judge(status: Int, retryAfter: String?) -> DeliveryVerdict {
        switch status {
        case 200..<300: .delivered
        case 404, 410: .gone
        case 429, 500..<600: .retry(retryAfter: retryAfter)
        // A redirect is not followed (the guard judged only the first address), and
        // 1xx never ends a transfer: both are failures.
        default: .rejected
        }
    }

    public static func judge(error: OutboundError) -> DeliveryVerdict {
        if error.isPolicyRefusal { return .refusedByPolicy }
        return error.isTransient ? .retry(retryAfter: nil) : .failed
    }
}
