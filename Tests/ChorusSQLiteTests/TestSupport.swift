import Foundation
import ChorusLocking
@testable import ChorusSQLite

/// A fresh folder per test, removed afterwards, so tests never share a database file.
final class TempDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("chorus-store-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String = "chorus.sqlite") -> String {
        url.appendingPathComponent(name).path
    }
}

/// Collects values from completions running on the queue's thread.
final class Collected<T: Sendable>: Sendable {
    let items = Locked<[T]>([])

    func append(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.withLock { $0 } }
}

extension Database {
    /// Column 0 of every row, as text: enough for most checks.
    func strings(_ sql: String) throws -> [String] {
        try prepare(sql).rows { $0.text(0) }
    }

    func integer(_ sql: String) throws -> Int64? {
        try prepare(sql).row { $0.int(0) }
    }
}
