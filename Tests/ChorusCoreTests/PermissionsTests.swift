import ChorusCore
import Testing

/// Who may see and do what: outsiders are told "no such", never "forbidden".
@Suite struct PermissionsTests {
    let flat = RoomAccess(id: 3, name: "Flat 2B", role: .member)

    /// TASKS @NAME: a housemate or oneself; a stranger and a name nobody has are alike.
    @Test func onlyHousematesAreSeen() throws {
        #expect(try Permissions.requireHousemate(named: "bob", found: 2, caller: 1, sharedRooms: [3]) == 2)
        #expect(try Permissions.requireHousemate(named: "me", found: 1, caller: 1, sharedRooms: []) == 1)
        #expect(throws: DomainError.noSuchUser("carol")) {
            try Permissions.requireHousemate(named: "carol", found: 4, caller: 1, sharedRooms: [])
        }
        #expect(throws: DomainError.noSuchUser("nobody")) {
            try Permissions.requireHousemate(named: "nobody", found: nil, caller: 1, sharedRooms: [])
        }
    }

    @Test func roomsOutsidersCannotSeeDoNotExist() throws {
        #expect(throws: DomainError.noSuchRoom("#3")) { try Permissions.visibleRoom(nil, reference: "#3") }
        #expect(try Permissions.visibleRoom(flat, reference: "#3") == flat)
        #expect(throws: DomainError.noSuchRoom("Flat")) { try Permissions.roomNamed("Flat", among: []) }
        #expect(try Permissions.roomNamed("Flat", among: [7]) == 7)
        #expect(throws: DomainError.ambiguousRoomName("Flat", ids: [3, 7])) { try Permissions.roomNamed("Flat", among: [3, 7]) }
        #expect(DomainError.ambiguousRoomName("Flat", ids: [3, 7]).message == "2 rooms are named Flat: use an id (#3, #7)")
    }

    @Test func rolesRankAndNameWhoMay() throws {
        try Permissions.require(.member, in: flat, to: "look")
        #expect(throws: DomainError.roleRequired(.admin, room: "Flat 2B", action: "invite")) {
            try Permissions.require(.admin, in: flat, to: "invite")
        }
        try Permissions.require(.admin, in: RoomAccess(id: 3, name: "Flat 2B", role: .owner), to: "invite")
        #expect(throws: DomainError.self) { try Permissions.require(.owner, in: RoomAccess(id: 3, name: "F", role: .admin), to: "x") }
        #expect(DomainError.roleRequired(.admin, room: "F", action: "invite").message == "only the owner or an admin of F can invite")
        #expect(DomainError.roleRequired(.owner, room: "F", action: "delete it").message == "only the owner of F can delete it")
    }

    @Test func tasksOfOthersDoNotExist() throws {
        let roomTask = Fixture.task()
        #expect(throws: DomainError.noSuchTask(12)) { try Permissions.visibleTask(roomTask, caller: 9, role: nil) }
        #expect(try Permissions.visibleTask(roomTask, caller: 9, role: .member) == .member)
        let personal = Fixture.task(room: nil, owner: 1)
        #expect(try Permissions.visibleTask(personal, caller: 1, role: nil) == nil)
        #expect(throws: DomainError.noSuchTask(12)) { try Permissions.visibleTask(personal, caller: 2, role: nil) }
    }

    @Test func onlyTheCreatorOrAnAdminEdits() throws {
        let task = Fixture.task(creator: 1)
        try Permissions.requireEditable(task, caller: 1, role: .member, to: "edit")
        try Permissions.requireEditable(task, caller: 2, role: .admin, to: "edit")
        try Permissions.requireEditable(task, caller: 2, role: .owner, to: "edit")
        #expect(throws: DomainError.onlyCreatorOrAdmin(task: 12, room: "Flat 2B", action: "delete")) {
            try Permissions.requireEditable(task, caller: 2, role: .member, to: "delete")
        }
        try Permissions.requireEditable(Fixture.task(room: nil, owner: 2, creator: 1), caller: 2, role: nil, to: "edit")
    }

    @Test func onlyMembersTakeTasks() throws {
        try Permissions.requireAssignable((2, "bob"), to: Fixture.task(), role: .member)
        #expect(throws: DomainError.notAMember(user: "bob", room: "Flat 2B")) {
            try Permissions.requireAssignable((2, "bob"), to: Fixture.task(), role: nil)
        }
        try Permissions.requireAssignable((1, "alice"), to: Fixture.task(room: nil, owner: 1), role: nil)
        #expect(throws: DomainError.personalTaskAssignee) {
            try Permissions.requireAssignable((2, "bob"), to: Fixture.task(room: nil, owner: 1), role: .owner)
        }
    }

    @Test func removingLeavingAndRoles() throws {
        let admin = RoomAccess(id: 3, name: "Flat 2B", role: .admin)
        let owner = RoomAccess(id: 3, name: "Flat 2B", role: .owner)
        try Permissions.requireRemovable((2, "bob"), role: .member, from: admin, caller: 1)
        #expect(throws: DomainError.notAMember(user: "bob", room: "Flat 2B")) {
            try Permissions.requireRemovable((2, "bob"), role: nil, from: admin, caller: 1)
        }
        #expect(throws: DomainError.removeSelf(room: "Flat 2B")) { try Permissions.requireRemovable((1, "al"), role: .admin, from: admin, caller: 1) }
        #expect(throws: DomainError.removeOwner(room: "Flat 2B")) { try Permissions.requireRemovable((2, "b"), role: .owner, from: admin, caller: 1) }
        #expect(throws: DomainError.removeAdmin(room: "Flat 2B")) { try Permissions.requireRemovable((2, "b"), role: .admin, from: admin, caller: 1) }
        try Permissions.requireRemovable((2, "bob"), role: .admin, from: owner, caller: 1)

        try Permissions.requireMayLeave(admin)
        #expect(throws: DomainError.ownerLeaving(room: "Flat 2B", id: 3)) { try Permissions.requireMayLeave(owner) }

        #expect(try Permissions.roleChange(of: (2, "bob"), from: .member, to: .admin, in: owner, caller: 1) == false)
        #expect(try Permissions.roleChange(of: (2, "bob"), from: .admin, to: .owner, in: owner, caller: 1) == true)
        #expect(throws: DomainError.ownerKeepsRole) { try Permissions.roleChange(of: (1, "al"), from: .owner, to: .admin, in: owner, caller: 1) }
        #expect(throws: DomainError.alreadyHasRole(user: "bob", role: .admin, room: "Flat 2B")) {
            try Permissions.roleChange(of: (2, "bob"), from: .admin, to: .admin, in: owner, caller: 1)
        }
        #expect(throws: DomainError.notAMember(user: "bob", room: "Flat 2B")) {
            try Permissions.roleChange(of: (2, "bob"), from: nil, to: .admin, in: owner, caller: 1)
        }
    }
}
