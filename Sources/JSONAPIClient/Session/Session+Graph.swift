import Foundation

extension Session {
    /// Creates new resources that refer to each other by local id (`lid`) — an article, its new author, its new
    /// tags — in one call, and returns the id the server gave each.
    ///
    /// ```swift
    /// var graph = ResourceGraph()
    /// graph.add(author)                                   // Person(lid: "p1", …)
    /// graph.add(Article(lid: "a1", title: "Hello", author: author))
    /// let result = try await session.create(graph)
    /// print(result.id(Article.self, lid: "a1") ?? "")
    /// ```
    ///
    /// **How it is sent.** When the session's media type applies the Atomic Operations extension
    /// (`Configuration(mediaType: JSONAPIMediaType(ext: [AtomicOperation.extensionURI]))`: you declare that the
    /// server has it), the graph is one atomic request to `operationsPath`, each resource an `add` operation after
    /// the ones it names: the server creates all or none. Should that server answer 415 or 406 (it does not apply
    /// the extension after all; nothing was created), and for a session that does not declare the extension, the
    /// resources are `POST`ed one by one to their collections, each after the ones it names, each request carrying
    /// the ids the server gave the earlier ones (and never the extension in their media type). Those requests are
    /// not atomic: see ``ResourceGraphError``. They carry no `lid` either: their relationships name the earlier
    /// resources by id already, and a server without the extension may refuse a member it does not know (some
    /// answer 422 or 500 to a `lid`). The session remembers that the server at `operationsPath` refused the
    /// extension: its later graphs go straight to the ordered requests.
    ///
    /// **Afterwards.** The created resources are in the session's store; every linkage the store held by local id
    /// names the id instead; and the session remembers each local id, so a later write whose body still names one
    /// (a comment whose `article` is the article model as it was added) is sent with the id.
    ///
    /// A graph whose new resources name each other in a circle is refused before anything is sent
    /// (``ResourceGraphError/Code/cycle``): create one without the relationship, then update it.
    ///
    /// - Parameters:
    ///   - graph: The resources to create.
    ///   - operationsPath: The Atomic Operations endpoint under the base URL (`operations` by default).
    ///   - headerFields: Header fields for each request (replacing the session's of the same name).
    /// - Returns: The created resources with their ids; whether they went as one atomic request.
    /// - Throws: ``ResourceGraphError``, always: what was created (with ids), what failed and why (the request's
    ///   ``JSONAPIClientError``, or `CancellationError`), and what was not created.
    public func create(
        _ graph: ResourceGraph, operationsPath: String = "operations", headerFields: HTTPFields = HTTPFields()
    ) async throws(ResourceGraphError) -> ResourceGraphResult {
        let clears = store?.clears ?? 0
        let steps = try graph.ordered(encoder: configuration.encoder) { key in
            localIDs.id(type: key.type, lid: key.lid, clears: clears) != nil
        }
        // A local id names the resource of this graph from now on, not one an earlier graph created.
        localIDs.forget(steps.compactMap(\.key))
        var result = ResourceGraphResult(
            created: [], isAtomic: false, decoder: configuration.decoder, encoder: configuration.encoder)
        guard !steps.isEmpty else { return result }
        if configuration.mediaType.ext.contains(AtomicOperation.extensionURI),
            !refusedOperationsPaths.withLock({ $0.contains(operationsPath) })
        {
            do {
                result.created = try await createAtomically(steps, path: operationsPath, headerFields: headerFields)
                result.isAtomic = true
                return result
            } catch let error where Self.refusesExtension(error) {
                // The server does not apply the extension: it refused the request before doing anything, and will
                // refuse the next graph's too.
                refusedOperationsPaths.withLock { _ = $0.insert(operationsPath) }
            }
        }
        result.created = try await createInOrder(steps, headerFields: headerFields)
        return result
    }

    /// Whether `error` is a refusal of the Atomic Operations extension itself (415, 406): nothing was applied.
    private static func refusesExtension(_ error: ResourceGraphError) -> Bool {
        guard error.code == .requestFailed, let code = error.clientError?.code else { return false }
        return code == .unsupportedMediaType || code == .notAcceptable
    }

    /// The graph as one Atomic Operations request: an `add` per resource, in `steps`' order (a local id is defined
    /// before the operations that name it, as the extension requires).
    private func createAtomically(_ steps: [ResourceGraph.Step], path: String, headerFields: HTTPFields)
        async throws(ResourceGraphError) -> [ResourceGraph.Created]
    {
        let results: [AtomicResult]
        do {
            results = try await atomic(steps.map { .add($0.object) }, path: path, headerFields: headerFields)
        } catch {
            // The server applies all operations or none: none was created. (After a transport failure or
            // cancellation the outcome is not known.) Its error objects point at the failing operation.
            let failed = Self.operationIndex(of: error).flatMap { steps.indices.contains($0) ? $0 : nil }
            return try fail(
                .requestFailed, "the Atomic Operations request failed, so none of the graph was created: \(error)",
                created: [], failed: failed.map { steps[$0].identifier },
                notCreated: steps.indices.filter { $0 != failed }.map { steps[$0].identifier }, error)
        }
        var created: [ResourceGraph.Created] = []
        var unconfirmed: [ResourceIdentifier] = []
        for (step, result) in zip(steps, results) {
            if let object = Self.resource(in: result.data), object.type == step.object.type, let id = object.id {
                created.append(ResourceGraph.Created(type: object.type, lid: step.object.lid, id: id, resource: object))
            } else {
                unconfirmed.append(step.identifier)
            }
        }
        // A 204 (no results) or a result without its resource: the server created them without saying their ids.
        if results.isEmpty { unconfirmed = steps.map(\.identifier) }
        remember(created)
        guard unconfirmed.isEmpty else {
            return try fail(
                .idNotReturned, "the server applied the atomic request but did not return the id of "
                    + unconfirmed.map(\.description).joined(separator: ", "),
                created: created, unconfirmed: unconfirmed)
        }
        return created
    }

    /// The graph as one `POST` per resource, in `steps`' order; each body names the resources created before it by
    /// their new ids (the session's local ids, applied where bodies are encoded).
    private func createInOrder(_ steps: [ResourceGraph.Step], headerFields: HTTPFields)
        async throws(ResourceGraphError) -> [ResourceGraph.Created]
    {
        // Every URL before the first request: a router that cannot place a resource fails the graph unsent.
        var urls: [URL] = []
        for step in steps {
            do {
                urls.append(try step.endpoint.collectionURL(type: step.object.type, baseURL: baseURL))
            } catch {
                return try fail(
                    .invalidResource, "the collection URL of \(step.identifier) could not be built: \(error)",
                    created: [], failed: step.identifier, notCreated: steps.map(\.identifier).filter { $0 != step.identifier },
                    error)
            }
        }
        // Plain creates: they do not apply the extension, so they do not carry it even when the session declares it
        // (a server that just refused it with 415 would refuse them too).
        var mediaType = configuration.mediaType
        mediaType.ext.removeAll { $0 == AtomicOperation.extensionURI }
        var created: [ResourceGraph.Created] = []
        defer { remember(created) }
        for (position, step) in steps.enumerated() {
            let rest = steps[(position + 1)...].map(\.identifier)
            let response: WriteResponse<PrimaryData>
            do {
                let body = try encode(.post, urls[position]) { try $0.encode(RawDocument(data: .resource(step.sent))) }
                let create = WriteQueue.Entry(
                    method: .post, url: urls[position], type: step.object.type, resourceID: step.object.id ?? "",
                    body: body, headerFields: headerFields, kind: .create, clientGeneratedID: step.object.id != nil)
                response = try await write(
                    JSONAPIRequest(
                        method: .post, target: .success(urls[position]), headerFields: headerFields, body: body,
                        mediaType: mediaType),
                    describedBy: create, as: PrimaryData.self)
            } catch {
                return try fail(
                    .requestFailed, "creating \(step.identifier) failed after \(created.count) of \(steps.count) "
                        + "resources were created: \(error)",
                    created: created, failed: step.identifier, notCreated: rest, error)
            }
            guard let done = Self.created(step, by: response) else {
                return try fail(
                    .idNotReturned, "the server answered HTTP \(response.status.code) to creating \(step.identifier) "
                        + "without its id, so the resources that name it were not sent",
                    created: created, unconfirmed: [step.identifier], notCreated: rest)
            }
            created.append(done)
            // Before the next body is encoded: it names this resource by the id.
            if let key = step.key { localIDs.record([key: done.id], clears: store?.clears ?? 0) }
        }
        return created
    }

    /// The resource a create's response says was created: the returned resource with its id (200, 201), or the
    /// resource as sent when it had a client-generated id (204: created as sent); `nil` when the id is not known.
    private static func created(_ step: ResourceGraph.Step, by response: WriteResponse<PrimaryData>)
        -> ResourceGraph.Created?
    {
        if response.status == .noContent, let id = step.object.id {
            return ResourceGraph.Created(type: step.object.type, lid: step.object.lid, id: id, resource: step.object)
        }
        guard response.status != .accepted, let object = resource(in: response.data), object.type == step.object.type,
            let id = object.id
        else { return nil }
        return ResourceGraph.Created(type: object.type, lid: step.object.lid, id: id, resource: object)
    }

    /// The one resource of primary data; one with no members but its type and id reads as an identifier.
    private static func resource(in data: PrimaryData?) -> ResourceObject? {
        switch data {
        case .resource(let object)?: object
        case .identifier(let identifier)?: ResourceObject(identifier)
        default: nil
        }
    }

    /// Remembers the local ids of `created` and puts their ids in the store's linkage in place of the local ids.
    private func remember(_ created: [ResourceGraph.Created]) {
        var ids: [LocalIDs.Key: String] = [:]
        for resource in created {
            if let lid = resource.lid { ids[LocalIDs.Key(type: resource.type, lid: lid)] = resource.id }
        }
        guard !ids.isEmpty else { return }
        let clears = store?.clears ?? 0
        localIDs.record(ids, clears: clears)
        store?.replaceLocalIDs { ids[LocalIDs.Key(type: $0, lid: $1)] }
    }

    /// Throws a ``ResourceGraphError``; typed `Never`-returning so that call sites read `return try fail(…)`.
    private func fail<Value>(
        _ code: ResourceGraphError.Code, _ detail: String, created: [ResourceGraph.Created],
        failed: ResourceIdentifier? = nil, unconfirmed: [ResourceIdentifier] = [], notCreated: [ResourceIdentifier] = [],
        _ underlying: (any Error)? = nil
    ) throws(ResourceGraphError) -> Value {
        throw ResourceGraphError(
            code: code, detail: detail, created: created, failed: failed, unconfirmed: unconfirmed,
            notCreated: notCreated, underlyingError: underlying)
    }

    /// The operation an Atomic Operations error points at (`/atomic:operations/1/data/…` is 1), when it does.
    static func operationIndex(of error: any Error) -> Int? {
        let prefix = "/atomic:operations/"
        for object in (error as? JSONAPIClientError)?.errors ?? [] {
            guard let pointer = object.source?.pointer, pointer.hasPrefix(prefix) else { continue }
            let digits = pointer.dropFirst(prefix.count).prefix { $0.isASCII && $0.isNumber }
            if let index = Int(digits) { return index }
        }
        return nil
    }
}
