// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "chorus",
    products: [
        .executable(name: "chorusd", targets: ["chorusd"]),
        .executable(name: "chorus", targets: ["chorus"]),
        .executable(name: "chorus-bench", targets: ["chorus-bench"]),
    ],
    targets: [
        // C shims over system libraries.
        .target(name: "CLinux"),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // libcurl for outbound HTTPS; shim.h wraps its variadic setopt/getinfo in typed functions.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // A lock ThreadSanitizer understands, for state shared between threads.
        .target(name: "ChorusLocking"),
        // IP addresses and CIDR blocks: parsed once for every flag and guard that names them.
        .target(name: "ChorusAddresses"),

        // Pure layers.
        .target(name: "ChorusProtocol"),
        .target(name: "ChorusCore", dependencies: ["ChorusProtocol"]),
        // How the domain's records look on the wire: JSON shapes and text lines.
        .target(name: "ChorusRendering", dependencies: ["ChorusCore", "ChorusProtocol"]),
        // The store seam: what the server asks of storage, engine-neutral (no SQL).
        .target(name: "ChorusStore", dependencies: ["ChorusCore", "ChorusLocking"]),
        // SQLite's store, the only target that imports CSQLite; chorusd picks it.
        .target(name: "ChorusSQLite", dependencies: ["CSQLite", "CLinux", "ChorusStore", "ChorusCore", "ChorusLocking"]),
        // A small libpq wrapper (connection, parameterised queries, transactions, SQLSTATE
        // mapping), the only target that imports CPostgres; PostgreSQL's store builds on it.
        .target(name: "ChorusPostgres", dependencies: ["CPostgres", "CLinux", "ChorusStore", "ChorusCore", "ChorusLocking"]),
        .target(name: "ChorusCrypto", dependencies: ["COpenSSL", "ChorusProtocol"]),
        .target(name: "ChorusNet", dependencies: ["CLinux", "COpenSSL", "ChorusLocking", "ChorusAddresses"]),
        // The web door's pure, bounded parts: HTTP/1.1 request heads and responses, the
        // WebSocket handshake, frames both ways (the frame head is ChorusProtocol's, shared
        // with RenderedEvent) and the origins a session may come from. No I/O; fuzzed.
        .target(name: "ChorusWeb", dependencies: ["ChorusProtocol", "ChorusCrypto"]),
        // Outbound HTTPS (push, mail, ACME): libcurl behind a request-forgery guard on the
        // address actually connected to, and a bounded retrying queue on threads of its own;
        // and e-mail (Mail/): the message builder and an SMTP sender over libcurl, with its queue.
        .target(name: "ChorusOutbound", dependencies: ["CCurl", "CLinux", "ChorusLocking", "ChorusAddresses"]),
        // ACME (RFC 8555, RFC 8737): the client that orders certificates over ChorusOutbound,
        // the CSR and tls-alpn-01 certificates, and the renewal rules. Blocking; run on a
        // thread of its own.
        .target(name: "ChorusACME", dependencies: ["ChorusCrypto", "ChorusOutbound", "COpenSSL"]),

        // Wiring.
        // The web app's files (HTML, CSS, JavaScript modules) are a resource folder, shipped
        // next to the binary as chorus_ChorusServer.resources and read once at start.
        .target(name: "ChorusServer", dependencies: [
            "ChorusWeb", "ChorusProtocol", "ChorusCore", "ChorusRendering", "ChorusStore", "ChorusCrypto", "ChorusNet", "ChorusLocking", "CLinux",
            "ChorusOutbound", "ChorusAddresses", "ChorusACME",
        ], resources: [.copy("WebApp")]),
        .target(name: "ChorusClient", dependencies: ["ChorusProtocol", "ChorusCrypto", "ChorusLocking", "COpenSSL", "CLinux"]),
        .executableTarget(name: "chorusd", dependencies: ["ChorusServer", "ChorusAddresses", "ChorusNet", "ChorusStore", "ChorusSQLite", "ChorusPostgres", "ChorusCore", "ChorusCrypto", "ChorusOutbound", "CLinux"]),
        .executableTarget(name: "chorus", dependencies: ["ChorusClient", "ChorusProtocol"]),
        // libFuzzer target for the framer and parser: fuzz/run builds it with
        // --sanitize=fuzzer and -DFUZZING; a normal build replays inputs given as arguments
        // (ChorusFuzzSupport's FuzzReplay, shared by the three fuzz targets).
        .target(name: "ChorusFuzzSupport"),
        .executableTarget(name: "chorus-fuzz", dependencies: ["ChorusProtocol", "ChorusFuzzSupport"]),
        // The same, for the web door's HTTP request parser and WebSocket frame decoder
        // (`fuzz/run http|websocket SECONDS`).
        .executableTarget(name: "chorus-fuzz-http", dependencies: ["ChorusWeb", "ChorusFuzzSupport"]),
        .executableTarget(name: "chorus-fuzz-websocket", dependencies: ["ChorusWeb", "ChorusFuzzSupport"]),
        // The generator shares the cores with the server it measures: run-time exclusivity
        // checks (a third of its Swift time, on every counter it bumps) are left out.
        .executableTarget(name: "chorus-bench", dependencies: ["ChorusNet", "ChorusProtocol", "ChorusCrypto", "COpenSSL", "CLinux"],
                          swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]),

        // What several test targets share: loopback ports outside the ephemeral range, a
        // throwaway PostgreSQL server, a TCP proxy for faults, and chorusd subprocesses.
        .target(name: "ChorusTestSupport", dependencies: ["ChorusPostgres", "ChorusLocking", "ChorusCrypto", "COpenSSL"], path: "Tests/ChorusTestSupport"),

        .testTarget(name: "ChorusProtocolTests", dependencies: ["ChorusProtocol"]),
        .testTarget(name: "ChorusCoreTests", dependencies: ["ChorusCore"]),
        .testTarget(name: "ChorusRenderingTests", dependencies: ["ChorusRendering", "ChorusCore"]),
        // The store's behaviour, written against the protocol and run on every engine.
        .testTarget(name: "ChorusStoreTests", dependencies: ["ChorusStore", "ChorusSQLite", "ChorusPostgres", "ChorusTestSupport", "ChorusCore", "ChorusLocking"]),
        // What only SQLite's store has: migrations, the queue's batching, checkpoints, files.
        .testTarget(name: "ChorusSQLiteTests", dependencies: ["ChorusSQLite", "ChorusStore", "ChorusCore", "ChorusLocking"]),
        // The libpq wrapper against a throwaway PostgreSQL the tests start themselves.
        .testTarget(name: "ChorusPostgresTests", dependencies: ["ChorusPostgres", "ChorusStore", "ChorusCore", "ChorusLocking", "ChorusTestSupport", "CPostgres"]),
        .testTarget(name: "ChorusCryptoTests", dependencies: ["ChorusCrypto"]),
        .testTarget(name: "ChorusWebTests", dependencies: ["ChorusWeb", "ChorusCrypto"]),
        // Every committed seed corpus replayed through its fuzz target's entry in a normal build.
        .testTarget(name: "ChorusFuzzTests", dependencies: ["chorus-fuzz", "chorus-fuzz-http", "chorus-fuzz-websocket", "ChorusFuzzSupport"]),
        // The guard's address rules, the retry arithmetic, and the client and queue against
        // a scripted HTTPS server on loopback; mail against real aiosmtpd servers.
        .testTarget(name: "ChorusOutboundTests", dependencies: ["ChorusOutbound", "ChorusAddresses", "ChorusCrypto", "ChorusLocking", "ChorusTestSupport", "COpenSSL"]),
        // The ACME rules, CSR and challenge certificates on their own, and the client against pebble.
        .testTarget(name: "ChorusACMETests", dependencies: ["ChorusACME", "ChorusAddresses", "ChorusCrypto", "ChorusOutbound", "ChorusTestSupport", "COpenSSL"]),
        .testTarget(name: "ChorusNetTests", dependencies: ["ChorusNet", "ChorusAddresses", "ChorusClient", "ChorusCrypto", "ChorusLocking"]),
        // chorus-bench's own logic (flags, the node list, who talks to which node) and the
        // tool run against a real chorusd.
        .testTarget(name: "ChorusBenchTests", dependencies: ["chorus-bench", "chorusd", "ChorusTestSupport"]),
        .testTarget(name: "ChorusServerTests", dependencies: ["ChorusServer", "ChorusAddresses", "ChorusClient", "ChorusCore", "ChorusCrypto", "ChorusStore", "ChorusSQLite", "ChorusPostgres", "ChorusLocking", "ChorusTestSupport", "ChorusOutbound", "chorusd", "chorus"]),
    ],
    swiftLanguageModes: [.v6]
)
