import Foundation
import JSONAPIClientCore

/// `jsonapi inspect FILE|- [--strict [--request=KIND]]`: decodes a document and prints it normalized; with
/// `--strict`, checks it against the specification's MUST rules first, as a response or as a request body.
enum InspectCommand {
    static let usage = """
        usage: jsonapi inspect FILE|- [--strict [--request=create|update|relationship]]
          Decodes the JSON:API document in FILE (- for standard input) and prints it normalized:
          pretty JSON with sorted keys. --strict first reports every violation of the specification's
          MUST rules, one "POINTER: message" line each on standard error, and exits 1 if there are any.
          --request checks the document as the body a client sends instead of a server's response:
            create        POST to a collection: one resource object; id optional, lid allowed;
                          every relationship has data
            update        PATCH to a resource: one resource object with type and id;
                          every relationship has data
            relationship  PATCH, POST or DELETE to a relationship endpoint: data is null,
                          a resource identifier object or an array of them
          Exit status: 0 valid, 1 violations or a document that does not decode, 2 bad arguments
          or unreadable input.
        """

    /// The `--request` values and the kinds of document they check.
    static let requestKinds: [String: DocumentValidator.Kind] = [
        "create": .createRequest, "update": .updateRequest, "relationship": .relationshipRequest,
    ]

    static func run(_ arguments: [String]) -> Int32 {
        var strict = false
        var kind: DocumentValidator.Kind?
        var path: String?
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--strict": strict = true
            case "-h", "--help":
                Output.standardOutput(usage)
                return Output.ExitCode.success
            case "-": path = argument
            case _ where argument == "--request" || argument.hasPrefix("--request="):
                var value = String(argument.dropFirst("--request=".count))
                if argument == "--request" {
                    guard index < arguments.endIndex else { return usageError("--request needs a value") }
                    value = arguments[index]
                    index += 1
                }
                guard let requested = requestKinds[value] else {
                    return usageError("--request needs create, update or relationship, not '\(value)'")
                }
                kind = requested
            default:
                if argument.hasPrefix("-") || path != nil { return usageError("unexpected argument '\(argument)'") }
                path = argument
            }
        }
        guard let path else { return usageError("missing FILE") }
        if kind != nil, !strict { return usageError("--request applies to --strict; add --strict") }
        let data: Data
        do {
            data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            Output.standardError("jsonapi inspect: cannot read \(path): \(error.localizedDescription)")
            return Output.ExitCode.usage
        }
        return inspect(data, strict: strict, as: kind ?? .response)
    }

    private static func usageError(_ message: String) -> Int32 {
        Output.standardError("jsonapi inspect: \(message)\n\(usage)")
        return Output.ExitCode.usage
    }

    /// Validates (with `strict`) and prints `data`; returns the exit status.
    static func inspect(_ data: Data, strict: Bool, as kind: DocumentValidator.Kind = .response) -> Int32 {
        do {
            if strict {
                let violations = try DocumentValidator.validate(data, as: kind)
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
