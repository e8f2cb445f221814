import Foundation

extension ResourceStore {
    /// The key `request` (as the transport gets it) is stored under in this store, in the partition `backing`
    /// (the one shown now when `nil`): its partition is digested with the partition's key.
    func responseKey(for request: HTTPRequest, in backing: Backing? = nil) -> ResponseKey {
        let backing = backing ?? state.withLock { $0.backing }
        var key = ResponseKey(request, key: backing.digestKey, credentialQueryItems: configuration.credentialQueryItems)
        // The account's, whatever its credentials now; else the first credentials of a line the library refreshed.
        key.partition = backing.accountDigest ?? backing.lineage.root(of: key.partition)
        return key
    }

    /// The stored response `request` may be answered or validated with — fetched with the same credentials, URL and
    /// `Accept`, and with the same values of the header fields its `Vary` names — marking it used.
    ///
    /// - Parameters:
    ///   - request: The request as the transport gets it.
    ///   - key: Its key, when the caller has it already.
    ///   - epoch: The store's ``clears`` when the request was made, when it belongs to the account shown then:
    ///     after a clear or a switch of account since, nothing answers it (the stored responses are another's).
    ///
    /// A persisted store reads the body of a response it has not used since it opened now (without its lock),
    /// rebuilding it from the records when the database kept its outline (``ResponseOutline``); one whose body is
    /// gone from the database (another process replaced it) is removed, and `nil` returned; one whose records are not
    /// all in the store any more is not answered with (`nil`: it is fetched again, and replaced).
    func storedResponse(for request: HTTPRequest, key: ResponseKey? = nil, epoch made: UInt64? = nil)
        -> StoredResponse?
    {
        let key = key ?? responseKey(for: request)
        let digestKey = digestKey
        placeResponseFromDisk(key)  // saved by another connection since the store opened
        let (found, epoch) = commit(merging: false) { state, _ -> (StoredResponse?, UInt64) in
            // No `Vary`: nothing to compare, and no digest to make.
            guard made == nil || made == state.clears, let stored = state.responses[key],
                stored.varyNames.isEmpty
                    || CredentialDigest(of: request.headerFields, names: stored.varyNames, key: digestKey)
                        == stored.varyDigest
            else { return (nil, state.clears) }
            return (state.responses.use(key, at: state.tick()), state.clears)
        }
        guard let found, let unread = found.unreadBody, let writer else { return found }
        let body: Data?
        switch writer.body(unread, for: key) {
        case .whole(let whole)?:
            body = whole
        case .outline(let outline)?:
            guard let rebuilt = rebuild(outline) else { return nil }
            body = rebuilt
        case nil:
            body = nil
            writer.setAsideIfDamaged(for: self)
        }
        return commit(merging: false) { state, effects -> StoredResponse? in
            guard state.clears == epoch else { return nil }  // another account's database now
            guard let now = state.responses[key] else { return nil }
            guard now.unreadBody == unread else { return now }  // replaced, or read by another thread
            guard let body else {
                effects.saves = state.responses.remove(key) != nil
                return nil
            }
            state.responses.readBody(body, for: key)
            return state.responses[key]
        }
    }

    /// The body of `outline` with its resources' objects as the store holds them now (read from the database first
    /// when needed, ``faultIn(_:)``), after merging the bodies waiting; `nil` when one is missing.
    func rebuild(_ outline: ResponseOutline) -> Data? {
        call {
            faultIn(outline.keys)
            return withMergedState { state in outline.body(records: { state.records[$0]?.stored }) }
        }
    }

    /// Keeps `response` as the latest for `request`, evicting the least recently used responses past the byte
    /// limit (from the front of their use order: no sort). Not kept (and what was kept for the request goes): a response or request with `Cache-Control:
    /// no-store`, a response with `Vary: *`, a body larger than the limit. Credentials the server sent
    /// (`Set-Cookie`, `Authentication-Info`) are not kept with it: a stored response answers without them.
    ///
    /// - Parameter epoch: The store's ``clears`` when the request was sent: after a clear or a switch of account
    ///   since, nothing is kept (the response is another account's).
    /// - Returns: Whether the response may be kept at all (`false` for `no-store`): its resources are merged only
    ///   then.
    @discardableResult
    func storeResponse(
        _ response: HTTPResponse, for request: HTTPRequest, key: ResponseKey? = nil, requestTime: Date,
        responseTime: Date, epoch: UInt64? = nil
    ) -> Bool {
        let (stored, kept) = prepare(
            response, for: request, key: key, requestTime: requestTime, responseTime: responseTime)
        keep(stored, kept, epoch: epoch)
        return kept.mayKeep
    }

    /// Keeps `stored` as `kept` says, in a commit of its own, unless the store was cleared or switched since `epoch`.
    private func keep(_ stored: StoredResponse, _ kept: Keeping, epoch: UInt64?) {
        commit(merging: false) { state, effects in
            guard epoch == nil || epoch == state.clears else { return }  // sent for another account
            keep(stored, kept, in: &state, effects: &effects)
        }
    }

    /// A `200` to a `GET` arrived — one event, one lock section: the response kept
    /// (``storeResponse(_:for:key:requestTime:responseTime:epoch:)``), noted as a collection of `listing`, and its
    /// resources merged or left waiting for its decode (``merge(from:awaitsDecode:epoch:)``) unless it is
    /// `no-store`. Nothing after a clear or a switch of account since `epoch`.
    ///
    /// - Parameter made: The store as the request was made (``made()``): the partition whose key the response is
    ///   kept with, read then rather than again.
    /// - Returns: Whether the store takes the body's records from its decode (``takesRecords(of:)``), read in the
    ///   same section.
    @discardableResult
    func responseArrived(
        _ response: HTTPResponse, for request: HTTPRequest, key: ResponseKey, requestTime: Date, responseTime: Date,
        epoch: UInt64, listing: String?, awaitsDecode: Bool, made: Made? = nil
    ) -> Bool {
        let (stored, kept) = prepare(
            response, for: request, key: key, requestTime: requestTime, responseTime: responseTime,
            digestKey: made?.backing.digestKey)
        guard kept.mayKeep else {
            keep(stored, kept, epoch: epoch)  // `no-store`: what was kept for the request goes, nothing is merged
            return false
        }
        let persisted = made.map { $0.backing.writer != nil } ?? isPersisted
        var takes = false
        merge(from: response.body, awaitsDecode: awaitsDecode, epoch: epoch, persisted: persisted) { state, effects in
            guard epoch == state.clears else { return false }  // sent for another account
            keep(stored, kept, in: &state, effects: &effects)
            if let listing, state.responses[key]?.collectionTypes.contains(listing) == false {
                _ = state.responses.update(key) { $0.collectionTypes.insert(listing) }
            }
            let merges = keep(response.body, awaitsDecode: awaitsDecode, in: &state, effects: &effects)
            takes = awaitsDecode && takesRecords(of: response.body, persisted: persisted, in: state)
            return merges
        }
        return takes
    }

    /// What ``storeResponse(_:for:key:requestTime:responseTime:epoch:)`` keeps of a response, worked out outside
    /// the lock: the stored response, its key, and whether it is kept, removed, or may not be kept at all.
    private func prepare(
        _ response: HTTPResponse, for request: HTTPRequest, key: ResponseKey?, requestTime: Date, responseTime: Date,
        digestKey: DigestKey? = nil
    ) -> (StoredResponse, Keeping) {
        let digestKey = digestKey ?? self.digestKey
        let limit = configuration.maxResponseBytes
        let forbidden = CacheControl(response.headerFields).noStore || CacheControl(request.headerFields).noStore
        let varyNames = Self.varyNames(of: response)
        let key = key ?? responseKey(for: request)
        let stored = StoredResponse(
            response: Self.withoutCredentials(response), lastUse: 0, varyNames: varyNames ?? [],
            varyDigest: CredentialDigest(of: request.headerFields, names: varyNames ?? [], key: digestKey),
            freshness: Freshness(of: response, requestTime: requestTime, responseTime: responseTime))
        let kept = !forbidden && varyNames != nil && response.body.count <= limit
        return (stored, Keeping(key: key, kept: kept, mayKeep: !forbidden))
    }

    /// Whether a response is kept under `key` (else what was kept for it goes), and whether it may be kept at all
    /// (not `no-store`: its resources are merged).
    private struct Keeping {
        var key: ResponseKey
        var kept: Bool
        var mayKeep: Bool
    }

    /// Keeps `stored` (or removes what was kept for its key), as `keeping` says.
    private func keep(_ stored: StoredResponse, _ keeping: Keeping, in state: inout State, effects: inout Effects) {
        guard keeping.kept else {
            if state.responses.remove(keeping.key) != nil { effects.saves = true }
            return
        }
        state.responses.insert(stored, for: keeping.key, at: state.tick(), limit: configuration.maxResponseBytes)
        effects.saves = true
    }

    /// `stored` brought up to date by the `304 Not Modified` that validated it (RFC 9111 §4.3.4): the 304's header
    /// fields replace the stored ones of the same name (`Content-Length` and credentials such as `Set-Cookie`
    /// excepted), and its freshness starts again.
    /// A 304 with `no-store`, or to a request with `no-store`, removes the stored response.
    ///
    /// - Returns: The stored response with the new header fields, to answer the request with.
    func revalidated(
        _ stored: StoredResponse, by notModified: HTTPResponse, for request: HTTPRequest, key: ResponseKey,
        requestTime: Date, responseTime: Date
    ) -> HTTPResponse {
        var response = stored.response
        let excepted = Self.responseCredentialFields.union([
            .contentLength, "Connection", "Keep-Alive", "Transfer-Encoding",
        ])
        for name in Set(notModified.headerFields.map(\.name)) where !excepted.contains(name) {
            response.headerFields.remove(name)
            for value in notModified.headerFields.values(for: name) { response.headerFields.append(name, value) }
        }
        if CacheControl(notModified.headerFields).noStore || CacheControl(request.headerFields).noStore {
            storeResponse(notModified, for: request, key: key, requestTime: requestTime, responseTime: responseTime)
            return response
        }
        let freshness = Freshness(of: response, requestTime: requestTime, responseTime: responseTime)
        commit(merging: false) { state, effects in
            effects.saves = state.responses.update(key) { stored in
                stored.response.headerFields = response.headerFields  // the body is the stored one's
                stored.freshness = freshness
            }
        }
        return response
    }

    /// Makes every stored collection response listing resources of `type` stale and in need of validation before
    /// it is used again: a resource of the type was created or deleted, so the list may now be missing it or still
    /// show it.
    func invalidateCollections(of type: String) {
        commit(merging: false) { state, effects in
            state.responses.requireValidation { _, stored in stored.collectionTypes.contains(type) }
            effects.saves = true
        }
    }

    /// Makes the stored responses of `url` (whatever their query) stale and in need of validation before they are
    /// used again, for everyone: a write there succeeded (RFC 9111 §4.4). A create (`POST`) or delete (`DELETE`)
    /// changes the collection too: the collection's own URL for a create, the parent of the resource's URL for a
    /// delete (`…/articles` for `…/articles/1`).
    ///
    /// - Parameters:
    ///   - url: The URL written to.
    ///   - method: The write's method.
    func invalidateResponses(after method: HTTPMethod, to url: URL) {
        let paths = Self.stalePaths(after: method, to: url)
        guard !paths.isEmpty else { return }
        commit(merging: false) { state, effects in
            Self.requireValidation(ofPaths: paths, in: &state.responses)
            effects.saves = true
        }
    }

    /// The paths whose stored responses a write of `method` to `url` makes stale (``invalidateResponses(after:to:)``).
    static func stalePaths(after method: HTTPMethod, to url: URL) -> Set<String> {
        guard let target = withoutQuery(url) else { return [] }
        var paths: Set<String> = [target]
        if method == .delete, let parent = withoutQuery(url.deletingLastPathComponent()) {
            paths.insert(parent.hasSuffix("/") ? String(parent.dropLast()) : parent)
        }
        return paths
    }

    /// Marks the stored responses of `paths` (whatever their query) stale and in need of validation.
    static func requireValidation(ofPaths paths: Set<String>, in responses: inout ResponseCache) {
        responses.requireValidation { key, _ in
            URL(string: key.url).flatMap(withoutQuery).map(paths.contains) ?? false
        }
    }

    /// `url` without its query and fragment, and without a trailing slash.
    private static func withoutQuery(_ url: URL) -> String? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        components.query = nil
        components.fragment = nil
        guard let text = components.url?.absoluteString else { return nil }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// Removes the stored responses fetched with `credentials` — the `Authorization`, `Proxy-Authorization` and
    /// `Cookie` fields exactly as the requests carried them, after the middleware (a session without any of them
    /// has one partition of its own: pass no fields) — and keeps the others'. For signing one account out of a
    /// session that several use; ``clear()`` removes everything.
    ///
    /// ```swift
    /// api.store?.removeResponses(credentials: [.authorization: "Bearer \(token)"])
    /// ```
    ///
    /// Records (the identity map) are one user's at a time: in a session that names no account, the first request
    /// with other credentials takes them away. With
    /// ``Configuration/persistence``, the responses leave the file at the next save: `try await store.flush()` to
    /// have them gone from the disk before going on (``clear()`` removes the file at once).
    ///
    /// - Parameter credentials: The credential fields of the account's requests; other fields are ignored.
    /// - Returns: The number of responses removed.
    @discardableResult
    public func removeResponses(credentials: HTTPFields) -> Int {
        let partition = lineage.root(ofCredentialsIn: credentials)
        return commit(merging: false) { state, effects in
            let removed = state.responses.removeAll(of: partition)
            effects.saves = removed > 0
            return removed
        }
    }

    /// The response header fields that carry credentials, never kept in the store.
    static let responseCredentialFields: Set<HTTPField.Name> = [
        "Set-Cookie", "Set-Cookie2", "Authentication-Info", "Proxy-Authentication-Info",
    ]

    /// `response` without the header fields that carry credentials.
    static func withoutCredentials(_ response: HTTPResponse) -> HTTPResponse {
        guard response.headerFields.contains(where: { responseCredentialFields.contains($0.name) }) else {
            return response
        }
        var kept = response
        for name in responseCredentialFields { kept.headerFields.remove(name) }
        return kept
    }

    /// The header fields `response`'s `Vary` names, or `nil` for `Vary: *` (no request matches it).
    static func varyNames(of response: HTTPResponse) -> [HTTPField.Name]? {
        var names: [HTTPField.Name] = []
        for value in response.headerFields.values(for: .vary) {
            for name in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
                if name == "*" { return nil }
                let field = HTTPField.Name(name)
                if !names.contains(field) { names.append(field) }
            }
        }
        return names
    }

    /// The time by the store's clock (``Configuration/now``).
    func now() -> Date { configuration.now() }

    /// How much the store holds: records, responses, and the bytes of the responses' bodies.
    public var usage: Usage {
        _ = count  // merges what waits
        return state.withLock { Usage(records: $0.records.count, responses: $0.responses.count, responseBytes: $0.responses.bytes) }
    }

    /// How much a store holds; see ``ResourceStore/usage``.
    public struct Usage: Sendable, Hashable {
        /// The number of records (resources).
        public var records: Int
        /// The number of stored responses.
        public var responses: Int
        /// The bytes of the stored responses' bodies.
        public var responseBytes: Int
    }
}
