import CCurl

/// The message bytes libcurl's read callback hands out during DATA.
final class MailUpload {
    // Safety: made for one transfer and read only by its callback, on the thread running it.
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Copies the next bytes into libcurl's buffer; 0 ends the message.
    static let callback: curl_read_callback = { buffer, size, count, userdata in
        guard let buffer, let userdata else { return 0 }
        let upload = Unmanaged<MailUpload>.fromOpaque(userdata).takeUnretainedValue()
        let length = min(size * count, upload.bytes.count - upload.offset)
        guard length > 0 else { return 0 }
        upload.bytes.withUnsafeBufferPointer { source in
            UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + upload.offset, byteCount: length)
        }
        upload.offset += length
        return length
    }
}
