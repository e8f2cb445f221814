import Foundation

/// What a fetch returns: the document, and where it came from, so that it can fetch its neighbours.
///
/// The document's members read directly — `response.data`, `response.included`, `response.meta`,
/// `response.links` — and ``document`` is the plain `Document` value to keep, compare or encode:
///
/// ```swift
/// let page = try await articles.fetch().paginate(.pageBased(1, 10))   // FetchResponse<[Article]>
/// for article in page.data ?? [] { print(article.title) }
/// if let next = try await page.next() { print(next.data?.count ?? 0) }
/// ```
///
/// Navigation — ``next()``, ``prev()``, ``first()``, ``last()``, ``reload()``, `appendNext()` — follows the
/// server's links, or the request's pagination strategy when the server gives none, through the session that sent
/// the request.
@dynamicMemberLookup
public struct FetchResponse<Primary: Decodable & Sendable>: Sendable {
    /// The document: primary data, `included`, `meta`, `links`, `jsonapi`, `errors`.
    public var document: Document<Primary>
    /// The response's status.
    public internal(set) var status: HTTPResponse.Status
    /// The response's header fields.
    public internal(set) var headerFields: HTTPFields
    /// Whether the server sent the document, confirmed the stored one (`304`), or the store answered alone — by
    /// the cache policy, or because the transport failed (``ResponseSource/offline``). For all but the first,
    /// ``status`` and ``headerFields`` are the stored response's.
    public internal(set) var source: ResponseSource
    /// Where the document came from and how to fetch its neighbours.
    var navigation: Navigation
    /// A digest of the credentials the request carried after the middleware (`nil` when not known): a live list
    /// does not append a page fetched for someone else to the pages of another.
    var credentials: CredentialDigest?
    /// The records the decode handed to the store (`nil` when it handed none: an answer from the store, a session
    /// without one): a live object asks the store whether it still shows them before it shows the decoded models
    /// (``ResourceStore/shownAsFetched(_:type:depth:)``), since a newer response may have been merged meanwhile.
    var records: ResourceRecords?

    init(
        document: Document<Primary>, status: HTTPResponse.Status, headerFields: HTTPFields,
        source: ResponseSource = .network, credentials: CredentialDigest? = nil, records: ResourceRecords? = nil,
        navigation: Navigation
    ) {
        self.document = document
        self.status = status
        self.headerFields = headerFields
        self.source = source
        self.credentials = credentials
        self.records = records
        self.navigation = navigation
    }

    /// The URL of the request that produced the document; relative links resolve against it.
    public var url: URL { navigation.url }

    /// A member of the document: `response.data`, `response.meta`, …
    // Inlinable, so that a caller's optimizer reads the member directly: otherwise every use instantiates the key
    // path (in generic code ~30,000 instructions each time).
    /// - Parameter member: The document's member, e.g. `\.data`.
    /// - Returns: Its value.
    @inlinable
    public subscript<Member>(dynamicMember member: KeyPath<Document<Primary>, Member>) -> Member {
        document[keyPath: member]
    }

    /// A member of the document, to change: `response.data = …`.
    ///
    /// - Parameter member: The document's member, e.g. `\.data`.
    /// - Returns: Its value.
    @inlinable
    public subscript<Member>(dynamicMember member: WritableKeyPath<Document<Primary>, Member>) -> Member {
        get { document[keyPath: member] }
        set { document[keyPath: member] = newValue }
    }
}

extension FetchResponse: Equatable where Primary: Equatable {
    /// Responses are equal when their documents, URLs, statuses and header fields are.
    ///
    /// - Parameters:
    ///   - lhs: A response.
    ///   - rhs: Another response.
    /// - Returns: Whether they are equal.
    public static func == (lhs: FetchResponse, rhs: FetchResponse) -> Bool {
        lhs.document == rhs.document && lhs.url == rhs.url && lhs.status == rhs.status
            && lhs.headerFields == rhs.headerFields
    }
}
