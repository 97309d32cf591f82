import Foundation

/// Outbound mail off every event loop (CONTRACT §10): `DeliveryQueue` with the same
/// settings (workers, bound, `RetryPolicy`) and admission answers as `OutboundQueue`,
/// each worker with its own `MailSender`; 4xx and broken connections retried with
/// backoff, 5xx and settings failures ended at once.
public final class MailQueue: Sendable {
    public typealias Completion = @Sendable (MailReport) -> Void

    public let settings: OutboundQueue.Settings
    private let engine: DeliveryQueue<MailMessage, MailCounters>

    public init(settings: OutboundQueue.Settings, smtp: SMTPSettings,
                jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.settings = settings
        engine = DeliveryQueue(settings: settings, abandoned: .abandoned, jitter: jitter) {
            let sender: Result<MailSender, MailError>
            do throws(MailError) { sender = .success(try MailSender(settings: smtp)) } catch { sender = .failure(error) }
            return { message in
                switch sender {
                case .success(let sender):
                    do throws(MailError) { try sender.send(message) } catch { return MailQueue.step(for: error) }
                    return .finish(.delivered)
                case .failure(let error):
                    return MailQueue.step(for: error)
                }
            }
        }
    }

    /// Takes a message, or refuses it at once; never blocks. `completion` runs exactly
    /// once, on a queue thread (or the caller of `shutdown`), when the message's job ends.
    @discardableResult
    public func submit(_ message: MailMessage, completion: @escaping Completion) -> OutboundQueue.Admission {
        engine.submit(message) { outcome, attempts in
            completion(MailReport(outcome: outcome, attempts: attempts))
        }
    }

    public var counters: MailCounters {
        engine.counters
    }

    /// Messages held now (waiting, sending, or waiting to be retried).
    public var held: Int {
        engine.held
    }

    /// Refuses new messages, ends every one not being sent as `abandoned` at once, lets
    /// each send in flight finish (its timeouts bound it), and returns when every thread
    /// has ended. A second call returns at once.
    public func shutdown() {
        engine.shutdown()
    }

    /// Ends the job, or asks for its next attempt, as `DeliveryVerdict` judges the failure.
    private static func step(for failure: MailError) -> DeliveryQueue<MailMessage, MailCounters>.Step {
        switch DeliveryVerdict.judge(mailError: failure) {
        case .retry: .retry(retryAfterSeconds: nil, giveUp: .gaveUp(failure))
        case .rejected: .finish(.rejected(failure))
        case .delivered, .gone, .refusedByPolicy, .failed: .finish(.failed(failure))
        }
    }
}
