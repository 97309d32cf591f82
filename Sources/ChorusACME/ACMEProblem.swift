import Foundation

/// A problem document (RFC 7807, RFC 8555 §6.7) an ACME server answers errors with,
/// read just far enough to say what went wrong: type, detail, and the subproblems' details.
struct ACMEProblem: Decodable {
    var type: String?
    var detail: String?
    var status: Int?
    var subproblems: [ACMESubproblem]?

    /// `step`: what we were doing ("new order"). Unreadable bodies still give the status.
    static func error(step: String, status: Int, body: [UInt8]) -> ACMEError {
        guard let problem = try? JSONDecoder().decode(ACMEProblem.self, from: Data(body)) else {
            return ACMEError("\(step): the ACME server answered HTTP \(status)")
        }
        var text = "\(step): \(problem.type ?? "HTTP \(status)")"
        if let detail = problem.detail, !detail.isEmpty { text += ": \(detail)" }
        for sub in problem.subproblems ?? [] {
            text += "; \(sub.identifier?.value ?? "?"): \(sub.detail ?? sub.type ?? "?")"
        }
        return ACMEError(text, problemType: problem.type)
    }
}

struct ACMESubproblem: Decodable {
    var type: String?
    var detail: String?
    var identifier: ACMEIdentifier?
}
