import Foundation

/// One `key=value` of TASK ADD or TASK EDIT with its value read. An empty value clears the
/// field (nil here). What needs the room or the accounts (is USER a member, is T a parent
/// one may use) or the domain's text rules is the handler's to check.
public enum TaskOption: Sendable, Equatable {
    /// nil: nobody (`-` or empty).
    case assign(String?)
    case due(DateWord?)
    case estimate(Double?)
    /// Checked by the domain's field rules; empty clears.
    case notes(String)
    case parent(Int64?)
    /// nil: back to the default weight, 1.
    case points(Int?)
    case remind(DateWord?)
    case `repeat`(RepeatWord?)
    /// The names as given, trimmed; nil clears.
    case rotate([String]?)
    case start(DateWord?)
    case title(String)

    /// The option's key, as typed and as TASK EDIT's event names the changed fields.
    public var key: String {
        switch self {
        case .assign: "assign"
        case .due: "due"
        case .estimate: "estimate"
        case .notes: "notes"
        case .parent: "parent"
        case .points: "points"
        case .remind: "remind"
        case .repeat: "repeat"
        case .rotate: "rotate"
        case .start: "start"
        case .title: "title"
        }
    }

    /// The options of a request, in key order (the order values are checked and applied).
    /// The table has already refused keys its row does not take.
    public static func parse(_ options: [String: String]) throws(ChorusError) -> [TaskOption] {
        var parsed: [TaskOption] = []
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            parsed.append(try TaskOption(key: key, value: value))
        }
        return parsed
    }

    public init(key: String, value: String) throws(ChorusError) {
        let clear = value.isEmpty
        func date() throws(ChorusError) -> DateWord? { clear ? nil : try DateWord(parsing: value) }
        switch key {
        case "assign": self = .assign(clear || value == "-" ? nil : value)
        case "due": self = .due(try date())
        case "start": self = .start(try date())
        case "remind": self = .remind(try date())
        case "estimate":
            guard clear || (Double(value).map { $0 >= 0 && $0 <= 3650 } ?? false) else {
                throw .badEstimate(value)
            }
            self = .estimate(clear ? nil : Double(value))
        case "points":
            guard clear || (Int(value).map { (0...1000).contains($0) } ?? false) else {
                throw .badPoints(value)
            }
            self = .points(clear ? nil : Int(value))
        case "parent":
            let digits = value.hasPrefix("#") ? String(value.dropFirst()) : value
            guard clear || Int64(digits) != nil else { throw .badParent(value) }
            self = .parent(clear ? nil : Int64(digits))
        case "repeat": self = .repeat(clear ? nil : try RepeatWord(parsing: value))
        case "rotate":
            self = .rotate(clear ? nil : value.split(separator: ",", omittingEmptySubsequences: true)
                .map { $0.trimmingCharacters(in: .whitespaces) })
        case "notes": self = .notes(value)
        case "title": self = .title(value)
        default: throw .unknownTaskOption(key)
        }
    }
}
