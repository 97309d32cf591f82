import Testing
@testable import ChorusProtocol

/// The wire's catalogue: the few entries that compute their wording.
@Suite struct ErrorCatalogueTests {
    @Test func aStoresWordingKeepsTheCodeOfItsKind() {
        #expect(ChorusError.storageConflict.worded("name ann is taken") == ChorusError(409, "name ann is taken"))
        #expect(ChorusError.storageFull.worded(nil) == ChorusError(503, "storage full"))
        #expect(ChorusError.storageNotFound.worded(nil) == .storageNotFound)
    }

    @Test func aControlCharacterIsNamedInTwoHexDigits() {
        #expect(ChorusError.controlCharacter(0x01).message == "control character 0x01 in line")
        #expect(ChorusError.controlCharacter(0x7f).message == "control character 0x7f in line")
        #expect(ChorusError.controlCharacter(0x1b).code == 400)
    }

    /// A usage error and a value error can share a reason; only the code and the usage line tell them apart.
    @Test func syncAndHistoryRefuseALimitDifferently() {
        #expect(ChorusError.limitNotPositive("0", usage: "SYNC AFTER_ID [LIMIT]")
            == ChorusError(400, "LIMIT is a positive number, not 0; usage: SYNC AFTER_ID [LIMIT]"))
        #expect(ChorusError.badLimit("0") == ChorusError(422, "LIMIT is a positive number, not 0"))
    }
}
