/// Offset–limit pagination: `page[offset]` (from 0) and `page[limit]`, or other names.
///
/// Without links, the next page exists when `meta` reports more resources than `offset + limit`, or — when it
/// reports no total — when this page is full; the last page needs a total and never lies past the end.
public struct OffsetPagination: PaginationStrategy, Hashable {
    /// The index of the page's first resource, from 0.
    public var offset: Int
    /// The page size.
    public var limit: Int
    /// The parameter names.
    public var names: Names

    /// The query parameter names of offset pagination.
    public struct Names: Sendable, Hashable {
        /// The offset's name; `page[offset]` by default.
        public var offset: String
        /// The limit's name; `page[limit]` by default.
        public var limit: String
        /// Creates names.
        ///
        /// - Parameters:
        ///   - offset: The offset parameter's name.
        ///   - limit: The limit parameter's name.
        public init(offset: String = "page[offset]", limit: String = "page[limit]") {
            self.offset = offset
            self.limit = limit
        }
        /// `page[offset]` and `page[limit]`.
        public static let jsonAPI = Names()
    }

    /// `limit` resources from `offset`.
    ///
    /// - Parameters:
    ///   - offset: The first resource's position, from 0.
    ///   - limit: The page size.
    ///   - names: The parameters' names.
    public init(offset: Int, limit: Int, names: Names = .jsonAPI) {
        self.offset = offset
        self.limit = limit
        self.names = names
    }

    /// `false`: neighbours come from the numbers and the totals in `meta`.
    public var readsResourceMeta: Bool { false }

    /// `page[offset]` and `page[limit]` (or the configured names).
    public var queryItems: [QueryItem] {
        [QueryItem(names.offset, String(offset)), QueryItem(names.limit, String(limit))]
    }

    /// The next page, when `meta` reports more resources, or when this page is full and there is no total.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: The next page, or `nil` when there is none.
    public func next(after page: PageContext) -> OffsetPagination? {
        // Totals come from the server and offsets from the caller: arithmetic that would overflow means no page.
        let (following, overflow) = offset.addingReportingOverflow(limit)
        guard !overflow else { return nil }
        if let total = page.totalResources { return following < total ? moved(to: following) : nil }
        return page.count >= limit && limit > 0 ? moved(to: following) : nil
    }

    /// The page before, clamped at offset 0.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: The page before, or `nil` on the first page.
    public func previous(before page: PageContext) -> OffsetPagination? {
        guard offset > 0 else { return nil }
        let (preceding, overflow) = offset.subtractingReportingOverflow(limit)
        return moved(to: overflow ? 0 : max(preceding, 0))
    }

    /// Offset 0.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: The page at offset 0.
    public func first(of page: PageContext) -> OffsetPagination? { moved(to: 0) }

    /// The page holding the last resource, when `meta` reports the total.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: The last page, or `nil` when the total is unknown.
    public func last(of page: PageContext) -> OffsetPagination? {
        guard let total = page.totalResources, limit > 0 else { return nil }
        return moved(to: total <= 0 ? 0 : ((total - 1) / limit) * limit)
    }

    /// The pages after this one through the last: its offset from the `meta` total, else from the `last` link's
    /// offset parameter; `nil` when neither tells, the limit is not positive, or more than 100,000 pages would
    /// follow.
    ///
    /// - Parameters:
    ///   - page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    ///   - lastLinkQuery: The query of the page's `last` link, when it has one.
    /// - Returns: The pages in order, or `nil`.
    public func remainingPages(after page: PageContext, lastLinkQuery: [QueryItem]?) -> [OffsetPagination]? {
        guard limit > 0 else { return nil }
        // From the total, the last page is the one of this walk's steps (offset + k × limit) that holds the last
        // resource: an offset off the page grid (5, with a limit of 10) keeps its step, so `last(of:)`, which is on
        // the grid, would stop one page short.
        let lastOffset =
            page.totalResources.map { total in total > offset ? offset + ((total - 1 - offset) / limit) * limit : 0 }
            ?? lastLinkQuery?.last(where: { $0.name == names.offset }).flatMap { Int($0.value) }
        guard let lastOffset, lastOffset >= 0 else { return nil }
        let (start, overflow) = offset.addingReportingOverflow(limit)
        guard !overflow, start <= lastOffset else { return overflow ? nil : [] }
        guard (lastOffset - start) / limit < 100_000 else { return nil }
        return stride(from: start, through: lastOffset, by: limit).map(moved(to:))
    }

    /// This strategy at the offset (and limit, when given) of `query`.
    ///
    /// - Parameter query: The query of a page's URL.
    /// - Returns: The page it selects, or `nil` when it names no offset.
    public func page(selectedBy query: [QueryItem]) -> OffsetPagination? {
        guard let offset = query.last(where: { $0.name == names.offset }).flatMap({ Int($0.value) }) else { return nil }
        let limit = query.last(where: { $0.name == names.limit }).flatMap { Int($0.value) } ?? limit
        return OffsetPagination(offset: offset, limit: limit, names: names)
    }

    private func moved(to offset: Int) -> OffsetPagination { OffsetPagination(offset: offset, limit: limit, names: names) }
}

extension PaginationStrategy where Self == OffsetPagination {
    /// `limit` resources from `offset`: `page[offset]`, `page[limit]` unless `names` says otherwise.
    ///
    /// - Parameters:
    ///   - offset: The first resource's position, from 0.
    ///   - limit: The page size.
    ///   - names: The parameters' names.
    /// - Returns: The strategy for that page.
    public static func offsetBased(_ offset: Int, _ limit: Int, names: OffsetPagination.Names = .jsonAPI) -> Self {
        OffsetPagination(offset: offset, limit: limit, names: names)
    }
}
