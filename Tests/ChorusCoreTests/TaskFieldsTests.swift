import ChorusCore
import Testing

/// Titles, subtasks and rotations.
@Suite struct TaskFieldsTests {
    @Test func titles() throws {
        #expect(try TaskFields.title("  Bins ") == "Bins")
        #expect(throws: DomainError.fieldLength("a title", max: 200)) { try TaskFields.title(String(repeating: "x", count: 201)) }
    }

    /// One level deep, in the same room, never itself.
    @Test func parents() throws {
        let task = Fixture.task(id: 12)
        try TaskFields.requireParent(Fixture.task(id: 7), for: task) { false }
        #expect(throws: DomainError.ownParent) { try TaskFields.requireParent(Fixture.task(id: 12), for: task) { false } }
        #expect(throws: DomainError.parentInOtherRoom(7)) { try TaskFields.requireParent(Fixture.task(id: 7, room: 4), for: task) { false } }
        #expect(throws: DomainError.parentInOtherRoom(7)) {
            try TaskFields.requireParent(Fixture.task(id: 7, room: nil, owner: 1), for: Fixture.task(room: nil, owner: 2)) { false }
        }
        #expect(throws: DomainError.parentIsSubtask(7)) { try TaskFields.requireParent(Fixture.task(id: 7, parent: 3), for: task) { false } }
        #expect(throws: DomainError.hasSubtasks(12)) { try TaskFields.requireParent(Fixture.task(id: 7), for: task) { true } }
    }

    @Test func rotations() throws {
        #expect(throws: DomainError.personalRotation) { try TaskFields.requireRotatable(Fixture.task(room: nil, owner: 1)) }
        try TaskFields.requireRotatable(Fixture.task())
        var names: [String] = []
        try TaskFields.addTurn("alice", to: &names)
        try TaskFields.addTurn("bob", to: &names)
        #expect(throws: DomainError.twiceInRotation("alice")) { try TaskFields.addTurn("alice", to: &names) }
        #expect(try TaskFields.rotation(names) == "alice,bob")
        #expect(throws: DomainError.rotationSize) { try TaskFields.rotation([]) }
        #expect(throws: DomainError.rotationSize) { try TaskFields.rotation((0...50).map { "u\($0)" }) }
        #expect(try TaskFields.rotation((1...50).map { "u\($0)" }).split(separator: ",").count == 50)
    }
}
