import ChorusNet
import ChorusStore
import Foundation
import Synchronization

/// The counts `/metrics` shows, shared by every loop, the store's thread and the login
/// paths (one per server, in `ServerState`). Every count is an atomic add: no lock on any
/// path, and fan-out adds once per delivery run on a loop, not once per recipient.
public final class Metrics: Sendable {
    /// This build, for `chorus_build_info`.
    public static let version = "0.1"

    /// The node's name in cluster mode: a `node` label on every series. Nil on one node.
    let node: String?
    /// When the server started, seconds since 1970.
    let startTime: Double

    private let sessions = AtomicCounters(count: SessionTransport.allCases.count)
    private let logins = AtomicCounters(count: LoginResult.allCases.count * LoginMethod.allCases.count)
    private let commands = AtomicCounters(count: CommandVerb.names.count * ReplyCodeLabel.count)
    private let events = Atomic<Int>(0)
    private let fanOutDeliveries = Atomic<Int>(0)
    let storeBatchSeconds = SecondsHistogram()
    let storeCommitSeconds = SecondsHistogram()
    private let storeErrors = AtomicCounters(count: StoreError.Kind.all.count)
    private let limitCloses = AtomicCounters(count: LimitClose.allCases.count)
    private let pushSent = Atomic<Int>(0)
    private let pushFailed = Atomic<Int>(0)
    private let mailSent = Atomic<Int>(0)
    private let mailFailed = Atomic<Int>(0)

    init(node: String?, startTime: Double = Date().timeIntervalSince1970) {
        self.node = node
        self.startTime = startTime
    }

    // MARK: Counting

    /// A session began or ended on `transport`: `Session.door` moves the gauge as the
    /// door is decided (line or WebSocket; plain HTTP is no session), `SessionTable` when
    /// the connection closes.
    public func sessionOpened(transport: SessionTransport) {
        sessions.add(at: index(of: transport))
    }

    public func sessionClosed(transport: SessionTransport) {
        sessions.subtract(at: index(of: transport))
    }

    func login(_ result: LoginResult, method: LoginMethod) {
        logins.add(at: index(of: result) * LoginMethod.allCases.count + index(of: method))
    }

    /// A reply to a command line went out.
    func command(_ verb: CommandVerb, code: Int) {
        commands.add(at: verb.index * ReplyCodeLabel.count + ReplyCodeLabel.index(of: code))
    }

    /// Committed events handed to this node's loops (own ones and, in cluster mode, other nodes').
    func eventsDelivered(_ count: Int) {
        events.add(count, ordering: .relaxed)
    }

    /// Event × recipient session handed to a session's output.
    func fanOutDelivered(_ count: Int) {
        fanOutDeliveries.add(count, ordering: .relaxed)
    }

    func storeFailed(_ kind: StoreError.Kind) {
        storeErrors.add(at: StoreError.Kind.all.firstIndex(of: kind) ?? 0)
    }

    /// A session closed by a limit: the one count ADMIN STATS and `/metrics` both show.
    func limitClosed(_ limit: LimitClose) {
        limitCloses.add(at: index(of: limit))
    }

    var limitCloseCounts: [LimitClose: Int] {
        Dictionary(uniqueKeysWithValues: LimitClose.allCases.map { ($0, limitCloses[index(of: $0)]) })
    }

    /// For the push and e-mail senders (CONTRACT §10): 0 until they exist.
    public func pushSentOne() { pushSent.add(1, ordering: .relaxed) }
    public func pushFailedOne() { pushFailed.add(1, ordering: .relaxed) }
    public func mailSentOne() { mailSent.add(1, ordering: .relaxed) }
    public func mailFailedOne() { mailFailed.add(1, ordering: .relaxed) }

    // MARK: Reading

    /// How many sessions are open on `transport` now.
    func openSessions(_ transport: SessionTransport) -> Int { sessions[index(of: transport)] }

    /// How many replies `verb` got with `code`.
    func commandCount(_ verb: CommandVerb, code: Int) -> Int {
        commands[verb.index * ReplyCodeLabel.count + ReplyCodeLabel.index(of: code)]
    }

    func loginCount(_ result: LoginResult, method: LoginMethod) -> Int {
        logins[index(of: result) * LoginMethod.allCases.count + index(of: method)]
    }

    var eventCount: Int { events.load(ordering: .relaxed) }
    var fanOutCount: Int { fanOutDeliveries.load(ordering: .relaxed) }

    /// Every family this registry keeps, as they stand now. Commands show only the
    /// verb and code pairs seen so far; every other series shows from the start.
    var families: [MetricFamily] {
        typealias Sample = MetricFamily.Sample
        let commandSamples: [Sample] = CommandVerb.names.indices.flatMap { verb in
            (0..<ReplyCodeLabel.count).compactMap { code -> Sample? in
                let count = commands[verb * ReplyCodeLabel.count + code]
                guard count > 0 else { return nil }
                return Sample(labels: [("verb", CommandVerb.names[verb]), ("code", ReplyCodeLabel.name(at: code))],
                              value: Double(count))
            }
        }
        return [
            MetricFamily("chorus_build_info", .gauge, help: "The running build; always 1.",
                         samples: [Sample(labels: [("version", Self.version)], value: 1)]),
            MetricFamily("chorus_start_time_seconds", .gauge, help: "When the server started, in seconds since 1970.",
                         samples: [Sample(labels: [], value: startTime.rounded(.down))]),
            MetricFamily("chorus_sessions_open", .gauge, help: "Sessions open now, by transport.",
                         samples: SessionTransport.allCases.map {
                             Sample(labels: [("transport", $0.rawValue)], value: Double(openSessions($0)))
                         }),
            MetricFamily("chorus_logins_total", .counter, help: "Logins by result and method (LOGIN: password, AUTH: token).",
                         samples: LoginResult.allCases.flatMap { result in
                             LoginMethod.allCases.map { method in
                                 Sample(labels: [("result", result.rawValue), ("method", method.rawValue)],
                                        value: Double(loginCount(result, method: method)))
                             }
                         }),
            MetricFamily("chorus_commands_total", .counter,
                         help: "Replies to command lines, by the command table's row (other: no row) and status code.",
                         samples: commandSamples),
            MetricFamily("chorus_events_total", .counter,
                         help: "Committed events this node's loops were handed to deliver (in cluster mode, other nodes' too).",
                         samples: [Sample(labels: [], value: Double(eventCount))]),
            MetricFamily("chorus_fanout_deliveries_total", .counter, help: "Events written to a recipient session (event x session).",
                         samples: [Sample(labels: [], value: Double(fanOutCount))]),
            MetricFamily("chorus_store_batch_seconds", .histogram,
                         help: "Store batches (group commit), from BEGIN to the end of COMMIT, reruns included.",
                         histograms: [storeBatchSeconds.series()]),
            MetricFamily("chorus_store_commit_seconds", .histogram, help: "The COMMIT of each store batch that committed.",
                         histograms: [storeCommitSeconds.series()]),
            MetricFamily("chorus_store_errors_total", .counter, help: "Store jobs that ended in a store error, by kind.",
                         samples: StoreError.Kind.all.enumerated().map { index, kind in
                             Sample(labels: [("kind", kind.label)], value: Double(storeErrors[index]))
                         }),
            MetricFamily("chorus_limit_closes_total", .counter, help: "Sessions closed by a limit, by limit.",
                         samples: LimitClose.allCases.map {
                             Sample(labels: [("limit", $0.rawValue)], value: Double(limitCloses[index(of: $0)]))
                         }),
            MetricFamily("chorus_push_sent_total", .counter, help: "Push notifications a push service accepted.",
                         samples: [Sample(labels: [], value: Double(pushSent.load(ordering: .relaxed)))]),
            MetricFamily("chorus_push_failed_total", .counter, help: "Push notifications given up: refused, undeliverable, or still failing after their retries.",
                         samples: [Sample(labels: [], value: Double(pushFailed.load(ordering: .relaxed)))]),
            MetricFamily("chorus_mail_sent_total", .counter, help: "E-mails a mail server accepted.",
                         samples: [Sample(labels: [], value: Double(mailSent.load(ordering: .relaxed)))]),
            MetricFamily("chorus_mail_failed_total", .counter, help: "E-mails given up: refused, or still failing after their retries.",
                         samples: [Sample(labels: [], value: Double(mailFailed.load(ordering: .relaxed)))]),
        ]
    }

    /// The labels every series carries: the node's name in cluster mode.
    var commonLabels: [(String, String)] { node.map { [("node", $0)] } ?? [] }

    private func index<T: CaseIterable & Equatable>(of value: T) -> Int {
        T.allCases.firstIndex(of: value).map { T.allCases.distance(from: T.allCases.startIndex, to: $0) } ?? 0
    }
}
