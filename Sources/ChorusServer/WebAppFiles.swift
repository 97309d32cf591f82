import ChorusCrypto
import ChorusWeb
import Foundation

/// The web app (`Sources/ChorusServer/WebApp`, shipped as the SwiftPM resource folder
/// `chorus_ChorusServer.resources` next to the binary), read once at start into memory,
/// plus the icons drawn here. Only what was read exists: an unknown path is nil (404),
/// and no request path ever reaches the file system, so `..` leads nowhere.
enum WebAppFiles {
    /// The folder the app's files are read from, and the table, made on first use
    /// (`Server` touches it at start).
    static let table: [String: WebAppFile] = load()

    /// The answer to a GET or HEAD of `path`, nil when there is no such file.
    static func response(for path: String, ifNoneMatch: [String]) -> HTTPResponse? {
        table[path].map { $0.response(ifNoneMatch: ifNoneMatch) }
    }

    /// The app's version: a digest of every file. The service worker carries it, so a new
    /// version of any file is a new worker, which fetches the new shell and drops the old.
    static let markers = (version: "\"__CHORUS_VERSION__\"", shell: "[\"__CHORUS_SHELL__\"]")

    static func load() -> [String: WebAppFile] {
        var files: [String: [UInt8]] = [:]
        if let folder = folder() {
            files = read(folder)
        } else {
            Log.warn("web app files not found: GET / serves a page that says so",
                     ["looked_in": candidates().joined(separator: ",")])
            files["/index.html"] = Array(missingPage.utf8)
        }
        files["/icon-192.png"] = WebAppIcon.png(size: 192)
        files["/icon-512.png"] = WebAppIcon.png(size: 512)
        files["/icon-maskable-512.png"] = WebAppIcon.png(size: 512, maskable: true)
        return assemble(files)
    }

    /// The served table from the files' bytes by path: `/` is `index.html`, and the
    /// service worker learns the version and the shell it caches.
    static func assemble(_ files: [String: [UInt8]]) -> [String: WebAppFile] {
        var files = files
        let paths = files.keys.sorted()
        var everything: [UInt8] = []
        for path in paths {
            everything += Array(path.utf8) + [0] + Digest.sha256(files[path]!)
        }
        let version = String(Digest.sha256Hex(everything).prefix(16))
        if let worker = files["/sw.js"] {
            let shell = ["/"] + paths.filter { $0 != "/sw.js" && $0 != "/index.html" }
            let list = "[" + shell.map { "\"\($0)\"" }.joined(separator: ",") + "]"
            files["/sw.js"] = Array(String(decoding: worker, as: UTF8.self)
                .replacingOccurrences(of: markers.version, with: "\"\(version)\"")
                .replacingOccurrences(of: markers.shell, with: list).utf8)
        }
        var table: [String: WebAppFile] = [:]
        for (path, body) in files {
            table[path] = WebAppFile(body: body, contentType: WebAppFile.contentType(forName: path))
        }
        if let page = table["/index.html"] { table["/"] = page }
        return table
    }

    /// Every regular file under `folder`, by its path from there (`/js/main.js`). Names
    /// starting with a dot are left out.
    static func read(_ folder: String) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return files }
        while let relative = walker.nextObject() as? String {
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { continue }
            var isFolder: ObjCBool = false
            let full = folder + "/" + relative
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue,
                  let data = FileManager.default.contents(atPath: full) else { continue }
            files["/" + relative] = Array(data)
        }
        return files
    }

    /// Where SwiftPM puts the resource folder: next to the executable (`swift build`,
    /// `swift run`, the test runner, and an install that copies the folder beside the
    /// binary). Looked up by hand rather than with `Bundle.module`, which stops the
    /// process when the folder is missing.
    static func candidates() -> [String] {
        var places = [Bundle.main.bundleURL.path]
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            places.append((executable as NSString).deletingLastPathComponent)
        }
        return places.map { $0 + "/chorus_ChorusServer.resources/WebApp" }
    }

    static func folder() -> String? {
        candidates().first { FileManager.default.fileExists(atPath: $0 + "/index.html") }
    }

    /// What `/` says when the folder was not shipped with the binary.
    static let missingPage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Chorus</title></head>
        <body><h1>Chorus</h1><p>The web app's files were not installed next to chorusd
        (the folder chorus_ChorusServer.resources). The <code>chorus</code> client and bots work as usual.</p></body></html>

        """
}
