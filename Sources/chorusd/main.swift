import ChorusCore
import ChorusCrypto
import ChorusServer
import ChorusNet
import CLinux
import Foundation

// chorusd: flags, signals and wiring only; the server lives in ChorusServer.

/// A line on standard output. Like the log, it is written by `LogWriter`'s thread: a
/// standard output nobody reads, or one whose reader left, never blocks or kills us.
func say(_ line: String) {
    LogWriter.standardOutput.write(line)
}

/// Writes what is still queued for standard output and error, then exits.
func exitAfterFlushing(_ status: Int32) -> Never {
    LogWriter.standardOutput.flush(timeout: 2)
    LogWriter.standardError.flush(timeout: 2)
    // Skip the atexit teardown of OpenSSL and Foundation: it only costs time, and leak
    // checkers mistake what those libraries still hold at exit for leaks.
    _exit(status)
}

/// How long a shutdown may take before chorusd exits anyway: with the log's flush (up to
/// 2 s each for standard output and error), within the 15 s deploy/*.service give.
let shutdownLimit: TimeInterval = 10

/// The exit status for a store that could not be reached at start: EX_TEMPFAIL, "try
/// again later", which the cluster unit restarts on (CONTRACT §12).
let exitUnreachable: Int32 = 75

/// One line on standard error and exit `status`: 2, a configuration error, unless said.
func fail(_ message: String, status: Int32 = 2) -> Never {
    LogWriter.standardError.write("chorusd: \(message)")
    exitAfterFlushing(status)
}

/// `fail` for a store that would not open: 75 when it was unreachable, else 2.
func fail(opening error: any Error, store: StoreChoice) -> Never {
    let unreachable = (error as? StartupError)?.unreachable ?? false
    fail(store.scrubbed("\(error)"), status: unreachable ? exitUnreachable : 2)
}

// A reader of standard output or error that went away must make writes fail, not kill us.
Sockets.ignoreSIGPIPE()

// Catch the shutdown signals first of all: from here on SIGTERM, SIGINT and SIGHUP
// only write a byte to a pipe, which the main thread reads below.
let signals = clinux_shutdown_signal_pipe()
if signals < 0 {
    fail("cannot catch signals")
}

let action: Flags.Action
do {
    action = try Flags.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    fail(error.message)
}

switch action {
case .help:
    print(Flags.usage)
case .version:
    print("chorusd 0.1")
case .admin(let grant, let name, let store):
    AdminCommand.run(grant: grant, name: name, store: store)
    LogWriter.standardError.flush(timeout: 2)
case .copyToPostgres(let dataDirectory, let store):
    CopyToPostgres.run(dataDirectory: dataDirectory, store: store)
    exitAfterFlushing(0)
case .afterRestore(let store):
    AfterRestore.run(store: store)
    exitAfterFlushing(0)
case .serve(let configuration, let store):
    serve(configuration, store: store)
}

func serve(_ configuration: ServerConfiguration, store: StoreChoice) {
    // Every line of a cluster node says which node wrote it, start-up warnings included.
    if case .postgres = store { Log.setNode(configuration.node ?? "") }
    // First of all: a second chorusd on this folder says only that, and touches nothing.
    // On PostgreSQL nodes share the store on purpose, and the folder holds nothing.
    let folderLock: DataFolderLock
    do {
        if case .sqlite(let folder) = store {
            MovedMarker.refuseIfMoved(folder)
            folderLock = try Server.lockDataFolder(of: configuration)
        } else {
            folderLock = DataFolderLock.none()
        }
    } catch {
        fail("\(error)")
    }
    if configuration.scrypt.logN < 14 {
        Log.warn("cheap password hashes", ["scrypt_log_n": configuration.scrypt.logN, "advice": "use it for tests only"])
    }
    do {
        let outcome = try DefaultCertificate.ensure(certificatePath: configuration.certificatePath,
                                                    keyPath: configuration.keyPath, host: configuration.host)
        switch outcome {
        case .created(let fingerprint, let names):
            say("created a self-signed certificate in \(configuration.certificatePath) for \(names.joined(separator: ", "))")
            say("certificate SHA-256 fingerprint: \(fingerprint)")
        case .existing(let fingerprint, let missing):
            say("certificate SHA-256 fingerprint: \(fingerprint)")
            if !missing.isEmpty {
                let remedy = configuration.certificatePath == DefaultCertificate.certificatePath
                    ? "to make a new self-signed one that does, stop chorusd, delete \(DefaultCertificate.certificatePath) and \(DefaultCertificate.keyPath), and start it again (clients will see a new fingerprint)"
                    : "use a certificate that names them"
                Log.warn("certificate lacks names clients may dial", ["certificate": configuration.certificatePath,
                                                                      "missing": missing.joined(separator: ","), "remedy": remedy])
            }
        }
    } catch {
        fail("\(error)")
    }

    let node = configuration.node ?? ""
    let server: Server
    do {
        // The composition root picks the engine (StoreChoice); PostgreSQL's creates or
        // upgrades its schema here, before the port is bound.
        let timing = try PresenceTimingVariable.timing(environment: ProcessInfo.processInfo.environment)
        let parts = try store.serving(node: node, presence: timing)
        if case .postgres = store { Log.info("cluster node", ["database": store.shown]) }
        server = try Server.start(configuration, store: parts.opener, holding: folderLock, feed: parts.feed,
                                  presence: parts.presence)
    } catch {
        fail(opening: error, store: store)
    }
    // Scripts and tests wait for this line. A cluster node says which it is.
    if case .postgres = store {
        say("chorusd 0.1 node \(node) listening on \(configuration.host):\(server.port)")
    } else {
        say("chorusd 0.1 listening on \(configuration.host):\(server.port)")
    }

    // The main thread has nothing else to do: it waits for SIGTERM or SIGINT.
    var signal: UInt8 = 0
    while true {
        let count = read(signals, &signal, 1)
        guard count == 1 else { continue }
        if Int32(signal) == SIGHUP {
            do {
                guard try server.reloadCertificates() else {
                    Log.info("kept the ACME certificate; looking at the store and the renewal time now", ["signal": "SIGHUP"])
                    continue
                }
                let fingerprint = (try? CertificateFingerprint.sha256(pemFile: configuration.certificatePath)) ?? "?"
                Log.info("certificate reloaded", ["signal": "SIGHUP", "certificate": configuration.certificatePath, "sha256": fingerprint])
            } catch {
                Log.error("kept the old certificate", ["signal": "SIGHUP", "certificate": configuration.certificatePath, "error": error])
            }
            continue
        }
        Log.info("shutting down", ["signal": signal])
        break
    }
    // A send or a database that does not answer must not keep the process: past the
    // limit it exits anyway. What was acknowledged is stored; sends in flight are leased
    // rows another start sends. With its flush, within the units' TimeoutStopSec.
    let shutDownReturned = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        guard shutDownReturned.wait(timeout: .now() + shutdownLimit) == .timedOut else { return }
        Log.warn("shutdown did not finish in time; exiting, what is still in flight abandoned", ["seconds": Int(shutdownLimit)])
        exitAfterFlushing(0)
    }
    server.shutDown()
    shutDownReturned.signal()
    Log.info("stopped cleanly")
    // Sessions, listener and database are closed; the log's last lines go out first.
    exitAfterFlushing(0)
}
