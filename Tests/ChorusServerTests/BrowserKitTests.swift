import Foundation
import Testing

/// The browser kit itself, on pages the tests make: each part shown able to fail (the
/// audit finds planted faults, the console catches an error, sessions do not share storage).
@Suite(.serialized, .timeLimit(.minutes(10))) struct BrowserKitTests {
    static let ci = ProcessInfo.processInfo.environment["CI"] == "true"

    /// The browser tests' guard: false (after recording a failure under CI) where Chromium is missing.
    static func haveBrowser() -> Bool {
        if Browser.isInstalled { return true }
        Issue.record("CI=true but chromium or chromium-driver is missing: .ci/run should have installed them")
        return false
    }

    /// A page with one of each fault the audit looks for, and the same controls done right.
    static let plantedPage = """
        document.documentElement.lang = "en";
        document.title = "Audit";
        document.body.innerHTML = `
          <style>
            body { margin: 0; font: 16px system-ui; color: #111; background: #fff; }
            button, a { display: inline-block; min-width: 48px; min-height: 48px; }
            #no-ring:focus { outline: none; }
            #pale { color: #aaa; }
            .panel { background: #333; color: #eee; padding: 4px; }
            .big { font-size: 26px; color: #888; }
          </style>
          <button id="good">Save</button>
          <button id="unnamed"><svg width="20" height="20"></svg></button>
          <label for="title">Title</label><input id="title">
          <input id="bare" placeholder="Notes">
          <img id="noalt" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10">
          <svg id="chart" role="img" width="10" height="10"></svg>
          <svg role="img" aria-label="A chart" width="10" height="10"></svg>
          <p id="pale">Pale text</p>
          <p class="panel">Light on dark</p>
          <p class="big">Large grey text passes at 3:1</p>
          <button id="tiny" style="min-width:0;min-height:0;width:30px;height:30px">Go</button>
          <button id="no-ring">Hidden focus</button>
          <div id="fake" role="button" style="min-height:48px">Pretend</div>
          <p>Read <a href="#x" style="display:inline;min-width:0;min-height:0">the guide</a> first.</p>`;
        """

    @Test(.enabled(if: Browser.isInstalled || ci, "chromium and chromium-driver are not installed"))
    func auditFindsPlantedFaultsAndNothingElse() throws {
        guard Self.haveBrowser() else { return }
        let browser = try Browser(size: .phone)
        try browser.open("about:blank")
        try browser.run(Self.plantedPage)
        let findings = try browser.accessibilityFindings()
        print("BrowserKitTests: audit findings:\n  " + findings.joined(separator: "\n  "))
        let rules = findings.map { line -> String in
            let parts = line.split(separator: " ", maxSplits: 2)
            return "\(parts[0]) \(parts.count > 1 ? String(parts[1]) : "")"
        }
        #expect(rules.sorted() == [
            "alt: <img#noalt>", "alt: <svg#chart>", "contrast: <p#pale>", "focus: <button#no-ring>",
            "keyboard: <div#fake>", "label: <input#bare>", "name: <button#unnamed>", "target: <button#tiny>",
        ].sorted(), "\(findings)")

        // At tablet size the small button is no finding (targets are a phone rule).
        try browser.resize(to: .tablet)
        try browser.run(Self.plantedPage)
        let tablet = try browser.accessibilityFindings()
        #expect(!tablet.contains { $0.hasPrefix("target:") }, "\(tablet)")
        #expect(tablet.count == 7, "\(tablet)")
    }

    @Test(.enabled(if: Browser.isInstalled || ci, "chromium and chromium-driver are not installed"))
    func findersClickTypeAndWait() throws {
        guard Self.haveBrowser() else { return }
        let browser = try Browser(size: .phone)
        try browser.open("about:blank")
        try browser.run("""
            document.body.innerHTML = `<div data-screen="signin"><form>
              <label for="n">Name</label><input id="n" autocomplete="username">
              <label>Password <input id="p" type="password"></label>
              <button type="button" id="go"><span aria-hidden="true">→</span> Sign in</button>
              <button type="button" aria-label="Close">×</button></form></div>`;
            document.getElementById("go").onclick = () => setTimeout(() => {
              const out = document.createElement("p");
              out.setAttribute("data-screen", "stream");
              out.textContent = "hello " + document.getElementById("n").value;
              document.body.append(out);
            }, 300);
            """)
        #expect(try browser.find(role: "button").count == 2)
        #expect(try browser.accessibleName(of: browser.button(named: "Close")) == "Close")
        try browser.fill("Name", with: "zoë")
        try browser.fill("Password", with: "secret")
        #expect(try browser.run("return document.getElementById('p').value") as? String == "secret")
        #expect(try !browser.isShowing(screen: "stream"))
        try browser.tap("Sign in")
        // The reply comes later: waiting polls until it is there.
        let stream = try browser.screen("stream")
        #expect(try browser.text(of: stream) == "hello zoë")
        // What is never there times out, saying what was awaited.
        let started = Date()
        #expect(throws: WebDriverFailure.self) { try browser.button(named: "Nowhere", timeout: 0.5) }
        print("BrowserKitTests: a missing button timed out after \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
    }

    @Test(.enabled(if: Browser.isInstalled || ci, "chromium and chromium-driver are not installed"))
    func sizesScreenshotsAndConsole() throws {
        guard Self.haveBrowser() else { return }
        let driver = try ChromeDriver()
        for size in [Browser.Size.phone, .tablet] {
            let browser = try Browser(driver: driver, size: size)
            try browser.open("about:blank")
            let viewport = try browser.run("return [innerWidth, innerHeight, devicePixelRatio]") as? [Double] ?? []
            #expect(viewport == [Double(size.width), Double(size.height), 1], "\(size): \(viewport)")
            try browser.run("document.body.style.background = '#2f6f4f'; document.body.textContent = arguments[0];", size.rawValue)
            let file = try browser.saveScreenshot("kit-blank")
            #expect(file.lastPathComponent == "kit-blank-\(size.rawValue).png")
            // The PNG's header says its pixel size: the viewport's.
            let png = [UInt8](try Data(contentsOf: file))
            let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(Array(png[1..<4]) == Array("PNG".utf8) && width == size.width && height == size.height, "\(width)×\(height)")
        }

        // The console: an error logged, an uncaught exception and a failed load are
        // problems; a plain log line is not.
        let browser = try Browser(driver: driver)
        try browser.open("about:blank")
        _ = try browser.consoleEntries()
        #expect(try browser.consoleProblems().isEmpty)
        try browser.run("""
            console.log("just saying");
            console.error("something broke");
            setTimeout(() => { throw new Error("uncaught here"); }, 0);
            """)
        var problems: [Browser.ConsoleEntry] = []
        try browser.waitUntil("two console problems") {
            problems += try browser.consoleProblems()
            return problems.count >= 2
        }
        #expect(problems.contains { $0.message.contains("something broke") }, "\(problems)")
        #expect(problems.contains { $0.message.contains("uncaught here") && $0.level == "SEVERE" }, "\(problems)")
        #expect(!problems.contains { $0.message.contains("just saying") })
    }

    @Test(.enabled(if: Browser.isInstalled || ci, "chromium and chromium-driver are not installed"))
    func sessionsOnOneDriverKeepSeparateProfiles() throws {
        guard Self.haveBrowser() else { return }
        let server = try TestServer()
        let page = "https://localhost:\(server.port)/"
        let driver = try ChromeDriver()
        let ann = try Browser(driver: driver), bob = try Browser(driver: driver)
        try ann.open(page)
        try bob.open(page)
        try ann.run("localStorage.setItem('who', 'ann')")
        #expect(try ann.run("return localStorage.getItem('who')") as? String == "ann")
        #expect(try bob.run("return localStorage.getItem('who') ?? 'nobody'") as? String == "nobody")
        // Ending one session leaves the other working.
        ann.quit()
        #expect(try bob.url == page)
    }

    /// What DevTools' offline mode does and does not do, and the door that really cuts:
    /// the page's socket outlives the emulation, the cut closes it, and back online a new
    /// one opens through the same door.
    @Test(.enabled(if: Browser.isInstalled || ci, "chromium and chromium-driver are not installed"))
    func offlineEmulationLeavesAnOpenSocketWhichTheDoorCuts() throws {
        guard Self.haveBrowser() else { return }
        let app = try WebAppServer()
        let browser = try Browser()
        try browser.open(app.url())
        let opened = try browser.runAsync("""
            const done = arguments[arguments.length - 1];
            window.heard = [];
            window.socket = new WebSocket("wss://" + location.host + "/ws");
            socket.onmessage = (message) => heard.push(JSON.parse(message.data));
            socket.onclose = (event) => heard.push({ closed: event.code });
            addEventListener("offline", () => heard.push({ event: "offline" }));
            socket.onopen = () => { socket.send('REGISTER kit "correct horse battery staple"'); done("open"); };
            """) as? String
        #expect(opened == "open")
        try browser.waitUntil("the registration's reply") { try browser.run("return heard.length") as? Int == 1 }

        try browser.setOffline(true)
        #expect(try browser.run("return navigator.onLine") as? Bool == false)
        try browser.run("socket.send('@one PING one')")
        try browser.waitUntil("a pong through the emulated offline") {
            try browser.run("return heard.some((m) => m.pong === 'one')") as? Bool == true
        }
        // A path the app's service worker never answers from its cache (it may have taken
        // the page over by now, and would serve the shell's files offline).
        let refused = try browser.runAsync("""
            const done = arguments[arguments.length - 1];
            fetch("/healthz").then(() => done("fetched"), () => done("refused"));
            """) as? String
        #expect(refused == "refused")

        app.doors[0].cut()
        try browser.waitUntil("the socket to close when the door is cut") {
            try browser.run("return socket.readyState") as? Int == 3
        }
        try browser.setOffline(false)
        let again = try browser.runAsync("""
            const done = arguments[arguments.length - 1];
            const socket = new WebSocket("wss://" + location.host + "/ws");
            socket.onopen = () => done("open");
            socket.onclose = (event) => done("closed " + event.code);
            """) as? String
        #expect(again == "open")
        #expect(try browser.run("return heard.map((m) => m.event || (m.closed ? 'closed' : m.pong || m.type)).join(' ')") as? String
            == "ok offline one closed")
    }

    /// CPU throttling and the frame trace, measured and printed (never asserted as times).
    @Test(.enabled(if: Browser.isInstalled || ci, "chromium and chromium-driver are not installed"))
    func throttlingAndFrameTrace() throws {
        guard Self.haveBrowser() else { return }
        let browser = try Browser(size: .phone, tracing: true)
        try browser.open("about:blank")
        let work = """
            const started = performance.now();
            let x = 0;
            for (let i = 0; i < 3e6; i++) x += Math.sqrt(i);
            return performance.now() - started;
            """
        let fast = try browser.run(work) as? Double ?? 0
        try browser.throttleCPU(4)
        let slow = try browser.run(work) as? Double ?? 0
        try browser.throttleCPU(1)
        print(String(format: "BrowserKitTests: the same loop took %.1f ms, and %.1f ms with the CPU throttled 4×", fast, slow))

        try browser.run("""
            document.body.innerHTML = Array.from({ length: 1500 }, (_, i) =>
              `<p style="margin:0;padding:12px;border-bottom:1px solid #ccc">Row ${i} <b>bold</b> text</p>`).join("");
            """)
        var scrolled = 0
        let report = try browser.measureFrames { scrolled = try browser.scrollThrough() }
        print("BrowserKitTests: scrolling \(scrolled) px of 1,500 rows: \(report)")
        // The trace covered the scroll: it drew frames and saw the page's tasks.
        #expect(scrolled >= 9_000)
        #expect(report.frames > 10 && report.longestFrame > 0 && report.longestTask > 0, "\(report)")
    }
}
