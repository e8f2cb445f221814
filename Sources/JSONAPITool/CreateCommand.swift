import Foundation
import JSONAPIClient

/// `jsonapi create URL [OPTIONS]`: creates a resource (`POST` to the collection at URL) and prints the response.
enum CreateCommand: Command {
    static let name = "create"
    static let synopsis = "URL (--data JSON | --file PATH|- | --type TYPE --set NAME=VALUE …) [OPTIONS]"
    static let summary = "create a resource: POST to a collection"
    static let discussion = """
          POSTs one resource object to the collection at URL (e.g. https://api.example.com/articles) and prints
          the response document (the created resource); HTTP status and Location go to standard error.
          The body is a JSON:API document or a bare resource object; --type, --set and --null add to it:
            jsonapi create URL --data '{"data": {"type": "tags", "attributes": {"name": "swift"}}}'
            jsonapi create URL --type tags --set name=swift
          Exit status: 0 success, 1 HTTP, transport or decoding error, 2 bad arguments or body.
        """
    static let options = ResourceBody.options + [RequestOptions.header]

    static func execute(_ arguments: ParsedArguments, streams: Streams, client: any Client) async throws -> Int32 {
        let url = try RequestOptions.url(arguments)
        let headers = try RequestOptions.headers(arguments)
        guard let resource = try ResourceBody.resource(arguments, streams: streams) else {
            throw UsageError(message: "missing body: give --data, --file or --type with --set")
        }
        guard !resource.type.isEmpty else {
            throw UsageError(message: "the resource has no type: give it in the body or with --type")
        }
        let session = RequestOptions.session(for: url, client: client)
        try RequestOptions.report(try await session.create(resource, at: url, headerFields: headers), streams: streams)
        return Output.ExitCode.success
    }
}
