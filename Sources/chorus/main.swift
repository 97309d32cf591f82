import ChorusClient
import Foundation

// `chorus`: flags and wiring; the work is in ChorusClient.

/// Asks on the terminal (standard input, still in canonical mode) and reads yes or no.
func askOnTerminal(_ question: String) -> Bool {
    FileHandle.standardError.write(Data(question.utf8))
    var answer: [UInt8] = []
    var byte: UInt8 = 0
    while read(0, &byte, 1) == 1, byte != UInt8(ascii: "\n") { answer.append(byte) }
    let text = String(decoding: answer, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
    return text == "yes" || text == "y"
}

/// Runs what the flags ask for; returns the exit status.
func runClient(_ arguments: [String], environment: [String: String]) throws(ClientFailure) -> Int32 {
    let flags = try ClientFlags.parse(arguments)
    if flags.help {
        print(ClientFlags.usage)
        return 0
    }
    if flags.version {
        print("chorus 0.1")
        return 0
    }
    // At a terminal a person can type the password; elsewhere (scripts, pipes) it must
    // come from a file or the environment.
    let prompt: ((String) throws(ClientFailure) -> String?)? =
        isatty(0) == 1 ? { name throws(ClientFailure) in try PasswordPrompt.ask("Password for \(name): ") } : nil
    let credentials = try Credentials.load(user: flags.user, passwordFile: flags.passwordFile,
                                           tokenFile: flags.tokenFile, environment: environment, askPassword: prompt)
    var ask: ((String) -> Bool)?
    if isatty(0) == 1 { ask = { askOnTerminal($0) } }
    let connector = ServerConnector(host: flags.host, port: flags.port, trust: flags.trust(environment: environment),
                                    askToTrust: ask)
    let console = Console(colours: !flags.json && Console.wantsColours(environment: environment))
    if !flags.words.isEmpty {
        let line = try RequestLineBuilder.line(from: flags.words)
        return try OneShotCommand(connector: connector, credentials: credentials, line: line,
                                  json: flags.json, console: console, output: flags.output).run()
    }
    let input = PersonInput(console: console)
    defer { input.finish() }
    return try InteractiveSession(connector: connector, credentials: credentials, json: flags.json,
                                  console: console, input: input,
                                  seenEvents: SeenEventsFile(environment: environment), replayAway: !flags.noReplay).run()
}

// A server that goes away mid-write must be an error to handle, not a silent death.
signal(SIGPIPE, SIG_IGN)
do throws(ClientFailure) {
    exit(try runClient(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
} catch {
    // Failures quote the server (its error messages, its certificate's names): shown safe.
    FileHandle.standardError.write(Data("chorus: \(TerminalSafeText.message(error.description))\n".utf8))
    exit(error.status)
}
