import ChorusCore
import ChorusProtocol
import Testing
@testable import ChorusServer

/// The one mapping from the domain's refusals to status codes: outsiders get 404, rights
/// 403, state 409, values 422, and the message travels unchanged.
@Suite struct DomainErrorCodeTests {
    @Test func eachKindOfRefusalHasItsCode() {
        let cases: [(DomainError, Int)] = [
            (.noSuchRoom("#3"), 404), (.noSuchTask(4), 404), (.noSuchUser("zed"), 404), (.noSuchInvite("X"), 404),
            (.noSuchInviteInRoom(code: "X", room: "F"), 404), (.notAMember(user: "bob", room: nil), 404),
            (.roleRequired(.admin, room: "F", action: "invite"), 403), (.onlyCreatorOrAdmin(task: 4, room: nil, action: "edit"), 403),
            (.personalTaskAssignee, 403), (.removeSelf(room: "F"), 403), (.removeOwner(room: "F"), 403),
            (.removeAdmin(room: "F"), 403), (.ownerLeaving(room: "F", id: 3), 403), (.ownerKeepsRole, 403),
            (.ambiguousRoomName("F", ids: [1, 2]), 409), (.alreadyMember(user: "bob", room: "F"), 409), (.alreadyInRoom(3), 409),
            (.alreadyHasRole(user: "bob", role: .admin, room: "F"), 409), (.alreadyDone(4), 409), (.notDone(4), 409),
            (.progressOfDoneTask(4), 409), (.progressFromSubtasks(4), 409),
            (.badName("A"), 422), (.badPasswordLength(3), 422), (.fieldLength("a title", max: 200), 422),
            (.fieldNotOneLine("a title", character: "tab"), 422), (.fieldTooLong("notes", max: 4000), 422),
            (.fieldCharacter("notes", character: "tab"), 422), (.badDate("x", accepted: "y"), 422),
            (.ownParent, 422),
            (.parentInOtherRoom(4), 422), (.parentIsSubtask(4), 422), (.hasSubtasks(4), 422), (.personalRotation, 422),
            (.twiceInRotation("bob"), 422), (.rotationSize, 422), (.expiryInPast("x"), 422),
            (.noSuchToken(label: "ci"), 404), (.logInFirst, 401), (.notLoggedIn, 401), (.wrongNameOrPassword, 401),
            (.invalidToken, 401), (.wrongOldPassword, 401), (.accountGone, 401), (.accountDisabled, 403),
            (.serverAdminRequired, 403), (.disableSelf, 403), (.nameTaken("ann"), 409), (.badTokenLabel, 422),
            (.tooManyFailedLogins(name: "ann", retryAfter: 30), 429),
        ]
        for (error, code) in cases {
            #expect(ChorusError(error) == ChorusError(code, error.message), "\(error)")
        }
        #expect(AccountService.clientError(DomainError.noSuchTask(4)) == ChorusError(404, "no such task 4"))
        #expect(AccountService.clientError(DomainError.onlyCreatorOrAdmin(task: 4, room: "Flat 2B", action: "edit"))
            == ChorusError(403, "only the creator of #4, or an owner or admin of Flat 2B, can edit it"))
        #expect(AccountService.clientError(DomainError.tooManyFailedLogins(name: "ann", retryAfter: 30))
            == ChorusError(429, "too many failed logins for ann; try again in 30 s"))
    }
}
