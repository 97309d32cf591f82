import ChorusProtocol
import Foundation

/// One line per thing worth knowing, on standard error, with a UTC time.
/// Never pass passwords or tokens here.
public enum Log {
    public static func info(_ message: String) {
        let line = "\(Timestamp.rfc3339(Date())) chorusd: \(message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
