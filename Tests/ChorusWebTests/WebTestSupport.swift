import ChorusWeb

/// The bytes of a string, for building wire input.
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// Everything an `HTTPRequestParser` gives for `input` appended in pieces of the sizes in
/// `chunks` (the rest in one piece), taking requests after every append.
func parseHTTP(_ input: [UInt8], chunks: [Int] = [], maxHead: Int = HTTPRequestParser.maxHeadBytes,
               maxBody: Int = HTTPRequestParser.maxBodyBytes) -> [HTTPParse] {
    var parser = HTTPRequestParser(maxHeadBytes: maxHead, maxBodyBytes: maxBody)
    var outputs: [HTTPParse] = []
    for piece in pieces(input, chunks) {
        parser.append(piece)
        while let output = parser.next() { outputs.append(output) }
    }
    return outputs
}

/// `input` cut after each size in `chunks`, the rest as the last piece.
func pieces(_ input: [UInt8], _ chunks: [Int]) -> [ArraySlice<UInt8>] {
    var result: [ArraySlice<UInt8>] = []
    var offset = 0
    for size in chunks where offset < input.count {
        let end = min(input.count, offset + size)
        result.append(input[offset..<end])
        offset = end
    }
    if offset < input.count { result.append(input[offset...]) }
    return result
}

/// The only output of a one-request input, when it is a request.
func onlyRequest(_ text: String) -> (head: HTTPRequestHead, body: [UInt8])? {
    let outputs = parseHTTP(bytes(text))
    guard outputs.count == 1, case .request(let head, let body) = outputs[0] else { return nil }
    return (head, body)
}

/// The status of the refusal a one-request input earns, nil when it earns none.
func refusalStatus(_ text: String, maxHead: Int = HTTPRequestParser.maxHeadBytes, maxBody: Int = HTTPRequestParser.maxBodyBytes) -> Int? {
    for output in parseHTTP(bytes(text), maxHead: maxHead, maxBody: maxBody) {
        if case .refusal(let refusal) = output { return refusal.status }
    }
    return nil
}

/// A client's frame: masked with `key` unless `masked` is false; `lengthBytes` forces the
/// 16- or 64-bit length form (0 picks the shortest).
func clientFrame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true,
                 key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D], lengthBytes: Int = 0) -> [UInt8] {
    var frame: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
    let maskBit: UInt8 = masked ? 0x80 : 0
    let form = lengthBytes != 0 ? lengthBytes : payload.count < 126 ? 0 : payload.count <= 0xFFFF ? 2 : 8
    switch form {
    case 0:
        frame.append(maskBit | UInt8(payload.count))
    case 2:
        frame.append(maskBit | 126)
        frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    default:
        frame.append(maskBit | 127)
        for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
    }
    guard masked else { return frame + payload }
    frame += key
    for (index, byte) in payload.enumerated() { frame.append(byte ^ key[index % 4]) }
    return frame
}

/// A client's close frame with `code` and `reason`.
func clientClose(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
    clientFrame(8, [UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
}

/// Everything a `WebSocketFrameDecoder` gives for `input` appended in pieces of the sizes
/// in `chunks` (the rest in one piece), taking inputs after every append.
func decodeFrames(_ input: [UInt8], maxMessage: Int = 4096, chunks: [Int] = []) -> [WebSocketInput] {
    var decoder = WebSocketFrameDecoder(maxMessageBytes: maxMessage)
    var outputs: [WebSocketInput] = []
    for piece in pieces(input, chunks) {
        decoder.append(piece)
        while let output = decoder.next() { outputs.append(output) }
    }
    return outputs
}

/// One-byte pieces covering `count` bytes.
func everyByte(_ count: Int) -> [Int] {
    Array(repeating: 1, count: count)
}
