import Foundation

/// Where a fetched document came from, and how to fetch its neighbours.
///
/// The networking layer (JSONAPIClient) sets this on every document it returns, so that `next()`, `prev()`,
/// `first()`, `last()`, `reload()` and `appendNext()` can follow links. Documents you decode or build yourself
/// have none.
public struct DocumentOrigin<Primary: Sendable>: Sendable {
    /// The URL of the request that produced the document; relative links resolve against it.
    public var url: URL
    /// Fetches the document a navigation names (`"next"`, `"prev"`, `"first"`, `"last"`, `"self"`) for the given
    /// document, or returns `nil` when there is no such document.
    public var navigate: @Sendable (_ relation: String, _ document: Document<Primary>) async throws -> Document<Primary>?
    /// Whether ``navigate`` would fetch a document for the relation (without fetching it).
    public var canNavigate: @Sendable (_ relation: String, _ document: Document<Primary>) -> Bool

    /// Creates an origin.
    public init(
        url: URL,
        navigate: @escaping @Sendable (_ relation: String, _ document: Document<Primary>) async throws -> Document<Primary>?,
        canNavigate: @escaping @Sendable (_ relation: String, _ document: Document<Primary>) -> Bool = { _, _ in true }
    ) {
        self.url = url
        self.navigate = navigate
        self.canNavigate = canNavigate
    }
}
