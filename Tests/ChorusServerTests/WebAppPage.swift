import Foundation
import Testing

/// The web app's page in a `Browser`, driven the way its DOM conventions allow: screens by
/// `data-screen`, fields by id, forms submitted as a person's Enter would. Everything goes
/// through script in the page (`runAsync`), so a step waits inside the page, not in sleeps.
struct WebAppPage {
    let browser: Browser

    /// A Swift string as a JavaScript string literal.
    static func literal(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    /// The value of `expression`, evaluated in the page.
    @discardableResult
    func evaluate(_ expression: String) throws -> Any? {
        try browser.runAsync("""
            const done = arguments[arguments.length - 1];
            try { Promise.resolve((() => { return (\(expression)); })()).then((v) => done(v === undefined ? null : v), (e) => done("error: " + e)); }
            catch (e) { done("error: " + e); }
            """)
    }

    /// Waits until `expression` is truthy in the page and returns its value; fails the
    /// test, saying what the page showed, when it does not become so within `timeout`.
    @discardableResult
    func wait(_ what: String, for expression: String, timeout: Double = 10,
              sourceLocation: SourceLocation = #_sourceLocation) throws -> Any? {
        let value = try browser.runAsync("""
            const done = arguments[arguments.length - 1];
            const end = Date.now() + \(Int(timeout * 1000));
            (function poll() {
              let value = null;
              try { value = (\(expression)); } catch (e) { value = null; }
              if (value) return done(value);
              if (Date.now() > end) return done(null);
              setTimeout(poll, 50);
            })();
            """, timeout: timeout + 10)
        if value == nil || value is NSNull {
            let shown = (try? evaluate("document.body.innerText.slice(0, 800)")) as? String ?? ""
            Issue.record("\(what): not within \(timeout) s; the page shows: \(shown)", sourceLocation: sourceLocation)
            throw Stop(what)
        }
        return value
    }

    func screen(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try wait("the \(name) screen", for: "document.querySelector('[data-screen=\(name)]') !== null", sourceLocation: sourceLocation)
    }

    /// Types `text` into the field `selector` (an input event follows, as with typing).
    func fill(_ selector: String, _ text: String) throws {
        try evaluate("""
            (() => { const field = document.querySelector(\(Self.literal(selector)));
              field.focus(); field.value = \(Self.literal(text)); field.dispatchEvent(new Event("input", { bubbles: true })); return true; })()
            """)
    }

    /// Submits the form the field `selector` is in, as pressing Enter would.
    func submit(_ selector: String) throws {
        try evaluate("document.querySelector(\(Self.literal(selector))).form.requestSubmit() || true")
    }

    func click(_ selector: String) throws {
        try evaluate("document.querySelector(\(Self.literal(selector))).click() || true")
    }

    func text(_ selector: String) throws -> String {
        try evaluate("(document.querySelector(\(Self.literal(selector))) || {}).textContent || ''") as? String ?? ""
    }

    func go(_ hash: String) throws {
        try evaluate("(location.hash = \(Self.literal(hash))) && true")
    }

    /// Registers `name` on the register screen and waits for the households.
    func register(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try screen("register", sourceLocation: sourceLocation)
        try fill("#auth-name", name)
        try fill("#auth-password", defaultPassword)
        try submit("#auth-name")
        try screen("rooms", sourceLocation: sourceLocation)
    }

    /// Creates a household and returns its id, on its screen.
    func createHousehold(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        try fill("#new-room", name)
        try submit("#new-room")
        let id = try wait("the new household", for: "document.querySelector('[data-screen=room]')?.dataset.room", sourceLocation: sourceLocation)
        return Int(id as? String ?? "") ?? -1
    }

    struct Stop: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = "gave up waiting for \(description)" }
    }
}
