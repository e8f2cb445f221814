import Foundation

extension RequestExecutor {
    /// Sends a write and reads its response: a typed document for 200/201 with a body, a raw one for 202, none
    /// for 204 (or any empty body).
    func write<Primary: Decodable & Sendable>(_ prepared: PreparedRequest, as type: Primary.Type) async throws
        -> WriteResponse<Primary>
    {
        let (request, response) = try await send(prepared)
        var result = WriteResponse<Primary>(status: response.status, headerFields: response.headerFields)
        if let location = response.headerFields[.location] {
            result.location = URL(string: location, relativeTo: request.url)?.absoluteURL
        }
        guard !response.body.isEmpty, response.status != .noContent else { return result }
        if response.status == .accepted {
            result.rawDocument = try decode(PrimaryData.self, request: request, response: response)
        } else {
            result.document = try decode(Primary.self, request: request, response: response)
        }
        return result
    }
}
