import Foundation
import JSONAPIClient

/// `jsonapi completion bash|zsh`: prints a shell completion script, made from the commands' own option lists.
enum CompletionCommand: Command {
    static let name = "completion"
    static let synopsis = "bash|zsh"
    static let summary = "print a bash or zsh completion script"
    static let discussion = """
          Prints a script that completes jsonapi's commands and options in the shell:
            bash:  source <(jsonapi completion bash)      (or save it in ~/.local/share/bash-completion/completions/jsonapi)
            zsh:   jsonapi completion zsh > "${fpath[1]}/_jsonapi"   (a folder in $fpath), then restart zsh
        """
    static let options: [OptionSpec] = []
    static let positionalWords = ["bash", "zsh"]

    static func execute(_ arguments: ParsedArguments, streams: Streams, client: any Client) async throws -> Int32 {
        guard let shell = arguments.positionals.first else { throw UsageError(message: "missing shell: bash or zsh") }
        guard arguments.positionals.count == 1 else {
            throw UsageError(message: "unexpected argument '\(arguments.positionals[1])'")
        }
        switch shell {
        case "bash": streams.output(Data(bash.utf8))
        case "zsh": streams.output(Data(zsh.utf8))
        default: throw UsageError(message: "unknown shell '\(shell)': bash or zsh")
        }
        return Output.ExitCode.success
    }

    /// The bash script: commands first, then each command's options (and the values of those with fixed ones).
    static var bash: String {
        var names: [String] = []
        var cases: [String] = []
        var specs: [String: OptionSpec] = [:]
        for command in JSONAPI.commands {
            names.append(command.name)
            var words = command.positionalWords
            for option in command.allOptions {
                words += flags(option)
                specs[option.long] = option
            }
            cases.append("        \(command.name)) words=\"\(words.joined(separator: " "))\" ;;")
        }
        cases.append("        help) words=\"\(names.joined(separator: " "))\" ;;")
        var values: [String] = []
        for (_, spec) in specs.sorted(by: { $0.key < $1.key }) where spec.value != nil {
            let pattern = flags(spec).joined(separator: "|")
            if !spec.choices.isEmpty {
                let choices = spec.choices.joined(separator: " ")
                values.append("        \(pattern)) COMPREPLY=($(compgen -W \"\(choices)\" -- \"$cur\")); return ;;")
            } else if spec.isPath {
                values.append("        \(pattern)) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;")
            } else {
                values.append("        \(pattern)) return ;;")
            }
        }
        let commands = (names + ["help", "--help", "--version"]).joined(separator: " ")
        return """
            # bash completion for jsonapi (jsonapi completion bash)
            _jsonapi() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" words=""
                COMPREPLY=()
                if [[ $COMP_CWORD -eq 1 ]]; then
                    COMPREPLY=($(compgen -W "\(commands)" -- "$cur"))
                    return
                fi
                case "$prev" in
            \(values.joined(separator: "\n"))
                esac
                case "${COMP_WORDS[1]}" in
            \(cases.joined(separator: "\n"))
                esac
                COMPREPLY=($(compgen -W "$words" -- "$cur"))
            }
            complete -o default -F _jsonapi jsonapi

            """
    }

    /// `-i` and `--include`.
    private static func flags(_ option: OptionSpec) -> [String] {
        [option.short.map { "-\($0)" }, "--\(option.long)"].compactMap { $0 }
    }

    /// `text` inside a single-quoted `_arguments` or `_describe` description: quotes and brackets escaped (a colon
    /// after the first is part of the description).
    private static func zshQuoted(_ text: String) -> String {
        text.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: "[", with: "\\[")
            .replacingOccurrences(of: "]", with: "\\]")
    }

    /// The zsh script (`#compdef`): `_describe` for the commands, `_arguments` for each command's options.
    static var zsh: String {
        var described: [String] = []
        var cases: [String] = []
        var names: [String] = []
        for command in JSONAPI.commands {
            names.append(command.name)
            described.append("        '\(command.name):\(zshQuoted(command.summary))'")
            var specs: [String] = []
            for option in command.allOptions {
                var action = ""
                if let value = option.value {
                    let completer =
                        option.isPath ? "_files" : option.choices.isEmpty ? "" : "(\(option.choices.joined(separator: " ")))"
                    action = ":\(zshQuoted(value)):\(completer)"
                }
                for flag in flags(option) { specs.append("'*\(flag)[\(zshQuoted(option.help))]\(action)'") }
            }
            let words = command.positionalWords
            specs.append(words.isEmpty ? "'*:argument:_default'" : "'*:argument:(\(words.joined(separator: " ")))'")
            cases.append("        (\(command.name)) _arguments -s \\\n            \(specs.joined(separator: " \\\n            ")) ;;")
        }
        described.append("        'help:show the help of a command'")
        cases.append("        (help) _values 'command' \(names.joined(separator: " ")) ;;")
        return """
            #compdef jsonapi
            # zsh completion for jsonapi (jsonapi completion zsh)
            _jsonapi() {
                local -a commands
                commands=(
            \(described.joined(separator: "\n"))
                )
                if (( CURRENT == 2 )); then
                    _describe 'command' commands
                    _arguments '--version[print the version]' '--help[show the help]'
                    return
                fi
                words=("${words[@]:1}")
                (( CURRENT-- ))
                case $words[1] in
            \(cases.joined(separator: "\n"))
                esac
            }
            _jsonapi "$@"

            """
    }
}
