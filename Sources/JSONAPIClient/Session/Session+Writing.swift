import Foundation

extension Session {
    /// Sends a write and reads its response: a typed document for 200/201 with a body, a raw one for 202, none
    /// for 204 (or any empty body).
    func write<Primary: Decodable & Sendable>(_ request: JSONAPIRequest, as type: Primary.Type) async throws
        -> WriteResponse<Primary>
    {
        let epoch = store?.clears
        let (sent, response) = try await send(request, to: try request.url())
        if let store, store.clears == epoch {  // not after a clear or a change of owner: another account's answer
            recordAnswer(response, to: sent, body: request.body, in: store)
            if sent.method == .post || sent.method == .delete, let model = Primary.self as? any Resource.Type {
                store.invalidateCollections(of: model.resourceType)
            }
        }
        return try writeResponse(response, to: sent, as: type)
    }

    /// Sends a write of a ``DataSource`` with its options (the session's when `nil`): optimistic, it shows in the
    /// store first and is rolled back if it fails; queued, a transport failure puts it in the ``WriteQueue`` (as
    /// does a queue that already holds writes) and it returns a queued response instead of throwing, once the entry
    /// is durable.
    ///
    /// - Throws: ``JSONAPIClientError``, with ``JSONAPIClientError/rolledBack`` set when an optimistic change was
    ///   undone (``JSONAPIClientError/Code/storeNotSaved`` when the queue could not save the entry); `CancellationError`.
    func write<Primary: Decodable & Sendable>(
        _ write: WriteQueue.Entry, options: WriteOptions?, as type: Primary.Type
    ) async throws -> WriteResponse<Primary> {
        let options = options ?? configuration.writes
        var write = write
        var layer: ResourceStore.PendingWrite?
        if options.isOptimistic, let store, !write.resourceID.isEmpty,
            let object = write.layerObject(decoder: configuration.decoder)
        {
            write.optimistic = true
            layer = store.addPending(write.kind, object: object, id: write.resourceID)
        }
        // A queue whose database could not be read at launch reads it now: the writes it holds are older.
        if options.isQueued { await writeQueue.readLate() }
        if options.isQueued, writeQueue.isWaiting {
            // Behind the writes waiting, so that none overtakes another; the queue tries the next now, which costs
            // nothing while the network is thought down (it is not told the network is back). It belongs to the
            // account of the last request (none when the store was cleared since).
            write.owner = currentAccount
            write = try await enqueue(write, layer: layer)
            writeQueue.wake()
            return Self.queued(write)
        }
        let sent: HTTPRequest
        let response: HTTPResponse
        do {
            (sent, response) = try await deliver(write, layer: layer)
        } catch var error as JSONAPIClientError {
            if options.isQueued, error.isUnreachable {
                // It may have reached the server, and only the answer was lost; an attempt if the network was
                // thought up.
                write.owner = currentAccount  // noted as the request reached the transport
                write = try await enqueue(write, layer: layer, failure: error)
                return Self.queued(write)
            }
            if let layer { error.rolledBack = store?.dropPending(layer) }
            throw error
        } catch {
            if let layer { store?.dropPending(layer) }
            throw error
        }
        return try writeResponse(response, to: sent, as: type)
    }

    /// Puts `write` in the queue, durably (``WriteQueue/enqueue(_:layer:failure:)``); when it cannot be saved, drops
    /// its optimistic `layer` and throws.
    ///
    /// - Returns: The entry as queued.
    private func enqueue(
        _ write: WriteQueue.Entry, layer: ResourceStore.PendingWrite?, failure: JSONAPIClientError? = nil
    ) async throws(JSONAPIClientError) -> WriteQueue.Entry {
        do {
            return try await writeQueue.enqueue(write, layer: layer, failure: failure)
        } catch var error {
            if let layer { error.rolledBack = store?.dropPending(layer) }
            throw error
        }
    }

    /// Sends `write` and brings the store up to date (``record(_:answer:sent:layer:in:)``). The queue's replay
    /// sends its entries here.
    ///
    /// - Returns: The request as sent and the successful response.
    /// - Throws: ``JSONAPIClientError`` for a failure or an error status (the layer is left to the caller).
    func deliver(_ write: WriteQueue.Entry, layer: ResourceStore.PendingWrite?) async throws
        -> (HTTPRequest, HTTPResponse)
    {
        let sent = httpRequest(for: write.request, url: write.url)
        let epoch = store?.clears
        let response = try await transmit(sent, terminal: transport(for: write.owner))
        guard response.status.kind == .successful else { throw failure(for: sent, response: response) }
        // Not after a clear or a change of the records' owner: the answer is another account's (its layer is gone).
        if let store, store.clears == epoch { record(write, answer: response, sent: sent, layer: layer, in: store) }
        return (sent, response)
    }

    /// What a write the server accepted does to the store — the one place for every write path (data sources,
    /// untyped writes, relationship endpoints, the queue's replay):
    /// - optimistic (`layer`): the layer is confirmed with the server's answer — or dropped for a create the server
    ///   gave an id of its own, whose record then replaces it;
    /// - otherwise the answer is merged (a 204 to a `PATCH`: what was sent), a delete removes the record, and a
    ///   relationship endpoint's write sets the owner's linkage (the server's, or what the write worked out);
    /// - the stored responses of what was written are marked stale (of the owner too, for a relationship), and for
    ///   a create or delete the lists of its type.
    func record(
        _ write: WriteQueue.Entry, answer response: HTTPResponse, sent: HTTPRequest, layer: ResourceStore.PendingWrite?,
        in store: ResourceStore
    ) {
        if let name = write.relationship {
            let answered = answeredLinkage(response)
            if let layer {
                let answer = answered.map {
                    ResourceObject(type: write.type, id: write.resourceID, relationships: [name: Relationship(data: $0)])
                }
                store.confirmPending(layer, answer: answer)
            } else if let linkage = answered ?? write.layerObject(decoder: configuration.decoder)?
                .relationships?[name]?.data
            {
                store.changeLinkage(of: name, type: write.type, id: write.resourceID) { _ in linkage }
            }
            store.invalidateResponses(after: sent.method, to: sent.url)
            // `…/articles/1/relationships/tags` → `…/articles/1`: the owner's documents show the linkage too.
            store.invalidateResponses(
                after: .patch, to: sent.url.deletingLastPathComponent().deletingLastPathComponent())
            return
        }
        if let layer {
            settle(layer, with: response, in: store)
            store.invalidateResponses(after: sent.method, to: sent.url)
        } else {
            recordAnswer(response, to: sent, body: write.body, in: store)
            if write.kind == .delete { store.remove(type: write.type, id: write.resourceID) }
        }
        if write.kind != .update { store.invalidateCollections(of: write.type) }
    }

    /// The linkage a relationship endpoint's `200` answer says the relationship now has; `nil` for a `204`, a `202`,
    /// or a body that says none.
    private func answeredLinkage(_ response: HTTPResponse) -> Linkage? {
        guard !response.body.isEmpty, response.status != .accepted,
            let document = try? configuration.decoder.decode(RawDocument.self, from: response.body)
        else { return nil }
        switch document.data {
        case .identifier(let identifier): return .toOne(identifier)
        case .identifiers(let identifiers): return .toMany(identifiers)
        case .null: return .toOne(nil)
        case .resource, .resources, nil: return nil
        }
    }

    /// Confirms an optimistic write's layer with the server's answer: the answer's version of the record replaces the
    /// layer's (a 204 or 202 confirms the members sent), and the answer's other resources are merged.
    private func settle(_ layer: ResourceStore.PendingWrite, with response: HTTPResponse, in store: ResourceStore) {
        var objects: [ResourceObject] = []
        if !response.body.isEmpty, response.status != .accepted,
            let document = try? configuration.decoder.decode(RawDocument.self, from: response.body)
        {
            objects = ResourceStore.resourceObjects(of: document)
        }
        let index = objects.firstIndex { $0.type == layer.key.type && $0.id == layer.key.id }
        let answer = index.map { objects.remove(at: $0) }
        store.merge(objects)
        if layer.kind == .create, answer == nil, objects.contains(where: { $0.type == layer.key.type }) {
            store.dropPending(layer)  // the server named it: its record (merged above) takes the local one's place
        } else {
            store.confirmPending(layer, answer: answer)
        }
    }

    /// Brings the store up to date after a write that was not optimistic.
    private func recordAnswer(_ response: HTTPResponse, to sent: HTTPRequest, body: Data?, in store: ResourceStore) {
        // What the server returned is the newest version; without a body, what was sent is (a 204 to a PATCH
        // applied exactly the members sent). A 202's body describes a job, not the resource.
        if !response.body.isEmpty, response.status != .accepted {
            store.merge(from: response.body)
        } else if response.status == .noContent, let body {
            store.merge(from: body)
        }
        // The stored responses of what was written are out of date; a create or delete also changes the lists
        // of its type, which must not go on missing the new resource or showing the deleted one.
        store.invalidateResponses(after: sent.method, to: sent.url)
    }

    /// The typed response of a write the server answered.
    private func writeResponse<Primary: Decodable & Sendable>(
        _ response: HTTPResponse, to sent: HTTPRequest, as type: Primary.Type
    ) throws -> WriteResponse<Primary> {
        var result = WriteResponse<Primary>(status: response.status, headerFields: response.headerFields)
        if let location = response.headerFields[.location] {
            result.location = URL(percentEncoding: location, relativeTo: sent.url)?.absoluteURL
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

    /// The response of a write that waits in the queue.
    private static func queued<Primary>(_ write: WriteQueue.Entry) -> WriteResponse<Primary> {
        var result = WriteResponse<Primary>(status: .accepted)
        result.queued = write
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
