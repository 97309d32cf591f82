import Foundation

/// An accessibility audit run in the page as it stands: WCAG AA checks a script can make
/// from the DOM and computed styles. Each finding is one line naming the rule and the
/// element; a clean page has none.
///
/// - name: every visible interactive element has an accessible name;
/// - label: every form field has a label (a placeholder is not one);
/// - alt: every `img` has alt text (empty only when marked decorative) and every
///   `svg[role=img]` a label;
/// - keyboard: an element with a widget role can take focus;
/// - contrast: text against the background painted under it, 4.5:1, or 3:1 for large
///   text (24 px, or 18.66 px bold); disabled controls are exempt, as WCAG says;
/// - focus: pressing Tab through the page, each element reached shows an outline or a
///   box shadow it does not have unfocused;
/// - target: at phone size, buttons and links are at least 44 × 44 CSS pixels (links
///   inside a sentence are exempt);
/// - page: the document has a language and a title.
enum AccessibilityAudit {
    /// The static checks; `arguments[0]` says whether to check touch targets. Returns findings.
    static let staticChecks = """
        const [checkTargets] = arguments;
        const findings = [];
        const describe = (el) => {
          const id = el.id ? "#" + el.id : "";
          const classes = el.classList.length ? "." + [...el.classList].join(".") : "";
          const text = __kit.collapse(el.textContent).slice(0, 40);
          return `<${el.localName}${id}${classes}>` + (text ? ` "${text}"` : "");
        };
        const note = (rule, el, detail) => findings.push(`${rule}: ${describe(el)}${detail ? " " + detail : ""}`);
        const all = [...document.querySelectorAll("body *")].filter(__kit.visible);

        if (!document.documentElement.lang) findings.push("page: <html> has no lang");
        if (!document.title.trim()) findings.push("page: no <title>");

        const widgetRoles = new Set(["button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "slider",
          "textbox", "searchbox", "combobox", "listbox", "spinbutton", "option"]);
        const interactive = all.filter((el) => widgetRoles.has(__kit.role(el)) || el.matches("[tabindex]:not([tabindex='-1']), [contenteditable=''], [contenteditable=true]"));
        for (const el of interactive) {
          if (!__kit.name(el)) note("name", el, `(role ${__kit.role(el) || "none"}) has no accessible name`);
          if (el.tabIndex < 0 && !el.disabled && !el.closest("[role=listbox], [role=menu], [role=tablist], [role=radiogroup]")
              && !(el.localName === "input" && el.type === "radio")) {
            note("keyboard", el, "cannot take focus");
          }
        }

        for (const el of all.filter((el) => el.matches(__kit.fields))) {
          const labelled = (el.labels && el.labels.length && __kit.collapse([...el.labels].map((l) => l.textContent).join(" ")))
            || __kit.collapse(el.getAttribute("aria-label")) || __kit.collapse(el.getAttribute("aria-labelledby"));
          if (!labelled) note("label", el, "is a form field without a label");
        }

        for (const el of all.filter((el) => el.localName === "img")) {
          const alt = el.getAttribute("alt");
          if (alt === null) note("alt", el, "has no alt attribute");
          else if (alt.trim() === "" && __kit.role(el) !== "presentation") note("alt", el, "has empty alt but is not decorative");
        }
        for (const el of all.filter((el) => el.localName === "svg" && el.getAttribute("role") === "img")) {
          if (!__kit.name(el)) note("alt", el, "is an svg image without a label");
        }

        // Any CSS colour to [r, g, b, a] (0–255, a 0–1) by painting one pixel.
        const canvas = document.createElement("canvas");
        canvas.width = canvas.height = 1;
        const paint = canvas.getContext("2d", { willReadFrequently: true });
        const rgba = (color) => {
          paint.clearRect(0, 0, 1, 1);
          paint.fillStyle = "rgba(0, 0, 0, 0)";
          paint.fillStyle = color;
          paint.fillRect(0, 0, 1, 1);
          const [r, g, b, a] = paint.getImageData(0, 0, 1, 1).data;
          return [r, g, b, a / 255];
        };
        const over = (top, bottom) => {
          const a = top[3] + bottom[3] * (1 - top[3]);
          if (a === 0) return [0, 0, 0, 0];
          return [0, 1, 2].map((i) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a).concat(a);
        };
        const luminance = ([r, g, b]) => {
          const linear = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
          return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
        };
        const dark = matchMedia("(prefers-color-scheme: dark)").matches
          && getComputedStyle(document.documentElement).colorScheme.includes("dark");
        const canvasColor = dark ? [18, 18, 18, 1] : [255, 255, 255, 1];
        // The background painted under el: its own and its ancestors' colours, composited;
        // null under an image or gradient, which a script cannot read.
        const backgroundOf = (el) => {
          const layers = [];
          for (let node = el; node && node.nodeType === Node.ELEMENT_NODE; node = node.parentElement) {
            const style = getComputedStyle(node);
            if (style.backgroundImage !== "none") return null;
            const color = rgba(style.backgroundColor);
            if (color[3] > 0) layers.push(color);
            if (color[3] >= 1) break;
          }
          return layers.reduceRight((under, layer) => over(layer, under), canvasColor);
        };
        for (const el of all) {
          const ownText = [...el.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && node.data.trim());
          if (!ownText || el.closest(":disabled, [aria-disabled=true]")) continue;
          const style = getComputedStyle(el);
          const background = backgroundOf(el);
          if (!background) continue;
          const foreground = over(rgba(style.color), background);
          const [light, darker] = [luminance(foreground), luminance(background)].sort((a, b) => b - a);
          const ratio = (light + 0.05) / (darker + 0.05);
          const size = parseFloat(style.fontSize);
          const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
          const needed = large ? 3 : 4.5;
          if (ratio < needed) note("contrast", el, `${ratio.toFixed(2)}:1 < ${needed}:1 (${style.color} on rgb(${background.slice(0, 3).map(Math.round).join(", ")}))`);
        }

        if (checkTargets) {
          for (const el of all.filter((el) => ["button", "link"].includes(__kit.role(el)))) {
            const box = el.getBoundingClientRect();
            const inSentence = __kit.role(el) === "link" && getComputedStyle(el).display === "inline"
              && __kit.collapse(el.parentElement.textContent) !== __kit.collapse(el.textContent);
            // Rounded: a box moving in an animation (a toast sliding in) measures 43.99998.
            if (!inSentence && (Math.round(box.width) < 44 || Math.round(box.height) < 44)) {
              note("target", el, `is ${Math.round(box.width)} × ${Math.round(box.height)} px, under 44 × 44`);
            }
          }
        }

        // For the focus walk: how each focusable element looks unfocused.
        if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
        window.__auditFocus = new Map();
        const look = (el) => { const s = getComputedStyle(el); return [s.outlineStyle === "none" ? "none" : `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`, s.boxShadow].join(" | "); };
        window.__auditLook = look;
        for (const el of all.filter((el) => el.tabIndex >= 0 && !el.disabled)) window.__auditFocus.set(el, look(el));
        return findings;
        """

    /// After one Tab: whether focus moved to an element seen before (the walk is over), and
    /// a finding if the focused element looks as it did unfocused.
    static let focusStep = """
        const done = arguments[arguments.length - 1];
        const el = document.activeElement;
        if (!el || el === document.body || !window.__auditFocus) return done({ over: true });
        window.__auditSeen = window.__auditSeen || new Set();
        if (window.__auditSeen.has(el)) return done({ over: true });
        window.__auditSeen.add(el);
        // Focus styles may fade in: finish their transitions before reading them.
        for (const animation of el.getAnimations()) animation.finish();
        requestAnimationFrame(() => {
          const before = window.__auditFocus.get(el);
          const now = window.__auditLook(el);
          const outline = getComputedStyle(el).outlineStyle !== "none" && parseFloat(getComputedStyle(el).outlineWidth) > 0;
          const shadow = getComputedStyle(el).boxShadow !== "none";
          const shown = before === undefined ? (outline || shadow) : (now !== before && (outline || shadow));
          const name = `<${el.localName}${el.id ? "#" + el.id : ""}> "${__kit.name(el).slice(0, 40)}"`;
          done({ over: false, finding: shown ? null : `focus: ${name} shows no outline or box shadow when focused by Tab` });
        });
        """
}

extension Browser {
    /// Runs the audit on the page as it is now; touch targets are checked at phone size.
    /// The focus walk presses Tab up to `maxTabs` times (focus ends where it stops).
    func accessibilityFindings(maxTabs: Int = 80) throws -> [String] {
        var findings = try run(Self.pageHelpers + AccessibilityAudit.staticChecks, size == .phone) as? [String] ?? []
        try run("window.__auditSeen = new Set();")
        for _ in 0..<maxTabs {
            try press(Self.tab)
            let step = try runAsync(Self.pageHelpers + AccessibilityAudit.focusStep) as? [String: Any] ?? [:]
            if step["over"] as? Bool != false { break }
            if let finding = step["finding"] as? String { findings.append(finding) }
        }
        return findings
    }
}
