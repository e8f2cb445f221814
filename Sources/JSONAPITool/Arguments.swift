/// Command-line parsing as swift-argument-parser tools do it, without the dependency: long options
/// (`--name value`, `--name=value`), short ones (`-i value`, `-ivalue`), flags, and `--` to end the options.

/// One option a command takes: the names, the value it needs (none for a flag) and its line of help.
struct OptionSpec: Sendable {
    /// The long name, without `--`.
    var long: String
    /// The short name, without `-`.
    var short: Character?
    /// What the value looks like in the help (`a,b.c`); `nil` for a flag.
    var value: String?
    /// The help line.
    var help: String
    /// The values to complete, when they are a fixed set (`json`, `table`).
    var choices: [String] = []
    /// Whether the value is a file path, so completion offers files.
    var isPath = false

    /// The names as the help shows them: `-i, --include a,b.c`.
    var label: String {
        let names = (short.map { "-\($0), " } ?? "    ") + "--\(long)"
        return value.map { "\(names) \($0)" } ?? names
    }

    /// `--help`, which every command takes.
    static let help = OptionSpec(long: "help", short: "h", value: nil, help: "show this help")
}

/// A usage error: the message for standard error, after `Error: `.
struct UsageError: Error, Equatable {
    var message: String
}

/// The arguments of one command, sorted into positionals, option values (in order) and flags.
struct ParsedArguments {
    /// The arguments that are not options, in order (everything after `--` among them).
    var positionals: [String] = []
    /// Each option's values by long name, in the order given.
    var values: [String: [String]] = [:]
    /// The flags given, by long name.
    var flags: Set<String> = []

    /// The values given for `long`; `[]` when none.
    func all(_ long: String) -> [String] { values[long] ?? [] }
    /// The last value given for `long`.
    func last(_ long: String) -> String? { values[long]?.last }
    /// Whether the flag `long` was given.
    func has(_ long: String) -> Bool { flags.contains(long) }

    /// Sorts `arguments` by `options`.
    ///
    /// - Throws: ``UsageError`` for an unknown option, a flag given a value or an option missing its value.
    static func parse(_ arguments: [String], options: [OptionSpec]) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = arguments.startIndex
        func take(_ spec: OptionSpec, inline: String?, as written: String) throws(UsageError) {
            guard spec.value != nil else {
                guard inline == nil else { throw UsageError(message: "\(written) takes no value") }
                result.flags.insert(spec.long)
                return
            }
            if let inline {
                result.values[spec.long, default: []].append(inline)
                return
            }
            index += 1
            guard index < arguments.endIndex else { throw UsageError(message: "\(written) needs a value") }
            result.values[spec.long, default: []].append(arguments[index])
        }
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" {
                result.positionals += arguments[(index + 1)...]
                break
            } else if argument.hasPrefix("--") {
                let parts = argument.dropFirst(2).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0])
                guard let spec = options.first(where: { $0.long == name }) else {
                    throw UsageError(message: "unknown option '\(argument)'")
                }
                try take(spec, inline: parts.count > 1 ? String(parts[1]) : nil, as: "--\(name)")
            } else if argument.count > 1, argument.hasPrefix("-"), let letter = argument.dropFirst().first {
                guard let spec = options.first(where: { $0.short == letter }) else {
                    throw UsageError(message: "unknown option '-\(letter)'")
                }
                let rest = String(argument.dropFirst(2))
                if spec.value == nil, !rest.isEmpty {
                    throw UsageError(message: "-\(letter) takes no value, not '\(rest)'")
                }
                try take(spec, inline: rest.isEmpty ? nil : rest, as: "-\(letter)")
            } else {
                result.positionals.append(argument)
            }
            index += 1
        }
        return result
    }

    /// Whether `arguments` ask for help (`-h` or `--help` before any `--`).
    static func asksForHelp(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains { $0 == "-h" || $0 == "--help" }
    }
}
