/// Cuts HTTP/1.1 requests out of a connection's bytes: each head (request line, header
/// fields, blank line) and then exactly Content-Length bytes of body. Bounded: it holds at
/// most one unfinished head (`maxHeadBytes`) or one unfinished body (`maxBodyBytes`), plus
/// whatever one `append` brought, when `next()` is called after every append until nil.
/// Pipelined requests come out one by one, in order, however the bytes were split.
public struct HTTPRequestParser {
    public static let maxHeadBytes = 16 * 1024
    public static let maxBodyBytes = 64 * 1024
    /// More header fields than this is a 431, whatever their size.
    public static let maxHeaderCount = 100
    public static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"]

    public let headLimit: Int
    public let bodyLimit: Int

    private var buffer: [UInt8] = []
    /// The first byte of `buffer` not yet taken.
    private var start = 0
    /// How many bytes after `start` were already searched for the blank line, so a head
    /// that arrives a byte at a time is scanned once, not once per byte.
    private var scanned = 0
    /// Empty lines skipped before this head (RFC 9112 §2.2); they count towards its limit.
    private var skipped = 0
    /// A head whose body has not all arrived.
    private var waitingHead: HTTPRequestHead?
    /// Set by the first refusal; the parser takes no more bytes after it.
    public private(set) var refusal: HTTPRefusal?

    public init(maxHeadBytes: Int = maxHeadBytes, maxBodyBytes: Int = maxBodyBytes) {
        headLimit = maxHeadBytes
        bodyLimit = maxBodyBytes
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard refusal == nil else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard refusal == nil else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Bytes held: an unfinished head or body, and anything after it not yet parsed.
    public var bufferedCount: Int {
        buffer.count - start
    }

    /// What follows the last request taken, handed over whole: after a WebSocket upgrade
    /// the connection's bytes are frames, which the client may have sent right behind it.
    public mutating func takeBuffered() -> [UInt8] {
        let rest = Array(buffer[start...])
        buffer = []
        start = 0
        scanned = 0
        return rest
    }

    /// Whether some of a next request has arrived (a head begun, or a body awaited); empty
    /// lines between requests do not count. The server times a slow head from here.
    public var hasStartedRequest: Bool {
        if refusal != nil { return false }
        if waitingHead != nil { return true }
        return buffer[start...].contains { $0 != HTTPSyntax.cr && $0 != HTTPSyntax.lf }
    }

    /// The next complete request (head and its Content-Length body), a refusal, or nil when
    /// more bytes are needed. A refusal is returned once; after it the parser is finished
    /// (`refusal` keeps it) and every call returns nil: the server answers it and closes.
    public mutating func next() -> HTTPParse? {
        // The refusal was returned when it was made; a finished parser has nothing more.
        if refusal != nil { return nil }
        if waitingHead == nil {
            switch nextHead() {
            case nil:
                return nil
            case .failure(let refused)?:
                return refuse(refused)
            case .success(let head)?:
                waitingHead = head
            }
        }
        guard let head = waitingHead, bufferedCount >= head.contentLength else { return nil }
        let body = Array(buffer[start..<(start + head.contentLength)])
        start += head.contentLength
        waitingHead = nil
        skipped = 0
        scanned = 0
        return .request(head, body: body)
    }

    /// Skips empty lines, then finds the blank line that ends the head and parses the head
    /// before it; nil while the blank line has not arrived.
    private mutating func nextHead() -> Result<HTTPRequestHead, HTTPRefusal>? {
        while start < buffer.count, buffer[start] == HTTPSyntax.cr || buffer[start] == HTTPSyntax.lf {
            // Past the limit whatever this byte turns out to be: decided before looking at
            // the next one, as it would be had the bytes come one by one, so the refusal
            // never depends on how the bytes were cut.
            guard skipped < headLimit else { return .failure(Self.headTooLarge) }
            if buffer[start] == HTTPSyntax.cr {
                guard start + 1 < buffer.count else { break }
                guard buffer[start + 1] == HTTPSyntax.lf else { return .failure(.badRequest("CR without LF")) }
                start += 2
                skipped += 2
            } else {
                start += 1
                skipped += 1
            }
            scanned = 0
        }
        // Only the bytes a head within the limit could span are looked at: the same bytes
        // decide the same way however many have arrived beyond them.
        let window = min(buffer.count, start + headLimit - skipped)
        var index = start + scanned
        while index < window {
            // A CR must be followed by LF: refused as soon as it is not, or a head that
            // can never be valid would be waited for until it passes the size limit.
            if buffer[index] != HTTPSyntax.lf && index > start && buffer[index - 1] == HTTPSyntax.cr {
                return .failure(.badRequest("CR without LF"))
            }
            if buffer[index] == HTTPSyntax.lf && endsEmptyLine(at: index) {
                let end = index + 1
                let parsed = HTTPHeadParser.parse(buffer[start..<end], maxBodyBytes: bodyLimit)
                start = end
                return parsed
            }
            index += 1
        }
        scanned = index - start
        if bufferedCount + skipped > headLimit { return .failure(Self.headTooLarge) }
        return nil
    }

    /// Whether the LF at `index` ends an empty line: the line ending before it is right
    /// before it, bare (LF LF) or with its CR (LF CR LF). The head's first line is never
    /// empty, since leading empty lines were skipped.
    private func endsEmptyLine(at index: Int) -> Bool {
        if index - 1 >= start && buffer[index - 1] == HTTPSyntax.lf { return true }
        return index - 2 >= start && buffer[index - 1] == HTTPSyntax.cr && buffer[index - 2] == HTTPSyntax.lf
    }

    private mutating func refuse(_ refused: HTTPRefusal) -> HTTPParse {
        refusal = refused
        waitingHead = nil
        buffer = []
        start = 0
        return .refusal(refused)
    }

    /// Drops taken bytes before an append: at once when all are taken, else once they are
    /// most of the buffer, so the copying stays linear in what arrives.
    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 4 * headLimit)
            start = 0
        } else if start >= 4096 && start * 2 >= buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }

    static let headTooLarge = HTTPRefusal(status: 431, reason: "request head too large")
}
