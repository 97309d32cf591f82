import Foundation
import Testing

/// Who may do what in a room: every room, task and chat command for the owner, an admin, a
/// member and an outsider.
@Suite struct PermissionMatrixTests {
    enum Who: String, CaseIterable {
        case owner, admin, member, outsider
    }

    /// One command and the answer each kind of person gets: 200 for OK, else the error code.
    /// Placeholders: {R} the room, {T} an open task created by another member (vic),
    /// {D} a done task of vic's, {MT} a task created by the member (mia), {P} vic's personal
    /// task, {C} an invite code of the room.
    struct Row: CustomStringConvertible {
        let command: String
        let expected: [Who: Int]
        /// When OK changes the room so that the next person would find a different one.
        let mutates: Bool

        init(_ command: String, _ owner: Int, _ admin: Int, _ member: Int, _ outsider: Int, mutates: Bool = false) {
            self.command = command
            self.expected = [.owner: owner, .admin: admin, .member: member, .outsider: outsider]
            self.mutates = mutates
        }

        var description: String { command }
    }

    static let roomMatrix: [Row] = [
        //   command                              owner admin member outsider
        Row("ROOM SHOW {R}",                        200,  200,  200,  404),
        Row("TASKS {R} all",                        200,  200,  200,  404),
        Row("HISTORY {R}",                          200,  200,  200,  404),
        Row("SAY {R} anyone seen my keys?",         200,  200,  200,  404),
        Row("READ {R} 1",                           200,  200,  200,  404),
        Row("TASK ADD {R} \"Buy milk\"",            200,  200,  200,  404),
        Row("TASK SHOW {T}",                        200,  200,  200,  404),
        Row("COMMENT {T} on it",                    200,  200,  200,  404),
        Row("TASK ASSIGN {T} mia",                  200,  200,  200,  404),
        Row("TASK ASSIGN {T} -",                    200,  200,  200,  404),
        Row("TASK ASSIGN {T} otto",                 404,  404,  404,  404),
        Row("TASK PROGRESS {T} 50",                 200,  200,  200,  404),
        Row("TASK DONE {T}",                        200,  200,  200,  404, mutates: true),
        Row("TASK REOPEN {D}",                      200,  200,  200,  404, mutates: true),
        Row("TASK EDIT {T} notes=mine",             200,  200,  403,  404),
        Row("TASK EDIT {MT} notes=mine",            200,  200,  200,  404),
        Row("TASK DELETE {T}",                      200,  200,  403,  404, mutates: true),
        Row("TASK DELETE {MT}",                     200,  200,  200,  404, mutates: true),
        Row("ROOM RENAME {R} The Burrow",           200,  200,  403,  404),
        Row("ROOM ADD {R} nina",                    200,  200,  403,  404, mutates: true),
        Row("ROOM REMOVE {R} vic",                  200,  200,  403,  404, mutates: true),
        Row("ROOM REMOVE {R} olive",                403,  403,  403,  404),
        Row("ROOM ROLE {R} vic admin",              200,  403,  403,  404, mutates: true),
        Row("ROOM INVITE {R} uses=1",               200,  200,  403,  404),
        Row("ROOM INVITES {R}",                     200,  200,  403,  404),
        Row("ROOM UNINVITE {R} {C}",                200,  200,  403,  404, mutates: true),
        Row("ROOM LEAVE {R}",                       403,  200,  200,  404, mutates: true),
        Row("ROOM DELETE {R}",                      200,  403,  403,  404, mutates: true),
    ]

    /// Somebody else's personal task does not exist for anyone, whatever their role in rooms.
    static let personalMatrix: [Row] = [
        //   command                              owner admin member outsider
        Row("TASK SHOW {P}",                        404,  404,  404,  404),
        Row("TASK EDIT {P} notes=mine",             404,  404,  404,  404),
        Row("TASK ASSIGN {P} -",                    404,  404,  404,  404),
        Row("TASK PROGRESS {P} 10",                 404,  404,  404,  404),
        Row("TASK DONE {P}",                        404,  404,  404,  404),
        Row("TASK REOPEN {P}",                      404,  404,  404,  404),
        Row("COMMENT {P} peeking",                  404,  404,  404,  404),
        Row("TASK DELETE {P}",                      404,  404,  404,  404),
        Row("TASK ADD {R} Sub parent={P}",          404,  404,  404,  404),
    ]

    /// The room the table runs against, made afresh after a command that changed it.
    struct Fixture {
        let values: [String: String]
    }

    final class People {
        let server: TestServer
        let olive: Device, adam: Device, mia: Device, otto: Device, vic: Device
        let nina: Device

        init() throws {
            server = try TestServer()
            olive = try server.device("olive", label: "olive (owner)")
            adam = try server.device("adam", label: "adam (admin)")
            mia = try server.device("mia", label: "mia (member)")
            otto = try server.device("otto", label: "otto (outsider)")
            vic = try server.device("vic", label: "vic (member)")
            nina = try server.device("nina")
        }

        func device(_ who: Who) -> Device {
            switch who {
            case .owner: return olive
            case .admin: return adam
            case .member: return mia
            case .outsider: return otto
            }
        }

        /// olive owns the room, adam is its admin, mia and vic are members; otto and nina are not in it.
        func makeFixture() throws -> Fixture {
            let room = id(try olive.ok("ROOM CREATE Flat 2B")["room"])
            try olive.add("adam", to: room)
            try olive.ok("ROOM ROLE \(room) adam admin")
            try olive.add("mia", to: room)
            try olive.add("vic", to: room)
            let code = try olive.ok("ROOM INVITE \(room)")["code"] as? String ?? ""
            let task = id(try vic.ok("TASK ADD \(room) \"Take out trash\"")["task"])
            let done = id(try vic.ok("TASK ADD \(room) \"Descale kettle\"")["task"])
            try vic.ok("TASK DONE \(done)")
            let personal = id(try vic.ok("TASK ADD me \"Call mum\"")["task"])
            let mine = id(try mia.ok("TASK ADD \(room) \"Water plants\"")["task"])
            return Fixture(values: ["{R}": "\(room)", "{T}": "\(task)", "{D}": "\(done)", "{MT}": "\(mine)",
                                    "{P}": "\(personal)", "{C}": code])
        }
    }

    static func fill(_ command: String, _ values: [String: String]) -> String {
        var line = command
        // Longest placeholders first, so {MT} is not read as {T}.
        for (key, value) in values.sorted(by: { $0.key.count > $1.key.count }) {
            line = line.replacingOccurrences(of: key, with: value)
        }
        return line
    }

    /// Ids that exist for nobody, to compare "not yours" with "not there".
    static let ghosts = ["{R}": "987654", "{T}": "987653", "{D}": "987652", "{MT}": "987651", "{P}": "987650"]

    /// Runs the table. For an outsider, and for everyone when `hiddenFromEveryone`, the
    /// 404 must read like the one for the same command with `ghosts` put in.
    func run(_ rows: [Row], hiddenFromEveryone: Bool, ghosts: [String: String]) throws {
        let people = try People()
        var fixture: Fixture?
        for row in rows {
            // Refusals first, so they see the room as it was; the ones allowed to act go last.
            for who in [Who.outsider, .member, .admin, .owner] {
                let current = try fixture ?? people.makeFixture()
                fixture = current
                let device = people.device(who)
                let line = Self.fill(row.command, current.values)
                let answer = try device.failure(line)
                let expected = row.expected[who] ?? -1
                #expect(answer.code == expected, "\(who.rawValue): \(line) → \(answer.code) \(answer.message), expected \(expected)")
                if who == .outsider || hiddenFromEveryone {
                    // "Not yours" must read exactly like "not there".
                    let ghostLine = Self.fill(Self.fill(row.command, ghosts), current.values)
                    let ghost = try device.failure(ghostLine)
                    #expect(ghost.code == 404, "\(who.rawValue): \(ghostLine) → \(ghost)")
                    #expect(shape(answer.message) == shape(ghost.message),
                            "\(who.rawValue): \(line) said \"\(answer.message)\", a missing id says \"\(ghost.message)\"")
                }
                if row.mutates && answer.code == 200 { fixture = nil }
            }
        }
    }

    /// Each room, task and chat command answers the owner, an admin, a member and an outsider as the table says; outsiders learn nothing.
    @Test func roomCommandsByRole() throws {
        try run(Self.roomMatrix, hiddenFromEveryone: false, ghosts: Self.ghosts)
    }

    /// Another person's personal task answers 404 to everyone, word for word like a task that does not exist.
    @Test func personalTasksAreInvisibleToOthers() throws {
        try run(Self.personalMatrix, hiddenFromEveryone: true, ghosts: ["{P}": Self.ghosts["{P}"]!])
    }

    /// The owner cannot leave until handing the room over; the old owner is then an admin and may leave.
    @Test func ownerHandsOverBeforeLeaving() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        try alice.add("bob", to: room)
        #expect(try alice.code("ROOM LEAVE \(room)") == 403)
        #expect(try bob.code("ROOM REMOVE \(room) alice") == 403)
        #expect(try alice.code("ROOM ROLE \(room) alice member") == 403)

        try alice.ok("ROOM ROLE \(room) bob owner")
        let members = object(try bob.ok("ROOM SHOW \(room)")["room"])["members"] as? [JSON] ?? []
        let roles = Dictionary(uniqueKeysWithValues: members.map { ($0["name"] as? String ?? "", $0["role"] as? String ?? "") })
        #expect(roles == ["alice": "admin", "bob": "owner"])
        #expect(object(try alice.ok("ROOM SHOW \(room)")["room"])["role"] as? String == "admin")
        // The old owner lost the owner's powers.
        #expect(try alice.code("ROOM ROLE \(room) bob member") == 403)
        #expect(try alice.code("ROOM DELETE \(room)") == 403)
        #expect(try bob.code("ROOM LEAVE \(room)") == 403)

        try alice.ok("ROOM LEAVE \(room)")
        let rooms = try alice.ok("ROOMS")["rooms"] as? [JSON] ?? []
        #expect(rooms.isEmpty)
        #expect(try alice.code("ROOM SHOW \(room)") == 404)
        let left = object(try bob.ok("ROOM SHOW \(room)")["room"])["members"] as? [JSON] ?? []
        #expect(left.map { $0["name"] as? String } == ["bob"])
    }
}
