/// Follows one PostgreSQL connection's two byte streams as a proxy passes them on, so the
/// proxy can drop whole messages from the server (NotificationResponse, `A`) and tell
/// which connection is which (the StartupMessage's `application_name`).
///
/// The client starts with packets that have no type byte (length, then a code):
/// SSLRequest and GSSENCRequest are answered by the server with one bare byte (`S`/`G`
/// to go encrypted, after which nothing can be read, or `N`); the StartupMessage begins
/// the typed exchange. From the server, every message after those bare bytes is a type
/// byte and an Int32 length that counts itself but not the type.
struct PostgresStreamFilter {
    private static let sslRequest: UInt32 = 80_877_103
    private static let gssRequest: UInt32 = 80_877_104

    /// Bytes of the client's startup packets not yet complete.
    private var startup: [UInt8] = []
    private var clientTyped = false
    /// The `application_name` the client's StartupMessage gave, once it has passed.
    private(set) var applicationName: String?
    /// Bare answers the server owes to SSL/GSS requests, in order.
    private var bareAnswersOwed = 0
    /// Encrypted, or bytes that did not parse: passed on untouched from then on.
    private var opaque = false
    /// The server message being passed: its header so far, the body bytes left, and
    /// whether it is being dropped.
    private var header: [UInt8] = []
    private var bodyLeft = 0
    private var dropping = false

    /// Looks at bytes from the client; they are always passed on unchanged.
    mutating func fromClient(_ bytes: ArraySlice<UInt8>) {
        guard !clientTyped, !opaque else { return }
        startup += bytes
        while startup.count >= 8 {
            let length = Int(Self.int32(startup, at: 0))
            guard length >= 8, length <= 10_000 else {
                opaque = true
                return
            }
            guard startup.count >= length else { return }
            let code = Self.int32(startup, at: 4)
            let packet = Array(startup.prefix(length))
            startup.removeFirst(length)
            if code == Self.sslRequest || code == Self.gssRequest {
                bareAnswersOwed += 1
            } else {
                // The StartupMessage (or a CancelRequest, which ends the connection).
                applicationName = Self.parameter("application_name", inStartup: packet)
                clientTyped = true
                startup = []
                return
            }
        }
    }

    /// Bytes from the server, less the messages `drop` names (by type byte), to pass on.
    mutating func fromServer(_ bytes: ArraySlice<UInt8>, drop: (UInt8) -> Bool) -> [UInt8] {
        if opaque { return Array(bytes) }
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if opaque {
                kept += bytes[index...]
                break
            }
            if bodyLeft > 0 {
                let take = min(bodyLeft, bytes.endIndex - index)
                if !dropping { kept += bytes[index..<(index + take)] }
                bodyLeft -= take
                index += take
                continue
            }
            if header.isEmpty, bareAnswersOwed > 0 {
                let answer = bytes[index]
                if answer == UInt8(ascii: "S") || answer == UInt8(ascii: "G") || answer == UInt8(ascii: "N") {
                    bareAnswersOwed -= 1
                    if answer != UInt8(ascii: "N") { opaque = true }
                    kept.append(answer)
                    index += 1
                    continue
                }
                // An old server answers with an ErrorResponse: a typed message after all.
                bareAnswersOwed = 0
            }
            header.append(bytes[index])
            index += 1
            guard header.count == 5 else { continue }
            let length = Int(Self.int32(header, at: 1))
            guard length >= 4 else {
                kept += header
                header = []
                opaque = true
                continue
            }
            dropping = drop(header[0])
            if !dropping { kept += header }
            bodyLeft = length - 4
            header = []
        }
        return kept
    }

    /// A parameter of a StartupMessage: after the length and the protocol version come
    /// NUL-terminated names and values, ended by an empty name.
    private static func parameter(_ name: String, inStartup packet: [UInt8]) -> String? {
        let fields = packet.dropFirst(8).split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        var index = 0
        while index + 1 < fields.count, !fields[index].isEmpty {
            if fields[index] == name { return fields[index + 1] }
            index += 2
        }
        return nil
    }

    private static func int32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
