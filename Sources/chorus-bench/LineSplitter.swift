import Glibc

/// Cuts the server's byte stream into lines without copying the complete ones: each line
/// is handed over as a view into the read buffer (CR LF removed) and only an unfinished
/// tail is kept for the next read. The generator shares the cores with the server, so
/// every copy it saves is CPU the server gets.
struct LineSplitter {
    private var partial: [UInt8] = []

    /// Calls `each` for every complete line in `bytes`, in order. The view is valid only
    /// during the call.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, _ each: (UnsafeRawBufferPointer) -> Void) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        var start = 0
        let end = bytes.count
        if !partial.isEmpty {
            guard let newline = memchr(base, 0x0A, end) else {
                partial.append(contentsOf: bytes)
                return
            }
            let lineEnd = base.distance(to: UnsafeRawPointer(newline))
            partial.append(contentsOf: UnsafeRawBufferPointer(start: base, count: lineEnd))
            var line = partial
            partial.removeAll(keepingCapacity: true)
            if line.last == 0x0D { line.removeLast() }
            line.withUnsafeBytes { each($0) }
            start = lineEnd + 1
        }
        while start < end {
            guard let newline = memchr(base + start, 0x0A, end - start) else {
                partial.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: end - start))
                return
            }
            var lineEnd = base.distance(to: UnsafeRawPointer(newline))
            let next = lineEnd + 1
            if lineEnd > start && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            if lineEnd > start {
                each(UnsafeRawBufferPointer(start: base + start, count: lineEnd - start))
            }
            start = next
        }
    }
}
