import ChorusProtocol
#if canImport(Glibc)
import Glibc
#endif

/// libFuzzer entry point: the bytes a client could send go through the line framer (in
/// two pieces, split where the input says) and every complete line through the request
/// parser and both reply renderers. Any trap is a bug a client could trigger.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    FuzzInput.run(bytes)
    return 0
}

enum FuzzInput {
    static func run(_ bytes: [UInt8]) {
        var framer = LineFramer(maxLine: 256)
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        framer.append(bytes[..<split])
        drain(&framer)
        framer.append(bytes[split...])
        drain(&framer)
        precondition(framer.bufferedCount <= 256 + 1 + bytes.count, "framer kept too much")
    }

    static func drain(_ framer: inout LineFramer) {
        while let frame = framer.next() {
            guard case .line(let line) = frame else { continue }
            precondition(line.count <= 256, "a line over the limit came out")
            switch RequestParser.parse(line) {
            case .empty:
                break
            case .failure(let tag, let error):
                _ = Reply.error(error).rendered(mode: .text, tag: tag)
                _ = Reply.error(error).rendered(mode: .json, tag: tag)
            case .request(let request):
                if case .help(let topic) = request.command { _ = try? CommandTable.help(topic: topic) }
                _ = Reply.ok(request.verb, body: ["OK \(request.verb)"], [("verb", .string(request.verb))])
                    .rendered(mode: .text, tag: request.tag)
            }
        }
    }
}

#if !FUZZING
/// Without libFuzzer (a normal build), replays files given as arguments: the committed
/// corpus and crash reproducers run through the same code as regression checks.
@main
struct ReplayFuzzInputs {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let file = fopen(path, "rb") else { continue }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = fread(&buffer, 1, buffer.count, file)
                if count <= 0 { break }
                bytes.append(contentsOf: buffer[..<count])
            }
            fclose(file)
            FuzzInput.run(bytes)
        }
        print("replayed \(CommandLine.arguments.count - 1) inputs")
    }
}
#endif
