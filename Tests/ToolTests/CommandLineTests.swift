import Foundation
import TestSupport
import Testing

/// The conventions of swift-argument-parser tools, checked on the built `jsonapi` binary: help, version, short
/// flags, `--`, error messages, shell completion and the User-Agent.
@Suite("jsonapi command line")
struct CommandLineTests {
    static let commands = ["inspect", "get", "create", "update", "delete", "relationship", "completion"]

    @Test("jsonapi help COMMAND and jsonapi COMMAND --help (or -h) print that command's help, exit 0", arguments: commands)
    func commandHelp(_ command: String) async throws {
        let help = try await Tool.run(["help", command])
        #expect(help.status == 0)
        #expect(help.standardOutput.hasPrefix("usage: jsonapi \(command) "))
        #expect(help.standardOutput.contains("  -h, --help"))
        #expect(help.standardError.isEmpty)
        #expect(try await Tool.run([command, "--help"]).standardOutput == help.standardOutput)
        #expect(try await Tool.run([command, "-h"]).standardOutput == help.standardOutput)
    }

    @Test("jsonapi help, --help and -h print the command list; bare jsonapi prints it on standard error, exit 2")
    func topLevelHelp() async throws {
        let help = try await Tool.run(["help"])
        #expect(help.status == 0)
        for command in Self.commands { #expect(help.standardOutput.contains("\n  \(command) "), "\(command)") }
        #expect(help.standardOutput.contains("--version"))
        #expect(try await Tool.run(["--help"]).standardOutput == help.standardOutput)
        #expect(try await Tool.run(["-h"]).standardOutput == help.standardOutput)
        let bare = try await Tool.run([])
        #expect(bare.status == 2)
        #expect(bare.standardOutput.isEmpty)
        #expect(bare.standardError == help.standardOutput)
    }

    @Test("--version prints the version alone")
    func version() async throws {
        let run = try await Tool.run(["--version"])
        #expect(run.status == 0)
        #expect(run.standardOutput == "0.1.0\n")
    }

    @Test("The get help documents the short flags, which parse like the long ones")
    func shortFlags() async throws {
        let help = try await Tool.run(["help", "get"]).standardOutput
        for flag in ["-i, --include", "-H, --header", "-F, --fields", "-s, --sort", "-f, --filter", "-p, --page", "-n, --page-size", "-a, --all", "-o, --output", "-c, --columns"] {
            #expect(help.contains("  \(flag) "), "\(flag)")
        }
    }

    @Test("A bad argument: Error: … then See 'jsonapi COMMAND --help'. on standard error, exit 2", arguments: [
        (["get", "--bogus"], "Error: unknown option '--bogus'", "get"),
        (["get", "https://h.example", "-i"], "Error: -i needs a value", "get"),
        (["get", "https://h.example", "-z"], "Error: unknown option '-z'", "get"),
        (["get", "https://h.example", "--all=yes"], "Error: --all takes no value", "get"),
        (["inspect"], "Error: missing FILE", "inspect"),
        (["completion", "fish"], "Error: unknown shell 'fish': bash or zsh", "completion"),
        (["frobnicate"], "Error: unknown command 'frobnicate'", nil),
        (["help", "frobnicate"], "Error: unknown command 'frobnicate'", nil),
        (["--bogus"], "Error: unknown option '--bogus'", nil),
    ] as [([String], String, String?)])
    func errors(_ arguments: [String], _ message: String, _ command: String?) async throws {
        let run = try await Tool.run(arguments)
        #expect(run.status == 2)
        #expect(run.standardOutput.isEmpty)
        let see = command.map { "See 'jsonapi \($0) --help'." } ?? "See 'jsonapi --help'."
        #expect(run.standardError == "\(message)\n\(see)\n")
    }

    @Test("-- ends the options: what follows is an argument even when it starts with a dash, and --help there is not help")
    func doubleDash() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("-doc-\(UUID().uuidString).json")
        try Data(#"{"meta": {"a": 1}}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let directory = file.deletingLastPathComponent().path
        let name = file.lastPathComponent
        let run = try await Tool.spawn(
            Tool.executable(), ["inspect", "--strict", "--", name], directory: URL(fileURLWithPath: directory))
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("\"a\": 1"))
        // Without --, the same name is read as an option.
        let option = try await Tool.run(["inspect", "--", "--help"])
        #expect(option.status == 2)
        #expect(option.standardError.hasPrefix("Error: cannot read --help"))
    }

    @Test("completion bash: a script bash accepts, which completes commands, options and option values")
    func bashCompletion() async throws {
        let script = try await Tool.run(["completion", "bash"])
        #expect(script.status == 0)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-\(UUID().uuidString).bash")
        try Data(script.standardOutput.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        func complete(_ words: [String]) async throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let run = try await Tool.spawn(
                URL(fileURLWithPath: "/bin/bash"),
                [
                    "--norc", "-c",
                    "source '\(file.path)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _jsonapi; printf '%s\\n' \"${COMPREPLY[@]}\"",
                ])
            #expect(run.status == 0)
            return run.standardOutput.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        }
        // Sourcing the script registers the function for the command.
        let line = try await Tool.spawn(
            URL(fileURLWithPath: "/bin/bash"), ["--norc", "-c", "source '\(file.path)'; complete -p jsonapi"]
        ).standardOutput
        #expect(line.contains("-F _jsonapi jsonapi"))
        #expect(try await complete(["jsonapi", "re"]) == ["relationship"])
        #expect(try await complete(["jsonapi", "--v"]) == ["--version"])
        #expect(try await complete(["jsonapi", "get", "--inc"]) == ["--include"])
        #expect(try await complete(["jsonapi", "get", "--output", ""]) == ["json", "table"])
        #expect(try await complete(["jsonapi", "update", "--s"]) == ["--set"])
        #expect(try await complete(["jsonapi", "relationship", "http://h/x", "r"]) == ["replace", "remove"])
        #expect(try await complete(["jsonapi", "completion", "z"]) == ["zsh"])
        #expect(try await complete(["jsonapi", "help", "up"]) == ["update"])
    }

    @Test("completion zsh: a #compdef script with every command and each command's options")
    func zshCompletion() async throws {
        let script = try await Tool.run(["completion", "zsh"])
        #expect(script.status == 0)
        let text = script.standardOutput
        #expect(text.hasPrefix("#compdef jsonapi\n"))
        for command in Self.commands { #expect(text.contains("'\(command):"), "\(command)") }
        #expect(text.contains("(get) _arguments"))
        #expect(text.contains("'*--include[include related resources (repeatable)]:a,b.c:'"))
        #expect(text.contains("'create:create a resource: POST to a collection'"))
        #expect(text.contains("'*--output[") && text.contains(":(json table)'"))
        #expect(text.contains("'*--file[") && text.contains(":_files'"))
        // zsh itself reads it, where zsh is installed (bash is everywhere; zsh is not, so the text checks stand alone).
        if let zsh = ["/bin/zsh", "/usr/bin/zsh"].first(where: FileManager.default.isExecutableFile(atPath:)) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("_jsonapi-\(UUID().uuidString)")
            try Data(text.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(try await Tool.spawn(URL(fileURLWithPath: zsh), ["-n", file.path]).status == 0)
        }
        // Balanced quotes: every line has an even number of single quotes once escapes are taken out.
        for line in text.split(separator: "\n") {
            let unescaped = line.replacingOccurrences(of: "'\\''", with: "")
            #expect(unescaped.filter { $0 == "'" }.count % 2 == 0, "\(line)")
        }
    }

    @Test("Requests carry User-Agent: jsonapi/<version>; a --header replaces it")
    func userAgent() async throws {
        let base = try TestServer.url().absoluteString
        let run = try await Tool.run(["get", base + "/echo-headers"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains(#""user-agent": "jsonapi/0.1.0""#))
        let custom = try await Tool.run(["get", base + "/echo-headers", "-H", "User-Agent: probe/1"])
        #expect(custom.standardOutput.contains(#""user-agent": "probe/1""#))
        #expect(!custom.standardOutput.contains("jsonapi/0.1.0"))
    }
}
