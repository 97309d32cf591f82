import ChorusNet
import ChorusProtocol
import Foundation

/// One line per thing worth knowing, on standard error, with a UTC time.
/// Never pass passwords or tokens here. `LogWriter` writes it from its own thread: a
/// standard error that is closed or full costs the line (counted in ADMIN STATS), never
/// the server.
public enum Log {
    public static func info(_ message: String) {
        LogWriter.standardError.write("\(Timestamp.rfc3339(Date())) chorusd: \(message)")
    }

    /// Lines that could not be written: the queue was full or the descriptor refused them.
    /// Standard error's log lines and standard output's (the certificate and `listening
    /// on` lines) both count.
    public static var droppedLines: Int {
        LogWriter.standardError.droppedLines + LogWriter.standardOutput.droppedLines
    }
}
