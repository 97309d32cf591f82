import Foundation
import Testing

/// The web app and the real `chorus` terminal client in one household, live both ways:
/// what bob does in his browser prints in alice's running terminal session as it
/// happens, and what she types there appears on his screen without a reload.
@Suite(.serialized, .timeLimit(.minutes(10))) struct WebAppTerminalTests {
    static let runs = Browser.isInstalled || ProcessInfo.processInfo.environment["CI"] == "true"

    @Test(.enabled(if: runs, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func aTerminalAndABrowserSeeEachOthersChangesLive() throws {
        guard BrowserKitTests.haveBrowser() else { return }
        let house = try ClientProcessTests.Household()
        let terminal = try ChorusRun(house.login("alice"), home: house.home.path, pipeInput: true)
        defer { terminal.closeInput(); _ = terminal.finish(timeout: 10) }
        #expect(terminal.waitForOutput("OK logged in as alice"))

        // Bob signs in with his password on the sign-in screen and opens the household.
        let browser = try Browser(size: .phone)
        let page = WebAppPage(browser: browser)
        try browser.open("https://localhost:\(house.server.port)/")
        try page.screen("signin")
        try page.fill("#auth-name", "bob")
        try page.fill("#auth-password", ClientProcessTests.password)
        try page.submit("#auth-name")
        try page.screen("rooms")
        try page.go("#/rooms/\(house.room)")
        try page.wait("bob's household", for: "document.querySelector('[data-screen=room]')?.dataset.room === '\(house.room)'")

        // A task added in the browser prints in alice's terminal.
        try page.fill("#new-task-\(house.room)", "Descale the kettle")
        try page.submit("#new-task-\(house.room)")
        #expect(terminal.waitForOutput("Descale the kettle"), "the terminal did not print bob's task: \(terminal.stdout.text)")

        // A task alice adds at her terminal appears in bob's list.
        terminal.type("TASK ADD \"Flat 2B\" \"Water the plants\" assign=bob")
        try page.wait("alice's task in bob's list",
                      for: "[...document.querySelectorAll('[data-screen=room] .task-row .title')].some((t) => t.textContent.includes('Water the plants'))")

        // Chat both ways.
        try page.click("[data-screen=room] a[data-section=chat]")
        try page.wait("the chat", for: "document.querySelector('#say-\(house.room)') !== null")
        terminal.type("SAY \"Flat 2B\" the boiler man comes at nine")
        try page.wait("alice's line in bob's chat",
                      for: "[...document.querySelectorAll('.messages .message .text')].some((t) => t.textContent === 'the boiler man comes at nine')")
        try page.fill("#say-\(house.room)", "I'll let him in")
        try page.submit("#say-\(house.room)")
        #expect(terminal.waitForOutput("bob in Flat 2B: I'll let him in"), "the terminal did not print bob's message: \(terminal.stdout.text)")
        try browser.expectCleanConsole("bob")
    }
}
