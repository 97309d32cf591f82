import Foundation
import Testing

/// The service worker's side of Web Push (CONTRACT §10), in headless Chromium. A push
/// comes in through the DevTools protocol (`ServiceWorker.deliverPushMessage`), as a push
/// service hands one over once decrypted: the worker shows a notification with the
/// payload's title and body, tagged with its address, so a newer push about the same task
/// replaces the older one; a body that is not JSON still shows; an address outside the app
/// opens the app's start. Headless Chromium cannot tap a notification, so the page's side
/// of a tap — the worker's `open` message moving the app to the task — is given that message.
@Suite struct WebAppPushTests {
    static let runs = WebAppBrowserTests.runs

    /// Notifications the app's worker has on screen, as `[title, body, tag, address]`.
    static func shown(_ browser: Browser) throws -> [[String]] {
        try browser.runAsync("""
            const done = arguments[arguments.length - 1];
            navigator.serviceWorker.ready.then((r) => r.getNotifications())
              .then((list) => done(list.map((n) => [n.title, n.body, n.tag, (n.data && n.data.url) || ""]))).catch((e) => done([[String(e), "", "", ""]]));
            """) as? [[String]] ?? []
    }

    /// Hands `payload` to the page's worker as its push service would. The worker's
    /// registration id is Chromium's own; the profile is new and has this one worker, whose
    /// id is among the first few (a push to an id with no worker is dropped).
    static func push(_ browser: Browser, origin: String, _ payload: String) throws {
        try browser.devTools("ServiceWorker.enable")
        for id in 0..<8 {
            try browser.devTools("ServiceWorker.deliverPushMessage", ["origin": origin, "registrationId": String(id), "data": payload])
        }
    }

    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func aPushShowsANotificationThatANewerOneReplaces() throws {
        guard let browser = try WebAppBrowserTests.browser() else { return }
        let server = try TestServer()
        let origin = "https://localhost:\(server.port)"
        let page = WebAppPage(browser: browser)
        try browser.open(origin + "/#/register")
        try page.register("pia")
        try browser.devTools("Browser.grantPermissions", ["origin": origin, "permissions": ["notifications"]])
        try page.wait("the worker", for: "navigator.serviceWorker.controller !== null", timeout: 20)
        #expect(try Self.shown(browser).isEmpty)

        try Self.push(browser, origin: origin, #"{"event":"task.reminder","title":"Reminder: Bins","body":"due today","url":"/#/tasks/12"}"#)
        var shown: [[String]] = []
        for _ in 0..<100 where shown.isEmpty {
            shown = try Self.shown(browser)
            usleep(50_000)
        }
        #expect(shown == [["Reminder: Bins", "due today", origin + "/#/tasks/12", origin + "/#/tasks/12"]], "\(shown)")

        // The same task again: the newer one takes its place. Another task: a second one.
        try Self.push(browser, origin: origin, #"{"event":"task.overdue","title":"Overdue: Bins","body":"1 day overdue","url":"/#/tasks/12"}"#)
        try Self.push(browser, origin: origin, #"{"event":"dm","title":"tom","body":"<b>milk?</b>","url":"https://elsewhere.example/#/x"}"#)
        try Self.push(browser, origin: origin, "not JSON at all")
        var all: [[String]] = []
        for _ in 0..<100 where all.count < 3 || all.contains(where: { $0[0] == "Reminder: Bins" }) {
            all = try Self.shown(browser)
            usleep(50_000)
        }
        #expect(all.count == 3, "\(all)")
        #expect(all.contains(["Overdue: Bins", "1 day overdue", origin + "/#/tasks/12", origin + "/#/tasks/12"]), "\(all)")
        #expect(!all.contains { $0[0] == "Reminder: Bins" }, "replaced by the newer push about the task: \(all)")
        // Another site's address opens the app's start instead; a body that is not JSON is
        // shown as text under the app's name. Neither names a task: no tag, each its own.
        #expect(all.contains(["tom", "<b>milk?</b>", "", origin + "/"]), "\(all)")
        #expect(all.contains(["Chorus", "not JSON at all", "", origin + "/"]), "\(all)")
    }

    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func aTappedNotificationsMessageOpensItsTask() throws {
        guard let browser = try WebAppBrowserTests.browser() else { return }
        let server = try TestServer()
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("quin")
        let room = try page.createHousehold("Loft")
        let quin = try server.device("quin", label: "quin's terminal", register: false)
        let task = id(try quin.ok("TASK ADD \(room) Bins")["task"])
        // What sw.js posts to an open window when its notification is tapped.
        _ = try page.evaluate("""
            navigator.serviceWorker.dispatchEvent(new MessageEvent("message", { data: { type: "open", url: location.origin + "/#/tasks/\(task)" } }))
            """)
        try page.wait("the task", for: "document.querySelector('[data-screen=task]') !== null && location.hash === '#/tasks/\(task)'")
        // A message naming another site moves nothing.
        _ = try page.evaluate("""
            navigator.serviceWorker.dispatchEvent(new MessageEvent("message", { data: { type: "open", url: "https://elsewhere.example/#/rooms" } }))
            """)
        usleep(300_000)
        #expect(try page.evaluate("location.hash") as? String == "#/tasks/\(task)")
    }
}
