import Foundation
import Testing

/// Three housemates, each in their own Chromium (one chromedriver, three sessions, three
/// profiles) behind their own door to one real server, and a fourth on the line protocol,
/// doing a household's week as people would: by what the screens say (roles, names,
/// labels), clicking and typing through WebDriver. Each sees the others' changes live,
/// the line housemate sees the browsers' and the browsers see his, a phone that loses its
/// connection catches up when it is back, and a reload keeps the screen.
@Suite(.serialized, .timeLimit(.minutes(10))) struct WebAppHousematesTests {
    static let runs = Browser.isInstalled || ProcessInfo.processInfo.environment["CI"] == "true"

    /// One person at their browser.
    struct Person {
        let name: String
        let browser: Browser
        let door: Int

        /// Clicks a section's link in the open household (Tasks, Chat, Members, Stats).
        func section(_ key: String) throws {
            let link = try browser.waitFor("the \(key) section's link") {
                try browser.visibleElements("[data-screen=room] a[data-section=\(key)]")
            }
            try browser.click(link)
            try browser.waitUntil("\(name)'s \(key) section") {
                try !browser.visibleElements("[data-screen=room] a[data-section=\(key)][aria-current=page]").isEmpty
            }
        }

        /// Clicks a link of the main navigation (Households, My tasks, Devices).
        func navigate(_ name: String) throws {
            try browser.click(browser.link(named: name, in: "nav[aria-label=Main]"))
        }

        /// Waits until `selector` matches a visible element whose text contains `text`.
        func sees(_ text: String, in selector: String, timeout: Double = 10) throws {
            try browser.waitUntil("\(name) to see \"\(text)\" in \(selector)", timeout: timeout) {
                try browser.run(Browser.pageHelpers + """
                    return [...document.querySelectorAll(arguments[0])].some((el) => __kit.visible(el) && el.textContent.includes(arguments[1]));
                    """, selector, text) as? Bool == true
            }
        }

        /// The id of the household shown now.
        func openRoom() throws -> Int {
            Int(try browser.run("return document.querySelector('[data-screen=room]')?.dataset.room ?? ''") as? String ?? "") ?? -1
        }
    }

    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func threeBrowsersAndALineHousemateShareAWeek() throws {
        guard BrowserKitTests.haveBrowser() else { return }
        let app = try WebAppServer(doors: 3)
        let driver = try ChromeDriver()
        // Ann on a phone, Bob on a tablet (split view), Cleo on a phone.
        let sizes: [Browser.Size] = [.phone, .tablet, .phone]
        let people = try ["ann", "bob", "cleo"].enumerated().map { index, name in
            Person(name: name, browser: try Browser(driver: driver, size: sizes[index]), door: index)
        }
        let (ann, bob, cleo) = (people[0], people[1], people[2])
        let dan = try app.server.device("dan")

        // Each signs up on their own device.
        for person in people {
            try person.browser.open(app.url(person.door) + "#/register")
            _ = try person.browser.screen("register")
            try person.browser.fill("Name", with: person.name)
            try person.browser.fill("Password", with: defaultPassword)
            try person.browser.tap("Create account")
            _ = try person.browser.screen("rooms")
        }

        // Ann makes the household and adds Bob by name; he accepts from his list.
        try ann.browser.fill("New household", with: "Flat 2B")
        try ann.browser.tap("Create")
        _ = try ann.browser.screen("room")
        let room = try ann.openRoom()
        #expect(room > 0)
        try ann.section("members")
        try ann.browser.fill("Add someone by name", with: "bob", in: "[data-screen=room]")
        try ann.browser.tap("Add", in: "[data-screen=room]")
        try bob.browser.tap("Accept the invitation to Flat 2B")
        _ = try bob.browser.screen("room")
        try ann.sees("bob", in: ".member[data-member=bob]")

        // Cleo joins with the code Ann's invite shows.
        try ann.browser.tap("Invite with a code or link")
        let codeElement = try ann.browser.waitFor("the invite code") { try ann.browser.visibleElements("dialog[open] [data-invite-code]") }
        let code = try ann.browser.text(of: codeElement)
        #expect(code.count >= 8, "\(code)")
        try ann.browser.tap("Close", in: "dialog[open]")
        try cleo.browser.fill("Join with a code", with: code)
        try cleo.browser.tap("Join")
        _ = try cleo.browser.screen("room")
        #expect(try cleo.openRoom() == room)
        try bob.section("members")
        for person in [ann, bob] { try person.sees("cleo", in: ".member[data-member=cleo]") }

        // Dan, on the line, is added by name from Ann's browser and accepts there.
        try ann.browser.fill("Add someone by name", with: "dan", in: "[data-screen=room]")
        try ann.browser.tap("Add", in: "[data-screen=room]")
        #expect(try dan.event()["event"] as? String == "room.invited")
        try dan.ok("ROOM ACCEPT \(room)")
        for person in [ann, bob] { try person.sees("dan", in: ".member[data-member=dan]") }
        _ = try dan.drain()

        // Ann adds a task and gives it to Bob; Dan's session hears both.
        try ann.section("tasks")
        try ann.browser.fill("New task", with: "Take out trash", in: "[data-screen=room]")
        try ann.browser.tap("Add", in: "[data-screen=room]")
        let added = try dan.event()
        #expect(added["event"] as? String == "task.added" && object(added["task"])["title"] as? String == "Take out trash")
        let task = id(added["task"])
        try ann.browser.click(ann.browser.link(named: "Take out trash", in: "[data-screen=room]", prefix: true))
        _ = try ann.browser.screen("task")
        try ann.browser.choose("bob", in: "Assigned to")
        try ann.browser.tap("Save changes")
        let assigned = try dan.event()
        #expect(object(assigned["task"])["assignee"] as? String == "bob", "\(assigned)")

        // Bob finds it in his tasks, opens it and slides it to half done: Ann's task screen,
        // Cleo's list and Dan's session follow.
        try bob.navigate("My tasks")
        _ = try bob.browser.screen("stream")
        try bob.browser.click(bob.browser.link(named: "Take out trash", in: "[data-screen=stream]", prefix: true))
        _ = try bob.browser.screen("task")
        try cleo.section("tasks")
        let slider = try bob.browser.field(labelled: "Progress", in: "[data-screen=task]")
        try bob.browser.click(slider) // the middle of the track: 50 %
        let moved = try dan.event()
        #expect(moved["event"] as? String == "task.updated" && object(moved["task"])["progress"] as? Int == 50, "\(moved)")
        try ann.sees("50%", in: "[data-screen=task] .percent")
        try cleo.browser.waitUntil("cleo's row at 50 %") {
            try cleo.browser.run("return document.querySelector('.task-row[data-task=\"\(task)\"] progress')?.value") as? Int == 50
        }

        // Cleo comments on it; Ann reads it as it comes, Dan too.
        try cleo.browser.click(cleo.browser.link(named: "Take out trash", in: "[data-screen=room]", prefix: true))
        _ = try cleo.browser.screen("task")
        try cleo.browser.fill("Comment", with: "I'll do the <b>recycling</b> part")
        try cleo.browser.tap("Post")
        let commented = try dan.event()
        #expect(commented["event"] as? String == "comment", "\(commented)")
        try ann.sees("I'll do the <b>recycling</b> part", in: "[data-screen=task] .comments")
        #expect(try ann.browser.visibleElements(".comments b").isEmpty, "a comment became markup")

        // Bob marks it done: everyone's screens say so.
        try bob.browser.tap("Mark done", in: "[data-screen=task]")
        #expect(try dan.event()["event"] as? String == "task.done")
        for person in [ann, bob, cleo] { try person.sees("Reopen", in: "[data-screen=task] button[data-action=done]") }

        // Chat, both ways across the doors and the line.
        for person in [ann, bob, cleo] {
            try person.navigate("Households")
            let link = try person.browser.waitFor("the household in \(person.name)'s list") {
                try person.browser.visibleElements(".room-row[data-room=\"\(room)\"] a")
            }
            try person.browser.click(link)
            try person.section("chat")
        }
        try ann.browser.fill("Message", with: "Pizza tonight?")
        try ann.browser.tap("Send")
        let said = try dan.event()
        #expect(object(said["message"])["text"] as? String == "Pizza tonight?", "\(said)")
        for person in [bob, cleo] { try person.sees("Pizza tonight?", in: ".messages .message") }
        try dan.ok("SAY \(room) count me in <script>alert(1)</script>")
        for person in [ann, bob, cleo] { try person.sees("count me in <script>alert(1)</script>", in: ".messages .message") }

        // Dan gives Cleo a task from the terminal: it is in her list of tasks at once.
        try cleo.navigate("My tasks")
        _ = try cleo.browser.screen("stream")
        let water = id(try dan.ok("TASK ADD \(room) \"Water the plants\" assign=cleo due=tomorrow")["task"])
        try cleo.sees("Water the plants", in: "[data-screen=stream] .task-row[data-task=\"\(water)\"]")

        for person in people { try person.browser.expectCleanConsole(person.name) }

        // Cleo's phone loses its connection: the banner says so; meanwhile Bob writes and
        // Dan adds her another task. Back online, her app catches up.
        try cleo.browser.setOffline(true)
        app.doors[cleo.door].cut()
        try cleo.browser.waitUntil("cleo's offline banner", timeout: 15) {
            try !cleo.browser.visibleElements("[data-banner=offline]").isEmpty
        }
        try bob.browser.fill("Message", with: "Has anyone seen my keys?")
        try bob.browser.tap("Send")
        let milk = id(try dan.ok("TASK ADD \(room) \"Buy milk\" assign=cleo")["task"])
        try cleo.browser.setOffline(false)
        try cleo.sees("Buy milk", in: "[data-screen=stream] .task-row[data-task=\"\(milk)\"]", timeout: 45)
        try cleo.browser.waitUntil("cleo's banner gone") { try cleo.browser.visibleElements("[data-banner=offline]").isEmpty }
        try cleo.navigate("Households")
        try cleo.browser.click(cleo.browser.waitFor("the household") { try cleo.browser.visibleElements(".room-row[data-room=\"\(room)\"] a") })
        try cleo.section("chat")
        try cleo.sees("Has anyone seen my keys?", in: ".messages .message")

        // Bob reloads his tablet: the same household and section, the chat still there.
        try bob.browser.reload()
        _ = try bob.browser.screen("room")
        #expect(try bob.openRoom() == room)
        try bob.sees("Has anyone seen my keys?", in: ".messages .message")
        #expect(try !bob.browser.visibleElements("[data-screen=room] a[data-section=chat][aria-current=page]").isEmpty)
        // On the tablet the list and the household are side by side; on a phone one at a time.
        #expect(try bob.browser.isShowing(screen: "rooms") && bob.browser.isShowing(screen: "room"))
        #expect(try !ann.browser.isShowing(screen: "rooms") || !ann.browser.isShowing(screen: "room"))

        for person in [ann, bob] { try person.browser.expectCleanConsole(person.name) }
        try bob.browser.saveScreenshot("housemates-bob-chat")
        try cleo.browser.saveScreenshot("housemates-cleo-chat")
        // The accessibility audit on the live screens: the tablet's split view with a busy
        // chat, and the phone's task list of a household of four.
        let split = try bob.browser.accessibilityFindings()
        #expect(split.isEmpty, "bob's tablet: \(split)")
        try ann.navigate("Households")
        try ann.browser.click(ann.browser.waitFor("the household") { try ann.browser.visibleElements(".room-row[data-room=\"\(room)\"] a") })
        try ann.section("tasks")
        let phone = try ann.browser.accessibilityFindings()
        #expect(phone.isEmpty, "ann's phone: \(phone)")
    }

    /// A phone that sleeps: its connection stays open but nothing passes (the door stalls,
    /// as a network that drops packets or a suspended radio does). The app's own PING,
    /// unanswered, tells it the socket is dead; it says it is offline, and once the network
    /// is back it reconnects and shows what was said and assigned meanwhile.
    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func aSleepingPhoneFindsItsDeadConnectionAndCatchesUp() throws {
        guard BrowserKitTests.haveBrowser() else { return }
        let app = try WebAppServer()
        let ann = Person(name: "ann", browser: try Browser(size: .phone), door: 0)
        let bob = try app.server.device("bob")
        try ann.browser.open(app.url() + "#/register")
        try ann.browser.fill("Name", with: "ann")
        try ann.browser.fill("Password", with: defaultPassword)
        try ann.browser.tap("Create account")
        _ = try ann.browser.screen("rooms")
        try ann.browser.fill("New household", with: "Boat")
        try ann.browser.tap("Create")
        _ = try ann.browser.screen("room")
        let room = try ann.openRoom()
        try ann.section("members")
        try ann.browser.fill("Add someone by name", with: "bob", in: "[data-screen=room]")
        try ann.browser.tap("Add", in: "[data-screen=room]")
        #expect(try bob.event()["event"] as? String == "room.invited")
        try bob.ok("ROOM ACCEPT \(room)")
        try ann.section("chat")

        let slept = Date()
        app.doors[0].stall()
        try bob.ok("SAY \(room) are you awake?")
        let task = id(try bob.ok("TASK ADD \(room) \"Bail out\" assign=ann")["task"])
        // The app pings every 25 s and waits 10 s for the answer: within 35 s it knows.
        try ann.browser.waitUntil("ann's offline banner", timeout: 50) {
            try !ann.browser.visibleElements("[data-banner=offline]").isEmpty
        }
        print(String(format: "WebAppHousematesTests: a stalled connection was noticed after %.1f s", Date().timeIntervalSince(slept)))
        app.doors[0].resume()
        try ann.sees("are you awake?", in: ".messages .message", timeout: 45)
        try ann.browser.waitUntil("the banner gone") { try ann.browser.visibleElements("[data-banner=offline]").isEmpty }
        try ann.section("tasks")
        try ann.sees("Bail out", in: "[data-screen=room] .task-row[data-task=\"\(task)\"]")
    }
}
