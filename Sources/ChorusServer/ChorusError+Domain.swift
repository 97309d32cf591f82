import ChorusCore
import ChorusProtocol

/// The status code of each domain refusal: the one place the domain's catalogue
/// (`DomainError`) meets the protocol (Protocol.md §3).
extension ChorusError {
    init(_ error: DomainError) {
        self.init(Self.code(of: error), error.message)
    }

    static func code(of error: DomainError) -> Int {
        switch error {
        // Outsiders get 404, never 403: a room or task of others looks like one that is not there.
        case .noSuchRoom, .noSuchTask, .noSuchUser, .noSuchInvite, .noSuchInviteInRoom, .notAMember, .noSuchToken, .noSuchPushSubscription,
             .noInvitation:
            return 404
        case .logInFirst, .notLoggedIn, .wrongNameOrPassword, .invalidToken, .wrongOldPassword, .accountGone:
            return 401
        case .roleRequired, .onlyCreatorOrAdmin, .personalTaskAssignee, .removeSelf, .removeOwner, .removeAdmin,
             .ownerLeaving, .ownerKeepsRole, .serverAdminRequired, .disableSelf, .accountDisabled, .removedFromRoom,
             .signUpByInviteOnly, .signUpInviteUnusable, .tokenMakesNoTokens, .wrongEmailCode:
            return 403
        case .ambiguousRoomName, .nameTaken, .alreadyMember, .alreadyInRoom, .alreadyHasRole, .alreadyDone, .notDone,
             .progressOfDoneTask, .progressFromSubtasks, .noEmailAddress, .noEmailCode:
            return 409
        case .badName, .badPasswordLength, .badTokenLabel, .fieldLength, .fieldNotOneLine, .fieldTooLong, .fieldCharacter,
             .fieldBidiControl,
             .badDate, .ownParent, .parentInOtherRoom, .parentIsSubtask,
             .hasSubtasks, .personalRotation, .twiceInRotation, .rotationSize, .expiryInPast, .blockSelf,
             .badPushEndpoint, .badPushKey, .badPushLabel, .unknownNoticeKind, .unknownTimeZone, .badQuietHours, .badEmailAddress:
            return 422
        case .mailNotConfigured:
            return 503
        case .tooManyFailedLogins, .tooManySignUps, .tooManyOpenInvitations, .tooManyPushSubscriptions, .emailCodeTooSoon:
            return 429
        }
    }
}
