import Foundation
import JSONAPIClient

/// The top level of `jsonapi`: the command list, `help`, `--version`, and dispatch to a command.
enum JSONAPI {
    /// Every command, in the order the help lists them.
    static var commands: [any Command.Type] {
        [
            InspectCommand.self, GetCommand.self, CreateCommand.self, UpdateCommand.self, DeleteCommand.self,
            RelationshipCommand.self, CompletionCommand.self,
        ]
    }

    /// The top-level help.
    static var help: String {
        var entries: [(name: String, summary: String)] = []
        for command in commands { entries.append((command.name, command.summary)) }
        let width = (entries.map { $0.name.count }.max() ?? 0) + 3
        let lines = entries.map { "  " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + $0.summary }
        return """
            usage: jsonapi COMMAND [ARGUMENTS]
              A JSON:API client: check documents, fetch them, create, update and delete resources.
            commands:
            \(lines.joined(separator: "\n"))
              \("help".padding(toLength: width, withPad: " ", startingAt: 0))show the help of a command: jsonapi help COMMAND
            options:
              -h, --help      show this help (jsonapi COMMAND --help: the command's)
              --version       print the version
            """
    }

    /// Runs the command line `arguments` (without the program name); returns the exit status.
    static func run(_ arguments: [String], streams: Streams, client: any Client = URLSessionClient()) async -> Int32 {
        func usageError(_ message: String) -> Int32 {
            streams.error("Error: \(message)")
            streams.error("See 'jsonapi --help'.")
            return Output.ExitCode.usage
        }
        guard let first = arguments.first else {
            streams.error(help)
            return Output.ExitCode.usage
        }
        switch first {
        case "-h", "--help":
            streams.output(Data((help + "\n").utf8))
            return Output.ExitCode.success
        case "--version":
            streams.output(Data((RequestOptions.version + "\n").utf8))
            return Output.ExitCode.success
        case "help":
            guard arguments.count <= 2 else { return usageError("help takes one command, not '\(arguments[2])'") }
            guard let name = arguments.dropFirst().first else {
                streams.output(Data((help + "\n").utf8))
                return Output.ExitCode.success
            }
            guard let command = command(named: name) else { return usageError("unknown command '\(name)'") }
            streams.output(Data((command.help + "\n").utf8))
            return Output.ExitCode.success
        default:
            guard let command = command(named: first) else {
                return usageError(first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown command '\(first)'")
            }
            return await command.run(Array(arguments.dropFirst()), streams: streams, client: client)
        }
    }

    static func command(named name: String) -> (any Command.Type)? {
        for command in commands where command.name == name { return command }
        return nil
    }
}
