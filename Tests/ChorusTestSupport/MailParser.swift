import ChorusTestSupport
import Foundation

/// Reads a message back with Python's own `email` package (a parser nobody here wrote)
/// and returns what it made of it: the decoded headers, both bodies, and its defects.
public enum MailParser {
    public struct Parsed {
        public let fields: [String: Any]
        public func string(_ key: String) -> String? { fields[key] as? String }
        public var defects: [String] { fields["defects"] as? [String] ?? ["(none reported)"] }
        public var headerNames: [String] { fields["header_names"] as? [String] ?? [] }
    }

    /// Python is there; under CI=true the tests run regardless and fail without it.
    public static let isUsable = ProcessInfo.processInfo.environment["CI"] == "true"
        || FileManager.default.isExecutableFile(atPath: LocalSMTPServer.python)

    public static let script = #"""
import email, email.policy, email.utils, json, sys
data = open(sys.argv[1], "rb").read()
message = email.message_from_bytes(data, policy=email.policy.default)
out = {}
for name in ["From", "To", "Subject", "Message-ID", "MIME-Version", "List-Unsubscribe", "List-Unsubscribe-Post", "Auto-Submitted"]:
    if message[name] is not None:
        out[name] = str(message[name])
sender = message["From"].addresses[0]
out["from_name"] = sender.display_name
out["from_address"] = sender.addr_spec
out["to_address"] = message["To"].addresses[0].addr_spec
out["date"] = email.utils.parsedate_to_datetime(message["Date"]).isoformat()
out["content_type"] = message.get_content_type()
out["parts"] = [part.get_content_type() for part in message.iter_parts()]
# The wire's CRLF line endings, as Python keeps them, made "\n" for comparing.
out["plain"] = message.get_body(("plain",)).get_content().replace("\r\n", "\n")
out["html"] = message.get_body(("html",)).get_content().replace("\r\n", "\n")
out["defects"] = [repr(d) for part in message.walk() for d in part.defects]
out["header_names"] = list(message.keys())
print(json.dumps(out))
"""#

    public static func parse(_ message: [UInt8]) throws -> Parsed {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/message.eml"
        try Data(message).write(to: URL(fileURLWithPath: path))
        return try parse(file: path)
    }

    public static func parse(file path: String) throws -> Parsed {
        let result = try run([LocalSMTPServer.python, "-c", script, path])
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else {
            throw ParseFailure(description: "Python's email parser failed: \(result.output)")
        }
        return Parsed(fields: object)
    }

    /// Runs a program to its end; its exit status and what it wrote (stdout and stderr).
    public static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try ToolRun.run(arguments)
    }

    public struct ParseFailure: Error, CustomStringConvertible {
        public let description: String
    }
}
