@testable import ChorusProtocol
import Testing

/// The request a line parses to, or a recorded issue and a thrown error.
func request(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Request {
    guard case .request(let request) = RequestParser.parse(text) else {
        Issue.record("expected a request from \(text.debugDescription), got \(RequestParser.parse(text))",
                     sourceLocation: sourceLocation)
        throw ParseExpectation.notARequest
    }
    return request
}

/// The error a line gets (with the tag its reply carries), or a recorded failure.
func failure(_ outcome: RequestParser.Outcome, sourceLocation: SourceLocation = #_sourceLocation) throws -> (tag: String?, error: ChorusError) {
    guard case .failure(let tag, let error) = outcome else {
        Issue.record("expected an error, got \(outcome)", sourceLocation: sourceLocation)
        throw ParseExpectation.notAFailure
    }
    return (tag, error)
}

func failure(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (tag: String?, error: ChorusError) {
    try failure(RequestParser.parse(text), sourceLocation: sourceLocation)
}

enum ParseExpectation: Error {
    case notARequest
    case notAFailure
}

@Suite("RequestParser")
struct RequestParserTests {
    // MARK: Tags

    /// `@a1 PING` is a PING whose reply will carry the tag a1.
    @Test func tagIsRead() throws {
        let parsed = try request("@a1 PING")
        #expect(parsed.tag == "a1")
        #expect(parsed.command == Command.Ping(token: nil))
        #expect(parsed.verb == "PING")
    }

    /// A line without a tag parses with no tag.
    @Test func untaggedHasNilTag() throws {
        #expect(try request("PING").tag == nil)
    }

    /// Every character the contract allows in a tag is accepted.
    @Test func tagAllowedCharacters() throws {
        #expect(try request("@AZaz09._:- PING").tag == "AZaz09._:-")
    }

    /// A 64-character tag is accepted; 65 characters get ERR 400 with no tag.
    @Test func tagLengthLimit() throws {
        let sixtyFour = String(repeating: "t", count: 64)
        #expect(try request("@\(sixtyFour) PING").tag == sixtyFour)

        let result = try failure("@\(sixtyFour)x PING")
        #expect(result.error.code == 400)
        #expect(result.tag == nil)
        #expect(result.error.message.contains("tag"))
    }

    /// Tags with characters outside `A-Z a-z 0-9 . _ : -` (or no characters) get ERR 400, and the reply is untagged.
    @Test(arguments: ["@ PING", "@a/b PING", "@a+b PING", "@a\"b PING", "@café PING", "@a@b PING", "@a,b PING", "@a\u{1}b PING"])
    func badTagCharacters(text: String) throws {
        let result = try failure(text)
        #expect(result.error.code == 400)
        #expect(result.tag == nil)
    }

    /// A tag alone, with no command, is an error that keeps the tag.
    @Test func tagWithoutCommand() throws {
        let result = try failure("@t9")
        #expect(result.error.code == 400)
        #expect(result.tag == "t9")
        #expect(result.error.message.contains("HELP"))
    }

    // MARK: Verbs

    /// Verbs are case-insensitive: ping, Ping and PING are the same command.
    @Test(arguments: ["ping", "Ping", "PING", "pInG"])
    func verbsCaseInsensitive(text: String) throws {
        let parsed = try request(text)
        #expect(parsed.command == Command.Ping(token: nil))
        #expect(parsed.verb == "PING")
    }

    /// An unknown verb gets ERR 400 saying "unknown command", naming it, and keeping the tag.
    @Test func unknownVerb() throws {
        let plain = try failure("FROB 1 2")
        #expect(plain.error.code == 400)
        #expect(plain.error.message.contains("unknown command"))
        #expect(plain.error.message.contains("FROB"))
        #expect(plain.tag == nil)

        let tagged = try failure("@q7 frob")
        #expect(tagged.error.code == 400)
        #expect(tagged.error.message.contains("unknown command"))
        #expect(tagged.tag == "q7")
    }

    /// Each contract session and account command parses to its typed command, with the login requirement of its table row.
    @Test func basicCommands() throws {
        #expect(try request("QUIT").command == Command.Plain() && request("QUIT").verb == "QUIT")
        #expect(try request("LOGOUT").command == Command.Plain() && request("LOGOUT").verb == "LOGOUT")
        #expect(try request("whoami").command == Command.Plain() && request("whoami").verb == "WHOAMI")
        #expect(try request("PING tok").command == Command.Ping(token: "tok"))
        #expect(try request("LOGIN alice secretsecretsecret").command == Command.Credentials(name: "alice", password: "secretsecretsecret"))
        #expect(try request("PASSWORD old1 new2").command == Command.Password(old: "old1", new: "new2"))
        #expect(try request("PING").needsLogin == false)
        #expect(try request("REGISTER a b").needsLogin == false)
        #expect(try request("LOGIN a b").needsLogin == false)
        #expect(try request("LOGOUT").needsLogin == true)
        #expect(try request("WHOAMI").needsLogin == true)
        #expect(try request("PASSWORD a b").needsLogin == true)
    }

    /// Spaces and tabs around and between words are just separators.
    @Test func extraWhitespace() throws {
        let parsed = try request("  \t @t  \tLOGIN   alice\t\tpw   ")
        #expect(parsed.tag == "t")
        #expect(parsed.command == Command.Credentials(name: "alice", password: "pw"))
    }

    // MARK: Quoting

    /// Quoted strings group words and understand `\"`, `\\` and `\n`.
    @Test func quotedEscapes() throws {
        let parsed = try request(#"PING "say \"hi\" to C:\\dir\nnext line""#)
        #expect(parsed.command == Command.Ping(token: "say \"hi\" to C:\\dir\nnext line"))
    }

    /// An empty quoted string is an empty argument, not a missing one.
    @Test func emptyQuotedString() throws {
        #expect(try request(#"PING """#).command == Command.Ping(token: ""))
        #expect(try request(#"LOGIN "" """#).command == Command.Credentials(name: "", password: ""))
    }

    /// A quote inside a bare word is an ordinary character.
    @Test func quoteInsideBareWordIsLiteral() throws {
        #expect(try request(#"PING ab"c"#).command == Command.Ping(token: #"ab"c"#))
    }

    /// An unknown escape such as `\t` gets ERR 400 naming the escapes that exist.
    @Test func unknownEscape() throws {
        let result = try failure(#"@e1 PING "a\tb""#)
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("unknown escape"))
        #expect(result.error.message.contains(#"\t"#))
        #expect(result.error.message.contains("usage: PING [TOKEN]"))
        #expect(result.tag == "e1")
    }

    /// An unknown escape before a non-ASCII character is quoted as that character in the error, not as mojibake.
    @Test func unknownEscapeOfNonASCIICharacter() throws {
        let result = try failure(#"PING "\é""#)
        #expect(result.error.code == 400)
        #expect(result.error.message.contains(#"\é"#))
    }

    /// A quote that is never closed gets ERR 400 "unterminated quote", also when the line ends in a backslash.
    @Test(arguments: [#"PING "abc"#, #"PING "abc\"#, #"PING "abc\""#, #"PING ""#])
    func unterminatedQuote(text: String) throws {
        let result = try failure(text)
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("unterminated quote"))
    }

    /// A closing quote glued to more text (`"ab"c`) gets ERR 400 instead of silently merging words.
    @Test func closingQuoteGluedToWord() throws {
        let result = try failure(#"@g PING "ab"c"#)
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("closing quote"))
        #expect(result.tag == "g")
    }

    /// A closing quote followed by a tab or the end of the line is fine.
    @Test func closingQuoteFollowedBySeparator() throws {
        #expect(try request("PING \"ab\"\t").command == Command.Ping(token: "ab"))
        #expect(try request(#"LOGIN "a b" "c d""#).command == Command.Credentials(name: "a b", password: "c d"))
    }

    /// Passwords with spaces, leading/trailing spaces, quotes and non-ASCII survive quoting byte for byte.
    @Test func passwordsPreservedExactly() throws {
        #expect(try request(#"REGISTER alice "correct horse  battery staple""#).command
            == Command.Registration(name: "alice", password: "correct horse  battery staple", invite: nil))
        #expect(try request(#"LOGIN alice "  padded password  ""#).command
            == Command.Credentials(name: "alice", password: "  padded password  "))
        #expect(try request(#"PASSWORD "old \"one\" here" "nëw ☕ pässwörd \\ 2""#).command
            == Command.Password(old: #"old "one" here"#, new: #"nëw ☕ pässwörd \ 2"#))
        #expect(try request("LOGIN bob pa$$w0rd-with=signs!").command
            == Command.Credentials(name: "bob", password: "pa$$w0rd-with=signs!"))
    }

    // MARK: Options

    /// `key=value` on a command that takes no options gets ERR 400 saying so, with its usage.
    @Test func optionOnCommandWithoutOptions() throws {
        let result = try failure("@o1 PING a=b")
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("PING takes no options"))
        #expect(result.error.message.contains("usage: PING [TOKEN]"))
        #expect(result.tag == "o1")
    }

    /// Option keys are recognised whatever their case.
    @Test func upperCaseOptionKey() throws {
        let result = try failure("PING Key=value")
        #expect(result.error.message.contains("takes no options"))
    }

    /// A word with `=` can still be passed as an argument by quoting it, or when it does not start like a key.
    @Test func equalsSignAsArgument() throws {
        #expect(try request(#"PING "a=b""#).command == Command.Ping(token: "a=b"))
        #expect(try request("PING =b").command == Command.Ping(token: "=b"))
    }

    /// A password of the form `word=more` must be quoted, otherwise it reads as an option.
    @Test func unquotedKeyValuePasswordIsAnOption() throws {
        let result = try failure("REGISTER alice secret=horsebatterystaple")
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("unknown option secret"), "\(result.error)")
        #expect(result.error.message.contains("usage: REGISTER NAME PASSWORD [invite=CODE]"))
        #expect(try request(#"REGISTER alice "secret=horsebatterystaple""#).command
            == Command.Registration(name: "alice", password: "secret=horsebatterystaple", invite: nil))
        #expect(try request(#"REGISTER alice "invite=horsebatterystaple""#).command
            == Command.Registration(name: "alice", password: "invite=horsebatterystaple", invite: nil))
    }

    /// REGISTER's `invite=CODE` (CONTRACT §11), before or after the arguments; empty is none.
    @Test func registerWithAnInvite() throws {
        #expect(try request("REGISTER bob \"long enough password\" invite=ABCD-EFGH-JKMN-PQRS").command
            == Command.Registration(name: "bob", password: "long enough password", invite: "ABCD-EFGH-JKMN-PQRS"))
        #expect(try request("REGISTER Invite=x bob pw").command == Command.Registration(name: "bob", password: "pw", invite: "x"))
        #expect(try request("REGISTER bob pw invite=").command == Command.Registration(name: "bob", password: "pw", invite: nil))
    }

    // MARK: Empty, encoding and control characters

    /// An empty or whitespace-only line is ignored, not answered.
    @Test(arguments: ["", " ", "   ", "\t", " \t \t "])
    func emptyLines(text: String) {
        #expect(RequestParser.parse(text) == .empty)
        #expect(RequestParser.parse(Array(text.utf8)) == .empty)
    }

    /// Bytes that are not valid UTF-8 get ERR 400 "invalid UTF-8".
    @Test(arguments: [[0xff], [0x50, 0x49, 0x4e, 0x47, 0x20, 0xc3], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0x50, 0xfe, 0x47]] as [[UInt8]])
    func invalidUTF8(input: [UInt8]) throws {
        let result = try failure(RequestParser.parse(input))
        #expect(result.error.code == 400)
        #expect(result.error.message == "invalid UTF-8")
    }

    /// A validly tagged line with invalid UTF-8 later on still gets its tag on the ERR 400, as every reply to a tagged request must.
    @Test func invalidUTF8KeepsValidTag() throws {
        let result = try failure(RequestParser.parse(bytes("@t1 PING ") + [0xff]))
        #expect(result.error.code == 400)
        #expect(result.tag == "t1")
    }

    /// Valid UTF-8 bytes parse exactly like the same text given as a string.
    @Test func byteAndStringFormsAgree() {
        for text in ["@x PING Café", "HELP", "REGISTER a", "  ", #"PING "q""#] {
            #expect(RequestParser.parse(Array(text.utf8)) == RequestParser.parse(text))
        }
    }

    /// Control characters (NUL, 0x01, ESC, CR, DEL) in a line get ERR 400 so they never reach other people's terminals; the tag is kept.
    @Test(arguments: [0x00, 0x01, 0x07, 0x0d, 0x1b, 0x7f] as [UInt8])
    func controlCharacters(byte: UInt8) throws {
        let result = try failure(RequestParser.parse(bytes("@c1 PING a") + [byte] + bytes("[31m")))
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("control character"))
        #expect(result.tag == "c1")
    }

    /// The control-character error names the byte as two hex digits, as Protocol.md documents (`0xNN`).
    @Test func controlCharacterNamedWithTwoHexDigits() throws {
        #expect(try failure("PING a\u{1}b").error.message == "control character 0x01 in line")
        #expect(try failure("PING a\u{1b}b").error.message == "control character 0x1b in line")
    }

    /// A control character inside a quoted string is refused too.
    @Test func controlCharacterInQuotes() throws {
        let result = try failure("LOGIN alice \"pass\u{1b}word\"")
        #expect(result.error.code == 400)
    }

    // MARK: Arity and values

    /// REGISTER with one argument gets ERR 400 naming what is missing and showing the usage line.
    @Test func registerMissingPassword() throws {
        let result = try failure("@r1 REGISTER alice")
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("usage: REGISTER NAME PASSWORD"))
        #expect(result.error.message.contains("PASSWORD"))
        #expect(result.tag == "r1")
    }

    /// REGISTER with no arguments gets ERR 400 with its usage line.
    @Test func registerNoArguments() throws {
        let result = try failure("register")
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("usage: REGISTER NAME PASSWORD"))
    }

    /// REGISTER with three arguments gets ERR 400 with its usage line.
    @Test func registerTooManyArguments() throws {
        let result = try failure("@r2 REGISTER alice pw extra")
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("usage: REGISTER NAME PASSWORD"))
        #expect(result.error.message.contains("too many"))
        #expect(result.tag == "r2")
    }

    /// Commands without arguments refuse extra words with their usage line.
    @Test func noArgumentCommandsRefuseExtras() throws {
        #expect(try failure("QUIT now").error.message.contains("usage: QUIT"))
        #expect(try failure("WHOAMI me").error.message.contains("usage: WHOAMI"))
        #expect(try failure("PING a b").error.message.contains("usage: PING [TOKEN]"))
    }

    /// MODE accepts text and json in any case.
    @Test(arguments: [("MODE text", OutputMode.text), ("mode JSON", .json), ("Mode Json", .json), ("MODE \"json\"", .json)])
    func modeValues(text: String, mode: OutputMode) throws {
        #expect(try request(text).command == Command.Mode(mode: mode))
    }

    /// MODE with anything else gets ERR 400 naming the bad value and showing the usage.
    @Test(arguments: ["MODE xml", "MODE", "MODE text json", "MODE \"\""])
    func modeBadValue(text: String) throws {
        let result = try failure("@m " + text)
        #expect(result.error.code == 400)
        #expect(result.error.message.contains("usage: MODE text|json"))
        #expect(result.tag == "m")
    }

    /// MODE xml says which mode was unknown.
    @Test func modeBadValueNamed() throws {
        #expect(try failure("MODE xml").error.message.contains("unknown mode xml"))
    }

    /// HELP takes no word, one word or two words as its topic; three words get ERR 400.
    @Test func helpTopics() throws {
        #expect(try request("HELP").command == Command.Help(topic: nil))
        #expect(try request("help ping").command == Command.Help(topic: "ping"))
        #expect(try request("HELP room create").command == Command.Help(topic: "room create"))
        let tooMany = try failure("HELP room create now")
        #expect(tooMany.error.code == 400)
        #expect(tooMany.error.message.contains("usage: HELP [VERB] [SUBVERB]"))
    }
}
