import Foundation

extension Session {
    /// Sends operations of the Atomic Operations extension (`https://jsonapi.org/ext/atomic`) in one request, which
    /// the server applies all together or not at all, and returns their results in request order (`[]` when the
    /// server answers 204). Any other success must carry `atomic:results` with one result per operation: a response
    /// without them, or with more or fewer, is a ``JSONAPIClientError/Code/decodingFailed`` error that says which.
    ///
    /// ```swift
    /// let results = try await session.atomic([
    ///     .add(ResourceObject(type: "people", lid: "p1", attributes: ["name": "Ann"])),
    ///     .add(ResourceObject(type: "articles", attributes: ["title": "Hello"],
    ///                         relationships: ["author": Relationship(data: .toOne(ResourceIdentifier(type: "people", lid: "p1")))])),
    /// ])
    /// ```
    ///
    /// The request carries `ext="https://jsonapi.org/ext/atomic"` in `Content-Type` and `Accept`. A failed batch is
    /// a ``JSONAPIClientError`` whose error objects point at the failing operation (`/atomic:operations/1`). An
    /// applied batch reaches the session's store as other writes do: the resources of the results are merged,
    /// removed resources are forgotten, and the stored lists of each type it touched become stale.
    ///
    /// - Parameters:
    ///   - operations: The operations, applied in order.
    ///   - path: The operations endpoint, under the base URL (`operations` by default).
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    /// - Returns: The result of each operation, in order; `[]` for a 204.
    /// - Throws: ``JSONAPIClientError``: the server's error objects point at the failing operation.
    @discardableResult
    public func atomic(
        _ operations: [AtomicOperation], path: String = "operations", headerFields: HTTPFields = HTTPFields()
    ) async throws -> [AtomicResult] {
        guard let url = URL(percentEncoding: path, relativeTo: Self.folder(baseURL))?.absoluteURL else {
            throw JSONAPIClientError(code: .invalidRequest, detail: "\"\(path)\" is not a valid path", url: baseURL)
        }
        let body = try encode(.post, url) { try $0.encodeAtomicOperations(operations) }
        var mediaType = configuration.mediaType
        if !mediaType.ext.contains(AtomicOperation.extensionURI) { mediaType.ext.append(AtomicOperation.extensionURI) }
        let atomic = JSONAPIRequest(
            method: .post, target: .success(url), headerFields: headerFields, body: body, mediaType: mediaType)
        let epoch = store?.clears
        let (request, response) = try await send(atomic, to: url)
        if response.status == .noContent { return [] }
        func failure(_ detail: String, _ error: JSONAPIDecodingError? = nil) -> JSONAPIClientError {
            JSONAPIClientError(
                code: .decodingFailed, detail: detail, method: request.method, url: request.url,
                status: response.status, responseHeaders: response.headerFields, responseBody: response.body,
                decodingError: error)
        }
        let results: [AtomicResult]
        do {
            results = try configuration.decoder.decodeAtomicResults(from: response.body)
        } catch {
            throw failure("the response is not an atomic:results document: \(error)", error)
        }
        guard results.count == operations.count else {
            throw failure(
                "HTTP \(response.status.code) with \(results.count) atomic:results for \(operations.count) operations; "
                    + "the extension requires one result per operation")
        }
        // Not when the store was cleared, or changed owner, meanwhile (the batch was another account's): the store
        // checks, in the same lock section that applies it.
        store?.apply(Self.answer(operations, results, epoch: epoch))
        return results
    }

    /// What an applied batch does to the store, as a write's answer does (``ResourceStore/apply(_:)``): the
    /// resources the results return are the newest versions, removed resources are gone, and the stored lists of
    /// every type the batch touched are stale.
    private static func answer(
        _ operations: [AtomicOperation], _ results: [AtomicResult], epoch: UInt64?
    ) -> ResourceStore.WriteAnswer {
        var answer = ResourceStore.WriteAnswer(epoch: epoch)
        answer.objects = results.flatMap { result -> [ResourceObject] in
            if case .resource(let object)? = result.data { [object] } else { [] }
        }
        for operation in operations {
            if case .resource(let object)? = operation.data { answer.listed.insert(object.type) }
            guard let ref = operation.ref else { continue }
            answer.listed.insert(ref.type)
            if operation.op == .remove, ref.relationship == nil, let id = ref.id {
                answer.removed.append(ResourceStore.Key(type: ref.type, id: id))
            }
        }
        return answer
    }
}
