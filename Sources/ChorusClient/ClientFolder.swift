import Foundation

/// The folder the client keeps its files in (known hosts, where each session stopped):
/// made on first use, 0700, since what it holds is the person's own.
enum ClientFolder {
    /// Makes the folder `path` lives in, when it is missing.
    static func make(holding path: String) throws(ClientFailure) {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw ClientFailure("cannot create \(folder): \(error.localizedDescription)")
        }
    }
}
