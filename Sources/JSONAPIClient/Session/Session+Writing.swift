import Foundation

extension Session {
    /// Sends a write and reads its response: a typed document for 200/201 with a body, a raw one for 202, none
    /// for 204 (or any empty body).
    func write<Primary: Decodable & Sendable>(_ request: JSONAPIRequest, as type: Primary.Type) async throws
        -> WriteResponse<Primary>
    {
        let (sent, response) = try await send(request, to: try request.url())
        var result = WriteResponse<Primary>(status: response.status, headerFields: response.headerFields)
        if let location = response.headerFields[.location] {
            result.location = URL(percentEncoding: location, relativeTo: sent.url)?.absoluteURL
        }
        if let store {
            // What the server returned is the newest version; without a body, what was sent is (a 204 to a PATCH
            // applied exactly the members sent). A 202's body describes a job, not the resource.
            if !response.body.isEmpty, response.status != .accepted {
                store.merge(from: response.body)
            } else if response.status == .noContent, let body = request.body {
                store.merge(from: body)
            }
            // The stored responses of what was written are out of date; a create or delete also changes the lists
            // of its type, which must not go on missing the new resource or showing the deleted one.
            store.invalidateResponses(after: sent.method, to: sent.url)
            if sent.method == .post || sent.method == .delete, let model = Primary.self as? any Resource.Type {
                store.invalidateCollections(of: model.resourceType)
            }
        }
        guard !response.body.isEmpty, response.status != .noContent else { return result }
        if response.status == .accepted {
            result.rawDocument = try decode(PrimaryData.self, request: sent, response: response) {
                decoder, body throws(JSONAPIDecodingError) in try decoder.decode(RawDocument.self, from: body)
            }
        } else {
            result.document = try decode(Primary.self, request: sent, response: response) {
                decoder, body throws(JSONAPIDecodingError) in try decoder.decode(Document<Primary>.self, from: body)
            }
        }
        return result
    }

    /// Encodes a request body with the session's encoder, mapping a failure to ``JSONAPIClientError``. A resource
    /// the body names by a local id that this session has seen created is sent with its id (``LocalIDs``).
    func encode(_ method: HTTPMethod, _ url: URL, _ body: (JSONAPIEncoder) throws -> Data) throws(JSONAPIClientError)
        -> Data
    {
        do {
            return localIDs.replacing(
                in: try body(configuration.encoder), decoder: configuration.decoder, clears: store?.clears ?? 0)
        } catch {
            throw JSONAPIClientError(
                code: .encodingFailed, detail: "the request body could not be encoded: \(error)", method: method,
                url: url, underlyingError: error)
        }
    }
}
