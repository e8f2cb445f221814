import Foundation
import JSONAPIClientCore

/// The store's responses: the last successful `GET` of each URL per credentials, for conditional requests and cache
/// policies, with what HTTP's caching rules (RFC 9111, as a private cache) need to know about it.
struct StoredResponse: Sendable {
    var response: HTTPResponse
    var lastUse: UInt64
    /// The header fields the response's `Vary` names (none without `Vary`).
    var varyNames: [HTTPField.Name]
    /// The digest of the values the request had for ``varyNames``: a request is answered with the response only
    /// when its own values digest the same.
    var varyDigest: CredentialDigest
    /// How long it may be used without asking the server.
    var freshness: Freshness
    /// The resource types it lists, when its primary data is a collection: a create or delete of one of them makes
    /// it stale.
    var collectionTypes: Set<String> = []
    /// Where the body is while it was not read: a persisted store reads the stored responses when it opens, but
    /// each body only when the response is first used (``ResourceStore/storedResponse(for:key:epoch:)``). `response.body`
    /// is empty meanwhile.
    var unreadBody: UnreadBody?

    /// A body left in the database: its row, and its size (what the byte limit counts).
    struct UnreadBody: Sendable, Hashable {
        var id: Int64
        var count: Int
    }

    /// The size of the body, read or not: what the byte limit counts.
    var bodyCount: Int { unreadBody?.count ?? response.body.count }

    /// The validator to send back as `If-None-Match`.
    var entityTag: String? { response.headerFields[.eTag] }
    /// The validator to send back as `If-Modified-Since`.
    var lastModified: String? { response.headerFields[.lastModified] }
}

/// The key of a stored response: whose (a digest of the credentials its request carried), its URL, and the media
/// type it accepts (the same URL in another media type is another representation).
struct ResponseKey: Hashable, Sendable {
    var partition: CredentialDigest
    var url: String
    var accept: String

    /// The key of `request` as the transport sees it, after the middleware added its credentials, its partition
    /// digested under `key`. The query items named in `credentialQueryItems`
    /// (``ResourceStore/Configuration/credentialQueryItems``) are credentials: digested into the partition with the
    /// credential header fields, and left out of the URL, which is written to disk.
    init(_ request: HTTPRequest, key: DigestKey = .process, credentialQueryItems: Set<String> = []) {
        accept = request.headerFields[.accept] ?? ""
        guard !credentialQueryItems.isEmpty, let (url, credentials) = Self.split(request.url, credentialQueryItems)
        else {
            partition = CredentialDigest(credentialsOf: request.headerFields, key: key)
            url = request.url.absoluteString
            return
        }
        partition = CredentialDigest(credentialsOf: request.headerFields, queryItems: credentials, key: key)
        self.url = url
    }

    /// `url` without the query items named in `names`, and those items (their percent-encoded names and values, in
    /// the URL's order); `nil` when it has none of them (the URL is then used as it is, byte for byte).
    static func split(_ url: URL, _ names: Set<String>) -> (url: String, items: [(name: String, value: String?)])? {
        guard url.query != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let items = components.percentEncodedQueryItems
        else { return nil }
        let isCredential = { (item: URLQueryItem) in names.contains(item.name.removingPercentEncoding ?? item.name) }
        let credentials = items.filter(isCredential)
        guard !credentials.isEmpty else { return nil }
        let kept = items.filter { !isCredential($0) }
        components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
        guard let stripped = components.string else { return nil }
        return (stripped, credentials.map { ($0.name, $0.value) })
    }
}

/// The store's stored responses, by key, with their use order for eviction and the bytes their bodies hold; and
/// the pure rule by which a cache policy uses one (``decide(_:for:policy:now:)``).
///
/// A value: ``ResourceStore`` holds one under its lock and is the only one to change it; tests make their own.
struct ResponseCache {
    private(set) var entries: [ResponseKey: StoredResponse] = [:]
    /// The keys by last use, for eviction without a sort.
    private(set) var order = UseOrder<ResponseKey>()
    /// The bytes of the bodies kept.
    private(set) var bytes = 0
    /// The keys whose response was stored, changed or removed since the last save, for a persisted store (its
    /// database writes their rows only); off in memory. A use is not a change.
    var unsaved = UnsavedKeys<ResponseKey>()

    /// The number of responses.
    var count: Int { entries.count }

    /// The response under `key`.
    subscript(key: ResponseKey) -> StoredResponse? { entries[key] }

    /// The response under `key`, marked used at `tick`.
    mutating func use(_ key: ResponseKey, at tick: UInt64) -> StoredResponse? {
        guard entries[key] != nil else { return nil }
        entries[key]?.lastUse = tick
        noteUse(key, at: tick)
        return entries[key]
    }

    /// Keeps `stored` under `key` (in place of what was there) as the most recently used at `tick`, then evicts the
    /// least recently used while the bodies pass `limit` bytes (from the front of their use order: no sort).
    mutating func insert(_ stored: StoredResponse, for key: ResponseKey, at tick: UInt64, limit: Int) {
        remove(key)
        var stored = stored
        stored.lastUse = tick
        entries[key] = stored
        unsaved.insert(key)
        bytes += stored.bodyCount
        noteUse(key, at: tick)
        evict(limit: limit)
    }

    /// Fills an empty cache with `loaded`, oldest first, as the most recently used from `tick` on (one tick each),
    /// then evicts the least recently used while the bodies pass `limit` bytes: what a persisted store read when
    /// it opened. Only what is evicted is noted unsaved (its rows go with the next save): what was read is on disk.
    ///
    /// - Returns: The next tick.
    mutating func load(_ loaded: [(key: ResponseKey, response: StoredResponse)], from tick: UInt64, limit: Int) -> UInt64 {
        entries.reserveCapacity(loaded.count)
        var tick = tick
        for (key, stored) in loaded {
            var stored = stored
            stored.lastUse = tick
            if let old = entries.updateValue(stored, forKey: key) { bytes -= old.bodyCount }
            bytes += stored.bodyCount
            order.use(key, at: tick)
            tick += 1
        }
        evict(limit: limit)
        return tick
    }

    /// Removes the least recently used responses while the bodies pass `limit` bytes (from the front of their use
    /// order: no sort).
    private mutating func evict(limit: Int) {
        while bytes > limit {
            let entries = self.entries
            guard let oldest = order.popOldest(isCurrent: { entries[$0]?.lastUse == $1 }) else { break }
            remove(oldest)
        }
    }

    /// Removes the response under `key`.
    ///
    /// - Returns: The response removed.
    @discardableResult
    mutating func remove(_ key: ResponseKey) -> StoredResponse? {
        guard let old = entries.removeValue(forKey: key) else { return nil }
        unsaved.insert(key)
        bytes -= old.bodyCount
        return old
    }

    /// Changes the response under `key` with `change`, when there is one (its body's size must not change).
    ///
    /// - Returns: Whether there was one.
    @discardableResult
    mutating func update(_ key: ResponseKey, _ change: (inout StoredResponse) -> Void) -> Bool {
        guard var stored = entries.removeValue(forKey: key) else { return false }
        change(&stored)
        entries[key] = stored
        unsaved.insert(key)
        return true
    }

    /// Puts the body read from the database in the response under `key`, which was left there
    /// (``StoredResponse/unreadBody``); not a change to save. A body rebuilt from its outline may differ in size
    /// from the one stored (its records changed since): the bytes count the body now.
    mutating func readBody(_ body: Data, for key: ResponseKey) {
        guard let unread = entries[key]?.unreadBody else { return }
        bytes += body.count - unread.count
        entries[key]?.response.body = body
        entries[key]?.unreadBody = nil
    }

    /// Makes the responses `isAffected` selects stale, in need of validation before they are used again.
    mutating func requireValidation(where isAffected: (ResponseKey, StoredResponse) -> Bool) {
        for (key, stored) in entries where isAffected(key, stored) && !stored.freshness.requiresValidation {
            entries[key]?.freshness.requiresValidation = true
            unsaved.insert(key)
        }
    }

    /// Removes the responses of `partition`.
    ///
    /// - Returns: How many were removed.
    mutating func removeAll(of partition: CredentialDigest) -> Int {
        let keys = entries.keys.filter { $0.partition == partition }
        for key in keys { remove(key) }
        return keys.count
    }

    /// Removes every response; a persisted store empties its database itself (``ResourceStore/clear()``), so the
    /// keys tracked are dropped too.
    mutating func removeAll() {
        unsaved.removeAll()
        entries.removeAll()
        order.removeAll()
        bytes = 0
    }

    /// The responses, least recently used first: what a save writes.
    func oldestFirst() -> [(key: ResponseKey, response: StoredResponse)] {
        let entries = self.entries
        return order.keysInOrder { entries[$0]?.lastUse == $1 }.compactMap { key in
            entries[key].map { (key: key, response: $0) }
        }
    }

    private mutating func noteUse(_ key: ResponseKey, at tick: UInt64) {
        order.use(key, at: tick)
        let entries = self.entries
        order.compact(live: entries.count) { entries[$0]?.lastUse == $1 }
    }

    /// What a `GET` does with the stored response it may use.
    enum Decision: Equatable {
        /// Answer with the stored response; nothing is sent.
        case answer
        /// Answer with the stored response, then fetch again in the background (stale-while-revalidate).
        case answerThenRefresh
        /// Send the request, with these validators of the stored response (none: an ordinary request).
        case send(ifNoneMatch: String?, ifModifiedSince: String?)
        /// Answer nothing and send nothing: a cache-only request the store cannot answer.
        case notCached
    }

    /// What `request` (as the transport would get it) does under `policy` at `now`, given `stored`, the response it
    /// may be answered or validated with (``ResourceStore/storedResponse(for:key:epoch:)``). Pure: the session acts on it.
    ///
    /// A request with `Cache-Control: no-cache` is never answered from the store; one that sets a validator of its
    /// own is sent as it is.
    static func decide(_ stored: StoredResponse?, for request: HTTPRequest, policy: CachePolicy, now: Date) -> Decision {
        if let stored, !CacheControl(request.headerFields).noCache {
            let freshness = stored.freshness
            switch policy.kind {
            case .cacheOnly where freshness.isFresh(at: now) || freshness.mayServeStale: return .answer
            case .cacheFirst where freshness.isUsable(at: now, maxStale: policy.maxStale): return .answer
            case .staleWhileRevalidate where freshness.isFresh(at: now): return .answer
            case .staleWhileRevalidate where freshness.mayServeStale: return .answerThenRefresh
            case .cacheOnly, .cacheFirst, .staleWhileRevalidate, .networkOnly, .networkFirst: break
            }
        }
        if policy.kind == .cacheOnly { return .notCached }
        let setsOwn = request.headerFields[.ifNoneMatch] != nil || request.headerFields[.ifModifiedSince] != nil
        guard let stored, !setsOwn else { return .send(ifNoneMatch: nil, ifModifiedSince: nil) }
        return .send(ifNoneMatch: stored.entityTag, ifModifiedSince: stored.lastModified)
    }
}
