import Foundation
import Testing

/// The web app's standalone modules (js/qr.js, js/chart.js) in a real headless Chromium.
/// They are loaded into about:blank (no CSP there) as blob: modules from the files in the
/// repository, so the tests need no route on the server. The QR codes are read back by
/// zbarimg (Debian's zbar-tools), a decoder nobody here wrote.
@Suite(.serialized, .timeLimit(.minutes(10))) struct WebAppModuleTests {
    static let folder = TLSProfileTests.package.appendingPathComponent("Sources/ChorusServer/WebApp/js")
    static let zbarimg = "/usr/bin/zbarimg"
    static let ci = ProcessInfo.processInfo.environment["CI"] == "true"

    /// A browser on about:blank with `file` imported as `window[name]`.
    static func page(with file: String, as name: String, size: Browser.Size = .tablet) throws -> Browser {
        let browser = try Browser(size: size)
        try browser.open("about:blank")
        let source = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        let loaded = try browser.runAsync("""
            const [source, name, done] = arguments;
            const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
            import(url).then((module) => { window[name] = module; done("loaded"); }, (error) => done(String(error)));
            """, arguments: [source, name]) as? String
        guard loaded == "loaded" else { throw WebDriverFailure("\(file) did not load: \(loaded ?? "nil")") }
        return browser
    }

    /// Texts for the codes: short, a calendar feed's webcal link, UTF-8 beyond Latin-1, and
    /// the longest the encoder takes (version 15 at level M: 412 bytes).
    static let texts = [
        "Chorus",
        "webcal://chores.example.org:7667/calendar/" + String(repeating: "3f9c0a7e", count: 6) + ".ics",
        "Küche putzen — Grüße, Zoë 🧹 台所",
        String((0..<412).map { Character(UnicodeScalar(UInt8(33 + ($0 * 7) % 94))) }),
    ]

    @Test(.enabled(if: Browser.isInstalled || ci, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func qrCodesDecodeBackToTheirText() throws {
        guard Browser.isInstalled else {
            Issue.record("CI=true but chromium or chromium-driver is missing: .ci/run should have installed them")
            return
        }
        let hasDecoder = FileManager.default.isExecutableFile(atPath: Self.zbarimg)
        if !hasDecoder {
            if Self.ci { Issue.record("CI=true but zbarimg is missing: .ci/run should have installed zbar-tools") }
            else { print("WebAppModuleTests: zbarimg missing (apt-get install zbar-tools): QR codes are drawn but not decoded") }
        }
        let browser = try Self.page(with: "qr.js", as: "qr")
        let directory = try TemporaryDirectory()
        for (index, text) in Self.texts.enumerated() {
            // Drawn at a whole number of pixels per module (at most 8) on a white page.
            let drawn = try browser.run("""
                const [text] = arguments;
                document.body.replaceChildren();
                document.body.style.margin = "0";
                document.body.style.background = "#fff";
                const svg = window.qr.qrSvg(text);
                const side = svg.viewBox.baseVal.width;
                const scale = Math.max(2, Math.min(8, Math.floor(720 / side)));
                svg.setAttribute("width", side * scale);
                svg.setAttribute("height", side * scale);
                document.body.append(svg);
                const matrix = window.qr.qrMatrix(text);
                return [svg, svg.getAttribute("role"), svg.getAttribute("aria-label"), svg.querySelectorAll("path").length,
                        side, matrix.size, matrix.version];
                """, text) as? [Any] ?? []
            guard drawn.count == 7, let svg = drawn[0] as? Browser.Element else {
                Issue.record("no code drawn for text \(index): \(drawn)")
                continue
            }
            #expect(drawn[1] as? String == "img")
            #expect(drawn[2] as? String == "QR code: \(text)")
            #expect(drawn[3] as? Int == 1, "one path for all dark modules")
            #expect(drawn[4] as? Int == (drawn[5] as? Int ?? 0) + 8, "a four-module quiet zone on each side")
            let png = try browser.screenshot(of: svg)
            let file = directory.path + "/qr-\(index).png"
            try png.write(to: URL(fileURLWithPath: file))
            print("WebAppModuleTests: text \(index): \(text.utf8.count) bytes, version \(drawn[6]), \(drawn[5])×\(drawn[5]) modules, PNG \(png.count) bytes")
            guard hasDecoder else { continue }
            let decoded = try TLSProfileTests.run([Self.zbarimg, "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", file])
            #expect(decoded.status == 0, "zbarimg found no code in text \(index)'s picture: \(decoded.output)")
            // zbarimg ends each symbol with a newline; anything else it says (D-Bus noise) goes first.
            #expect(decoded.output.hasSuffix(text + "\n"), "text \(index) decoded as \(decoded.output.debugDescription)")
        }

        // Too long: one byte past the largest version, counted in UTF-8.
        let refusals = try browser.run("""
            const attempt = (text) => { try { window.qr.qrSvg(text); return "drawn"; } catch (error) { return error.message; } };
            return [attempt("a".repeat(413)), attempt("é".repeat(207)), attempt("é".repeat(206))];
            """) as? [String] ?? []
        #expect(refusals.count == 3)
        #expect(refusals.first?.contains("too long") == true && refusals.first?.contains("413 bytes") == true, "\(refusals)")
        #expect(refusals.dropFirst().first?.contains("414 bytes") == true, "\(refusals)")
        #expect(refusals.last == "drawn")
    }

    /// Members whose bars the test measures, one with a name that is markup, one with a
    /// name too long to show whole on a phone.
    static var members: [[String: Any]] { [
        ["name": "Ann", "done": 4, "open": 2, "overdue": 1, "points": 9],
        ["name": "<img src=x onerror=hacked=1>", "done": 2, "open": 0, "overdue": 0, "points": 3],
        ["name": "Zoë", "done": 0, "open": 3, "overdue": 3, "points": 1],
        ["name": "Maximiliane Konstantinopoulou-Smythe", "done": 1, "open": 0, "overdue": 0, "points": 1],
    ] }

    @Test(.enabled(if: Browser.isInstalled || ci, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func statsChartBarsAreProportionalAndNamesStayText() throws {
        guard Browser.isInstalled else {
            Issue.record("CI=true but chromium or chromium-driver is missing: .ci/run should have installed them")
            return
        }
        let browser = try Self.page(with: "chart.js", as: "chart", size: .phone)
        let measured = try browser.run("""
            const [members] = arguments;
            document.body.replaceChildren();
            document.body.style.margin = "0";
            const box = document.createElement("div");
            box.style.width = "360px";
            document.body.append(box);
            const svg = window.chart.statsChart(members);
            box.append(svg);
            const bars = [...svg.querySelectorAll("rect[data-kind]")].map((rect) => ({
              member: [...svg.querySelectorAll(".stats-member")].indexOf(rect.closest(".stats-member")),
              kind: rect.dataset.kind, value: Number(rect.dataset.value), width: rect.getBoundingClientRect().width,
              fill: getComputedStyle(rect).fill }));
            const names = [...svg.querySelectorAll(".stats-name")].map((text) => ({
              text: text.textContent, onlyText: [...text.childNodes].every((node) => node.nodeType === Node.TEXT_NODE) }));
            return { bars, names, label: svg.getAttribute("aria-label"), role: svg.getAttribute("role"),
                     title: svg.querySelector("title")?.textContent ?? "", images: document.querySelectorAll("img").length,
                     width: svg.getBoundingClientRect().width, hacked: window.hacked ?? 0 };
            """, Self.members) as? [String: Any] ?? [:]
        let bars = measured["bars"] as? [[String: Any]] ?? []
        // Ann: 4 done, 1 open on time, 1 overdue; the markup name: 2 done; Zoë: 3 overdue;
        // the long name: 1 done.
        let shown = bars.map { "\($0["member"] as? Int ?? -1) \($0["kind"] as? String ?? "") \($0["value"] as? Int ?? -1)" }
        #expect(shown == ["0 done 4", "0 open 1", "0 overdue 1", "1 done 2", "2 overdue 3", "3 done 1"], "\(bars)")
        // One scale for every bar: width per task is the same everywhere, and the longest
        // row (Ann's 6 tasks) spans the chart less its margins.
        let perTask = bars.compactMap { bar -> Double? in
            guard let width = bar["width"] as? Double, let value = bar["value"] as? Int, value > 0 else { return nil }
            return width / Double(value)
        }
        #expect(perTask.count == 6)
        if let first = perTask.first {
            for ratio in perTask { #expect(abs(ratio - first) < 0.01, "widths per task \(perTask)") }
            #expect(abs(first * 6 - 344) < 0.5, "Ann's row spans the bar width: \(first * 6)")
        }
        // Colours: the fallbacks here (no custom properties set), distinct per kind.
        let fills = Dictionary(bars.map { ($0["kind"] as? String ?? "", $0["fill"] as? String ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(fills["done"] == "rgb(46, 125, 79)" && fills["open"] == "rgb(91, 127, 176)" && fills["overdue"] == "rgb(198, 40, 40)", "\(fills)")

        let names = measured["names"] as? [[String: Any]] ?? []
        // Names as given, the long one cut to 30 characters on screen (whole in the label).
        #expect(names.map { $0["text"] as? String ?? "" } == ["Ann", "<img src=x onerror=hacked=1>", "Zoë", "Maximiliane Konstantinopoulou…"])
        #expect(names.allSatisfy { $0["onlyText"] as? Bool == true })
        #expect(measured["images"] as? Int == 0, "a name became markup")
        #expect(measured["hacked"] as? Int == 0)
        #expect(measured["role"] as? String == "img")
        #expect(measured["title"] as? String == "Done, open and overdue tasks and points per member")
        #expect(measured["label"] as? String == "Tasks per member. Ann: 4 done, 2 open (1 overdue), 9 points; "
            + "<img src=x onerror=hacked=1>: 2 done, 0 open, 3 points; Zoë: 0 done, 3 open (3 overdue), 1 point; "
            + "Maximiliane Konstantinopoulou-Smythe: 1 done, 0 open, 1 point.")
        #expect(measured["width"] as? Double == 360)

        try browser.saveScreenshot("stats-chart", of: browser.elements("svg.stats-chart")[0])
        // A theme's custom properties restyle the bars (dark mode sets its own).
        let themed = try browser.run("""
            document.documentElement.style.setProperty("--chart-done", "rgb(1, 2, 3)");
            return getComputedStyle(document.querySelector(".stats-done")).fill;
            """) as? String
        #expect(themed == "rgb(1, 2, 3)")
    }

    @Test(.enabled(if: Browser.isInstalled || ci, "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"))
    func progressRingEmptiesAsTheDueDateNearsAndMarksOverdue() throws {
        guard Browser.isInstalled else {
            Issue.record("CI=true but chromium or chromium-driver is missing: .ci/run should have installed them")
            return
        }
        let browser = try Self.page(with: "chart.js", as: "chart", size: .phone)
        let rings = try browser.run("""
            return [1, 0.5, 0, -0.3].map((fraction) => {
              const svg = window.chart.progressRing(fraction, fraction < 0 ? "2 days overdue" : undefined);
              document.body.append(svg);
              const arc = svg.querySelector(".ring-left");
              const circumference = 2 * Math.PI * 9;
              return { label: svg.getAttribute("aria-label"), role: svg.getAttribute("role"), overdue: svg.classList.contains("overdue"),
                       left: arc ? Number(arc.getAttribute("stroke-dasharray").split(" ")[0]) / circumference : 0,
                       track: getComputedStyle(svg.querySelector(".ring-track")).stroke };
            });
            """) as? [[String: Any]] ?? []
        #expect(rings.count == 4)
        guard rings.count == 4 else { return }
        #expect(rings.map { $0["label"] as? String ?? "" } == ["100% of the time left", "50% of the time left", "0% of the time left", "2 days overdue"])
        #expect(rings.allSatisfy { $0["role"] as? String == "img" })
        let left = rings.map { $0["left"] as? Double ?? -1 }
        #expect(abs(left[0] - 1) < 0.001 && abs(left[1] - 0.5) < 0.001 && left[2] == 0 && left[3] == 0, "\(left)")
        #expect(rings.map { $0["overdue"] as? Bool ?? false } == [false, false, false, true])
        #expect(rings[3]["track"] as? String == "rgb(198, 40, 40)", "an overdue ring is drawn in the overdue colour")
    }
}
