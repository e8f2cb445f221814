import Foundation
import JSONAPIClient

/// `jsonapi inspect FILE|- [--strict [--request=KIND]]`: decodes a document and prints it normalized; with
/// `--strict`, checks it against the specification's MUST rules first, as a response or as a request body.
enum InspectCommand: Command {
    static let name = "inspect"
    static let synopsis = "FILE|- [--strict [--request=create|update|relationship]]"
    static let summary = "decode a document and print it normalized; --strict checks the spec's MUST rules"
    static let discussion = """
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
    static let options = [
        OptionSpec(long: "strict", short: nil, value: nil, help: "check the specification's MUST rules first"),
        OptionSpec(
            long: "request", short: "r", value: "KIND",
            help: "with --strict, check a request body: create, update or relationship",
            choices: ["create", "update", "relationship"]),
    ]

    /// The `--request` values and the kinds of document they check.
    static let requestKinds: [String: DocumentValidator.Kind] = [
        "create": .createRequest, "update": .updateRequest, "relationship": .relationshipRequest,
    ]

    static func execute(_ arguments: ParsedArguments, streams: Streams, client: any Client) async throws -> Int32 {
        guard let path = arguments.positionals.first else { throw UsageError(message: "missing FILE") }
        if arguments.positionals.count > 1 {
            throw UsageError(message: "unexpected argument '\(arguments.positionals[1])'")
        }
        let strict = arguments.has("strict")
        var kind = DocumentValidator.Kind.response
        if let value = arguments.last("request") {
            guard let requested = requestKinds[value] else {
                throw UsageError(message: "--request needs create, update or relationship, not '\(value)'")
            }
            guard strict else { throw UsageError(message: "--request applies to --strict; add --strict") }
            kind = requested
        }
        let data: Data
        do {
            data = path == "-" ? streams.input() : try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw UsageError(message: "cannot read \(path): \(error.localizedDescription)")
        }
        return inspect(data, strict: strict, as: kind, streams: streams)
    }

    /// Validates (with `strict`) and prints `data`; returns the exit status.
    static func inspect(_ data: Data, strict: Bool, as kind: DocumentValidator.Kind, streams: Streams) -> Int32 {
        do {
            if strict {
                let violations = try DocumentValidator.validate(data, as: kind)
                if !violations.isEmpty {
                    for violation in violations { streams.error(violation.description) }
                    return Output.ExitCode.failure
                }
            }
            streams.output(try Output.text(of: try JSONAPIDecoder().decode(RawDocument.self, from: data)))
            return Output.ExitCode.success
        } catch {
            streams.error("\(error)")
            return Output.ExitCode.failure
        }
    }
}
