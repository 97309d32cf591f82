import Foundation
import Testing

/// A real headless Chromium driven through chromedriver (W3C WebDriver over plain HTTP on
/// loopback), for what only a browser shows: the page under its Content-Security-Policy,
/// a WebSocket opened by the page's own script, the Origin a browser sends, layout.
///
/// Each `Browser` is one WebDriver session: its own Chromium with its own fresh profile
/// (one person's phone). Several can share a `ChromeDriver`; `Browser()` starts its own.
final class Browser {
    static let chromium = ChromeDriver.chromium
    static let driverPath = ChromeDriver.path

    /// Whether this machine has both; under CI a test that needs them fails instead of skipping.
    static var isInstalled: Bool { ChromeDriver.isInstalled }

    /// The sizes the app is designed for, in CSS pixels.
    enum Size: String {
        case phone, tablet
        var width: Int { self == .phone ? 390 : 1024 }
        var height: Int { self == .phone ? 844 : 768 }
    }

    /// Trace categories recorded from the session's start when `tracing` is asked for:
    /// the renderer's tasks and frames, read back by `frameTimes()`.
    static let traceCategories = "devtools.timeline,disabled-by-default-devtools.timeline,disabled-by-default-devtools.timeline.frame,benchmark"

    let driver: ChromeDriver
    private(set) var session = ""
    private(set) var size: Size?

    /// A session on `driver` (a new chromedriver when nil), sized for `size`; `tracing`
    /// records a performance trace for `traceEvents()`. Its profile is a fresh one that
    /// chromedriver makes and primes: given a profile folder of our own, Chromium opened its
    /// search engine's start page, a host off this machine.
    init(driver: ChromeDriver? = nil, size: Size? = nil, tracing: Bool = false) throws {
        self.driver = try driver ?? ChromeDriver()
        var options: [String: Any] = [
            "binary": Self.chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"],
        ]
        var logging: [String: Any] = ["browser": "ALL"]
        if tracing {
            options["perfLoggingPrefs"] = ["traceCategories": Self.traceCategories, "enableNetwork": false, "enablePage": false]
            logging["performance"] = "ALL"
        }
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome", "acceptInsecureCerts": true,
            "goog:chromeOptions": options, "goog:loggingPrefs": logging,
        ]]]
        let created = try self.driver.call("POST", "/session", capabilities)
        guard let id = (created["value"] as? [String: Any])?["sessionId"] as? String else {
            throw WebDriverFailure("no session: \(created)")
        }
        session = id
        if let size { try resize(to: size) }
    }

    deinit { quit() }

    /// Ends the session: its Chromium exits and its profile is gone.
    func quit() {
        guard !session.isEmpty else { return }
        _ = try? driver.call("DELETE", "/session/\(session)")
        session = ""
    }

    @discardableResult
    func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any? {
        try driver.call(method, "/session/\(session)\(path)", body)["value"]
    }

    // MARK: Navigation and scripts

    func open(_ url: String) throws {
        try call("POST", "/url", ["url": url])
    }

    func reload() throws {
        try call("POST", "/refresh", [:])
    }

    var title: String {
        get throws { try call("GET", "/title") as? String ?? "" }
    }

    var url: String {
        get throws { try call("GET", "/url") as? String ?? "" }
    }

    /// Runs `script` as a function body with `arguments`; returns what it returns. A DOM
    /// element comes back as an `Element`.
    @discardableResult
    func run(_ script: String, _ arguments: Any...) throws -> Any? {
        unwrapElements(try call("POST", "/execute/sync", ["script": script, "args": arguments.map(wrapElements)]))
    }

    /// Runs `script` in the page as an async function body; it ends by calling
    /// `arguments[arguments.length - 1](result)`.
    @discardableResult
    func runAsync(_ script: String, timeout: Double = 20, arguments: [Any] = []) throws -> Any? {
        try call("POST", "/timeouts", ["script": Int(timeout * 1000)])
        return unwrapElements(try call("POST", "/execute/async", ["script": script, "args": arguments.map(wrapElements)]))
    }

    // MARK: Window and screenshots

    /// Sets the viewport (not the window) to `size`'s CSS pixels: the headless window's
    /// frame is measured and added.
    func resize(to size: Size) throws {
        try call("POST", "/window/rect", ["width": size.width, "height": size.height])
        let inner = try run("return [window.innerWidth, window.innerHeight]") as? [Int] ?? []
        if inner.count == 2, inner != [size.width, size.height] {
            try call("POST", "/window/rect", ["width": 2 * size.width - inner[0], "height": 2 * size.height - inner[1]])
        }
        self.size = size
    }

    /// The viewport's PNG.
    func screenshot() throws -> Data {
        try decodePNG(call("GET", "/screenshot"))
    }

    /// One element's PNG, as the browser paints it.
    func screenshot(of element: Element) throws -> Data {
        try decodePNG(call("GET", "/element/\(element.id)/screenshot"))
    }

    /// Saves the viewport as `NAME-SIZE.png` in the screenshots folder (env
    /// CHORUS_SCREENSHOTS, default .build/screenshots); returns the file.
    @discardableResult
    func saveScreenshot(_ name: String) throws -> URL {
        let folder = Self.screenshotFolder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("\(name)-\(size?.rawValue ?? "window").png")
        try screenshot().write(to: file)
        return file
    }

    /// Saves one element as `NAME-SIZE.png` in the screenshots folder; returns the file.
    @discardableResult
    func saveScreenshot(_ name: String, of element: Element) throws -> URL {
        let folder = Self.screenshotFolder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("\(name)-\(size?.rawValue ?? "window").png")
        try screenshot(of: element).write(to: file)
        return file
    }

    static var screenshotFolder: URL {
        if let folder = ProcessInfo.processInfo.environment["CHORUS_SCREENSHOTS"], !folder.isEmpty {
            return URL(fileURLWithPath: folder)
        }
        return TLSProfileTests.package.appendingPathComponent(".build/screenshots")
    }

    private func decodePNG(_ value: Any?) throws -> Data {
        guard let text = value as? String, let data = Data(base64Encoded: text) else { throw WebDriverFailure("no screenshot") }
        return data
    }

    // MARK: Elements

    /// A WebDriver element reference.
    struct Element: Hashable {
        static let key = "element-6066-11e4-a52e-4f735466cecf"
        let id: String
    }

    private func wrapElements(_ value: Any) -> Any {
        if let element = value as? Element { return [Element.key: element.id] }
        if let list = value as? [Any] { return list.map(wrapElements) }
        return value
    }

    private func unwrapElements(_ value: Any?) -> Any? {
        if let object = value as? [String: Any], object.count == 1, let id = object[Element.key] as? String { return Element(id: id) }
        if let list = value as? [Any] { return list.map { unwrapElements($0) ?? NSNull() } }
        return value
    }

    /// Elements matching a CSS selector, in document order.
    func elements(_ selector: String) throws -> [Element] {
        let found = try call("POST", "/elements", ["using": "css selector", "value": selector]) as? [[String: Any]] ?? []
        return found.compactMap { ($0[Element.key] as? String).map(Element.init) }
    }

    /// Clicks as a person would: scrolled into view, refused if something covers it.
    func click(_ element: Element) throws {
        try call("POST", "/element/\(element.id)/click", [:])
    }

    /// Types `text` into the element as key presses.
    func type(_ text: String, into element: Element) throws {
        try call("POST", "/element/\(element.id)/value", ["text": text])
    }

    func clear(_ element: Element) throws {
        try call("POST", "/element/\(element.id)/clear", [:])
    }

    func text(of element: Element) throws -> String {
        try call("GET", "/element/\(element.id)/text") as? String ?? ""
    }

    /// Presses keys on whatever has focus (WebDriver key codes, e.g. "\u{E004}" for Tab).
    func press(_ keys: String) throws {
        let actions = keys.unicodeScalars.flatMap { key -> [[String: Any]] in
            [["type": "keyDown", "value": String(key)], ["type": "keyUp", "value": String(key)]]
        }
        try call("POST", "/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions]]])
        try call("DELETE", "/actions")
    }

    static let tab = "\u{E004}"
    static let enter = "\u{E007}"
}
