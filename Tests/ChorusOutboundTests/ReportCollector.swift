import ChorusLocking
import ChorusOutbound
import Dispatch
import Foundation

/// The reports a queue's completions deliver, with a way to wait for them.
final class ReportCollector: Sendable {
    struct Entry: Sendable {
        let label: String
        let report: DeliveryReport
        let at: Date
    }

    private let entries = Locked<[Entry]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func completion(_ label: String) -> OutboundQueue.Completion {
        { [self] report in
            entries.withLock { $0.append(Entry(label: label, report: report, at: Date())) }
            arrived.signal()
        }
    }

    /// Waits until `count` reports have come in all (not a timing claim: the bound only
    /// keeps a broken queue from hanging the run).
    func wait(for count: Int, upTo seconds: Double = 60) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while all.count < count {
            guard arrived.wait(timeout: deadline) == .success else { return false }
        }
        return true
    }

    var all: [Entry] { entries.withLock { $0 } }

    func entry(_ label: String) -> Entry? { all.first { $0.label == label } }
}

extension DeliveryOutcome {
    /// The outcome's name, for comparing in expectations.
    var name: String {
        switch self {
        case .delivered: "delivered"
        case .gone: "gone"
        case .rejected: "rejected"
        case .refusedByPolicy: "refusedByPolicy"
        case .failed: "failed"
        case .gaveUp: "gaveUp"
        case .abandoned: "abandoned"
        }
    }
}
