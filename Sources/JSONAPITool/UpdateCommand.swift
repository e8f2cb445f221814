import Foundation
import JSONAPIClient

/// `jsonapi update URL [OPTIONS]`: updates a resource (`PATCH`) with only the members given, and prints the
/// response.
enum UpdateCommand: Command {
    static let name = "update"
    static let synopsis = "URL (--data JSON | --file PATH|- | --set NAME=VALUE | --null NAME …) [OPTIONS]"
    static let summary = "update a resource: PATCH only the members given"
    static let discussion = """
          PATCHes the resource at URL with only the members given — a partial update: the body's members,
          then each --set and --null — and prints the response document; the HTTP status goes to standard error.
          When the body does not give both the type and the id, one GET of URL reads them first.
            jsonapi update URL --set title="New title" --set views=3 --null subtitle
          Exit status: 0 success, 1 HTTP, transport or decoding error, 2 bad arguments or body.
        """
    static let options = ResourceBody.options + [RequestOptions.header]

    static func execute(_ arguments: ParsedArguments, streams: Streams, client: any Client) async throws -> Int32 {
        let url = try RequestOptions.url(arguments)
        let headers = try RequestOptions.headers(arguments)
        guard var resource = try ResourceBody.resource(arguments, streams: streams),
            resource.attributes != nil || resource.relationships != nil || resource.meta != nil
        else { throw UsageError(message: "nothing to update: give --data, --file, --set or --null") }
        let session = RequestOptions.session(for: url, client: client)
        if resource.type.isEmpty || resource.id == nil {
            var request = session.fetch(url)
            for field in headers { request = request.header(field.name, field.value) }
            guard case .resource(let current)? = try await request.result().data else {
                throw UsageError(message: "\(url.absoluteString) is not one resource: cannot learn its type and id")
            }
            if resource.type.isEmpty { resource.type = current.type }
            if resource.id == nil { resource.id = current.id }
        }
        try RequestOptions.report(try await session.update(resource, at: url, headerFields: headers), streams: streams)
        return Output.ExitCode.success
    }
}
