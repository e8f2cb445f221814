import Foundation
import JSONAPIClient

/// `jsonapi delete URL [OPTIONS]`: deletes a resource (`DELETE`).
enum DeleteCommand: Command {
    static let name = "delete"
    static let synopsis = "URL [OPTIONS]"
    static let summary = "delete a resource"
    static let discussion = """
          Sends DELETE to URL. The HTTP status goes to standard error; a response document (meta), if any,
          to standard output.
          Exit status: 0 success, 1 HTTP, transport or decoding error, 2 bad arguments.
        """
    static let options = [RequestOptions.header]

    static func execute(_ arguments: ParsedArguments, streams: Streams, client: any Client) async throws -> Int32 {
        let url = try RequestOptions.url(arguments)
        let headers = try RequestOptions.headers(arguments)
        let session = RequestOptions.session(for: url, client: client)
        try RequestOptions.report(try await session.delete(url, headerFields: headers), streams: streams)
        return Output.ExitCode.success
    }
}
