import ChorusRendering
import Testing

/// Text mode closes what a user's text opens (CONTRACT §11).
@Suite struct BidiClosingTests {
    static let lre = "\u{202A}", rle = "\u{202B}", pdf = "\u{202C}", lro = "\u{202D}", rlo = "\u{202E}"
    static let lri = "\u{2066}", rli = "\u{2067}", fsi = "\u{2068}", pdi = "\u{2069}"

    @Test func textsWithoutControlsAreUnchanged() {
        for text in ["", "dishes", "prix — 5 €", "שלום עולם", "a\u{200F}b\u{200E}c", "…"] {
            #expect(BidiClosing.closed(text) == text)
        }
    }

    @Test func whatIsOpenIsClosedInnermostFirst() {
        #expect(BidiClosing.closed("a\(Self.rlo)b") == "a\(Self.rlo)b\(Self.pdf)")
        #expect(BidiClosing.closed("\(Self.rle)\(Self.lro)x") == "\(Self.rle)\(Self.lro)x\(Self.pdf)\(Self.pdf)")
        #expect(BidiClosing.closed("\(Self.rlo)a\(Self.lri)b") == "\(Self.rlo)a\(Self.lri)b\(Self.pdi)\(Self.pdf)")
        #expect(BidiClosing.closed("\(Self.fsi)a\(Self.lre)b") == "\(Self.fsi)a\(Self.lre)b\(Self.pdf)\(Self.pdi)")
        #expect(BidiClosing.closed("\(Self.rli)x\(Self.lri)y") == "\(Self.rli)x\(Self.lri)y\(Self.pdi)\(Self.pdi)")
    }

    @Test func whatTheTextClosesItselfStaysAsItIs() {
        let balanced = "a\(Self.rlo)b\(Self.pdf) c\(Self.lri)d\(Self.pdi) \(Self.lre)e\(Self.rli)f\(Self.pdi)g\(Self.pdf)"
        #expect(BidiClosing.closed(balanced) == balanced)
        // A PDI ends the embeddings opened inside its isolate too (UAX #9 BD9).
        let inside = "\(Self.rli)a\(Self.rlo)b\(Self.pdi)"
        #expect(BidiClosing.closed(inside) == inside)
    }

    /// A closer with nothing of its own to close is dropped, so it cannot end something the
    /// line around the text opened; a PDF cannot reach out of an isolate either.
    @Test func strayClosersAreDropped() {
        #expect(BidiClosing.closed("a\(Self.pdf)b\(Self.pdi)c") == "abc")
        #expect(BidiClosing.closed("\(Self.rlo)\(Self.lri)x\(Self.pdf)y") == "\(Self.rlo)\(Self.lri)xy\(Self.pdi)\(Self.pdf)")
        #expect(BidiClosing.closed("\(Self.rlo)x\(Self.pdf)\(Self.pdf)") == "\(Self.rlo)x\(Self.pdf)")
    }
}
