extension DeliveryVerdict {
    /// What one mail attempt's failure means for the job, as for HTTPS: a 4xx or a broken
    /// connection is retried, a 5xx is the server's refusal (`rejected`, never retried),
    /// and a login, certificate or STARTTLS failure is a permanent failure of our settings.
    public static func judge(mailError error: MailError) -> DeliveryVerdict {
        switch error.kind {
        case .refused: .rejected
        case .untrusted, .startTLSMissing, .loginRefused: .failed
        case .resolve, .connection, .timedOut, .deferred, .other: .retry(retryAfter: nil)
        }
    }
}
