import CCurl

/// What one transfer's write and header callbacks collect: the final response's headers
/// and the body up to a cap.
final class ResponseSink {
    // Safety: made for one transfer and touched only by the callbacks of that transfer,
    // on the thread running it.
    let maxBodyBytes: Int
    /// Bounds the header lines kept, as the cap bounds the body.
    let maxHeaderBytes = 64 * 1024
    var body: [UInt8] = []
    var headers: [(name: String, value: String)] = []
    var headerBytes = 0
    var overflowed = false

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// Returning less than it was given makes libcurl end the transfer with CURLE_WRITE_ERROR.
    static let bodyCallback: curl_write_callback = { data, size, count, userdata in
        let total = size * count
        guard let data, let userdata else { return total }
        let sink = Unmanaged<ResponseSink>.fromOpaque(userdata).takeUnretainedValue()
        guard sink.body.count + total <= sink.maxBodyBytes else {
            sink.overflowed = true
            return 0
        }
        data.withMemoryRebound(to: UInt8.self, capacity: total) {
            sink.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: total))
        }
        return total
    }

    /// Called once per header line, status lines included.
    static let headerCallback: curl_write_callback = { data, size, count, userdata in
        let total = size * count
        guard let data, let userdata else { return total }
        let sink = Unmanaged<ResponseSink>.fromOpaque(userdata).takeUnretainedValue()
        sink.headerBytes += total
        guard sink.headerBytes <= sink.maxHeaderBytes else {
            sink.overflowed = true
            return 0
        }
        let line = data.withMemoryRebound(to: UInt8.self, capacity: total) {
            String(decoding: UnsafeBufferPointer(start: $0, count: total), as: UTF8.self)
        }
        sink.take(headerLine: line)
        return total
    }

    private func take(headerLine line: String) {
        // A 100 Continue (or any 1xx) comes with its own head; keep only the final one's.
        if line.hasPrefix("HTTP/") {
            headers.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon])
        let value = line[line.index(after: colon)...].trimmed(of: " \t\r\n")
        headers.append((name: name, value: value))
    }
}

extension StringProtocol {
    /// Trim without Foundation: only the listed characters, at both ends.
    func trimmed(of set: String) -> String {
        let characters = Set(set)
        var text = Substring(self)
        while let first = text.first, characters.contains(first) { text = text.dropFirst() }
        while let last = text.last, characters.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
