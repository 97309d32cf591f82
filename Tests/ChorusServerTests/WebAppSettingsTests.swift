import Foundation
import Testing

/// The settings screen (#/settings) in a real headless Chromium against a real server over
/// TLS: notice choices changed through its controls are what the server then holds (asked
/// on a separate line-protocol session of the same person); refusals are said next to the
/// control; the e-mail section says plainly when the server sends no mail; and "Notify me
/// on this device" says plainly when the browser cannot subscribe.
///
/// What headless Chromium cannot do: reach its push service (Google's FCM). Without a
/// network its `pushManager.subscribe` neither succeeds nor fails — it waited over 200 s
/// when tried here — so the app gives up after 20 s and says so, and no test sees a
/// browser subscription succeed. What the
/// app sends once one does is tested apart: the PushSubscription JSON a browser gives,
/// made in the page with a real P-256 key, turned into PUSH SUBSCRIBE by the app's own
/// code (api.js, push.js) and kept by the server.
@Suite(.serialized) struct WebAppSettingsTests {
    static let runs = WebAppBrowserTests.runs

    /// Sets a field's value as a person would leave it (input, then change).
    static func set(_ page: WebAppPage, _ selector: String, _ value: String) throws {
        try page.evaluate("""
            (() => { const field = document.querySelector(\(WebAppPage.literal(selector)));
              field.value = \(WebAppPage.literal(value));
              field.dispatchEvent(new Event("input", { bubbles: true })); field.dispatchEvent(new Event("change", { bubbles: true }));
              return true; })()
            """)
    }

    /// Waits until every NOTIFY the screen sent is answered.
    static func settled(_ page: WebAppPage, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try page.wait("the server's answer", for: "!document.querySelector('[data-screen=settings]').hasAttribute('data-busy')",
                      sourceLocation: sourceLocation)
    }

    /// The refusal said next to the control `id` (its aria-describedby), once shown.
    static func error(_ page: WebAppPage, _ id: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String? {
        try page.wait("a refusal beside #\(id)", for: """
            (e => e && !e.hidden && e.textContent)(document.getElementById(document.getElementById('\(id)').getAttribute('aria-describedby')))
            """, sourceLocation: sourceLocation) as? String
    }

    /// A subscription's JSON as PushSubscription.toJSON() gives it, for `endpoint`: a real
    /// P-256 public key and a 16-byte secret, in base64url (JavaScript, in the page).
    static func subscriptionJSON(_ endpoint: String) -> String {
        """
        (async () => {
          const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
          const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
          const b64 = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
          return { endpoint: \(WebAppPage.literal(endpoint)), expirationTime: null,
                   keys: { p256dh: b64(raw), auth: b64(crypto.getRandomValues(new Uint8Array(16))) } };
        })()
        """
    }

    /// Opens the settings from the app's navigation, as a person would, and waits for the
    /// server's choices on it.
    static func openSettings(_ page: WebAppPage, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try page.click("#nav a[href='#/settings']")
        try page.wait("the settings with the server's choices", for: "document.querySelector('[data-screen=settings]')?.hasAttribute('data-loaded')",
                      sourceLocation: sourceLocation)
        try page.wait("this device's state", for: "document.querySelector('[data-push]')?.dataset.push", sourceLocation: sourceLocation)
    }

    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func choicesMadeOnTheScreenAreWhatTheServerHolds() throws {
        guard let browser = try WebAppBrowserTests.browser() else { return }
        let server = try TestServer()
        let page = WebAppPage(browser: browser)
        // A person in Paris, whose saved zone is at first the server's.
        try browser.devTools("Emulation.setTimezoneOverride", ["timezoneId": "Europe/Paris"])
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("nia")
        try Self.openSettings(page)
        #expect(try page.evaluate("location.hash") as? String == "#/settings")
        #expect(try page.evaluate("document.title") as? String == "Settings · Chorus")
        let nia = try server.device("nia", label: "nia's terminal", register: false)
        let before = object(try nia.ok("NOTIFY")["notify"])
        #expect(try page.evaluate("document.getElementById('settings-push').checked") as? Bool == true)
        #expect(try page.evaluate("[...document.querySelectorAll('input[name=kind]')].filter(b => b.checked).length") as? Int == 7)
        // The server's zone, by its name or this browser's for it ("Etc/UTC" is "UTC").
        let serverZone = WebAppPage.literal(before["tz"] as? String ?? "")
        let shownZone = try page.evaluate("[document.getElementById('settings-tz').value, new Intl.DateTimeFormat('en', { timeZone: \(serverZone) }).resolvedOptions().timeZone]") as? [String] ?? []
        #expect(shownZone.count == 2 && (shownZone.first == before["tz"] as? String || shownZone.first == shownZone.last), "\(shownZone) for \(before)")

        // Two kinds off, one change each.
        try page.click("#settings-kind-comment")
        try page.click("#settings-kind-mention")
        try Self.settled(page)
        // Quiet hours on (the usual night to start with), then the evening's end moved.
        try page.click("#settings-quiet")
        try Self.settled(page)
        #expect(object(try nia.ok("NOTIFY")["notify"])["quiet"] as? String == "22:00-07:00")
        try Self.set(page, "#settings-quiet-from", "23:30")
        try Self.set(page, "#settings-quiet-to", "06:45")
        try Self.settled(page)
        // Push off, and a zone picked from the list.
        try page.click("#settings-push")
        try Self.set(page, "#settings-tz", "Asia/Tokyo")
        try Self.settled(page)
        var held = object(try nia.ok("NOTIFY")["notify"])
        #expect(held["push"] as? Bool == false, "\(held)")
        #expect(held["kinds"] as? [String] == ["reminder", "overdue", "behind", "assigned", "dm"], "\(held)")
        #expect(held["quiet"] as? String == "23:30-06:45", "\(held)")
        #expect(held["tz"] as? String == "Asia/Tokyo", "\(held)")
        #expect(held["email"] is NSNull, "\(held)")

        // The device's own zone differs from the saved one: a button offers it.
        let useHere = try page.wait("the offer of this device's zone",
                                    for: "(b => b && !b.hidden && b.textContent)(document.querySelector('#settings-use-zone'))") as? String
        #expect(useHere == "Use this device's zone (Europe/Paris)")
        try page.click("#settings-use-zone")
        try Self.settled(page)
        #expect(object(try nia.ok("NOTIFY")["notify"])["tz"] as? String == "Europe/Paris")
        #expect(try page.evaluate("document.querySelector('#settings-use-zone').hidden") as? Bool == true)

        // A refusal is said next to its control, which goes back to what the server has.
        try page.evaluate("document.getElementById('settings-tz').appendChild(new Option('Mars/Olympus', 'Mars/Olympus')) && true")
        try Self.set(page, "#settings-tz", "Mars/Olympus")
        try Self.settled(page)
        let zoneError = try page.text("#settings-tz-error:not([hidden])")
        #expect(zoneError == "The server does not know that time zone.", "\(zoneError)")
        #expect(try page.evaluate("document.getElementById('settings-tz').value") as? String == "Europe/Paris")
        // Quiet hours off, then back on: the times kept on the screen go with it.
        try page.click("#settings-quiet")
        try Self.settled(page)
        #expect(object(try nia.ok("NOTIFY")["notify"])["quiet"] is NSNull)
        #expect(try page.evaluate("document.getElementById('settings-quiet-from').disabled") as? Bool == true)

        // Changes made elsewhere show after a reload: the server is the source of truth.
        try nia.ok("NOTIFY push=on kinds=dm quiet=21:00-08:00")
        try browser.reload()
        try page.wait("the settings again", for: "document.querySelector('[data-screen=settings]')?.hasAttribute('data-loaded')")
        held = try page.evaluate("""
            ({ push: document.getElementById('settings-push').checked,
               kinds: [...document.querySelectorAll('input[name=kind]')].filter(b => b.checked).map(b => b.value),
               quiet: document.getElementById('settings-quiet').checked,
               from: document.getElementById('settings-quiet-from').value, to: document.getElementById('settings-quiet-to').value,
               tz: document.getElementById('settings-tz').value })
            """) as? [String: Any] ?? [:]
        #expect(held["push"] as? Bool == true && held["kinds"] as? [String] == ["dm"] && held["quiet"] as? Bool == true, "\(held)")
        #expect(held["from"] as? String == "21:00" && held["to"] as? String == "08:00" && held["tz"] as? String == "Europe/Paris", "\(held)")
        let problems = try browser.consoleProblems()
        #expect(problems.isEmpty, "\(problems)")
    }

    /// A server without --smtp: asking for a code says plainly that it sends no mail;
    /// turning mail on without a proven address, and a code nobody sent, say what to do.
    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func theEmailSectionSaysPlainlyWhatTheServerRefuses() throws {
        guard let browser = try WebAppBrowserTests.browser() else { return }
        let server = try TestServer()
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("oli")
        try Self.openSettings(page)
        #expect(try page.text("[data-section=email] p") == "Notices do not go by mail.")

        try page.fill("#settings-email", "oli@example.org")
        try page.submit("#settings-email")
        let noMail = try Self.error(page, "settings-email")
        #expect(noMail == "This server does not send e-mail, so notices cannot come by mail.")

        try page.click("#settings-email-on")
        try Self.settled(page)
        #expect(try Self.error(page, "settings-email-on") == "Prove an address first: send a code to it below.")
        #expect(try page.evaluate("document.getElementById('settings-email-on').checked") as? Bool == false)

        try page.fill("#settings-code", "123456")
        try page.submit("#settings-code")
        let noCode = try Self.error(page, "settings-code")
        #expect(noCode == "No code is waiting, or it expired: send a new one.")
        let oli = try server.device("oli", label: "oli's terminal", register: false)
        #expect(object(try oli.ok("NOTIFY")["notify"])["email"] is NSNull)
    }

    /// Notifications refused in the browser (as a person's Block would): the screen says they
    /// are blocked and how to allow them, and offers no button that cannot work.
    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func aBrowserThatBlocksNotificationsSaysHowToAllowThem() throws {
        guard let browser = try WebAppBrowserTests.browser() else { return }
        let server = try TestServer()
        let origin = "https://localhost:\(server.port)"
        let page = WebAppPage(browser: browser)
        try browser.open(origin + "/#/register")
        try page.register("rae")
        try browser.devTools("Browser.setPermission", ["origin": origin, "permission": ["name": "notifications"], "setting": "denied"])
        try Self.openSettings(page)
        #expect(try page.evaluate("document.querySelector('[data-push]').dataset.push") as? String == "blocked")
        let said = try page.text("[data-push]")
        #expect(said.contains("blocks notifications") && said.contains("Allow them in its site settings"), "\(said)")
        #expect(try page.evaluate("document.getElementById('settings-push-on').hidden && document.getElementById('settings-push-off').hidden") as? Bool == true)
    }

    /// "Notify me on this device", permission granted (through DevTools, as a person's tap on
    /// Allow would): headless Chromium cannot reach its push service, so the browser's
    /// subscribe never settles; after 20 s the screen says the push service could not be
    /// reached (in the browser's words when it gives any), and nothing reached the server. Then what the button sends once a browser does subscribe: a subscription's
    /// JSON as browsers give it, through the app's own functions, kept by the server and
    /// ended by "Stop" and by signing out.
    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func notifyMeOnThisDeviceSaysWhatTheBrowserCouldNotDo() throws {
        guard let browser = try WebAppBrowserTests.browser() else { return }
        let server = try TestServer()
        let origin = "https://localhost:\(server.port)"
        let page = WebAppPage(browser: browser)
        try browser.open(origin + "/#/register")
        try page.register("pat")
        try browser.devTools("Browser.grantPermissions", ["origin": origin, "permissions": ["notifications"]])
        try page.wait("the worker", for: "navigator.serviceWorker.controller !== null", timeout: 20)
        try Self.openSettings(page)
        #expect(try page.evaluate("document.querySelector('[data-push]').dataset.push") as? String == "off")
        #expect(try page.text("#settings-push-on") == "Notify me on this device")
        let pat = try server.device("pat", label: "pat's terminal", register: false)

        try page.click("#settings-push-on")
        let state = try page.wait("the browser's answer", for: "(s => s !== 'off' && s)(document.querySelector('[data-push]').dataset.push)", timeout: 60) as? String
        let said = try page.text("[data-push]")
        let held = try pat.ok("PUSH LIST")["subscriptions"] as? [[String: Any]] ?? []
        if state == "failed" {
            #expect(said.hasPrefix("This browser could not reach its push service: "), "\(said)")
            #expect(said.count > "This browser could not reach its push service: ".count, "the browser's own message: \(said)")
            #expect(held.isEmpty, "no PUSH SUBSCRIBE without a browser subscription: \(held)")
            #expect(try page.evaluate("document.querySelector('#settings-push-on').hidden") as? Bool == false, "it can be tried again")
            print("WebAppSettingsTests: headless Chromium's subscribe failed, as expected: \(said)")
        } else {
            // A browser here that reached a push service after all: then the server must hold
            // its subscription, which is ended again for what follows.
            print("WebAppSettingsTests: this Chromium reached a push service (\(state ?? "nil")): \(said)")
            #expect(state == "on" && held.count == 1, "\(said) \(held)")
            try page.click("#settings-push-off")
            try page.wait("stopped", for: "document.querySelector('[data-push]').dataset.push === 'off'", timeout: 20)
            #expect((try pat.ok("PUSH LIST")["subscriptions"] as? [[String: Any]] ?? []).isEmpty)
        }

        // What the button sends once a browser has subscribed, through the app's own
        // functions: the line, then the server keeping it under the device's label.
        let made = try page.evaluate("""
            (async () => {
              const api = await import("/js/api.js");
              const push = await import("/js/push.js");
              const json = await \(Self.subscriptionJSON("https://push.example.net/send/a=b"));
              const line = api.pushSubscribeLine(json, push.deviceLabel());
              let refused = "";
              try { api.pushSubscribeLine({ endpoint: json.endpoint, keys: {} }, "x"); } catch (e) { refused = e.message; }
              const kept = await push.keep(json);
              const quoted = api.pushSubscribeLine({ endpoint: 'https://x.example/"', keys: { p256dh: "A-_", auth: "B c" } }, "my phone!");
              return { line, expected: `PUSH SUBSCRIBE "https://push.example.net/send/a=b" ${json.keys.p256dh} ${json.keys.auth} Chrome-Linux`, quoted,
                       label: push.deviceLabel(), id: kept.id, saved: push.saved(), refused,
                       key: Array.from(push.keyBytes("AQID_-8")) };
            })()
            """) as? [String: Any] ?? [:]
        #expect(made["line"] as? String == made["expected"] as? String, "\(made)")
        #expect(made["label"] as? String == "Chrome-Linux", "\(made)")
        // The address always one quoted argument; keys and label only their alphabets.
        #expect(made["quoted"] as? String == #"PUSH SUBSCRIBE "https://x.example/\"" A-_ Bc myphone"#, "\(made)")
        #expect(made["refused"] as? String == "The browser's subscription has no address or keys.", "\(made)")
        #expect(made["key"] as? [Int] == [1, 2, 3, 255, 239], "base64url with no padding: \(made)")
        #expect(object(made["saved"])["id"] as? Int == made["id"] as? Int && made["id"] as? Int != nil, "\(made)")
        let listed = try pat.ok("PUSH LIST")["subscriptions"] as? [[String: Any]] ?? []
        #expect(listed.map { $0["label"] as? String ?? "" } == ["Chrome-Linux"], "\(listed)")
        #expect(listed.first?["id"] as? Int == made["id"] as? Int)
        // "Stop" (push.turnOff, what the button runs) ends the server's subscription.
        let stopped = try page.evaluate("""
            (async () => {
              const push = await import("/js/push.js");
              await push.turnOff();
              return push.saved() === null;
            })()
            """) as? Bool
        #expect(stopped == true)
        #expect((try pat.ok("PUSH LIST")["subscriptions"] as? [[String: Any]] ?? []).isEmpty)

        // One the server holds but the browser does not (its push service gave it up) reaches
        // nobody: the screen says "off" and ends the server's half.
        try page.evaluate("import('/js/push.js').then(async (push) => (await push.keep(await \(Self.subscriptionJSON("https://push.example.net/send/2")))).id)")
        #expect((try pat.ok("PUSH LIST")["subscriptions"] as? [[String: Any]] ?? []).count == 1)
        try page.go("#/rooms")
        try Self.openSettings(page)
        #expect(try page.evaluate("document.querySelector('[data-push]').dataset.push") as? String == "off")
        #expect((try pat.ok("PUSH LIST")["subscriptions"] as? [[String: Any]] ?? []).isEmpty)
        #expect(try page.evaluate("localStorage.getItem('chorus.push')") is NSNull)

        // Signing out ends one too: PUSH UNSUBSCRIBE before the device's token is revoked.
        // This page's session signed in with the password (REGISTER), so revoking the token
        // alone would leave the subscription.
        try page.evaluate("import('/js/push.js').then(async (push) => (await push.keep(await \(Self.subscriptionJSON("https://push.example.net/send/3")))).id)")
        #expect((try pat.ok("PUSH LIST")["subscriptions"] as? [[String: Any]] ?? []).count == 1)
        try page.go("#/devices")
        try page.wait("this device", for: "document.querySelector('.device.this') !== null")
        try page.click("[data-action=sign-out]")
        try page.screen("signin")
        #expect((try pat.ok("PUSH LIST")["subscriptions"] as? [[String: Any]] ?? []).isEmpty)
        #expect(try page.evaluate("localStorage.getItem('chorus.push')") is NSNull)
    }

    /// The screen at a phone's and a tablet's size, light and dark: the kit's accessibility
    /// audit (names, labels, contrast, focus, 44 px targets) finds nothing, the console is
    /// clean, and screenshots go to .build/screenshots.
    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"),
          arguments: [Browser.Size.phone, .tablet])
    func theScreenPassesTheAuditLightAndDark(size: Browser.Size) throws {
        guard Browser.isInstalled else {
            Issue.record("CI=true but chromium or chromium-driver is missing: .ci/run should have installed them")
            return
        }
        let server = try TestServer()
        let browser = try Browser(size: size)
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("quy")
        try Self.openSettings(page)
        try page.click("#settings-quiet")
        try Self.settled(page)
        // The browser's zone is the server's here (UTC, by either name): nothing to offer.
        #expect(try page.evaluate("document.querySelector('#settings-use-zone').hidden") as? Bool == true)
        try browser.saveScreenshot("web-settings")
        var findings = try browser.accessibilityFindings()
        #expect(findings.isEmpty, "settings at \(size): \(findings)")
        try browser.prefersDark(true)
        try page.wait("the dark colours", for: "getComputedStyle(document.body).backgroundColor === 'rgb(18, 22, 20)'")
        try browser.saveScreenshot("web-settings-dark")
        findings = try browser.accessibilityFindings()
        #expect(findings.isEmpty, "settings in the dark at \(size): \(findings)")
        // On a phone the screen alone, with Back; on a tablet beside the households.
        let panes = try page.evaluate("[...document.querySelectorAll('.pane')].filter(p => p.offsetWidth > 0).length") as? Int
        #expect(panes == (size == .phone ? 1 : 2))
        #expect(try page.evaluate("document.querySelector('#nav a[href=\"#/settings\"]').getAttribute('aria-current')") as? String == "page")
        let problems = try browser.consoleProblems()
        #expect(problems.isEmpty, "\(problems)")
    }
}
