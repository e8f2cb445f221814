import Foundation
import JSONAPIClientCore

/// `jsonapi inspect FILE|- [--strict]`: decodes a document and prints it normalized; with `--strict`, checks it
/// against the specification's MUST rules first.
enum InspectCommand {
    static let usage = """
        usage: jsonapi inspect FILE|- [--strict]
          Decodes the JSON:API document in FILE (- for standard input) and prints it normalized:
          pretty JSON with sorted keys. --strict first reports every violation of the specification's
          MUST rules, one "POINTER: message" line each on standard error, and exits 1 if there are any.
        """

    static func run(_ arguments: [String]) -> Int32 {
        var strict = false
        var path: String?
        for argument in arguments {
            switch argument {
            case "--strict": strict = true
            case "-h", "--help":
                Output.standardOutput(usage)
                return Output.ExitCode.success
            case "-": path = argument
            default:
                if argument.hasPrefix("-") || path != nil {
                    Output.standardError("jsonapi inspect: unexpected argument '\(argument)'\n\(usage)")
                    return Output.ExitCode.usage
                }
                path = argument
            }
        }
        guard let path else {
            Output.standardError("jsonapi inspect: missing FILE\n\(usage)")
            return Output.ExitCode.usage
        }
        let data: Data
        do {
            data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            Output.standardError("jsonapi inspect: cannot read \(path): \(error.localizedDescription)")
            return Output.ExitCode.usage
        }
        return inspect(data, strict: strict)
    }

    static func inspect(_ data: Data, strict: Bool) -> Int32 {
        do {
            if strict {
                let violations = try DocumentValidator.validate(data)
                if !violations.isEmpty {
                    for violation in violations { Output.standardError(violation.description) }
                    return Output.ExitCode.failure
                }
            }
            let document = try JSONAPIDecoder().decode(RawDocument.self, from: data)
            var output = try JSONAPIEncoder(outputFormatting: .prettyPrinted).encode(document)
            output.append(UInt8(ascii: "\n"))
            Output.standardOutput(output)
            return Output.ExitCode.success
        } catch {
            Output.standardError("\(error)")
            return Output.ExitCode.failure
        }
    }
}
