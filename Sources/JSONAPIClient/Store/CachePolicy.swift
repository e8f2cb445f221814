import Foundation

/// When a `GET` may be answered from the session's store instead of the network. Set one for the session
/// (``Session/Configuration/cachePolicy``) or per request (``FetchRequest/cachePolicy(_:)``).
///
/// The store answers a request only with a response fetched with the same credentials (`Authorization`,
/// `Proxy-Authorization`, `Cookie`, as the middleware set them) and the same values of the header fields its `Vary`
/// names; it never keeps a response with `Cache-Control: no-store`. Whether a stored response may be used without
/// asking the server follows HTTP's rules for a private cache (RFC 9111): it is *fresh* while its age is less than
/// its `max-age` (else `Expires` − `Date`), never with `no-cache`, and a response with neither is stale at once.
///
/// Whatever the policy, a `GET` that goes to the network is conditional when the store holds a response for it
/// with an `ETag` or `Last-Modified`: a `304 Not Modified` is then answered from the stored document, which is
/// fresh again.
public struct CachePolicy: Sendable, Hashable, CustomStringConvertible {
    enum Kind: String, Sendable, Hashable {
        case networkOnly, networkFirst, cacheFirst, cacheOnly, staleWhileRevalidate
    }

    let kind: Kind
    /// How stale a stored response ``cacheFirst(maxStale:)`` accepts; `nil` for fresh only.
    let maxStale: Duration?

    init(kind: Kind, maxStale: Duration? = nil) {
        self.kind = kind
        self.maxStale = maxStale
    }

    /// Always ask the server (conditionally, when the store can revalidate). The default.
    public static let networkOnly = CachePolicy(kind: .networkOnly)
    /// Ask the server; when no answer comes back — the transport fails or times out, not when the server answers
    /// with an error — answer from the store, stale or not (unless its server said `no-cache` or
    /// `must-revalidate`), with ``ResponseSource/offline``. Without a stored response, the transport's error.
    public static let networkFirst = CachePolicy(kind: .networkFirst)
    /// Answer from the stored response when it is fresh; ask the server (conditionally) otherwise.
    public static let cacheFirst = CachePolicy(kind: .cacheFirst)
    /// Answer only from the store, with a stored response fresh or stale (unless its server said `no-cache` or
    /// `must-revalidate`, or a create or delete made it stale); without one the request fails with
    /// ``JSONAPIClientError/Code/notCached`` and nothing is sent.
    public static let cacheOnly = CachePolicy(kind: .cacheOnly)
    /// Answer from the store at once when it can (a stale response its server lets be used stale included), and
    /// when the stored response is stale refresh it in the background; ``FetchRequest/updates()`` yields both, the
    /// stored document first.
    public static let staleWhileRevalidate = CachePolicy(kind: .staleWhileRevalidate)

    /// ``cacheFirst``, also accepting a stored response that has been stale for no more than `maxStale` (like
    /// `Cache-Control: max-stale`), unless its server said `must-revalidate` or `no-cache`.
    ///
    /// - Parameter maxStale: How long past its freshness a stored response may be used; `.zero` accepts one
    ///   exactly at the end of its freshness, a negative duration is `.zero`.
    /// - Returns: The policy.
    public static func cacheFirst(maxStale: Duration) -> CachePolicy {
        CachePolicy(kind: .cacheFirst, maxStale: max(maxStale, .zero))
    }

    /// The policy's name: `cacheFirst`, or `cacheFirst(maxStale: 60.0 seconds)`.
    public var description: String {
        guard let maxStale else { return kind.rawValue }
        return "\(kind.rawValue)(maxStale: \(maxStale))"
    }
}

/// Where a response's document came from.
public struct ResponseSource: Sendable, Hashable, CustomStringConvertible {
    enum Kind: String, Sendable, Hashable {
        case network, revalidated, cache, offline
    }

    let kind: Kind

    /// The server sent it.
    public static let network = ResponseSource(kind: .network)
    /// The server answered `304 Not Modified` (no body transferred) and the stored document was used.
    public static let revalidated = ResponseSource(kind: .revalidated)
    /// The store answered; nothing was sent.
    public static let cache = ResponseSource(kind: .cache)
    /// The store answered because the request got no answer: the transport failed or timed out under
    /// ``CachePolicy/networkFirst``. The document may be out of date.
    public static let offline = ResponseSource(kind: .offline)

    /// The source's name.
    public var description: String { kind.rawValue }
}
