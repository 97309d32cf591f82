/// Every reason the domain refuses something: one case per message, the catalogue in one
/// place. The domain knows no protocol: ChorusServer's `ChorusError+Domain.swift` gives
/// each case its status code.
public enum DomainError: Error, Equatable, Sendable {
    // Things the caller cannot see: a room or task of others answers as one that is not there.
    case noSuchRoom(String)
    case noSuchTask(Int64)
    case noSuchUser(String)
    case noSuchInvite(String)
    case noSuchInviteInRoom(code: String, room: String)
    case notAMember(user: String, room: String?)
    case noSuchToken(label: String)
    case noSuchPushSubscription(Int64)
    case noInvitation(String)

    // Who you are: signing in and accounts.
    case logInFirst
    case notLoggedIn
    case wrongNameOrPassword
    case invalidToken
    case wrongOldPassword
    case accountGone
    case accountDisabled
    case tooManyFailedLogins(name: String, retryAfter: Int)
    case tooManySignUps(retryAfter: Int)
    case signUpByInviteOnly
    case signUpInviteUnusable(String)
    case tokenMakesNoTokens

    // Who may do what.
    case roleRequired(Role, room: String, action: String)
    case onlyCreatorOrAdmin(task: Int64, room: String?, action: String)
    case personalTaskAssignee
    case removeSelf(room: String)
    case removeOwner(room: String)
    case removeAdmin(room: String)
    case ownerLeaving(room: String, id: Int64)
    case ownerKeepsRole
    case serverAdminRequired
    case disableSelf
    case removedFromRoom(Int64)

    // The state forbids it.
    case ambiguousRoomName(String, ids: [Int64])
    case nameTaken(String)
    case alreadyMember(user: String, room: String)
    case alreadyInRoom(Int64)
    case alreadyHasRole(user: String, role: Role, room: String)
    case alreadyDone(Int64)
    case notDone(Int64)
    case progressOfDoneTask(Int64)
    case progressFromSubtasks(Int64)

    // Values the rules do not allow.
    case badName(String)
    case badPasswordLength(Int)
    case badTokenLabel
    case fieldLength(String, max: Int)
    case fieldNotOneLine(String, character: String)
    case fieldTooLong(String, max: Int)
    case fieldCharacter(String, character: String)
    case fieldBidiControl(String, character: String)
    case badDate(String, accepted: String)
    case ownParent
    case parentInOtherRoom(Int64)
    case parentIsSubtask(Int64)
    case hasSubtasks(Int64)
    case personalRotation
    case twiceInRotation(String)
    case rotationSize
    case expiryInPast(String)
    case blockSelf
    case tooManyOpenInvitations(max: Int)
    case badPushEndpoint
    case badPushKey(String)
    case badPushLabel
    case tooManyPushSubscriptions(max: Int)
    case unknownNoticeKind(String)
    case unknownTimeZone(String)
    case badQuietHours(String)
    case badEmailAddress(String)
    case noEmailAddress
    case noEmailCode
    case wrongEmailCode(triesLeft: Int)
    case mailNotConfigured
    case emailCodeTooSoon(retryAfter: Int)

    /// The one-line reason a person reads.
    public var message: String {
        switch self {
        case .noSuchRoom(let reference): "no such room \(reference)"
        case .noSuchTask(let id): "no such task \(id)"
        case .noSuchUser(let name): "no such user \(name)"
        case .noSuchInvite(let code): "no such invite code \(code) (it may have expired or been used up)"
        case .noSuchInviteInRoom(let code, let room): "no such invite code \(code) for \(room)"
        case .notAMember(let user, let room): "\(user) is not a member of \(room ?? "the room")"
        case .noSuchToken(let label): "no token labelled \(label)"
        case .noSuchPushSubscription(let id): "no push subscription \(id) (PUSH LIST shows yours)"
        case .noInvitation(let reference): "no invitation to room \(reference)"
        case .logInFirst: "log in first: LOGIN NAME PASSWORD, or REGISTER NAME PASSWORD"
        case .notLoggedIn: "not logged in"
        // One answer for an unknown name and a wrong password: names are not probed this way.
        case .wrongNameOrPassword: "wrong name or password"
        case .invalidToken: "invalid token"
        case .wrongOldPassword: "the old password is wrong"
        case .accountGone: "account is gone; log in again"
        case .accountDisabled: "this account is disabled; ask a server admin"
        case .tooManyFailedLogins(let name, let wait): "too many failed logins for \(name); try again in \(wait) s"
        case .tooManySignUps(let wait): "too many new accounts from your address; try again in \(wait) s"
        case .signUpByInviteOnly:
            "this server makes accounts by invitation only: REGISTER NAME PASSWORD invite=CODE, with a code from a room's ROOM INVITE"
        case .signUpInviteUnusable(let code):
            "no such invite code \(code) (it may have expired or been used up); this server makes accounts by invitation only"
        case .roleRequired(let role, let room, let action):
            "only the \(role == .owner ? "owner" : "owner or an admin") of \(room) can \(action)"
        case .onlyCreatorOrAdmin(let task, let room, let action):
            "only the creator of #\(task), or an owner or admin of \(room ?? "the room"), can \(action) it"
        case .personalTaskAssignee: "a personal task can only be assigned to its owner"
        case .removeSelf(let room): "to leave \(room) use ROOM LEAVE"
        case .removeOwner(let room): "nobody removes the owner of \(room)"
        case .removeAdmin(let room): "only the owner of \(room) can remove an admin"
        case .ownerLeaving(let room, let id): "the owner cannot leave \(room): hand it over first with ROOM ROLE \(id) USER owner"
        case .ownerKeepsRole: "the owner keeps the owner role until handing it to someone else"
        case .serverAdminRequired: "only server admins can do that (chorusd admin grant NAME)"
        case .disableSelf: "you cannot disable yourself"
        case .removedFromRoom(let room):
            "you were removed from room #\(room); an invite code will not let you back, but an owner or admin can add you"
        case .ambiguousRoomName(let name, let ids):
            "\(ids.count) rooms are named \(name): use an id (\(ids.map { "#\($0)" }.joined(separator: ", ")))"
        case .nameTaken(let name): "name \(name) is taken"
        case .alreadyMember(let user, let room): "\(user) is already a member of \(room)"
        case .alreadyInRoom(let room): "you are already a member of room #\(room)"
        case .alreadyHasRole(let user, let role, let room): "\(user) is already \(role.rawValue) of \(room)"
        case .alreadyDone(let id): "#\(id) is already done"
        case .notDone(let id): "#\(id) is not done"
        case .progressOfDoneTask(let id): "#\(id) is done; TASK REOPEN \(id) first"
        case .progressFromSubtasks(let id): "the progress of #\(id) comes from its subtasks"
        case .badName(let shown): "a name is 2-32 of a-z 0-9 . _ - (got \(shown))"
        case .badPasswordLength(let count): "a password is 15-1024 bytes (got \(count)); a few words make a good one"
        case .badTokenLabel: "a token label is 1-64 of A-Z a-z 0-9 . _ -"
        case .tokenMakesNoTokens: "a session signed in with a token cannot make tokens: LOGIN with the password to make one"
        case .fieldLength(let what, let max): "\(what) is 1-\(max) characters"
        case .fieldNotOneLine(let what, let character): "\(what) is one line: no \(character) (only notes may hold a newline)"
        case .fieldTooLong(let what, let max): "\(what) is at most \(max) characters"
        case .fieldCharacter(let what, let character): "\(what) may not hold \(character)"
        case .fieldBidiControl(let what, let character):
            "\(what) may not hold the bidirectional control \(character): it could reorder what is shown around it"
        case .badDate(let text, let accepted): "bad date \(text): use \(accepted)"
        case .ownParent: "a task cannot be its own parent"
        case .parentInOtherRoom(let id): "#\(id) is in another room; a subtask lives with its parent"
        case .parentIsSubtask(let id): "#\(id) is itself a subtask; subtasks go one level deep"
        case .hasSubtasks(let id): "#\(id) has subtasks of its own, so it cannot become one"
        case .personalRotation: "a personal task has nobody to rotate with"
        case .twiceInRotation(let name): "\(name) is twice in rotate"
        case .rotationSize: "rotate is 1-50 member names, separated by commas"
        case .expiryInPast(let text): "expires is in the past: \(text)"
        case .blockSelf: "you cannot block yourself"
        case .tooManyOpenInvitations(let max):
            "you have \(max) invitations nobody has answered yet; wait for answers, or withdraw some with ROOM REMOVE R USER"
        case .badPushEndpoint: "a push endpoint is an https URL of at most \(PushRules.endpointLength.upperBound) bytes"
        case .badPushKey(let reason): reason
        case .badPushLabel: "a push label is 1-64 of A-Z a-z 0-9 . _ -"
        case .tooManyPushSubscriptions(let max): "you have \(max) push subscriptions, the most kept; PUSH UNSUBSCRIBE one first"
        case .unknownNoticeKind(let word):
            "no notice kind \(word); kinds are \(NotifyKind.allCases.map(\.rawValue).joined(separator: ","))"
        case .unknownTimeZone(let word): "no time zone \(word); give an Area/City name like Europe/London"
        case .badQuietHours(let word): "quiet hours are HH:MM-HH:MM on a 24-hour clock (22:00-07:00) or off, not \(word)"
        case .badEmailAddress(let word): "\(word) is not an e-mail address"
        case .noEmailAddress: "no proven e-mail address yet: NOTIFY EMAIL ADDRESS sends a code to prove one"
        case .noEmailCode: "no code is waiting, or it expired: NOTIFY EMAIL ADDRESS sends a new one"
        case .wrongEmailCode(let left): "that is not the code (\(left) tr\(left == 1 ? "y" : "ies") left)"
        case .mailNotConfigured: "this server sends no e-mail (it runs without --smtp)"
        case .emailCodeTooSoon(let wait): "a code was just sent; ask for another in \(wait) s"
        }
    }
}
