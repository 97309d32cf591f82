import Foundation
import Testing

/// The web door in a real headless Chromium: the page loads under its policy, its own
/// script opens a WebSocket session and logs in, and a page of another origin cannot.
@Suite(.serialized) struct BrowserDoorTests {
    /// Skipped where Chromium is missing, except under CI (which installs it).
    @Test(.enabled(if: Browser.isInstalled || ProcessInfo.processInfo.environment["CI"] == "true",
                   "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func chromiumOpensThePageAndASessionAndAForeignPageCannot() throws {
        guard Browser.isInstalled else {
            Issue.record("CI=true but chromium or chromium-driver is missing: .ci/run should have installed them")
            return
        }
        let server = try TestServer()
        let browser = try Browser()
        try browser.open("https://localhost:\(server.port)/")
        #expect(try browser.title.hasSuffix("Chorus"))
        // The page's own origin: the upgrade carries Origin https://localhost:PORT, which the
        // certificate names, and connect-src 'self' lets the socket through.
        let session = try browser.runAsync("""
            const done = arguments[arguments.length - 1];
            const socket = new WebSocket("wss://" + location.host + "/ws");
            const replies = [];
            socket.onopen = () => socket.send('REGISTER chrome "correct horse battery staple"');
            socket.onmessage = (message) => {
              replies.push(JSON.parse(message.data));
              if (replies.length === 1) socket.send("@t PING browser");
              else { socket.close(1000); done(replies); }
            };
            socket.onclose = (event) => { if (replies.length < 2) done("closed " + event.code); };
            """) as? [[String: Any]]
        #expect(session?.first?["type"] as? String == "ok", "\(String(describing: session))")
        #expect(session?.last?["tag"] as? String == "t" && session?.last?["pong"] as? String == "browser")

        // A page whose origin is not the server's (about:blank's is opaque: "null") is refused.
        try browser.open("about:blank")
        let foreign = try browser.runAsync("""
            const done = arguments[arguments.length - 1];
            const socket = new WebSocket("wss://localhost:\(server.port)/ws");
            socket.onopen = () => done("opened");
            socket.onclose = (event) => done("closed " + event.code);
            """) as? String
        #expect(foreign == "closed 1006", "\(String(describing: foreign))")
    }
}
