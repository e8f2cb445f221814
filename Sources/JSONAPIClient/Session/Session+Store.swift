import Foundation

/// How a session's `GET`s meet its store. The store is the innermost step of the middleware chain, just before the
/// transport, so that it sees each request as it is sent — with the credentials middleware such as
/// ``BearerTokenMiddleware`` adds — and keys stored responses, validators and shared exchanges by them: a response
/// fetched with one user's credentials never answers another's request. There the cache policy decides whether a
/// stored response answers, a request that goes out is conditional when the store can validate it and shares the
/// exchange with identical ones in flight (the same credentials included), a `304` is answered from the stored
/// response, and every new document that may be kept is merged into the identity map.
extension Session {
    /// Performs `description` at `url`: through the store for a `GET` when the session has one, else straight to
    /// the network.
    ///
    /// - Parameters:
    ///   - description: The request.
    ///   - url: Its URL, built by the caller once.
    ///   - listing: The resource type its primary data is a collection of, when known from the model: a create or
    ///     delete of that type makes the stored response stale.
    ///   - decodes: Whether the caller decodes the body it gets: then a body the store keeps waits for the decode's
    ///     records (`ResourceStore.merge(from:awaitsDecode:)`), and the caller hands them over or settles the store.
    /// - Returns: The request, its successful response, and what the store made of it (``Exchanged``).
    func exchange(_ description: JSONAPIRequest, url: URL, listing: String? = nil, decodes: Bool = false) async throws
        -> Exchanged
    {
        let request = httpRequest(for: description, url: url)
        let policy = description.cachePolicy ?? configuration.cachePolicy
        guard let store, request.method == .get else {
            if policy.kind == .cacheOnly { throw notCached(request) }
            let seen = LockedValue<HTTPRequest?>(nil)
            let response = try await transmit(request) { [client] sent in
                seen.withLock { $0 = sent }
                return try await client.send(sent)
            }
            guard response.status.kind == .successful else { throw failure(for: request, response: response) }
            writeQueue.requestSucceeded()  // the network is back: queued writes go
            let credentials = seen.withLock { $0 }.map { self.lineage.root(ofCredentialsIn: $0.headerFields) }
            return Exchanged(request: request, response: response, source: .network, credentials: credentials)
        }
        // A session made while another process held the file's lock opens its database late: wait for it, so that
        // the first requests meet it (no thread waits: this one is suspended).
        if store.configuration.persistence != nil { await store.waitForLateOpening() }
        let visit = StoreVisit()
        // The store as the request is made, before the middleware adds its credentials: a switch of account after
        // this point (or one under way now) may make it another account's.
        let made = store.made()
        let lineage = made.backing.lineage
        let response: HTTPResponse
        do {
            response = try await transmit(request, lineage: lineage) { [self] sent, sameOrigin in
                try await answer(
                    sent, sameOrigin: sameOrigin, policy: policy, listing: listing, decodes: decodes, store: store,
                    visit: visit, made: made)
            }
        } catch let error as JSONAPIClientError
            where policy.kind == .networkFirst && (error.code == .transportFailed || error.code == .timedOut)
        {
            // The request as the store last saw it says whose stored response may answer.
            // A session that names its account answers only while the account it was made for is shown.
            guard let seen = visit.state.withLock({ $0.request }),
                let stored = store.storedResponse(for: seen, epoch: store.accountDigest != nil ? made.clears : nil),
                stored.freshness.isFresh(at: store.now()) || stored.freshness.mayServeStale
            else { throw error }
            return Exchanged(
                request: request, response: stored.response, source: .offline,
                credentials: lineage.root(ofCredentialsIn: seen.headerFields))
        }
        let (source, refresh, seen, takes, clears) = visit.state.withLock {
            ($0.source, $0.refresh, $0.request, $0.takes, $0.clears)
        }
        guard response.status.kind == .successful else { throw failure(for: request, response: response) }
        if source == .network || source == .revalidated { writeQueue.requestSucceeded() }  // the network is back
        if refresh {
            var again = description
            again.cachePolicy = .networkOnly
            Task { [self, again] in _ = try? await exchange(again, url: url, listing: listing) }
        }
        return Exchanged(
            request: request, response: response, source: source,
            credentials: seen.map { lineage.root(ofCredentialsIn: $0.headerFields) }, takesRecords: takes, clears: clears)
    }

    /// The innermost step of a `GET` through the store: answers `request` (as the middleware made it) from the
    /// store when `policy` lets it, else sends it — conditionally when the store can validate its stored response
    /// and the request sets no validator of its own — shared with identical requests in flight; keeps a successful
    /// response (unless `no-store`) and merges its resources.
    ///
    /// - Parameters:
    ///   - sameOrigin: Whether the request goes to the session's origin: its credentials are noted
    ///     (``noteCredentials(of:)``, in the store's lookup event).
    ///   - made: The store when the request was made (``ResourceStore/made()``). A request made before a
    ///     switch of account (``ResourceStore/switchAccount(to:)``), or made or answered while one is under way, may
    ///     be either account's — its credentials were added by the middleware at some point in between: it goes to
    ///     the network without the store (no stored response answers it, nothing of its answer is kept or merged).
    ///     In a session that names its account, so does one made before a clear; an answer to one sent before a
    ///     switch or a clear is neither kept nor merged after it. In one that names none, whose the request is shows
    ///     by its credentials, noted by the lookup (which may change the records' owner).
    private func answer(
        _ request: HTTPRequest, sameOrigin: Bool, policy: CachePolicy, listing: String?, decodes: Bool,
        store: ResourceStore, visit: StoreVisit, made: ResourceStore.Made
    ) async throws -> HTTPResponse {
        let requestTime = store.now()
        let root = sameOrigin ? made.backing.lineage.root(ofCredentialsIn: request.headerFields) : nil
        let lookup = store.lookUp(request, made: made, owner: accountDigest == nil ? root : nil)
        if let root { lastCredentials.withLock { $0 = SeenCredentials(digest: root, clears: lookup.clears) } }
        guard case .through(let key, let epoch, let stored) = lookup else {
            visit.state.withLock { $0 = StoreVisit.State(request: request) }
            return try await client.send(request)  // the previous account's: nothing of the store for it
        }
        visit.state.withLock { $0 = StoreVisit.State(request: request, clears: epoch) }
        var conditional = request
        let decision = ResponseCache.decide(stored, for: request, policy: policy, now: requestTime)
        switch decision {
        case .answer, .answerThenRefresh:
            guard let stored else { break }  // `decide` answers only with a stored response
            visit.state.withLock {
                $0.source = .cache
                $0.refresh = decision == .answerThenRefresh
            }
            return stored.response
        case .notCached:
            throw notCached(request)
        case .send(let ifNoneMatch, let ifModifiedSince):
            if let ifNoneMatch { conditional.headerFields[.ifNoneMatch] = ifNoneMatch }
            if let ifModifiedSince { conditional.headerFields[.ifModifiedSince] = ifModifiedSince }
        }
        let validates = conditional.headerFields != request.headerFields
        let sent = conditional
        let flight = InFlightRequests.key(for: sent, credentials: key.partition)
        let response = try await flights.response(for: flight) { [client] in
            // The exchange runs in a task of its own, cancelled when every waiter has left: then nothing is sent.
            try Task.checkCancellation()
            return try await client.send(sent)
        }
        let responseTime = store.now()
        if response.status == .notModified, let stored, validates {
            visit.state.withLock { $0.source = .revalidated }
            return store.revalidated(
                stored, by: response, for: request, key: key, requestTime: requestTime, responseTime: responseTime)
        }
        guard response.status.kind == .successful else { return response }
        let takes = store.responseArrived(
            response, for: request, key: key, requestTime: requestTime, responseTime: responseTime, epoch: epoch,
            listing: listing, awaitsDecode: decodes, made: made)
        visit.state.withLock { $0.takes = takes }
        return response
    }

    private func notCached(_ request: HTTPRequest) -> JSONAPIClientError {
        JSONAPIClientError(
            code: .notCached,
            detail: store == nil
                ? "the session has no store, so a cache-only request cannot be answered"
                : "the store has no response it may use for this request (cache-only: nothing was sent)",
            method: request.method, url: request.url)
    }
}

/// A successful exchange: the request (before the middleware), the response, where it came from, and whose it
/// is — the digest of the credentials of the request as the transport (or the store) was given it, after the
/// middleware: for a live list, to tell a page fetched for someone else.
struct Exchanged: Sendable {
    var request: HTTPRequest
    var response: HTTPResponse
    var source: ResponseSource
    var credentials: CredentialDigest?
    /// Whether the store takes the body's records from the caller's decode (``ResourceStore/takesRecords(of:)``).
    var takesRecords = false
    /// The store's clear count at its lookup, when it answered (the decodes it remembers are keyed by it).
    var clears: UInt64?
}

/// What the store step did for one exchange, read once the middleware chain returns (the last visit counts when a
/// middleware sends the request more than once).
private final class StoreVisit: Sendable {
    struct State {
        /// The request as the store saw it, credentials included: kept only for the exchange, to find the stored
        /// response that may answer when the transport fails.
        var request: HTTPRequest?
        var source: ResponseSource = .network
        /// Whether a stale stored response answered and the request is to be sent again in the background.
        var refresh = false
        /// Whether the store takes the body's records from the caller's decode.
        var takes = false
        /// The store's clear count at its lookup.
        var clears: UInt64?
    }

    let state = LockedValue(State())
}

/// A collection of models: its element's resource type, for the store to know what a stored response lists.
protocol ResourceCollection {
    /// The resource type of the elements.
    static var listedResourceType: String { get }
}

/// The resource type each primary data type lists (`nil` when it is not `[Model]`), remembered by type: the
/// dynamic cast to a conditional conformance costs about 12,000 instructions, a page's worth of this step.
enum ListedTypes {
    private static let known = LockedValue<[ObjectIdentifier: String?]>([:])

    /// The resource type `Primary` lists, when it is an array of models.
    static func of<Primary>(_ type: Primary.Type) -> String? {
        let id = ObjectIdentifier(type)
        if let known = known.withLock({ $0[id] }) { return known }
        let listed = (type as? any ResourceCollection.Type)?.listedResourceType
        known.withLock { $0[id] = .some(listed) }
        return listed
    }
}

extension Array: ResourceCollection where Element: Resource {
    static var listedResourceType: String { Element.resourceType }
}
