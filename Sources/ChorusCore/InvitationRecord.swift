/// An open invitation to a room (ROOM ADD of someone who shares no room with the inviter):
/// all its invitee may know of the room until they accept.
public struct InvitationRecord: Sendable, Equatable {
    public let room: Int64
    public let roomName: String
    public let invitedBy: String
    public let created: String

    public init(room: Int64, roomName: String, invitedBy: String, created: String) {
        self.room = room
        self.roomName = roomName
        self.invitedBy = invitedBy
        self.created = created
    }
}
