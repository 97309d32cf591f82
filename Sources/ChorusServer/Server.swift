import CLinux
import ChorusCore
import ChorusCrypto
import ChorusNet
import ChorusStore
import Dispatch
import Foundation
import ChorusLocking

/// A running Chorus server: the database queue, the hashing pool, one event loop thread
/// with its listener and sessions. `start` fails with a `StartupError` naming the problem;
/// `shutDown` stops it the way SIGTERM should.
public final class Server: Sendable {
    public let port: Int
    public let configuration: ServerConfiguration
    private let loop: EventLoop
    private let hub: LoopBound<Hub>
    private let database: DatabaseQueue
    private let pool: WorkerPool
    private let loopFinished = DispatchSemaphore(value: 0)

    public static func start(_ configuration: ServerConfiguration, clock: any Clock = SystemClock()) throws -> Server {
        try Server(configuration, clock: clock)
    }

    private init(_ configuration: ServerConfiguration, clock: any Clock) throws {
        self.configuration = configuration
        Sockets.ignoreSIGPIPE()
        Sockets.raiseOpenFileLimit()

        try DataDirectory.prepare(configuration.dataDirectory)
        do {
            let pageLimit = configuration.databasePageLimit
            database = try DatabaseQueue(path: configuration.databasePath) { db in
                if let pageLimit { try db.execute("PRAGMA max_page_count = \(pageLimit)") }
            }
        } catch {
            throw StartupError("cannot open database \(configuration.databasePath): \(error)")
        }
        let tls: TLSServerContext
        do {
            tls = try TLSServerContext(certificatePath: configuration.certificatePath, keyPath: configuration.keyPath)
        } catch {
            database.close()
            throw StartupError("\(error)")
        }
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
        pool = WorkerPool(threads: workers, maxPending: configuration.maxPendingHashes, name: "chorus-hash")
        let accounts: AccountService
        do {
            accounts = try AccountService(database: database, hasher: PasswordHasher(parameters: configuration.scrypt),
                                          pool: pool, clock: clock)
        } catch {
            database.close()
            pool.stop()
            throw StartupError("cannot hash passwords: \(error)")
        }

        loop = try EventLoop()
        let hubObject = Hub(loop: loop, configuration: configuration, accounts: accounts, database: database, clock: clock)
        hub = LoopBound(hubObject, loop: loop)
        let listener: Listener
        do {
            listener = try Listener(host: configuration.host, port: configuration.port, loop: loop, tls: tls,
                                    maxQueuedBytes: configuration.sendQueueBytes) { [unowned hubObject] connection in
                hubObject.accept(connection)
            }
        } catch {
            database.close()
            pool.stop()
            throw StartupError("\(error)")
        }
        port = listener.port

        let started = DispatchSemaphore(value: 0)
        let registration = LoopBound(listener, loop: loop)
        let startError = StartErrorBox()
        loop.execute { [hub] in
            do {
                try registration.value.start()
                hub.value.listener = registration.value
            } catch {
                startError.set("cannot watch the listening socket: \(error)")
            }
            started.signal()
        }
        let finished = loopFinished
        let runningLoop = loop
        let thread = Thread {
            clinux_set_thread_name("chorus-loop")
            runningLoop.run()
            finished.signal()
        }
        thread.name = "chorus-loop"
        thread.start()
        started.wait()
        if let message = startError.get() {
            loop.stop()
            database.close()
            pool.stop()
            throw StartupError(message)
        }
        // Whatever came due while the server was down goes out now.
        checkNotices()
    }

    /// Reads the certificate and key again (SIGHUP): new connections use them, open
    /// sessions keep going. On failure the old pair stays and the error is thrown.
    public func reloadCertificates() throws {
        let context: TLSServerContext
        do {
            context = try TLSServerContext(certificatePath: configuration.certificatePath, keyPath: configuration.keyPath)
        } catch {
            throw StartupError("\(error)")
        }
        let done = DispatchSemaphore(value: 0)
        loop.execute { [hub] in
            hub.value.listener?.replaceTLS(context)
            done.signal()
        }
        done.wait()
    }

    /// Sends the notices owed at the clock's present time. The scheduler's timer does this
    /// by itself; tests that move a manual clock call it to skip the wait.
    public func checkNotices() {
        loop.execute { [hub] in hub.value.checkNotices() }
    }

    /// Stops accepting, says `bye`, lets commands in flight answer, closes every session
    /// and the database. Blocks until done; safe to call more than once.
    public func shutDown() {
        let done = DispatchSemaphore(value: 0)
        loop.execute { [hub] in
            hub.value.shutDown { done.signal() }
        }
        done.wait()
        loop.stop()
        loopFinished.wait()
        loopFinished.signal()
        database.close()
        pool.stop()
    }
}

/// Why the server could not start: one line for standard error (exit status 2).
public struct StartupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A message handed from the loop thread to the starting thread.
private final class StartErrorBox: Sendable {
    private let message = Locked<String?>(nil)
    func set(_ text: String) { message.withLock { $0 = text } }
    func get() -> String? { message.withLock { $0 } }
}
