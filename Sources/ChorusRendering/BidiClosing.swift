import ChorusCore

/// Keeps a user's text from reordering what text mode shows around it (CONTRACT §11).
///
/// Messages, comments, notes and DMs may hold bidirectional controls (ChorusCore's
/// `BidiControl`); an override or isolate left open at the end of a text runs on over
/// whatever the line puts after it (the event id, the next column), so `RLO` could make
/// `[#42]` read `[24#]` or turn a sender's name around. Text mode therefore closes, at the
/// end of each text it places in a line, every embedding, override and isolate the text
/// opened and did not close. JSON carries the text as stored: a bot gets exactly what was
/// sent, and places it itself.
///
/// Here rather than in ChorusCore: it is how a text is shown in one output mode, not a rule
/// about what may be stored, and ChorusCore stays free of rendering. Every place that puts
/// a user's text into a text-mode line calls `closed(_:)`.
public enum BidiClosing {
    /// `text` with a PDF (U+202C) appended for each embedding or override it leaves open
    /// and a PDI (U+2069) for each isolate, innermost first, as the Unicode bidirectional
    /// algorithm pairs them (UAX #9 BD9: a PDI also ends the embeddings opened inside its
    /// isolate; a PDF inside an isolate cannot end an embedding opened outside it).
    ///
    /// A closer with nothing of its own to close is dropped: it could otherwise end an
    /// embedding or isolate of the line around the text. So the result opens and closes
    /// only what it holds.
    public static func closed(_ text: String) -> String {
        // Every bidirectional control is E2 80 xx or E2 81 xx in UTF-8; most texts have no
        // 0xE2 byte at all and are returned as they are.
        guard text.utf8.contains(0xE2), text.unicodeScalars.contains(where: { BidiControl($0) != nil }) else { return text }
        var open: [BidiControl] = []
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch BidiControl(scalar) {
            case .embeddingOrOverride?, .isolate?:
                open.append(BidiControl(scalar)!)
            case .popDirectionalFormatting?:
                guard open.last == .embeddingOrOverride else { continue }
                open.removeLast()
            case .popDirectionalIsolate?:
                guard let isolate = open.lastIndex(of: .isolate) else { continue }
                open.removeSubrange(isolate...)
            case nil:
                break
            }
            result.append(scalar)
        }
        for kind in open.reversed() {
            result.append(kind == .isolate ? BidiControl.pdi : BidiControl.pdf)
        }
        return String(result)
    }
}
