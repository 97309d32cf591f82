import ChorusFuzzSupport
import ChorusProtocol

/// libFuzzer entry point: the bytes a client could send go through the line framer the
/// way the server feeds it (chunks of sizes the input's first byte picks; after each,
/// frames taken while `hasCompleteLine`, except every few chunks, as while a command is
/// running), and every line through the request parser and both reply renderers. Any
/// trap is a bug a client could trigger. Only in fuzz builds: the test that replays every
/// corpus links all three targets, which would otherwise each define this symbol.
#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    FuzzInput.run(bytes)
    return 0
}
#endif

enum FuzzInput {
    static let maxLine = 256

    static func run(_ bytes: [UInt8]) {
        var framer = LineFramer(maxLine: maxLine)
        let recipe = Int(bytes.first ?? 0)
        let chunk = recipe % 61 + 1
        let busyEvery = recipe / 61 + 2
        var offset = 0
        var round = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            framer.append(bytes[offset..<end])
            offset = end
            round += 1
            precondition(framer.unfinishedCount <= maxLine + 1, "framer kept too much of an unfinished line")
            if round % busyEvery != 0 { drain(&framer) }
        }
        drain(&framer)
        precondition(framer.bufferedCount == framer.unfinishedCount, "a complete line was left behind")
    }

    /// Takes frames as `Hub.processLines` does: only while `hasCompleteLine` says there is one.
    static func drain(_ framer: inout LineFramer) {
        while framer.hasCompleteLine {
            guard let frame = framer.next() else { preconditionFailure("hasCompleteLine promised a frame") }
            if case .tooLong(let tag?) = frame {
                precondition(!tag.isEmpty && tag.utf8.count <= RequestParser.maxTagLength, "a tag that is not one")
            }
            guard case .line(let line) = frame else { continue }
            precondition(!line.isEmpty && line.count <= maxLine, "an empty line or one over the limit came out")
            precondition(!line.contains(UInt8(ascii: "\n")), "a newline inside a line")
            switch RequestParser.parse(line) {
            case .empty:
                break
            case .failure(let tag, let error):
                _ = Reply.error(error).rendered(mode: .text, tag: tag)
                _ = Reply.error(error).rendered(mode: .json, tag: tag)
            case .request(let request):
                if let help = request.command(as: Command.Help.self) { _ = try? CommandTable.help(topic: help.topic) }
                _ = Reply.ok(request.verb, body: ["OK \(request.verb)"], [("verb", .string(request.verb))])
                    .rendered(mode: .text, tag: request.tag)
            }
        }
        precondition(framer.next() == nil, "next() returned a frame hasCompleteLine did not announce")
    }
}

#if !FUZZING
/// Without libFuzzer (a normal build), replays files given as arguments: the committed
/// corpus and crash reproducers run through the same code as regression checks.
@main
struct ReplayFuzzInputs {
    static func main() {
        FuzzReplay.main(FuzzInput.run)
    }
}
#endif
