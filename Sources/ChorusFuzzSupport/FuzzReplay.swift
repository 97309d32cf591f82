#if canImport(Glibc)
import Glibc
#endif

/// What the fuzz targets do in a normal build (no libFuzzer): run the files named on the
/// command line through the same entry, so the committed corpus and crash reproducers
/// stay regression checks. The tests read the corpus with `bytes(ofFile:)` too.
public enum FuzzReplay {
    /// Runs every file named in the arguments through `entry` and says how many it ran.
    public static func main(_ entry: ([UInt8]) -> Void) {
        var replayed = 0
        for path in CommandLine.arguments.dropFirst() {
            guard let bytes = bytes(ofFile: path) else {
                print("cannot read \(path)")
                exit(1)
            }
            entry(bytes)
            replayed += 1
        }
        print("replayed \(replayed) inputs")
    }

    /// The whole content of the file at `path`, nil when it cannot be opened.
    public static func bytes(ofFile path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[..<count])
        }
        return bytes
    }
}
