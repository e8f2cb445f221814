import Foundation

/// When a `GET` may be answered from the session's store instead of the network. Set one for the session
/// (``SessionConfiguration/cachePolicy``) or per request (``FetchRequest/cachePolicy(_:)``).
///
/// Whatever the policy, a `GET` that goes to the network is conditional when the store holds a response for its URL
/// with an `ETag` or `Last-Modified`: a `304 Not Modified` is then answered from the stored document.
public struct CachePolicy: Sendable, Hashable, CustomStringConvertible {
    enum Kind: String, Sendable, Hashable {
        case networkOnly, cacheFirst, cacheOnly, staleWhileRevalidate
    }

    let kind: Kind

    /// Always ask the server (conditionally, when the store can revalidate). The default.
    public static let networkOnly = CachePolicy(kind: .networkOnly)
    /// Answer from the stored response of the same URL when there is one; ask the server otherwise.
    public static let cacheFirst = CachePolicy(kind: .cacheFirst)
    /// Answer only from the store; without a stored response the request fails with
    /// ``JSONAPIClientError/Code/notCached`` and nothing is sent.
    public static let cacheOnly = CachePolicy(kind: .cacheOnly)
    /// Answer from the store at once when it can, and refresh the stored response in the background;
    /// ``FetchRequest/updates()`` yields both, the stored document first.
    public static let staleWhileRevalidate = CachePolicy(kind: .staleWhileRevalidate)

    /// The policy's name.
    public var description: String { kind.rawValue }
}

/// Where a response's document came from.
public struct ResponseSource: Sendable, Hashable, CustomStringConvertible {
    enum Kind: String, Sendable, Hashable {
        case network, revalidated, cache
    }

    let kind: Kind

    /// The server sent it.
    public static let network = ResponseSource(kind: .network)
    /// The server answered `304 Not Modified` (no body transferred) and the stored document was used.
    public static let revalidated = ResponseSource(kind: .revalidated)
    /// The store answered; nothing was sent.
    public static let cache = ResponseSource(kind: .cache)

    /// The source's name.
    public var description: String { kind.rawValue }
}
