import Foundation

extension Session {
    /// Sends a write the session makes itself (a graph's ordered creates), which `write` describes, and answers it as
    /// every write is answered (``answer(_:to:for:layer:epoch:as:)``).
    func write<Primary: Decodable & Sendable>(
        _ request: JSONAPIRequest, describedBy write: WriteQueue.Entry, as type: Primary.Type
    ) async throws -> WriteResponse<Primary> {
        let epoch = store?.clears
        let (sent, response) = try await send(request, to: try request.url())
        return try answer(response, to: sent, for: write, layer: nil, epoch: epoch, as: type).get()
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
        let answered: Result<WriteResponse<Primary>, JSONAPIClientError>
        do {
            answered = try await deliver(write, layer: layer, as: type)
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
        return try answered.get()  // a body that does not decode as `Primary` fails here, the store up to date
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

    /// Sends `write` and brings the store up to date (``answer(_:to:for:layer:epoch:as:)``, the body read for the
    /// store alone). The queue's replay sends its entries here.
    ///
    /// - Returns: The request as sent and the successful response.
    /// - Throws: ``JSONAPIClientError`` for a failure or an error status (the layer is left to the caller).
    func deliver(_ write: WriteQueue.Entry, layer: ResourceStore.PendingWrite?) async throws
        -> (HTTPRequest, HTTPResponse)
    {
        let (sent, response, epoch) = try await exchange(write)
        if let store {
            let records = write.relationship == nil ? answeredRecords(response) : nil
            let linkage = write.relationship == nil ? nil : answeredLinkage(response)
            store.apply(answer(for: write, response: response, sent: sent, records: records, linkage: linkage,
                layer: layer, epoch: epoch))
        }
        return (sent, response)
    }

    /// Sends `write` and answers it (``answer(_:to:for:layer:epoch:as:)``).
    ///
    /// - Returns: The typed response, or the error of a body that does not decode as `Primary` (the store is up
    ///   to date either way).
    /// - Throws: ``JSONAPIClientError`` for a failure or an error status (the layer is left to the caller).
    private func deliver<Primary: Decodable & Sendable>(
        _ write: WriteQueue.Entry, layer: ResourceStore.PendingWrite?, as type: Primary.Type
    ) async throws -> Result<WriteResponse<Primary>, JSONAPIClientError> {
        let (sent, response, epoch) = try await exchange(write)
        return answer(response, to: sent, for: write, layer: layer, epoch: epoch, as: type)
    }

    /// Sends `write` with its account's transport: the request as sent, the successful answer, and the store's
    /// ``ResourceStore/clears`` before it was sent.
    private func exchange(_ write: WriteQueue.Entry) async throws -> (HTTPRequest, HTTPResponse, UInt64?) {
        let sent = httpRequest(for: write.request, url: write.url)
        // The store's clear count and lineage read at once, before the middleware.
        let made = store?.made()
        let epoch = made?.clears
        let lineage = made?.backing.lineage ?? self.lineage
        let send = transport(for: write.owner, lineage: lineage)
        let response = try await transmit(sent, lineage: lineage) { [self] request, sameOrigin in
            if sameOrigin { noteCredentials(of: request, lineage: lineage) }
            return try await send(request)
        }
        guard response.status.kind == .successful else { throw failure(for: sent, response: response) }
        return (sent, response, epoch)
    }

    /// The answer to a write the server accepted, read once: its body parsed once into the typed document and the
    /// records the store takes, and applied to the store (``ResourceStore/apply(_:)``) unless it was cleared, or its
    /// records changed owner, since `epoch` (the answer is then another account's; its layer is gone).
    ///
    /// - Returns: The typed response — a document for 200/201 with a body, a raw one for 202, none for 204 (or any
    ///   empty body) — or the ``JSONAPIClientError/Code/decodingFailed`` error of a body that is not a `Primary`
    ///   document (the store still takes what the body holds).
    func answer<Primary: Decodable & Sendable>(
        _ response: HTTPResponse, to sent: HTTPRequest, for write: WriteQueue.Entry,
        layer: ResourceStore.PendingWrite?, epoch: UInt64?, as type: Primary.Type
    ) -> Result<WriteResponse<Primary>, JSONAPIClientError> {
        var result = WriteResponse<Primary>(status: response.status, headerFields: response.headerFields)
        if let location = response.headerFields[.location] {
            result.location = URL(percentEncoding: location, relativeTo: sent.url)?.absoluteURL
        }
        var records: ResourceRecords?
        var failure: JSONAPIClientError?
        if !response.body.isEmpty, response.status != .noContent {
            do {
                if response.status == .accepted {
                    result.rawDocument = try decode(PrimaryData.self, request: sent, response: response) {
                        decoder, body throws(JSONAPIDecodingError) in try decoder.decode(RawDocument.self, from: body)
                    }
                } else if store == nil {
                    result.document = try decode(Primary.self, request: sent, response: response) {
                        decoder, body throws(JSONAPIDecodingError) in try decoder.decode(Document<Primary>.self, from: body)
                    }
                } else {
                    let (document, _, kept) = try decode(Primary.self, request: sent, response: response) {
                        decoder, body throws(JSONAPIDecodingError) in
                        try decoder.decodeKeepingRecords(Document<Primary>.self, from: body, resourceMeta: false)
                    }
                    result.document = document
                    records = kept
                }
            } catch {
                failure = error
                // What the body holds still reaches the store: the server applied the write.
                records = write.relationship == nil ? answeredRecords(response) : nil
            }
        }
        if let store {
            // A relationship endpoint's answer names the linkage in its primary data (parsed above, or once more
            // when it did not decode as `Primary`).
            let linkage: Linkage? =
                write.relationship == nil
                ? nil
                : failure == nil ? Self.linkage(of: result.document?.data as? PrimaryData) : answeredLinkage(response)
            store.apply(answer(for: write, response: response, sent: sent, records: records, linkage: linkage,
                layer: layer, epoch: epoch))
        }
        if let failure { return .failure(failure) }
        return .success(result)
    }

    /// What the answer to `write` does to the store — the one description for every write path (data sources,
    /// untyped writes, relationship endpoints, the queue's replay, a graph's creates):
    /// - optimistic (`layer`): the layer is confirmed with the server's answer — or dropped for a create the server
    ///   gave an id of its own, whose record then replaces it;
    /// - otherwise the answer is merged (a 204: what was sent), a delete removes the record, and a relationship
    ///   endpoint's write sets the owner's linkage (the server's, or what the write worked out);
    /// - the stored responses of what was written are marked stale (of the owner too, for a relationship), and for
    ///   a create or delete the lists of its type.
    private func answer(
        for write: WriteQueue.Entry, response: HTTPResponse, sent: HTTPRequest, records: ResourceRecords?,
        linkage: Linkage?, layer: ResourceStore.PendingWrite?, epoch: UInt64?
    ) -> ResourceStore.WriteAnswer {
        var answer = ResourceStore.WriteAnswer(layer: layer, epoch: epoch)
        answer.written = [ResourceStore.Written(method: sent.method, url: sent.url)]
        if let name = write.relationship {
            let shown = layer == nil ? write.layerObject(decoder: configuration.decoder)?.relationships?[name]?.data : nil
            answer.relationship = ResourceStore.Relinked(
                name: name, key: ResourceStore.Key(type: write.type, id: write.resourceID), answered: linkage,
                shown: shown)
            // `…/articles/1/relationships/tags` → `…/articles/1`: the owner's documents show the linkage too.
            answer.written.append(
                ResourceStore.Written(
                    method: .patch, url: sent.url.deletingLastPathComponent().deletingLastPathComponent()))
            return answer
        }
        answer.records = records
        if layer == nil {
            // Without a body, what was sent is the newest version (a 204 applied exactly the members sent).
            if response.status == .noContent, let body = write.body {
                answer.records = try? configuration.decoder.records(from: body)
            }
            if write.kind == .delete { answer.removed = [ResourceStore.Key(type: write.type, id: write.resourceID)] }
        }
        if write.kind != .update { answer.listed = [write.type] }
        return answer
    }

    /// The records of an answer's body for the store, parsed once; none for an empty body, a `204` or a `202`
    /// (whose body describes a job, not the resource), or a body that is not a document.
    private func answeredRecords(_ response: HTTPResponse) -> ResourceRecords? {
        guard !response.body.isEmpty, response.status != .accepted, response.status != .noContent else { return nil }
        return try? configuration.decoder.records(from: response.body)
    }

    /// The linkage a relationship endpoint's `200` answer says the relationship now has; `nil` for a `204`, a `202`,
    /// or a body that says none.
    private func answeredLinkage(_ response: HTTPResponse) -> Linkage? {
        guard !response.body.isEmpty, response.status != .accepted, response.status != .noContent,
            let document = try? configuration.decoder.decode(RawDocument.self, from: response.body)
        else { return nil }
        return Self.linkage(of: document.data)
    }

    /// The linkage primary data names: identifiers, or `null`; `nil` for resources or none.
    private static func linkage(of data: PrimaryData?) -> Linkage? {
        switch data {
        case .identifier(let identifier): .toOne(identifier)
        case .identifiers(let identifiers): .toMany(identifiers)
        case .null: .toOne(nil)
        case .resource, .resources, nil: nil
        }
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
