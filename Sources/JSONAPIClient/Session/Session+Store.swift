import Foundation

/// How a session's `GET`s meet its store: the cache policy decides whether the store answers, a request that goes
/// out is conditional when the store can revalidate it and shares the exchange with identical ones in flight, a
/// `304` is answered from the stored response, and every new document is merged into the identity map.
extension Session {
    /// Performs `description` at `url`: through the store for a `GET` when the session has one, else straight to
    /// the network. Returns the request as sent, a successful response and where it came from.
    func exchange(_ description: JSONAPIRequest, url: URL) async throws -> (HTTPRequest, HTTPResponse, ResponseSource) {
        let request = httpRequest(for: description, url: url)
        let policy = description.cachePolicy ?? configuration.cachePolicy
        guard let store, request.method == .get else {
            if policy == .cacheOnly { throw notCached(request) }
            let (sent, response) = try await send(description, to: url)
            return (sent, response, .network)
        }
        let stored = store.storedResponse(for: request)
        switch policy {
        case .cacheOnly:
            guard let stored else { throw notCached(request) }
            return (request, stored.response, .cache)
        case .cacheFirst:
            if let stored { return (request, stored.response, .cache) }
        case .staleWhileRevalidate:
            if let stored {
                Task { [self] in _ = try? await revalidate(request, stored: stored, in: store) }
                return (request, stored.response, .cache)
            }
        default:
            break
        }
        return try await revalidate(request, stored: stored, in: store)
    }

    /// Sends `request` — conditionally when `stored` has a validator and the request sets none of its own — shared
    /// with identical requests in flight; keeps a successful response and merges its resources into the store.
    private func revalidate(_ request: HTTPRequest, stored: StoredResponse?, in store: ResourceStore) async throws
        -> (HTTPRequest, HTTPResponse, ResponseSource)
    {
        var conditional = request
        let setsOwn = request.headerFields[.ifNoneMatch] != nil || request.headerFields[.ifModifiedSince] != nil
        if let stored, !setsOwn {
            if let tag = stored.entityTag { conditional.headerFields[.ifNoneMatch] = tag }
            if let date = stored.lastModified { conditional.headerFields[.ifModifiedSince] = date }
        }
        let sent = conditional
        let response = try await flights.response(for: InFlightRequests.key(for: sent)) { [self] in
            try await transmit(sent)
        }
        if response.status == .notModified, let stored, !setsOwn { return (sent, stored.response, .revalidated) }
        guard response.status.kind == .successful else { throw failure(for: sent, response: response) }
        store.storeResponse(response, for: request)
        store.merge(from: response.body)
        return (sent, response, .network)
    }

    private func notCached(_ request: HTTPRequest) -> JSONAPIClientError {
        JSONAPIClientError(
            code: .notCached,
            detail: store == nil
                ? "the session has no store, so a cache-only request cannot be answered"
                : "the store has no response for this request (cache-only: nothing was sent)",
            method: request.method, url: request.url)
    }
}
