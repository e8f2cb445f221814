import Foundation
import JSONAPIClient

/// `jsonapi relationship URL get|replace|add|remove [TYPE:ID …]`: reads or changes a relationship endpoint.
enum RelationshipCommand: Command {
    static let name = "relationship"
    static let synopsis = "URL get|replace|add|remove [TYPE:ID …] [OPTIONS]"
    static let summary = "read or change a relationship (…/relationships/NAME)"
    static let discussion = """
          Works on the relationship endpoint at URL (e.g. https://api.example.com/articles/1/relationships/tags):
            get                   print its linkage
            replace [TYPE:ID …]   replace a to-many relationship with these (none empties it), PATCH;
                                  with --to-one, a to-one relationship with the one given (none empties it)
            add TYPE:ID …         add to a to-many relationship, POST
            remove TYPE:ID …      remove from a to-many relationship, DELETE
          An identifier is TYPE:ID (split at the first colon). The response document, if any, goes to
          standard output; the HTTP status of a change to standard error.
          Exit status: 0 success, 1 HTTP, transport or decoding error, 2 bad arguments.
        """
    static let options = [
        OptionSpec(long: "to-one", short: nil, value: nil, help: "replace a to-one relationship (one TYPE:ID, or none for null)"),
        RequestOptions.header,
    ]
    static let positionalWords = ["get", "replace", "add", "remove"]

    static func execute(_ arguments: ParsedArguments, streams: Streams, client: any Client) async throws -> Int32 {
        let positionals = arguments.positionals
        guard let first = positionals.first else { throw UsageError(message: "missing URL") }
        let url = try RequestOptions.url(first)
        guard positionals.count > 1 else { throw UsageError(message: "missing action: get, replace, add or remove") }
        let action = positionals[1]
        let identifiers = try positionals.dropFirst(2).map { text throws(UsageError) in try identifier(text) }
        let headers = try RequestOptions.headers(arguments)
        let session = RequestOptions.session(for: url, client: client)
        if arguments.has("to-one"), action != "replace" {
            throw UsageError(message: "--to-one applies to replace")
        }
        let endpoint = session.relationship(at: url)
        switch action {
        case "get":
            guard identifiers.isEmpty else { throw UsageError(message: "get takes no identifiers") }
            var request = session.fetch(url)
            for field in headers { request = request.header(field.name, field.value) }
            streams.output(try Output.text(of: try await request.result().document))
            return Output.ExitCode.success
        case "replace" where arguments.has("to-one"):
            guard identifiers.count <= 1 else { throw UsageError(message: "--to-one takes one identifier or none") }
            try RequestOptions.report(
                try await endpoint.replace(with: identifiers.first, headerFields: headers), streams: streams)
        case "replace":
            try RequestOptions.report(try await endpoint.replace(with: identifiers, headerFields: headers), streams: streams)
        case "add", "remove":
            guard !identifiers.isEmpty else { throw UsageError(message: "\(action) needs at least one TYPE:ID") }
            let response =
                action == "add"
                ? try await endpoint.add(identifiers, headerFields: headers)
                : try await endpoint.remove(identifiers, headerFields: headers)
            try RequestOptions.report(response, streams: streams)
        default:
            throw UsageError(message: "unknown action '\(action)': get, replace, add or remove")
        }
        return Output.ExitCode.success
    }

    /// `TYPE:ID` as an identifier.
    static func identifier(_ text: String) throws(UsageError) -> ResourceIdentifier {
        guard let (type, id) = RequestOptions.split(text, at: ":"), !type.isEmpty, !id.isEmpty else {
            throw UsageError(message: "an identifier is TYPE:ID, not '\(text)'")
        }
        return ResourceIdentifier(type: type, id: id)
    }
}
