/// Unread markers (`READ R EVENT_ID`, CONTRACT §4): per person and room, the highest event
/// id they have seen. What is unread is what people said after it: the room's `message`
/// and `comment` events whose actor is someone else — a task edited or a member joining is
/// not news a count should announce, and one's own words are seen by the one who said them.
///
/// The count starts at the marker or at the person's joining the room, whichever is later:
/// what a room said before someone joined is its history, not news to them.
public enum ReadMarker {
    /// The event names an unread count counts (by someone other than the reader). The
    /// stores count them as they are stored (`counts(eventNamed:)`) and walk them by this
    /// list when a marker moves, so the rule is written here only.
    public static let countedEvents = ["message", "comment"]

    /// Whether storing a room event of this name adds one to its other members' counts.
    /// The count is kept per member as events are said and markers move, rather than
    /// counted when asked: a member who never reads (a bot in a busy room) would otherwise
    /// make every ROOMS and login walk the room's history on the database thread.
    public static func counts(eventNamed name: String) -> Bool {
        countedEvents.contains(name)
    }

    /// The room as someone who has just joined it sees it: nothing in it is news to them
    /// yet. (Their count starts at their joining, which the store learns only once the
    /// joining's event has its id: the reply to a join says so itself.)
    public static func justJoined(_ room: RoomRecord) -> RoomRecord {
        room.with(unread: 0)
    }

    /// Where a READ moves the marker: `requested` clamped to the room's newest event (an
    /// id from the future would mark events not yet said), or nil when that is not past
    /// the stored marker — a lower id changes nothing, so devices reading in any order agree.
    public static func moved(stored: Int64, requested: Int64, newest: Int64) -> Int64? {
        let target = min(requested, newest)
        return target > stored ? target : nil
    }
}
