import ChorusCore
import Testing

/// Where READ moves a marker.
@Suite struct ReadMarkerTests {
    @Test func aMarkerOnlyMovesForward() {
        #expect(ReadMarker.moved(stored: 0, requested: 5, newest: 9) == 5)
        #expect(ReadMarker.moved(stored: 5, requested: 7, newest: 9) == 7)
        #expect(ReadMarker.moved(stored: 7, requested: 5, newest: 9) == nil, "a lower id changes nothing")
        #expect(ReadMarker.moved(stored: 7, requested: 7, newest: 9) == nil, "the same id changes nothing")
    }

    @Test func anIDPastTheNewestEventIsClampedToIt() {
        #expect(ReadMarker.moved(stored: 3, requested: 1_000_000, newest: 9) == 9)
        #expect(ReadMarker.moved(stored: 9, requested: 1_000_000, newest: 9) == nil)
        #expect(ReadMarker.moved(stored: 0, requested: Int64.max, newest: 0) == nil)
    }
}
