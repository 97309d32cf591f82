import Foundation
import Testing

/// The page's console as Chromium logs it (`goog:loggingPrefs` `{"browser": "ALL"}`):
/// script errors, failed loads, CSP refusals, and whatever the page itself logs.
extension Browser {
    struct ConsoleEntry: CustomStringConvertible {
        let level: String      // SEVERE, WARNING, INFO, DEBUG
        let source: String     // javascript, network, security, console-api, …
        let message: String
        var description: String { "\(level) [\(source)] \(message)" }
    }

    /// What the console logged since the last call (chromedriver hands each entry out once).
    func consoleEntries() throws -> [ConsoleEntry] {
        let entries = try call("POST", "/se/log", ["type": "browser"]) as? [[String: Any]] ?? []
        return entries.map {
            ConsoleEntry(level: $0["level"] as? String ?? "", source: $0["source"] as? String ?? "",
                         message: $0["message"] as? String ?? "")
        }
    }

    /// Errors and warnings the page logged since the last call; a clean page has none.
    func consoleProblems() throws -> [ConsoleEntry] {
        try consoleEntries().filter { $0.level == "SEVERE" || $0.level == "WARNING" }
    }

    /// Records a test issue for each error or warning the page logged since the last read.
    func expectCleanConsole(_ context: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws {
        for problem in try consoleProblems() {
            Issue.record("console\(context.isEmpty ? "" : " (\(context))"): \(problem)", sourceLocation: sourceLocation)
        }
    }
}
