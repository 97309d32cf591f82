import ChorusCore
import Testing

@Suite struct ConsentTests {
    @Test func aHousemateIsAddedAtOnceAnyoneElseIsAsked() {
        #expect(Consent.addition(sharesARoom: true, blockedByThem: false) == .atOnce)
        #expect(Consent.addition(sharesARoom: false, blockedByThem: false) == .invitation)
    }

    @Test func someoneWhoBlockedTheCallerIsNeverReachedWhateverTheyShare() {
        #expect(Consent.addition(sharesARoom: true, blockedByThem: true) == .dropped)
        #expect(Consent.addition(sharesARoom: false, blockedByThem: true) == .dropped)
    }

    @Test func aDMReachesHousematesAndOneselfOnly() throws {
        #expect(try Consent.directMessage(to: "bob", found: 2, caller: 1, sharedRooms: [4], blockedByThem: false) == .delivered)
        #expect(try Consent.directMessage(to: "me", found: 1, caller: 1, sharedRooms: [], blockedByThem: false) == .delivered)
        #expect(try Consent.directMessage(to: "bob", found: 2, caller: 1, sharedRooms: [4], blockedByThem: true) == .dropped)
        // A stranger and a name nobody has get the same answer.
        #expect(throws: DomainError.noSuchUser("dave")) {
            try Consent.directMessage(to: "dave", found: 3, caller: 1, sharedRooms: [], blockedByThem: false)
        }
        #expect(throws: DomainError.noSuchUser("nobody")) {
            try Consent.directMessage(to: "nobody", found: nil, caller: 1, sharedRooms: [], blockedByThem: false)
        }
    }

    @Test func nobodyBlocksThemselves() throws {
        #expect(throws: DomainError.blockSelf) { try Consent.requireBlockable((id: 1, name: "ann"), caller: 1) }
        try Consent.requireBlockable((id: 2, name: "bob"), caller: 1)
    }

    @Test func anInvitationIsFoundByIdOrByAUniqueName() throws {
        let open = [InvitationRecord(room: 3, roomName: "Flat 2B", invitedBy: "dave", created: "t"),
                    InvitationRecord(room: 5, roomName: "Küche", invitedBy: "erin", created: "t"),
                    InvitationRecord(room: 6, roomName: "küche", invitedBy: "fay", created: "t")]
        #expect(try Consent.invitation("3", among: open).invitedBy == "dave")
        #expect(try Consent.invitation("#3", among: open).room == 3)
        #expect(try Consent.invitation("flat 2b", among: open).room == 3)
        #expect(throws: DomainError.ambiguousRoomName("KÜCHE", ids: [5, 6])) { try Consent.invitation("KÜCHE", among: open) }
        #expect(throws: DomainError.noInvitation("4")) { try Consent.invitation("4", among: open) }
        #expect(throws: DomainError.noInvitation("attic")) { try Consent.invitation("attic", among: open) }
    }
}
