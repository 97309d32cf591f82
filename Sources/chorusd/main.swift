import ChorusCore
import ChorusCrypto
import ChorusServer
import ChorusStore
import CLinux
import Foundation

// chorusd: flags, signals and wiring only; the server lives in ChorusServer.

/// A line on standard output, unbuffered.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("chorusd: \(message)\n".utf8))
    exit(2)
}

// Catch the shutdown signals first of all: from here on SIGTERM, SIGINT and SIGHUP
// only write a byte to a pipe, which the main thread reads below.
let signals = clinux_shutdown_signal_pipe()
if signals < 0 {
    FileHandle.standardError.write(Data("chorusd: cannot catch signals\n".utf8))
    exit(2)
}

let action: Flags.Action
do {
    action = try Flags.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail(error.message)
}

switch action {
case .help:
    print(Flags.usage)
case .version:
    print("chorusd 0.1")
case .admin(let grant, let name, let dataDirectory):
    AdminCommand.run(grant: grant, name: name, dataDirectory: dataDirectory)
case .serve(let configuration):
    serve(configuration)
}

func serve(_ configuration: ServerConfiguration) {
    if configuration.scrypt.logN < 14 {
        Log.info("warning: --scrypt-log-n \(configuration.scrypt.logN) makes password hashes cheap to crack; use it for tests only")
    }
    do {
        switch try DefaultCertificate.ensure(certificatePath: configuration.certificatePath, keyPath: configuration.keyPath) {
        case .created(let fingerprint):
            say("created a self-signed certificate in \(configuration.certificatePath) for localhost and 127.0.0.1")
            say("certificate SHA-256 fingerprint: \(fingerprint)")
        case .existing(let fingerprint):
            say("certificate SHA-256 fingerprint: \(fingerprint)")
        }
    } catch {
        fail("\(error)")
    }

    let server: Server
    do {
        server = try Server.start(configuration)
    } catch {
        fail("\(error)")
    }
    // Scripts and tests wait for this line; write it straight to the descriptor so no
    // buffering holds it back.
    FileHandle.standardOutput.write(Data("chorusd 0.1 listening on \(configuration.host):\(server.port)\n".utf8))

    // The main thread has nothing else to do: it waits for SIGTERM or SIGINT.
    var signal: UInt8 = 0
    while true {
        let count = read(signals, &signal, 1)
        guard count == 1 else { continue }
        if Int32(signal) == SIGHUP {
            do {
                try server.reloadCertificates()
                let fingerprint = (try? CertificateFingerprint.sha256(pemFile: configuration.certificatePath)) ?? "?"
                Log.info("SIGHUP: reloaded \(configuration.certificatePath) (SHA-256 \(fingerprint)); open sessions keep going")
            } catch {
                Log.info("SIGHUP: kept the old certificate: \(error)")
            }
            continue
        }
        Log.info("signal \(signal): shutting down")
        break
    }
    server.shutDown()
    Log.info("stopped cleanly")
    // Sessions, listener and database are closed and every line is written (standard
    // output and error are unbuffered here). Leave without the atexit teardown of
    // OpenSSL and Foundation: it only costs time, and leak checkers mistake what those
    // libraries still hold at exit for leaks.
    _exit(0)
}
