@testable import ChorusServer
import ChorusWeb
import Foundation
import Testing

/// How chorusd serves the web app, over real TLS: every file with its type and a
/// validator, 304 when unchanged, the strict policy, nothing outside the app, the
/// service worker's version, and the whole app within its 200 KB budget.
@Suite struct WebAppServingTests {
    /// Every path the service worker caches, as chorusd writes them into /sw.js.
    static func shell(of worker: String) -> [String] {
        guard let start = worker.range(of: "const SHELL = ["), let end = worker[start.upperBound...].range(of: "];") else { return [] }
        return worker[start.upperBound..<end.lowerBound].split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
    }

    @Test func everyFileIsServedWithItsTypeAndTheWholeAppFitsItsBudget() throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        let worker = try web.request("GET", "/sw.js")
        #expect(worker.status == 200 && worker.headers["content-type"] == "text/javascript; charset=utf-8")
        let shell = Self.shell(of: worker.text)
        #expect(shell.contains("/") && shell.contains("/js/main.js") && shell.contains("/app.css") && shell.contains("/icon-maskable-512.png"),
                "\(shell)")
        // The worker lists every file the server has (but itself and /index.html, which is /).
        let served = Set(WebAppFiles.table.keys).subtracting(["/sw.js", "/index.html"])
        #expect(Set(shell) == served)

        var total = worker.body.count
        for path in shell {
            let file = try web.request("GET", path)
            #expect(file.status == 200, "\(path)")
            #expect(file.headers["cache-control"] == "no-cache", "\(path)")
            #expect(file.headers["etag"]?.hasPrefix("\"") == true, "\(path)")
            let type = file.headers["content-type"] ?? ""
            switch path.split(separator: ".").last ?? "" {
            case "js": #expect(type == "text/javascript; charset=utf-8", "\(path)")
            case "css": #expect(type == "text/css; charset=utf-8", "\(path)")
            case "png": #expect(type == "image/png", "\(path)")
            case "webmanifest": #expect(type == "application/manifest+json", "\(path)")
            default: #expect(type == "text/html; charset=utf-8", "\(path)")
            }
            total += file.body.count
        }
        // HTML, CSS, JavaScript and icons together, uncompressed (issue 24's budget).
        #expect(total <= 200 * 1024, "the web app is \(total) bytes")
        print("web app budget: \(total) bytes of \(200 * 1024) in \(shell.count + 1) files")
    }

    @Test func anUnchangedFileIsA304WithoutItsBody() throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        let first = try web.request("GET", "/js/main.js")
        let tag = try #require(first.headers["etag"])
        #expect(first.status == 200 && !first.body.isEmpty)
        let again = try web.request("GET", "/js/main.js", headers: [("If-None-Match", tag)])
        #expect(again.status == 304 && again.body.isEmpty && again.headers["etag"] == tag)
        #expect(again.headers["content-length"] == nil)
        // A list, a weak form of the same tag, and * match; another tag does not.
        #expect(try web.request("GET", "/js/main.js", headers: [("If-None-Match", "\"other\", W/\(tag)")]).status == 304)
        #expect(try web.request("GET", "/js/main.js", headers: [("If-None-Match", "*")]).status == 304)
        let changed = try web.request("GET", "/js/main.js", headers: [("If-None-Match", "\"0123\"")])
        #expect(changed.status == 200 && changed.body == first.body)
        // The page and another file have tags of their own.
        let page = try web.request("GET", "/")
        #expect(page.headers["etag"] != nil && page.headers["etag"] != tag)
        #expect(try web.request("GET", "/", headers: [("If-None-Match", page.headers["etag"]!)]).status == 304)
        #expect(try web.request("HEAD", "/app.css").headers["etag"] == (try web.request("GET", "/app.css").headers["etag"]))
    }

    @Test func thePageCarriesAStrictPolicyAndHasNoInlineScriptOrStyle() throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        let page = try web.request("GET", "/")
        #expect(page.headers["x-content-type-options"] == "nosniff")
        #expect(page.headers["referrer-policy"] == "no-referrer")
        let policy = page.headers["content-security-policy"] ?? ""
        let directives = Dictionary(policy.split(separator: ";").map { part -> (String, String) in
            let words = part.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            return (String(words[0]), words.count > 1 ? String(words[1]) : "")
        }, uniquingKeysWith: { first, _ in first })
        #expect(directives["default-src"] == "'none'")
        #expect(directives["script-src"] == "'self'" && directives["style-src"] == "'self'")
        #expect(directives["connect-src"] == "'self'" && directives["worker-src"] == "'self'")
        #expect(directives["frame-ancestors"] == "'none'" && directives["base-uri"] == "'none'")
        #expect(directives["require-trusted-types-for"] == "'script'" && directives["trusted-types"] == "chorus")
        #expect(!policy.contains("unsafe") && !policy.contains("http:") && !policy.contains("*"))

        // The page: scripts only by src, no style element or attribute, no handler attribute.
        let html = page.text
        #expect(html.contains("<script type=\"module\" src=\"/js/main.js\"></script>"))
        #expect(html.components(separatedBy: "<script").count == 2)
        #expect(!html.contains("<style") && !html.contains("style=") && html.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil)
        // No module parses HTML or makes code from strings: text only ever reaches the page as text.
        for (path, file) in WebAppFiles.table where path.hasSuffix(".js") {
            let source = String(decoding: file.body, as: UTF8.self)
            for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setAttribute(\"style\""] {
                #expect(!source.contains(sink), "\(path) uses \(sink)")
            }
        }
    }

    /// The page asks at once (modulepreload) for what its first screen needs: the modules
    /// main.js imports, level after level, and the sign-in form; rather than one import
    /// level at a time. The other screens are import()ed when first shown, so they are not
    /// preloaded (a first screen waits for nothing it does not show). Each file named exists.
    @Test func thePagePreloadsWhatTheFirstScreenImports() throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        let html = try web.request("GET", "/").text
        let preloaded = html.matches(of: /<link rel="modulepreload" href="([^"]+)">/).map { String($0.output.1) }
        func source(_ path: String) -> String {
            WebAppFiles.table[path].map { String(decoding: $0.body, as: UTF8.self) } ?? ""
        }
        var imported = Set<String>()
        var next = ["/js/main.js"]
        while let path = next.popLast() {
            for match in source(path).matches(of: /^import .* from "\.\/([a-z]+\.js)";$/.anchorsMatchLineEndings()) {
                if imported.insert("/js/" + match.output.1).inserted { next.append("/js/" + match.output.1) }
            }
        }
        let loadedLater = Set(source("/js/main.js").matches(of: /import\("\.\/([a-z]+\.js)"\)/).map { "/js/" + $0.output.1 })
        #expect(loadedLater.contains("/js/signin.js") && loadedLater.contains("/js/room.js"), "\(loadedLater)")
        let wanted = imported.union(["/js/signin.js"])
        #expect(Set(preloaded) == wanted, "preloaded \(preloaded.sorted()), wanted \(wanted.sorted())")
        for path in Set(preloaded).union(loadedLater) {
            #expect(try web.request("GET", path).status == 200, "\(path)")
        }
    }

    @Test func onlyTheAppsOwnFilesExist() throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        #expect(try web.request("GET", "/index.html").status == 200)
        for path in ["/nope", "/js/", "/js", "/js/nothing.js", "/../Package.swift", "/js/../../Package.swift", "/%2e%2e/Package.swift",
                     "/WebApp/index.html", "/chorus_ChorusServer.resources/WebApp/index.html", "/etc/passwd", "/.git/config", "/sw.js/"] {
            #expect(try web.request("GET", path).status == 404, "\(path)")
        }
    }

    @Test func theManifestNamesAnInstallableAppAndTheMaskableIconKeepsItsMarkInTheSafeZone() throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(web.request("GET", "/manifest.webmanifest").body)) as? [String: Any])
        #expect(manifest["name"] as? String == "Chorus" && manifest["short_name"] as? String == "Chorus")
        #expect(manifest["display"] as? String == "standalone" && (manifest["start_url"] as? String)?.hasPrefix("/") == true)
        #expect(manifest["theme_color"] as? String != nil && manifest["background_color"] as? String != nil)
        let icons = manifest["icons"] as? [[String: Any]] ?? []
        for (size, purpose) in [("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")] {
            let icon = try #require(icons.first { $0["sizes"] as? String == size && $0["purpose"] as? String == purpose }, "\(size) \(purpose)")
            let file = try web.request("GET", icon["src"] as? String ?? "")
            #expect(file.status == 200 && file.headers["content-type"] == "image/png" && file.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        }
        // The safe zone is the circle of 40 % of the side around the middle.
        #expect(WebAppIcon.reach(maskable: true) < 0.4 && WebAppIcon.reach(maskable: true) < WebAppIcon.reach(maskable: false))
        #expect(WebAppIcon.png(size: 512, maskable: true) != WebAppIcon.png(size: 512))
    }

    /// The service worker carries the app's version: any file's change is a new worker.
    @Test func theServiceWorkersVersionFollowsEveryFile() throws {
        let worker = Array("const VERSION = \"__CHORUS_VERSION__\";\nconst SHELL = [\"__CHORUS_SHELL__\"];\n".utf8)
        let files: [String: [UInt8]] = ["/index.html": Array("<!doctype html>".utf8), "/js/main.js": Array("x".utf8), "/sw.js": worker]
        var edited = files
        edited["/js/main.js"] = Array("y".utf8)
        func version(_ table: [String: WebAppFile]) -> String {
            let text = String(decoding: table["/sw.js"]!.body, as: UTF8.self)
            return String(text.split(separator: "\"")[1])
        }
        let before = WebAppFiles.assemble(files), after = WebAppFiles.assemble(edited)
        #expect(version(before).count == 16 && version(before) != "__CHORUS_VERSION__")
        #expect(version(before) != version(after))
        #expect(version(before) == version(WebAppFiles.assemble(files)))
        #expect(Self.shell(of: String(decoding: before["/sw.js"]!.body, as: UTF8.self)) == ["/", "/js/main.js"])
        #expect(before["/"]?.body == before["/index.html"]?.body)
        #expect(before["/sw.js"]?.etag != after["/sw.js"]?.etag)

        // The real one: the paths it must never keep are not in it, and it says so.
        let real = String(decoding: WebAppFiles.table["/sw.js"]!.body, as: UTF8.self)
        #expect(!Self.shell(of: real).contains { $0.hasPrefix("/ws") || $0.hasPrefix("/calendar") || $0 == "/healthz" || $0 == "/metrics" })
        #expect(real.contains("const NEVER = [\"/ws\", \"/calendar/\", \"/healthz\", \"/metrics\"]"))
    }
}
