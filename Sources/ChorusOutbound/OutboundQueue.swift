import Foundation

/// Outbound deliveries off every event loop and the database thread (CONTRACT §10):
/// `DeliveryQueue`'s workers, each with its own `OutboundClient`, and its timer thread,
/// with HTTP's verdicts (statuses, Retry-After, gone, refused by policy).
public final class OutboundQueue: Sendable {
    public typealias Completion = @Sendable (DeliveryReport) -> Void

    public struct Settings: Sendable {
        /// Worker threads, each sending one request at a time.
        public var workers: Int
        /// Jobs held at once: waiting, being sent, or waiting to be retried.
        public var capacity: Int
        public var retry: RetryPolicy
        public var name: String

        public init(workers: Int = 2, capacity: Int = 1024, retry: RetryPolicy = RetryPolicy(), name: String = "chorus-out") {
            self.workers = workers
            self.capacity = capacity
            self.retry = retry
            self.name = name
        }
    }

    /// Whether `submit` took the job.
    public enum Admission: Sendable, Equatable {
        case accepted
        /// At capacity: the job was dropped and counted; the caller counts its own drop.
        case full
        case shutDown
    }

    public let settings: Settings
    private let engine: DeliveryQueue<OutboundRequest, OutboundCounters>

    /// `makeTransport` runs once on each worker thread; `wallClock` reads Retry-After
    /// dates; `jitter` is 0..<1 (both injectable for tests).
    public init(
        settings: Settings,
        makeTransport: @escaping @Sendable () throws(OutboundError) -> any OutboundTransport,
        wallClock: @escaping @Sendable () -> Date = { Date() },
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.settings = settings
        engine = DeliveryQueue(settings: settings, abandoned: .abandoned, jitter: jitter) {
            let transport: Result<any OutboundTransport, OutboundError>
            do throws(OutboundError) { transport = .success(try makeTransport()) } catch { transport = .failure(error) }
            return { request in
                let result: Result<OutboundResponse, OutboundError>
                switch transport {
                case .success(let transport):
                    do throws(OutboundError) { result = .success(try transport.perform(request)) } catch { result = .failure(error) }
                case .failure(let error):
                    result = .failure(error)
                }
                return OutboundQueue.step(for: result, wallClock: wallClock)
            }
        }
    }

    /// Workers that send with libcurl.
    public convenience init(settings: Settings, client: OutboundClientSettings) {
        self.init(settings: settings, makeTransport: { () throws(OutboundError) -> any OutboundTransport in
            try OutboundClient(settings: client)
        })
    }

    /// Takes a job, or refuses it at once; never blocks. `completion` runs exactly once,
    /// on a queue thread (or the caller of `shutdown`), when the job ends.
    @discardableResult
    public func submit(_ request: OutboundRequest, completion: @escaping Completion) -> Admission {
        engine.submit(request) { outcome, attempts in
            completion(DeliveryReport(outcome: outcome, attempts: attempts))
        }
    }

    public var counters: OutboundCounters {
        engine.counters
    }

    /// Jobs held now (waiting, sending, or waiting to be retried).
    public var held: Int {
        engine.held
    }

    /// Refuses new jobs, ends every job not being sent as `abandoned` at once, lets each
    /// attempt in flight finish (its timeouts bound it; a retry it would want is
    /// abandoned too), and returns when every thread has ended. A second call returns at once.
    public func shutdown() {
        engine.shutdown()
    }

    /// Ends the job, or asks for its next attempt, as `DeliveryVerdict` judges the result.
    private static func step(for result: Result<OutboundResponse, OutboundError>,
                             wallClock: () -> Date) -> DeliveryQueue<OutboundRequest, OutboundCounters>.Step {
        switch result {
        case .success(let response):
            switch DeliveryVerdict.judge(status: response.status, retryAfter: response.header("Retry-After")) {
            case .delivered: return .finish(.delivered(response))
            case .gone: return .finish(.gone(status: response.status))
            case .retry(let header):
                let retryAfter = header.flatMap { RetryAfter.seconds(in: $0, now: wallClock()) }
                return .retry(retryAfterSeconds: retryAfter, giveUp: .gaveUp(.status(response.status)))
            case .rejected, .refusedByPolicy, .failed: return .finish(.rejected(response))
            }
        case .failure(let error):
            switch DeliveryVerdict.judge(error: error) {
            case .refusedByPolicy: return .finish(.refusedByPolicy(error))
            case .retry: return .retry(retryAfterSeconds: nil, giveUp: .gaveUp(.error(error)))
            case .delivered, .gone, .rejected, .failed: return .finish(.failed(error))
            }
        }
    }
}

/// What a worker sends requests with: `OutboundClient`, or a stand-in in tests.
public protocol OutboundTransport: AnyObject {
    func perform(_ request: OutboundRequest) throws(OutboundError) -> OutboundResponse
}

extension OutboundClient: OutboundTransport {}
