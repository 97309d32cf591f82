import Foundation

/// Chrome DevTools Protocol commands through chromedriver (`POST /session/{id}/goog/cdp/execute`):
/// a slow phone's CPU, losing the network, the system's dark mode, and the performance trace.
extension Browser {
    /// Runs one DevTools command in the page's target; its result.
    @discardableResult
    func devTools(_ command: String, _ parameters: [String: Any] = [:]) throws -> [String: Any] {
        try call("POST", "/goog/cdp/execute", ["cmd": command, "params": parameters]) as? [String: Any] ?? [:]
    }

    /// Slows the page's CPU by `rate` (1 = full speed; 4 is the issue's slow phone).
    func throttleCPU(_ rate: Double) throws {
        try devTools("Emulation.setCPUThrottlingRate", ["rate": rate])
    }

    /// Takes the page off the network or back on, as DevTools' "Offline" does:
    /// `navigator.onLine` turns false, the page gets its `offline` event, and new requests
    /// and WebSockets fail. A WebSocket already open goes on carrying frames both ways
    /// (BrowserKitTests shows it, and that blocking URLs does not stop it either), so a
    /// test of a lost connection also cuts it at a `TCPProxy` (`WebAppServer`'s doors).
    func setOffline(_ offline: Bool) throws {
        try devTools("Network.enable")
        try devTools("Network.emulateNetworkConditions", [
            "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1,
        ])
    }

    /// Follows the system's light or dark appearance as a phone set to it would.
    func prefersDark(_ dark: Bool) throws {
        try devTools("Emulation.setEmulatedMedia", ["features": [["name": "prefers-color-scheme", "value": dark ? "dark" : "light"]]])
    }

    /// Trace events chromedriver has collected since the last call (a `Browser(tracing: true)`
    /// records from its start). chromedriver ends a trace when asked and hands its events
    /// to a later call, so calls alternate between events and none; this waits up to
    /// `timeout` seconds for a batch.
    func traceEvents(timeout: Double = 5) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let entries = try call("POST", "/se/log", ["type": "performance"]) as? [[String: Any]] ?? []
            let events = entries.compactMap { entry -> [String: Any]? in
                guard let text = entry["message"] as? String,
                      let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                      let message = object["message"] as? [String: Any],
                      message["method"] as? String == "Tracing.dataCollected" else { return nil }
                return message["params"] as? [String: Any]
            }
            if !events.isEmpty || Date() >= deadline { return events }
            usleep(200_000)
        }
    }

    /// What the trace says about the frames drawn while `action` ran (`Browser(tracing: true)`).
    struct FrameReport: CustomStringConvertible {
        /// Frames the compositor drew (viz's DirectRenderer::DrawFrame).
        var frames = 0
        /// The longest time between two frames drawn one after the other: a frame's length.
        var longestFrame = 0.0
        /// The longest task on the page's main thread (RunTask).
        var longestTask = 0.0
        /// The longest animation frame on the main thread (from its start to its render).
        var longestAnimationFrame = 0.0
        /// How long the action ran, from the page's own time stamps.
        var span = 0.0
        var description: String {
            String(format: "%d frames in %.0f ms, longest frame %.1f ms, longest main-thread task %.1f ms, longest animation frame %.1f ms",
                   frames, span, longestFrame, longestTask, longestAnimationFrame)
        }
    }

    /// Runs `action` between two `console.timeStamp` marks the trace records, then reads the
    /// frames and main-thread tasks between them. chromedriver's trace toggles between
    /// recording and handing over, so an action the trace missed is run again once.
    func measureFrames(during action: () throws -> Void) throws -> FrameReport {
        for attempt in 1...3 {
            let mark = "chorus-kit-\(UUID().uuidString)"
            _ = try traceEvents(timeout: 0.5)
            try run("console.timeStamp(arguments[0] + '-start')", mark)
            try action()
            try run("console.timeStamp(arguments[0] + '-end')", mark)
            var events: [[String: Any]] = []
            let deadline = Date().addingTimeInterval(30)
            func stamp(_ suffix: String) -> [String: Any]? {
                events.first { $0["name"] as? String == "TimeStamp" && (($0["args"] as? [String: Any])?["data"] as? [String: Any])?["message"] as? String == mark + suffix }
            }
            while Date() < deadline, stamp("-end") == nil {
                events += try traceEvents(timeout: 1)
            }
            guard let start = stamp("-start"), let end = stamp("-end") else {
                if attempt == 3 { throw WebDriverFailure("the trace never covered the measured action") }
                continue
            }
            return Self.frameReport(events, from: start, to: end)
        }
        throw WebDriverFailure("unreachable")
    }

    private static func frameReport(_ events: [[String: Any]], from start: [String: Any], to end: [String: Any]) -> FrameReport {
        let number = { (event: [String: Any], key: String) -> Double in (event[key] as? NSNumber)?.doubleValue ?? 0 }
        let (from, to) = (number(start, "ts"), number(end, "ts"))
        let (pid, tid) = (number(start, "pid"), number(start, "tid"))
        let inside = events.filter { number($0, "ts") >= from && number($0, "ts") <= to }
        var report = FrameReport()
        report.span = (to - from) / 1000
        let draws = inside.filter { $0["name"] as? String == "DirectRenderer::DrawFrame" }.map { number($0, "ts") }.sorted()
        report.frames = draws.count
        report.longestFrame = zip(draws, draws.dropFirst()).map { ($1 - $0) / 1000 }.max() ?? 0
        report.longestTask = inside.filter {
            $0["name"] as? String == "RunTask" && number($0, "pid") == pid && number($0, "tid") == tid
        }.map { number($0, "dur") / 1000 }.max() ?? 0
        var begun: [String: Double] = [:]
        for event in inside where event["name"] as? String == "AnimationFrame" && number(event, "pid") == pid {
            let id = "\(event["id"] ?? event["id2"] ?? "")"
            if event["ph"] as? String == "b" { begun[id] = number(event, "ts") }
            else if event["ph"] as? String == "e", let began = begun.removeValue(forKey: id) {
                report.longestAnimationFrame = max(report.longestAnimationFrame, (number(event, "ts") - began) / 1000)
            }
        }
        return report
    }

    /// Scrolls what holds the element matching `selector` (the element itself or its nearest
    /// scrollable ancestor; the page when nil) from the top by `step` pixels a frame, as a
    /// quick steady finger would, to its end or `limit` pixels (a trace of a long scroll
    /// outgrows what chromedriver hands over); returns the distance.
    @discardableResult
    func scrollThrough(_ selector: String? = nil, step: Int = 60, limit: Int = 9_000, timeout: Double = 60) throws -> Int {
        try runAsync("""
            const [selector, step, limit, done] = arguments;
            const scrolls = (el) => el.scrollHeight > el.clientHeight && /auto|scroll/.test(getComputedStyle(el).overflowY);
            let box = selector ? document.querySelector(selector) : null;
            while (box && !scrolls(box)) box = box.parentElement;
            if (!box) box = document.scrollingElement;
            box.scrollTop = 0;
            const move = () => {
              const before = box.scrollTop;
              box.scrollTop = before + step;
              if (box.scrollTop > before && box.scrollTop < limit) requestAnimationFrame(move); else done(Math.round(box.scrollTop));
            };
            requestAnimationFrame(move);
            """, timeout: timeout, arguments: [selector.map { $0 as Any } ?? NSNull(), step, limit]) as? Int ?? 0
    }
}
