import ChorusSQLite
import Foundation
import Testing

/// The web app in a real headless Chromium against a real server over TLS: a person
/// registers, makes a household, adds a task, moves it along and finishes it, while a
/// housemate on the line protocol sees it happen and talks back; reload keeps where they
/// were; the join link joins; sign out revokes the device's token; a lost connection is
/// caught up. Skipped where Chromium is missing, except under CI (which installs it).
@Suite(.serialized) struct WebAppBrowserTests {
    static let runs = Browser.isInstalled || ProcessInfo.processInfo.environment["CI"] == "true"

    /// A browser, or a recorded failure under CI when there is none.
    static func browser() throws -> Browser? {
        guard Browser.isInstalled else {
            Issue.record("CI=true but chromium or chromium-driver is missing: .ci/run should have installed them")
            return nil
        }
        return try Browser()
    }

    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func aHouseholdFromSignUpToDoneWithALineHousemateLive() throws {
        guard let browser = try Self.browser() else { return }
        let server = try TestServer()
        let bob = try server.device("bob")
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("ann")

        // The device keeps a token, never the password.
        let device = try page.evaluate("JSON.parse(localStorage.getItem('chorus.device'))") as? [String: Any] ?? [:]
        #expect(device["name"] as? String == "ann" && (device["label"] as? String)?.hasPrefix("web-") == true)
        #expect((device["token"] as? String)?.count == 64)
        #expect(try page.evaluate("JSON.stringify({...localStorage, ...sessionStorage}).includes('correct horse')") as? Bool == false)

        let room = try page.createHousehold("Flat 2B")
        #expect(room > 0)

        // Bob is a stranger to ann: added from the members section, he is invited and accepts.
        try page.go("#/rooms/\(room)/members")
        try page.fill("#add-\(room)", "bob")
        try page.submit("#add-\(room)")
        #expect(try bob.event()["event"] as? String == "room.invited")
        try bob.ok("ROOM ACCEPT \(room)")
        try page.wait("bob among the members", for: "document.querySelector('.member[data-member=bob]') !== null")

        // A task from the browser reaches bob's line session.
        try page.go("#/rooms/\(room)/tasks")
        try page.fill("#new-task-\(room)", "Take out trash")
        try page.submit("#new-task-\(room)")
        let added = try bob.event()
        #expect(added["event"] as? String == "task.added" && object(added["task"])["title"] as? String == "Take out trash")
        let task = id(added["task"])
        try page.wait("the task in the list", for: "document.querySelector('.task-row[data-task=\"\(task)\"] .title')?.textContent === 'Take out trash'")

        // Progress from the slider, then done: each seen by bob and shown in the page.
        try page.click(".task-row[data-task=\"\(task)\"] a")
        try page.screen("task")
        try page.evaluate("(() => { const s = document.getElementById('task-progress'); s.value = 40; s.dispatchEvent(new Event('change')); return true; })()")
        let moved = try bob.event()
        #expect(moved["event"] as? String == "task.updated" && object(moved["task"])["progress"] as? Int == 40)
        try page.wait("40 % on the bar", for: "document.querySelector('[data-screen=task] progress').value === 40")
        try page.click("[data-screen=task] button[data-action=done]")
        let finished = try bob.event()
        #expect(finished["event"] as? String == "task.done" && id(finished["task"]) == task)
        try page.wait("the task done", for: "document.querySelector('[data-screen=task] button[data-action=done]').textContent === 'Reopen'")
        #expect(try page.evaluate("document.querySelector('[data-screen=task] progress').value") as? Int == 100)

        // Bob's work shows up live: his task for ann, his progress, in the list and in her stream.
        let bins = id(try bob.ok("TASK ADD \(room) \"<b>Bins</b> & <i>more</i>\" assign=ann due=tomorrow")["task"])
        try page.go("#/rooms/\(room)")
        try page.wait("bob's task, as text", for: "document.querySelector('.task-row[data-task=\"\(bins)\"] .title')?.textContent === '<b>Bins</b> & <i>more</i>'")
        try bob.ok("TASK PROGRESS \(bins) 60")
        try page.wait("bob's progress", for: "document.querySelector('.task-row[data-task=\"\(bins)\"] progress').value === 60")
        try page.go("#/stream")
        try page.screen("stream")
        try page.wait("the task in ann's stream", for: "document.querySelector('[data-screen=stream] .task-row[data-task=\"\(bins)\"]') !== null")

        // Chat both ways; another person's text is text, never markup.
        try page.go("#/rooms/\(room)/chat")
        try page.wait("the chat", for: "document.getElementById('say-\(room)') !== null")
        try bob.ok("SAY \(room) <img src=x onerror=\"window.pwned=1\"> who took my <b>milk</b>?")
        try page.wait("bob's message", for: "[...document.querySelectorAll('.message .text')].some(e => e.textContent === '<img src=x onerror=\"window.pwned=1\"> who took my <b>milk</b>?')")
        #expect(try page.evaluate("document.querySelectorAll('.messages img, .messages b, .task-row b').length") as? Int == 0)
        #expect(try page.evaluate("window.pwned === undefined") as? Bool == true)
        try page.fill("#say-\(room)", "me, sorry")
        try page.submit("#say-\(room)")
        let said = try bob.event()
        #expect(said["event"] as? String == "message" && object(said["message"])["text"] as? String == "me, sorry")

        // Trusted Types: no string becomes HTML in this page, whoever tries.
        #expect(try page.evaluate("(() => { try { document.createElement('div').innerHTML = '<b>x</b>'; return 'assigned'; } catch (e) { return e.name; } })()") as? String == "TypeError")
        try bob.expectQuiet("after ann's last message")
    }

    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func reloadKeepsTheOpenHouseholdItsSectionAndWhatWasTyped() throws {
        guard let browser = try Self.browser() else { return }
        let server = try TestServer()
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("cleo")
        let room = try page.createHousehold("Den")
        try page.go("#/rooms/\(room)/chat")
        try page.wait("the chat", for: "document.getElementById('say-\(room)') !== null")
        try page.fill("#say-\(room)", "half a thought")

        try page.evaluate("location.reload() || true")
        try page.wait("the same household after reload", for: "document.querySelector('[data-screen=room]')?.dataset.room === '\(room)'")
        try page.wait("the chat section", for: "document.querySelector('[data-section=chat]')?.getAttribute('aria-current') === 'page'")
        #expect(try page.evaluate("document.getElementById('say-\(room)').value") as? String == "half a thought")
        #expect(try page.evaluate("location.hash") as? String == "#/rooms/\(room)/chat")

        // Opened again from the home screen (no #…): where it was left.
        try browser.open("https://localhost:\(server.port)/")
        try page.wait("the last screen again", for: "document.querySelector('[data-screen=room]')?.dataset.room === '\(room)'")
    }

    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func aJoinLinkOpensTheAppSignsUpAndJoins() throws {
        guard let browser = try Self.browser() else { return }
        let server = try TestServer()
        let dave = try server.device("dave")
        let room = id(try dave.ok("ROOM CREATE Attic")["room"])
        let code = try dave.ok("ROOM INVITE \(room)")["code"] as? String ?? ""
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(server.port)/#/join/\(code)")
        // Nobody signed in on this device: the app asks for an account and says it will join.
        try page.screen("register")
        #expect(try page.text("[data-screen=register]").contains(code))
        try page.fill("#auth-name", "erin")
        try page.fill("#auth-password", defaultPassword)
        try page.submit("#auth-name")
        try page.wait("the household joined", for: "document.querySelector('[data-screen=room]')?.dataset.room === '\(room)'")
        let joined = try dave.event()
        #expect(joined["event"] as? String == "member.added" && joined["user"] as? String == "erin")
    }

    /// Alone in a new household, the Tasks section says where inviting is (a newcomer
    /// looks there first); the hint goes once someone else is in.
    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func aHouseholdOfOneSaysWhereToInvite() throws {
        guard let browser = try Self.browser() else { return }
        let server = try TestServer()
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("gus")
        let room = try page.createHousehold("Loft")
        try page.wait("the invite hint", for: "document.querySelector('[data-screen=room] .invite-hint')?.hidden === false")
        try page.click("[data-screen=room] .invite-hint a")
        try page.wait("the members section", for: "location.hash === '#/rooms/\(room)/members'")
        // The invitation's panel goes with its screen: Back (here, the address changing)
        // does not leave it over the next one.
        _ = try page.evaluate("[...document.querySelectorAll('[data-screen=room] button')].find((b) => b.textContent.startsWith('Invite with')).click()")
        try page.wait("the invitation", for: "document.querySelector('dialog[open] [data-invite-code]') !== null")
        try page.go("#/rooms")
        try page.wait("the panel closed", for: "document.querySelector('dialog') === null")
        try page.go("#/rooms/\(room)/tasks")
        try page.wait("the hint again", for: "document.querySelector('[data-screen=room] .invite-hint')?.hidden === false")
        _ = try server.device("hal")
        let gus = try server.device("gus", label: "gus's terminal", register: false)
        try gus.add("hal", to: room)
        try page.wait("the hint gone", for: "document.querySelector('[data-screen=room] .invite-hint')?.hidden === true")
    }

    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func signingOutRevokesTheDevicesToken() throws {
        guard let browser = try Self.browser() else { return }
        let server = try TestServer()
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("finn")
        let label = try page.evaluate("JSON.parse(localStorage.getItem('chorus.device')).label") as? String ?? ""
        let other = try server.device("finn", label: "finn's terminal", register: false)
        let tokens = try other.ok("TOKEN LIST")["tokens"] as? [[String: Any]] ?? []
        #expect(tokens.contains { $0["label"] as? String == label }, "\(tokens)")

        try page.go("#/devices")
        try page.screen("devices")
        try page.wait("this device in the list", for: "document.querySelector('.device.this')?.dataset.label === '\(label)'")
        try page.click("[data-action=sign-out]")
        try page.screen("signin")
        #expect(try page.evaluate("localStorage.getItem('chorus.device')") as? String == nil)
        let after = try other.ok("TOKEN LIST")["tokens"] as? [[String: Any]] ?? []
        #expect(!after.contains { $0["label"] as? String == label }, "\(after)")
    }

    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func aLostConnectionShowsTheBannerThenCatchesUp() throws {
        guard let browser = try Self.browser() else { return }
        let server = try TestServer()
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("gus")
        let room = try page.createHousehold("Loft")

        let port = server.port
        server.stop()
        try page.wait("the offline banner", for: "!document.querySelector('[data-banner=offline]').hidden", timeout: 15)
        #expect(try page.evaluate("document.querySelector('[data-banner=offline]').getAttribute('role')") as? String == "status")
        server.configuration.port = port
        try server.restart()
        // Done elsewhere while the page was cut off: seen once it is back.
        let gus = try server.device("gus", label: "gus's terminal", register: false)
        let task = id(try gus.ok("TASK ADD \(room) \"Fix the shelf\"")["task"])
        try page.wait("the task made meanwhile", for: "document.querySelector('.task-row[data-task=\"\(task)\"]') !== null", timeout: 45)
        try page.wait("the banner gone", for: "document.querySelector('[data-banner=offline]').hidden")
    }

    /// Cut off from the network and from its session, the page says so; what a housemate
    /// did meanwhile is fetched (SYNC from the last event it saw) and told once it is back.
    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func backOnlineItSaysWhatHappenedMeanwhile() throws {
        guard let browser = try Self.browser() else { return }
        let server = try TestServer()
        let root = try server.device("root")
        let database = try Database(path: server.configuration.databasePath)
        #expect(try database.setAdmin(name: "root", true))
        database.close()
        let bob = try server.device("bob")
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("hana")
        let room = try page.createHousehold("Boat")
        let hana = try server.device("hana", label: "hana's terminal", register: false)
        try hana.add("bob", to: room)

        try browser.setOffline(true)
        try root.ok("ADMIN KICK hana")
        try page.wait("the offline banner", for: "!document.querySelector('[data-banner=offline]').hidden", timeout: 15)
        let task = id(try bob.ok("TASK ADD \(room) \"Bail out\" assign=hana")["task"])
        try bob.ok("SAY \(room) the boat leaks")
        try browser.setOffline(false)

        try page.wait("the task made meanwhile", for: "document.querySelector('.task-row[data-task=\"\(task)\"]') !== null", timeout: 45)
        try page.wait("what was missed, told", for: "[...document.querySelectorAll('.toast')].some(t => t.textContent.includes('While you were away (2):') && t.textContent.includes('bob: the boat leaks'))")
        try page.wait("the banner gone", for: "document.querySelector('[data-banner=offline]').hidden")
        try page.wait("the message counted unread", for: "document.querySelector('.room-row[data-room=\"\(room)\"] .unread')?.textContent === '1'", timeout: 5)
    }

    /// Every screen, at a phone's and a tablet's size, loads under the policy with nothing
    /// in the console (a refused script or style, a failed load, an error all land there),
    /// passes the kit's accessibility audit (names, labels, contrast, focus, 44 px targets),
    /// and is saved as a screenshot (.build/screenshots, or CHORUS_SCREENSHOTS).
    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"),
          arguments: [Browser.Size.phone, .tablet])
    func everyScreenLoadsWithACleanConsole(size: Browser.Size) throws {
        guard Browser.isInstalled else {
            Issue.record("CI=true but chromium or chromium-driver is missing: .ci/run should have installed them")
            return
        }
        let server = try TestServer()
        let browser = try Browser(size: size)
        let page = WebAppPage(browser: browser)
        let bob = try server.device("bob")
        try browser.open("https://localhost:\(server.port)/")
        try page.screen("signin")
        func check(_ name: String) throws {
            try browser.saveScreenshot(name)
            let findings = try browser.accessibilityFindings()
            #expect(findings.isEmpty, "\(name) at \(size): \(findings)")
        }
        try check("web-signin")
        try page.go("#/register")
        try page.screen("register")
        try check("web-register")
        try page.register("ivy")
        let room = try page.createHousehold("Flat 2B")
        let ivy = try server.device("ivy", label: "ivy's terminal", register: false)
        try ivy.add("bob", to: room)
        let trash = id(try ivy.ok("TASK ADD \(room) \"Take out trash\" assign=ivy due=tomorrow start=today estimate=2")["task"])
        try ivy.ok("TASK ADD \(room) \"Descale kettle\" assign=bob due=2026-01-01")
        try ivy.ok("TASK ADD \(room) Oven parent=\(trash) assign=bob")
        try bob.ok("TASK PROGRESS \(trash + 2) 50")
        try bob.ok("SAY \(room) who took my milk?")
        try ivy.ok("SAY \(room) not me")
        try page.go("#/rooms")
        try page.screen("rooms")
        try page.wait("the household's bar", for: "document.querySelector('.room-row progress') !== null")
        try check("web-rooms")
        for (section, ready) in [("tasks", ".task-row"), ("chat", ".message"), ("members", ".member"), ("stats", "[data-stats] svg ~ figcaption .chart-key .swatch-overdue")] {
            try page.go("#/rooms/\(room)/\(section)")
            try page.wait("the \(section) section", for: "document.querySelectorAll('[data-screen=room] \(ready)').length > 0")
            try check("web-room-\(section)")
        }
        try page.go("#/tasks/\(trash)")
        try page.wait("the task with its subtask", for: "document.querySelector('[data-screen=task] .task-row') !== null")
        try check("web-task")
        try page.go("#/stream")
        try page.wait("my tasks", for: "document.querySelectorAll('[data-screen=stream] .task-row').length === 1")
        try check("web-stream")
        try page.go("#/devices")
        try page.wait("this device", for: "document.querySelector('.device.this') !== null")
        try check("web-devices")
        try page.go("#/rooms/\(room)/members")
        try page.click("[data-screen=room] .block.row button")
        try page.click("dialog[open] button[value=yes]")
        try page.wait("the calendar's QR code", for: "document.querySelector('dialog[open] [data-qr] svg') !== null")
        #expect((try page.text("dialog[open] [data-webcal]")).contains("webcal://"))
        try check("web-calendar")

        try page.click("dialog[open] button[value=close]")

        // Dark, as a phone set to it: the same checks, contrast above all.
        try browser.prefersDark(true)
        try page.go("#/rooms/\(room)/tasks")
        try page.wait("the tasks in the dark", for: "document.querySelectorAll('[data-screen=room] .task-row').length > 0")
        #expect(try page.evaluate("getComputedStyle(document.body).backgroundColor") as? String == "rgb(18, 22, 20)")
        try check("web-room-tasks-dark")
        try page.go("#/tasks/\(trash)")
        try page.wait("the task in the dark", for: "document.querySelector('[data-screen=task] .task-row') !== null")
        try check("web-task-dark")

        // On a phone one pane at a time, with Back; on a tablet both side by side.
        let panes = try page.evaluate("[...document.querySelectorAll('.pane')].filter(p => p.offsetWidth > 0).length") as? Int
        #expect(panes == (size == .phone ? 1 : 2))
        let problems = try browser.consoleProblems()
        #expect(problems.isEmpty, "\(problems)")
    }

    /// Unread counts: others' messages count up on the household while its chat is not on
    /// screen; opening the chat marks it read (READ), which the person's other devices hear
    /// (`room.read`) and ROOMS then says everywhere.
    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func openingTheChatMarksItReadOnEveryDevice() throws {
        guard let browser = try Self.browser() else { return }
        let server = try TestServer()
        let bob = try server.device("bob")
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("jo")
        let room = try page.createHousehold("Barn")
        let phone = try server.device("jo", label: "jo's other device", register: false)
        try phone.add("bob", to: room)
        try bob.ok("SAY \(room) first")
        try bob.ok("SAY \(room) second")
        try page.go("#/rooms")
        try page.wait("two unread on the household", for: "document.querySelector('.room-row[data-room=\"\(room)\"] .unread')?.textContent === '2'")
        let rooms = try phone.ok("ROOMS")["rooms"] as? [[String: Any]] ?? []
        #expect(rooms.first { $0["id"] as? Int == room }?["unread"] as? Int == 2, "\(rooms)")

        _ = try phone.drain()
        try page.go("#/rooms/\(room)/chat")
        try page.wait("the messages", for: "document.querySelectorAll('.message').length === 2")
        try page.wait("nothing unread", for: "document.querySelector('.room-row[data-room=\"\(room)\"] .unread')?.hidden")
        let read = try phone.event()
        #expect(read["event"] as? String == "room.read" && read["room"] as? Int == room && read["unread"] as? Int == 0, "\(read)")
        let after = try phone.ok("ROOMS")["rooms"] as? [[String: Any]] ?? []
        #expect(after.first { $0["id"] as? Int == room }?["unread"] as? Int == 0, "\(after)")

        // Said while the chat is open: read at once, nothing counted.
        try bob.ok("SAY \(room) third")
        try page.wait("the third message", for: "document.querySelectorAll('.message').length === 3")
        let heard = try phone.event()
        #expect(heard["event"] as? String == "message", "\(heard)")
        let again = try phone.event()
        #expect(again["event"] as? String == "room.read" && again["unread"] as? Int == 0, "\(again)")
        #expect(try page.evaluate("document.querySelector('.room-row[data-room=\"\(room)\"] .unread').hidden") as? Bool == true)
    }

    /// The task form sets every field of the protocol, a picked time as the moment it is
    /// in the browser's zone (sent in UTC), notes with their lines; delete asks first and
    /// can be undone for a few seconds, after which the task is gone for everyone.
    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func theTaskFormSetsEveryFieldAndDeleteCanBeUndone() throws {
        guard let browser = try Self.browser() else { return }
        let server = try TestServer()
        let bob = try server.device("bob")
        let page = WebAppPage(browser: browser)
        // A person far from the server's zone: what they pick is their time.
        try browser.devTools("Emulation.setTimezoneOverride", ["timezoneId": "Pacific/Auckland"])
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("kim")
        let room = try page.createHousehold("Flat")
        let other = try server.device("kim", label: "kim's terminal", register: false)
        try other.add("bob", to: room)
        let parent = id(try other.ok("TASK ADD \(room) Kitchen")["task"])
        let task = id(try other.ok("TASK ADD \(room) Oven")["task"])
        _ = try bob.drain()

        try page.go("#/tasks/\(task)")
        try page.wait("the form with the household's people", for: "document.querySelector('#task-assignee option[value=bob]') !== null && document.querySelector('#task-parent option[value=\"\(parent)\"]') !== null")
        try page.fill("#task-title", "Clean the oven")
        try page.fill("#task-notes", "racks soak overnight\nthen the door")
        try page.fill("#task-due-date", "2030-05-06")
        try page.fill("#task-due-time", "18:30")
        try page.fill("#task-start-date", "2030-05-01")
        try page.fill("#task-estimate", "2.5")
        try page.fill("#task-remind-date", "2030-05-06")
        try page.fill("#task-remind-time", "09:00")
        try page.fill("#task-points", "3")
        try page.evaluate("(() => { const r = document.getElementById('task-repeat'); r.value = 'weekly'; r.dispatchEvent(new Event('input', { bubbles: true })); return true; })()")
        try page.evaluate("(() => { for (const box of document.querySelectorAll('.rota input')) box.checked = true; return true; })()")
        try page.evaluate("(() => { const a = document.getElementById('task-assignee'); a.value = 'bob'; const p = document.getElementById('task-parent'); p.value = '\(parent)'; return true; })()")
        try page.submit("#task-title")
        try page.wait("saved", for: "[...document.querySelectorAll('.toast')].some(t => t.textContent.includes('Saved.'))")

        // What the browser meant, in its own zone, as the server has it.
        let expected = try page.evaluate("""
            [new Date(2030, 4, 6, 18, 30).toISOString().replace('.000', ''), new Date(2030, 4, 6, 9, 0).toISOString().replace('.000', '')]
            """) as? [String] ?? []
        #expect(expected.first == "2030-05-06T06:30:00Z", "Auckland is UTC+12 in May: \(expected)")
        let shown = object(try other.ok("TASK SHOW \(task)")["task"])
        #expect(shown["title"] as? String == "Clean the oven")
        #expect(shown["notes"] as? String == "racks soak overnight\nthen the door")
        #expect(shown["due"] as? String == expected.first && shown["remind"] as? String == expected.last, "\(shown) \(expected)")
        #expect(shown["start"] as? String == "2030-05-01")
        #expect("\(shown["estimate"] ?? "")" == "2.5" && shown["points"] as? Int == 3)
        #expect(shown["repeat"] as? String == "weekly" && shown["rotate"] as? [String] == ["kim", "bob"])
        #expect(shown["assignee"] as? String == "bob" && shown["parent"] as? Int == parent)
        // Bob heard the edit and the assignment.
        let heard = try bob.drain().compactMap { $0["event"] as? String }
        #expect(heard.contains("task.updated"), "\(heard)")

        // Delete, then Undo: nothing is sent.
        try page.click("[data-screen=task] button[data-action=delete]")
        try page.click("dialog[open] button[value=yes]")
        try page.wait("the undo offer", for: "[...document.querySelectorAll('.toast-action')].some(b => b.textContent === 'Undo')")
        try page.wait("the task hidden", for: "document.querySelector('.task-row[data-task=\"\(task)\"]') === null")
        try page.evaluate("[...document.querySelectorAll('.toast-action')].find(b => b.textContent === 'Undo').click() || true")
        try page.wait("the task back", for: "document.querySelector('.task-row[data-task=\"\(task)\"]') !== null")
        Thread.sleep(forTimeInterval: 6)
        #expect(try other.code("TASK SHOW \(task)") == 200)
        try bob.expectQuiet("after an undone delete")

        // Delete for real: gone once the undo time is over.
        try page.go("#/tasks/\(task)")
        try page.screen("task")
        try page.click("[data-screen=task] button[data-action=delete]")
        try page.click("dialog[open] button[value=yes]")
        let deleted = try bob.event(timeout: 15)
        #expect(deleted["event"] as? String == "task.deleted" && deleted["task"] as? Int == task, "\(deleted)")
        #expect(try other.code("TASK SHOW \(task)") == 404)
    }

    /// The service worker keeps the app's shell: with the server gone, the app still opens
    /// (from the cache, under the same policy) and says it is offline; once the server is
    /// back it signs in with its device token and shows the households.
    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func theAppOpensWithoutTheServerAndComesBackWithIt() throws {
        guard let browser = try Self.browser() else { return }
        let server = try TestServer()
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(server.port)/#/register")
        try page.register("lou")
        let room = try page.createHousehold("Shed")
        try page.wait("the worker in charge", for: "navigator.serviceWorker.ready.then(() => !!navigator.serviceWorker.controller)", timeout: 20)
        let cached = try page.evaluate("caches.keys().then((names) => names.filter((n) => n.startsWith('chorus-')).length)") as? Int
        #expect(cached == 1)

        let port = server.port
        server.stop()
        try browser.reload()
        try page.wait("the offline banner on a page from the cache", for: "!document.querySelector('[data-banner=offline]').hidden", timeout: 20)
        #expect(try page.evaluate("document.querySelector('#main') !== null && document.title.endsWith('Chorus')") as? Bool == true)
        server.configuration.port = port
        try server.restart()
        try page.wait("the household once the server is back", for: "document.querySelector('[data-screen=room]')?.dataset.room === '\(room)'", timeout: 45)
        try page.wait("the banner gone", for: "document.querySelector('[data-banner=offline]').hidden")
        let problems = try browser.consoleProblems().filter { !$0.message.contains("ERR_CONNECTION_REFUSED") && !$0.message.contains("WebSocket connection") }
        #expect(problems.isEmpty, "\(problems)")
    }
}
