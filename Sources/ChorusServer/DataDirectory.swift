import Foundation

/// The `--data` folder: created when missing, and checked writable before anything else
/// so the error names the folder instead of a SQLite code.
enum DataDirectory {
    static func prepare(_ path: String) throws {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw StartupError("data folder \(path) is not a folder") }
        } else {
            do {
                try files.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StartupError("cannot create data folder \(path): \(error.localizedDescription)")
            }
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw StartupError("data folder \(path) is not writable")
        }
    }
}
