import Foundation
import JSONAPIClient

/// A subcommand of `jsonapi`: what it is called, what it takes (which the help, the parser and the shell completion
/// all read), and what it does.
protocol Command {
    /// The name on the command line: `get`.
    static var name: String { get }
    /// What follows the name in the usage line: `URL [OPTIONS]`.
    static var synopsis: String { get }
    /// One line for the command list.
    static var summary: String { get }
    /// The paragraphs of the help between the usage line and the options.
    static var discussion: String { get }
    /// The options, `--help` aside.
    static var options: [OptionSpec] { get }
    /// Words completed in place of a positional argument (`get`, `replace` … for `relationship`).
    static var positionalWords: [String] { get }

    /// Does the work once the arguments parse; returns the exit status.
    ///
    /// - Throws: ``UsageError`` for arguments that parse but make no sense; any other error is reported as a failure.
    static func execute(_ arguments: ParsedArguments, streams: Streams, client: any Client) async throws -> Int32
}

extension Command {
    static var positionalWords: [String] { [] }

    /// The options with `--help`.
    static var allOptions: [OptionSpec] { options + [.help] }

    /// The help text.
    static var help: String {
        let width = (allOptions.map(\.label.count).max() ?? 0) + 3
        let lines = allOptions.map { option in
            let help = wrapped(option.help, width: max(40, 110 - 2 - width))
                .joined(separator: "\n" + String(repeating: " ", count: 2 + width))
            return "  " + option.label.padding(toLength: width, withPad: " ", startingAt: 0) + help
        }
        return (["usage: jsonapi \(name) \(synopsis)", discussion, "options:"] + lines).joined(separator: "\n")
    }

    /// `text` in lines of at most `width` characters, broken at spaces (a longer word stands alone).
    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return lines + [line]
    }

    /// `See 'jsonapi get --help'.`
    static var seeHelp: String { "See 'jsonapi \(name) --help'." }

    /// Runs the command with the standard streams and transport.
    static func run(_ arguments: [String]) async -> Int32 { await run(arguments, streams: .standard) }

    /// Parses `arguments` and runs the command: help for `-h`/`--help`, `Error: …` and where to find help for bad
    /// arguments (exit 2), the failure on standard error for a failed request (exit 1).
    static func run(_ arguments: [String], streams: Streams, client: any Client = URLSessionClient()) async -> Int32 {
        if ParsedArguments.asksForHelp(arguments) {
            streams.output(Data((help + "\n").utf8))
            return Output.ExitCode.success
        }
        do {
            let parsed = try ParsedArguments.parse(arguments, options: options)
            return try await execute(parsed, streams: streams, client: client)
        } catch let error as UsageError {
            streams.error("Error: \(error.message)")
            streams.error(seeHelp)
            return Output.ExitCode.usage
        } catch let error as JSONAPIClientError {
            streams.error(ErrorReport.describe(error))
            return Output.ExitCode.failure
        } catch {
            streams.error("Error: \(error)")
            return Output.ExitCode.failure
        }
    }
}

/// Where a command writes.
struct Streams: Sendable {
    /// Standard output.
    var output: @Sendable (Data) -> Void
    /// One line (a newline is added) on standard error.
    var error: @Sendable (String) -> Void
    /// Whether standard error is a terminal, where progress updates one line in place.
    var errorIsTerminal: Bool
    /// Text as it is on standard error: the in-place progress line.
    var errorText: @Sendable (String) -> Void
    /// All of standard input (`--file -`).
    var input: @Sendable () -> Data

    init(
        output: @escaping @Sendable (Data) -> Void, error: @escaping @Sendable (String) -> Void,
        errorIsTerminal: Bool, errorText: @escaping @Sendable (String) -> Void = { _ in },
        input: @escaping @Sendable () -> Data = { FileHandle.standardInput.readDataToEndOfFile() }
    ) {
        self.output = output
        self.error = error
        self.errorIsTerminal = errorIsTerminal
        self.errorText = errorText
        self.input = input
    }

    static var standard: Streams {
        Streams(
            output: { Output.standardOutput($0) }, error: { Output.standardError($0) },
            errorIsTerminal: Output.standardErrorIsTerminal,
            errorText: { FileHandle.standardError.write(Data($0.utf8)) })
    }
}
