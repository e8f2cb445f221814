/// Page-number pagination: `page[number]` (from 1) and `page[size]`, or other names.
///
/// ```swift
/// source.fetch().paginate(.pageBased(1, 10))
/// source.fetch().paginate(.pageBased(1, 10, names: .init(number: "page", size: "per_page")))
/// ```
///
/// Without links, the next page exists when `meta` reports more pages or resources than seen so far, or — when
/// it reports no totals — when this page is full; the last page needs a total.
public struct PageBasedPagination: PaginationStrategy, Hashable {
    /// The page number, from 1.
    public var number: Int
    /// The page size.
    public var size: Int
    /// The parameter names.
    public var names: Names

    /// The query parameter names of page-number pagination.
    public struct Names: Sendable, Hashable {
        /// The page number's name; `page[number]` by default.
        public var number: String
        /// The page size's name; `page[size]` by default.
        public var size: String
        /// Creates names.
        ///
        /// - Parameters:
        ///   - number: The page number parameter's name.
        ///   - size: The page size parameter's name.
        public init(number: String = "page[number]", size: String = "page[size]") {
            self.number = number
            self.size = size
        }
        /// `page[number]` and `page[size]`.
        public static let jsonAPI = Names()
    }

    /// Page `number` (from 1) of `size` resources.
    ///
    /// - Parameters:
    ///   - number: The page number, from 1.
    ///   - size: The page size.
    ///   - names: The parameters' names.
    public init(number: Int, size: Int, names: Names = .jsonAPI) {
        self.number = number
        self.size = size
        self.names = names
    }

    /// `false`: neighbours come from the numbers and the totals in `meta`.
    public var readsResourceMeta: Bool { false }

    /// `page[number]` and `page[size]` (or the configured names).
    public var queryItems: [QueryItem] {
        [QueryItem(names.number, String(number)), QueryItem(names.size, String(size))]
    }

    /// The next page, when `meta` reports more, or when this page is full and `meta` reports no totals.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: The next page, or `nil` when there is none.
    public func next(after page: PageContext) -> PageBasedPagination? {
        // Totals come from the server and numbers from the caller: arithmetic that would overflow means no page.
        let (following, overflow) = number.addingReportingOverflow(1)
        guard !overflow else { return nil }
        if let pages = page.totalPages { return number < pages ? moved(to: following) : nil }
        if let total = page.totalResources {
            let (seen, overflow) = number.multipliedReportingOverflow(by: size)
            return !overflow && seen < total ? moved(to: following) : nil
        }
        return page.count >= size && size > 0 ? moved(to: following) : nil
    }

    /// The page before, down to page 1.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: The page before, or `nil` on page 1.
    public func previous(before page: PageContext) -> PageBasedPagination? {
        number > 1 ? moved(to: number - 1) : nil
    }

    /// Page 1.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: Page 1.
    public func first(of page: PageContext) -> PageBasedPagination? { moved(to: 1) }

    /// The last page, when `meta` reports the number of pages or of resources.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: The last page, or `nil` when the totals are unknown.
    public func last(of page: PageContext) -> PageBasedPagination? {
        if let pages = page.totalPages { return moved(to: max(pages, 1)) }
        if let total = page.totalResources, size > 0 {
            return moved(to: max(total / size + (total % size > 0 ? 1 : 0), 1))
        }
        return nil
    }

    /// The pages after this one through the last: its number from `meta` totals, else from the `last` link's
    /// number parameter; `nil` when neither tells, or more than 100,000 pages would follow.
    ///
    /// - Parameters:
    ///   - page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    ///   - lastLinkQuery: The query of the page's `last` link, when it has one.
    /// - Returns: The pages in order, or `nil`.
    public func remainingPages(after page: PageContext, lastLinkQuery: [QueryItem]?) -> [PageBasedPagination]? {
        let lastNumber =
            last(of: page)?.number
            ?? lastLinkQuery?.last(where: { $0.name == names.number }).flatMap { Int($0.value) }
        guard let lastNumber, lastNumber < Int.max else { return nil }
        guard lastNumber > number else { return [] }
        guard lastNumber - number <= 100_000 else { return nil }
        return (number + 1...lastNumber).map(moved(to:))
    }

    /// This strategy at the page number (and size, when given) of `query`.
    ///
    /// - Parameter query: The query of a page's URL.
    /// - Returns: The page it selects, or `nil` when it names no number.
    public func page(selectedBy query: [QueryItem]) -> PageBasedPagination? {
        guard let number = query.last(where: { $0.name == names.number }).flatMap({ Int($0.value) }) else { return nil }
        let size = query.last(where: { $0.name == names.size }).flatMap { Int($0.value) } ?? size
        return PageBasedPagination(number: number, size: size, names: names)
    }

    private func moved(to number: Int) -> PageBasedPagination {
        PageBasedPagination(number: number, size: size, names: names)
    }
}

extension PaginationStrategy where Self == PageBasedPagination {
    /// Page `number` (from 1) of `size` resources: `page[number]`, `page[size]` unless `names` says otherwise.
    ///
    /// - Parameters:
    ///   - number: The page number, from 1.
    ///   - size: The page size.
    ///   - names: The parameters' names.
    /// - Returns: The strategy for that page.
    public static func pageBased(_ number: Int, _ size: Int, names: PageBasedPagination.Names = .jsonAPI) -> Self {
        PageBasedPagination(number: number, size: size, names: names)
    }
}
