import Foundation

/// The store's responses: the last successful `GET` of each URL, for conditional requests and cache policies.
struct StoredResponse: Sendable {
    var response: HTTPResponse
    var lastUse: UInt64

    /// The validator to send back as `If-None-Match`.
    var entityTag: String? { response.headerFields[.eTag] }
    /// The validator to send back as `If-Modified-Since`.
    var lastModified: String? { response.headerFields[.lastModified] }
}

extension ResourceStore {
    /// The key of a `GET`'s stored response: its URL and the media type it accepts (the same URL in another media
    /// type is another representation).
    static func responseKey(for request: HTTPRequest) -> String {
        request.url.absoluteString + "\n" + (request.headerFields[.accept] ?? "")
    }

    /// The stored response for `request`, marking it used.
    func storedResponse(for request: HTTPRequest) -> StoredResponse? {
        state.withLock { state in
            let key = Self.responseKey(for: request)
            guard state.responses[key] != nil else { return nil }
            let now = state.tick()
            state.responses[key]?.lastUse = now
            return state.responses[key]
        }
    }

    /// Keeps `response` as the latest for `request`, evicting the least recently used responses past the byte
    /// limit; a body larger than the limit is not kept (and what was kept for the URL goes).
    func storeResponse(_ response: HTTPResponse, for request: HTTPRequest) {
        let limit = configuration.maxResponseBytes
        state.withLock { state in
            let key = Self.responseKey(for: request)
            if let old = state.responses.removeValue(forKey: key) { state.responseBytes -= old.response.body.count }
            guard response.body.count <= limit else { return }
            state.responses[key] = StoredResponse(response: response, lastUse: state.tick())
            state.responseBytes += response.body.count
            guard state.responseBytes > limit else { return }
            for (oldKey, old) in state.responses.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard state.responseBytes > limit else { break }
                state.responses[oldKey] = nil
                state.responseBytes -= old.response.body.count
            }
        }
    }

    /// How much the store holds: records, responses, and the bytes of the responses' bodies.
    public var usage: Usage {
        _ = count  // merges what waits
        return state.withLock { Usage(records: $0.records.count, responses: $0.responses.count, responseBytes: $0.responseBytes) }
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
