import Foundation

/// Finding what a person sees: elements by their accessible role and name (as a screen
/// reader would announce them), screens by `data-screen`, and waiting for them by polling.
extension Browser {
    /// In-page helpers the finders and the audit share: `__kit.role(el)`, `__kit.name(el)`
    /// (a plain reading of the accessible-name rules: aria-labelledby, aria-label, labels,
    /// alt, content for roles named from content, title, placeholder) and `__kit.visible(el)`.
    static let pageHelpers = """
        if (!window.__kit) {
          const collapse = (text) => (text || "").replace(/\\s+/g, " ").trim();
          const hiddenFromTree = (el) => !!el.closest("[aria-hidden=true], [hidden], [inert]");
          const visible = (el) => {
            if (hiddenFromTree(el) || el.getClientRects().length === 0) return false;
            const style = getComputedStyle(el);
            return style.visibility !== "hidden" && style.display !== "none";
          };
          const implicitRole = (el) => {
            const tag = el.localName;
            if (tag === "a" || tag === "area") return el.hasAttribute("href") ? "link" : "";
            if (tag === "button" || tag === "summary") return "button";
            if (tag === "input") {
              const type = (el.getAttribute("type") || "text").toLowerCase();
              return { button: "button", submit: "button", reset: "button", image: "button", checkbox: "checkbox",
                       radio: "radio", range: "slider", number: "spinbutton", search: "searchbox", hidden: "" }[type] ?? "textbox";
            }
            if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
            if (tag === "textarea") return "textbox";
            if (/^h[1-6]$/.test(tag)) return "heading";
            if (tag === "img") return el.getAttribute("alt") === "" ? "presentation" : "img";
            return { nav: "navigation", main: "main", dialog: "dialog", progress: "progressbar", ul: "list", ol: "list",
                     li: "listitem", form: "form", output: "status", header: "banner", footer: "contentinfo",
                     article: "article", aside: "complementary", meter: "meter", option: "option" }[tag] ?? "";
          };
          const role = (el) => collapse(el.getAttribute("role")).split(" ")[0] || implicitRole(el);
          const fromContent = new Set(["button", "link", "heading", "tab", "menuitem", "option", "checkbox", "radio",
            "switch", "cell", "columnheader", "rowheader", "treeitem", "tooltip", "listitem"]);
          const textOf = (node) => {
            if (node.nodeType === Node.TEXT_NODE) return node.data;
            if (node.nodeType !== Node.ELEMENT_NODE) return "";
            if (node.getAttribute("aria-hidden") === "true" || node.hidden) return "";
            const style = getComputedStyle(node);
            if (style.display === "none" || style.visibility === "hidden") return "";
            const label = node.getAttribute("aria-label");
            if (label && label.trim()) return " " + label + " ";
            if (node.localName === "img") return " " + (node.getAttribute("alt") || "") + " ";
            if (node.localName === "svg") return " " + (node.querySelector(":scope > title")?.textContent || "") + " ";
            if (node.localName === "input" && ["button", "submit", "reset"].includes(node.type)) return " " + node.value + " ";
            let text = "";
            for (const child of node.childNodes) text += textOf(child);
            return /^(inline|contents)/.test(style.display) ? text : " " + text + " ";
          };
          const name = (el) => {
            const labelledBy = collapse(el.getAttribute("aria-labelledby"));
            if (labelledBy) {
              const text = labelledBy.split(" ").map((id) => document.getElementById(id)).filter(Boolean).map(textOf).join(" ");
              if (collapse(text)) return collapse(text);
            }
            const label = collapse(el.getAttribute("aria-label"));
            if (label) return label;
            if (el.labels && el.labels.length) {
              const text = collapse([...el.labels].map(textOf).join(" "));
              if (text) return text;
            }
            if (el.localName === "img" || (el.localName === "input" && el.type === "image")) {
              const alt = collapse(el.getAttribute("alt"));
              if (alt) return alt;
            }
            if (el.localName === "input" && ["button", "submit", "reset"].includes(el.type)) {
              return collapse(el.value) || (el.type === "submit" ? "Submit" : el.type === "reset" ? "Reset" : "");
            }
            if (el.localName === "svg") {
              const title = collapse(el.querySelector(":scope > title")?.textContent);
              if (title) return title;
            }
            if (fromContent.has(role(el))) {
              const text = collapse([...el.childNodes].map(textOf).join(""));
              if (text) return text;
            }
            return collapse(el.getAttribute("title")) || collapse(el.getAttribute("placeholder"));
          };
          const fields = "input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=reset]):not([type=image]), select, textarea";
          window.__kit = { collapse, visible, role, name, fields };
        }
        """

    /// Visible elements whose role is `role` and whose accessible name is `name` (nil: any),
    /// inside the first visible match of the CSS selector `scope` (nil: the whole page).
    /// With `prefix`, a name that starts with `name` will do (a task's link reads its title,
    /// then its household and due date).
    func find(role: String, name: String? = nil, in scope: String? = nil, prefix: Bool = false) throws -> [Element] {
        try run(Self.pageHelpers + Self.scoped + """
            const [role, name, , prefix] = arguments;
            return [...root.querySelectorAll("*")].filter((el) => __kit.visible(el) && __kit.role(el) === role
              && (name === null || (prefix ? __kit.name(el).startsWith(name) : __kit.name(el) === name)));
            """, role, name.map { $0 as Any } ?? NSNull(), scope.map { $0 as Any } ?? NSNull(), prefix) as? [Element] ?? []
    }

    /// Visible form fields (input, select, textarea) whose label reads `label`, in `scope`.
    func fields(labelled label: String, in scope: String? = nil) throws -> [Element] {
        try run(Self.pageHelpers + Self.scoped + """
            const [label] = arguments;
            return [...root.querySelectorAll(__kit.fields)].filter((el) => __kit.visible(el) && __kit.name(el) === label);
            """, label, NSNull(), scope.map { $0 as Any } ?? NSNull()) as? [Element] ?? []
    }

    /// Script that sets `root` to the first visible match of `arguments[2]`, or the document.
    private static let scoped = """
        const root = arguments[2] === null ? document
          : [...document.querySelectorAll(arguments[2])].find(__kit.visible) ?? document.createElement("div");
        """

    /// The accessible name the finders see for `element`.
    func accessibleName(of element: Element) throws -> String {
        try run(Self.pageHelpers + "return __kit.name(arguments[0]);", element) as? String ?? ""
    }

    /// Polls `condition` every 50 ms until it holds, or throws after `timeout` seconds
    /// saying what was awaited. Errors from the condition count as "not yet".
    func waitUntil(_ what: String, timeout: Double = 10, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var lastError: Error?
        while true {
            do {
                if try condition() { return }
            } catch {
                lastError = error
            }
            if Date() >= deadline {
                throw WebDriverFailure("timed out after \(timeout) s waiting for \(what)" + (lastError.map { " (last error: \($0))" } ?? ""))
            }
            usleep(50_000)
        }
    }

    /// The first of `find()`'s results once there is one.
    func waitFor(_ what: String, timeout: Double = 10, _ find: () throws -> [Element]) throws -> Element {
        var found: Element?
        try waitUntil(what, timeout: timeout) {
            found = try find().first
            return found != nil
        }
        return found!
    }

    func button(named name: String, in scope: String? = nil, timeout: Double = 10) throws -> Element {
        try waitFor("a button named \"\(name)\"" + (scope.map { " in \($0)" } ?? ""), timeout: timeout) {
            try find(role: "button", name: name, in: scope)
        }
    }

    func link(named name: String, in scope: String? = nil, prefix: Bool = false, timeout: Double = 10) throws -> Element {
        try waitFor("a link named \"\(name)\"\(prefix ? "…" : "")" + (scope.map { " in \($0)" } ?? ""), timeout: timeout) {
            try find(role: "link", name: name, in: scope, prefix: prefix)
        }
    }

    func field(labelled label: String, in scope: String? = nil, timeout: Double = 10) throws -> Element {
        try waitFor("a field labelled \"\(label)\"" + (scope.map { " in \($0)" } ?? ""), timeout: timeout) {
            try fields(labelled: label, in: scope)
        }
    }

    /// The visible root of a screen: `[data-screen=NAME]`.
    func screen(_ name: String, timeout: Double = 10) throws -> Element {
        try waitFor("the \(name) screen", timeout: timeout) { try visibleElements("[data-screen=\"\(name)\"]") }
    }

    /// Whether the screen is shown now (no waiting).
    func isShowing(screen name: String) throws -> Bool {
        try !visibleElements("[data-screen=\"\(name)\"]").isEmpty
    }

    /// Visible elements matching a CSS selector.
    func visibleElements(_ selector: String) throws -> [Element] {
        try run(Self.pageHelpers + "return [...document.querySelectorAll(arguments[0])].filter(__kit.visible);", selector) as? [Element] ?? []
    }

    /// Waits for the visible text of the page (or of `selector`'s first match) to contain `text`.
    func waitForText(_ text: String, in selector: String = "body", timeout: Double = 10) throws {
        try waitUntil("\"\(text)\" in \(selector)", timeout: timeout) {
            (try run("return document.querySelector(arguments[0])?.innerText ?? ''", selector) as? String ?? "").contains(text)
        }
    }

    /// Clears the field labelled `label` and types `text` into it.
    func fill(_ label: String, with text: String, in scope: String? = nil) throws {
        let element = try field(labelled: label, in: scope)
        try clear(element)
        try type(text, into: element)
    }

    /// Clicks the button named `name` once it is there.
    func tap(_ name: String, in scope: String? = nil, timeout: Double = 10) throws {
        try click(button(named: name, in: scope, timeout: timeout))
    }

    /// Picks the option whose text is `option` in the select labelled `label`, by clicking
    /// it as a person picks from the list.
    func choose(_ option: String, in label: String, scope: String? = nil) throws {
        let select = try field(labelled: label, in: scope)
        let choice = try waitFor("the option \"\(option)\" in \(label)") {
            try run("return [...arguments[0].options].filter((o) => o.textContent.trim() === arguments[1])", select, option) as? [Element] ?? []
        }
        try click(select)
        try click(choice)
    }
}
