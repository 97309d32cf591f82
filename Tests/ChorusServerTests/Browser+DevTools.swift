import Foundation

/// Chrome DevTools Protocol commands through chromedriver (`POST /session/{id}/goog/cdp/execute`):
/// a slow phone's CPU, losing the network, the system's dark mode, and the performance trace.
extension Browser {
    /// Runs one DevTools command in the page's target; its result.
    @discardableResult
    func devTools(_ command: String, _ parameters: [String: Any] = [:]) throws -> [String: Any] {
        try call("POST", "/goog/cdp/execute", ["cmd": command, "params": parameters]) as? [String: Any] ?? [:]
    }

    /// Slows the page's CPU by `rate` (1 = full speed; 4 is the slow phone).
    func throttleCPU(_ rate: Double) throws {
        try devTools("Emulation.setCPUThrottlingRate", ["rate": rate])
    }

    /// Takes the page off the network or back on. The emulation alone refuses new requests
    /// and fires the page's `offline` event, but leaves an open WebSocket carrying frames
    /// both ways (the kit's own test shows it); so going offline also blocks the server's
    /// addresses, and `dropWebSockets` closes the sockets the page holds, as a lost Wi-Fi would.
    func setOffline(_ offline: Bool) throws {
        try devTools("Network.enable")
        try devTools("Network.emulateNetworkConditions", [
            "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1,
        ])
        try devTools("Network.setBlockedURLs", ["urls": offline ? ["*"] : []])
    }

    /// Follows the system's light or dark appearance as a phone set to it would.
    func prefersDark(_ dark: Bool) throws {
        try devTools("Emulation.setEmulatedMedia", ["features": [["name": "prefers-color-scheme", "value": dark ? "dark" : "light"]]])
    }

    /// Trace events recorded since the last call (a `Browser(tracing: true)` records from
    /// its start): chromedriver ends the trace, hands the events over, and starts another.
    func traceEvents() throws -> [[String: Any]] {
        let entries = try call("POST", "/se/log", ["type": "performance"]) as? [[String: Any]] ?? []
        return entries.compactMap { entry in
            guard let text = entry["message"] as? String,
                  let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  let message = object["message"] as? [String: Any],
                  message["method"] as? String == "Tracing.dataCollected" else { return nil }
            return message["params"] as? [String: Any]
        }
    }
}
