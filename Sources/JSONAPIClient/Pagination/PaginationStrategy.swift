/// How a collection is paged: the query parameters that select a page, and how to compute a neighbouring page
/// when the server gives no pagination links.
///
/// The library's strategies cover the usual families — ``PageBasedPagination`` (`page[number]`/`page[size]`),
/// ``OffsetPagination`` (`page[offset]`/`page[limit]`) and ``CursorPagination`` (the JSON:API Cursor Pagination
/// profile's `page[after]`/`page[before]`, or one opaque `page[cursor]`) — each with configurable parameter names.
/// Conform your own type for anything else:
///
/// ```swift
/// struct SincePagination: PaginationStrategy {
///     var since: String
///     var queryItems: [QueryItem] { [QueryItem("since", since)] }
///     func next(after page: PageContext) -> SincePagination? {
///         page.lastResourceMeta?["next_since"]?.stringValue.map { SincePagination(since: $0) }
///     }
/// }
/// ```
///
/// Navigation uses the server's links whenever a document has any pagination link; the strategy's
/// ``next(after:)``, ``previous(before:)``, ``first(of:)`` and ``last(of:)`` are the fallback for servers that
/// give none. They must return `nil` rather than guess a page the ``PageContext`` does not justify.
///
/// A strategy that never reads ``PageContext/firstResourceMeta`` or ``PageContext/lastResourceMeta`` says so with
/// ``readsResourceMeta`` (`false`), and the client does not collect them.
public protocol PaginationStrategy: Sendable {
    /// The query parameters that select this page.
    var queryItems: [QueryItem] { get }
    /// Whether the neighbours are computed from the meta of the page's first and last resources; `true` unless
    /// the strategy says otherwise.
    var readsResourceMeta: Bool { get }
    /// The page after `page`, or `nil` when there is none or it cannot be known.
    func next(after page: PageContext) -> Self?
    /// The page before `page`, or `nil`.
    func previous(before page: PageContext) -> Self?
    /// The first page, or `nil`.
    func first(of page: PageContext) -> Self?
    /// The last page, or `nil` when the context does not tell where it is.
    func last(of page: PageContext) -> Self?
    /// Every page after this one through the collection's last, when `page` (its meta's totals) or the query of the
    /// server's `last` link tells where that is; `nil` when neither does, or when pages cannot be addressed out of
    /// order (cursors). ``FetchRequest/pages(prefetch:concurrency:progress:)`` fetches them several at once.
    func remainingPages(after page: PageContext, lastLinkQuery: [QueryItem]?) -> [Self]?
    /// This strategy moved to the page a link's `query` selects (its number or offset read from the query, the rest
    /// kept); `nil` when the query does not say, or the strategy cannot tell (cursors). A walk that follows the
    /// server's links uses it to know where it is when a page's links contradict each other.
    func page(selectedBy query: [QueryItem]) -> Self?
}

extension PaginationStrategy {
    /// `true`: a strategy may read the resources' meta unless it says it does not.
    public var readsResourceMeta: Bool { true }
    /// No previous page unless the strategy says how.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: `nil`.
    public func previous(before page: PageContext) -> Self? { nil }
    /// No first page unless the strategy says how.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: `nil`.
    public func first(of page: PageContext) -> Self? { nil }
    /// No last page unless the strategy says how.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: `nil`.
    public func last(of page: PageContext) -> Self? { nil }
    /// Pages are reached one by one (by links or ``next(after:)``) unless the strategy says how to address them.
    ///
    /// - Parameters:
    ///   - page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    ///   - lastLinkQuery: The query of the page's `last` link, when it has one.
    /// - Returns: `nil`.
    public func remainingPages(after page: PageContext, lastLinkQuery: [QueryItem]?) -> [Self]? { nil }
    /// A link's query tells nothing unless the strategy says how to read it.
    ///
    /// - Parameter query: The query of a page's URL.
    /// - Returns: `nil`.
    public func page(selectedBy query: [QueryItem]) -> Self? { nil }
}

/// A page's relation to the current one: the pagination links of a document (`first`, `prev`, `next`, `last`).
public enum PageRelation: String, Sendable, Hashable, CaseIterable {
    /// The first page.
    case first
    /// The page before.
    case prev
    /// The page after.
    case next
    /// The last page.
    case last
}

/// What a fetched page says about its collection, for a ``PaginationStrategy`` to compute its neighbours from.
public struct PageContext: Sendable, Hashable {
    /// The number of resources on the page.
    public var count: Int
    /// The document's top-level meta.
    public var meta: Meta?
    /// The meta of the page's first resource (the cursor profile's `meta.page.cursor` lives there); collected only
    /// for a strategy whose ``PaginationStrategy/readsResourceMeta`` is `true`.
    public var firstResourceMeta: Meta?
    /// The meta of the page's last resource; collected as ``firstResourceMeta`` is.
    public var lastResourceMeta: Meta?

    /// Creates a context.
    ///
    /// - Parameters:
    ///   - count: The number of resources on the page.
    ///   - meta: The page's top-level `meta`.
    ///   - firstResourceMeta: The `meta` of its first resource.
    ///   - lastResourceMeta: The `meta` of its last resource.
    public init(count: Int, meta: Meta? = nil, firstResourceMeta: Meta? = nil, lastResourceMeta: Meta? = nil) {
        self.count = count
        self.meta = meta
        self.firstResourceMeta = firstResourceMeta
        self.lastResourceMeta = lastResourceMeta
    }

    /// The number of resources in the whole collection, when `meta` reports it: `pagination.count`,
    /// `page.total`, `page.estimatedTotal.bestGuess`, `total`, `count` or `totalCount`.
    public var totalResources: Int? { PageContext.totalResources(in: meta) }

    /// The number of pages, when `meta` reports it: `pagination.pages`, `page.totalPages`, `totalPages` or
    /// `pages`.
    public var totalPages: Int? {
        guard let meta else { return nil }
        let candidates: [JSONValue?] = [
            meta["pagination"]?["pages"], meta["page"]?["totalPages"], meta["totalPages"], meta["pages"],
        ]
        return candidates.lazy.compactMap { $0?.intValue }.first
    }

    static func totalResources(in meta: Meta?) -> Int? {
        guard let meta else { return nil }
        let candidates: [JSONValue?] = [
            meta["pagination"]?["count"], meta["page"]?["total"], meta["page"]?["estimatedTotal"]?["bestGuess"],
            meta["total"], meta["count"], meta["totalCount"],
        ]
        return candidates.lazy.compactMap { $0?.intValue }.first
    }
}
