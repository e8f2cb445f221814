/// Cursor pagination, in the two common forms:
///
/// - the JSON:API Cursor Pagination profile: `page[size]`, `page[after]`, `page[before]`
///   (`.cursorBased(size: 50)`, then `.cursorBased(size: 50, after: cursor)`);
/// - one opaque token: `page[cursor]` and `page[size]` (`.cursorBased(cursor: nil, size: 50)`), as Django REST
///   framework and others do.
///
/// Cursors are opaque: without links, the profile form continues from the cursors in the resources'
/// `meta.page.cursor` (next only after a full page), and the token form cannot move at all.
public struct CursorPagination: PaginationStrategy, Hashable {
    /// The page size; `nil` leaves it to the server.
    public var size: Int?
    /// Which form, with its cursors.
    public var position: Position
    /// The parameter names.
    public var names: Names

    /// The cursors of a page.
    public enum Position: Sendable, Hashable {
        /// The profile form: resources after and/or before the given cursors (`nil`: from the start).
        case range(after: String?, before: String?)
        /// The single-token form: the page the token names (`nil`: the first page).
        case token(String?)
    }

    /// The query parameter names of cursor pagination.
    public struct Names: Sendable, Hashable {
        /// The page size's name; `page[size]` by default.
        public var size: String
        /// The profile's "after" cursor; `page[after]` by default.
        public var after: String
        /// The profile's "before" cursor; `page[before]` by default.
        public var before: String
        /// The single token's name; `page[cursor]` by default.
        public var cursor: String
        /// Creates names.
        ///
        /// - Parameters:
        ///   - size: The page size parameter's name.
        ///   - after: The "after" cursor parameter's name.
        ///   - before: The "before" cursor parameter's name.
        ///   - cursor: The single token parameter's name.
        public init(
            size: String = "page[size]", after: String = "page[after]", before: String = "page[before]",
            cursor: String = "page[cursor]"
        ) {
            self.size = size
            self.after = after
            self.before = before
            self.cursor = cursor
        }
        /// `page[size]`, `page[after]`, `page[before]`, `page[cursor]`.
        public static let jsonAPI = Names()
    }

    /// Creates a cursor page.
    ///
    /// - Parameters:
    ///   - size: The page size, or `nil` for the server's.
    ///   - position: Where the page is: the start, after or before a cursor, or at a token.
    ///   - names: The parameters' names.
    public init(size: Int?, position: Position, names: Names = .jsonAPI) {
        self.size = size
        self.position = position
        self.names = names
    }

    /// The profile form reads the resources' `meta.page.cursor`; the token form cannot use it.
    public var readsResourceMeta: Bool {
        if case .range = position { return true }
        return false
    }

    /// `page[size]` and the cursor parameters that are set.
    public var queryItems: [QueryItem] {
        var items: [QueryItem] = []
        if let size { items.append(QueryItem(names.size, String(size))) }
        switch position {
        case .range(let after, let before):
            if let after { items.append(QueryItem(names.after, after)) }
            if let before { items.append(QueryItem(names.before, before)) }
        case .token(let token):
            if let token { items.append(QueryItem(names.cursor, token)) }
        }
        return items
    }

    /// Profile form: after the last resource's `meta.page.cursor`, when the page is full.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: The next page, or `nil` when there is none.
    public func next(after page: PageContext) -> CursorPagination? {
        guard case .range = position, let size, page.count >= size,
            let cursor = page.lastResourceMeta?["page"]?["cursor"]?.stringValue
        else { return nil }
        return CursorPagination(size: size, position: .range(after: cursor, before: nil), names: names)
    }

    /// Profile form: before the first resource's `meta.page.cursor`, when this page is not the first.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: The page before, or `nil` on the first page.
    public func previous(before page: PageContext) -> CursorPagination? {
        guard case .range(let after, let before) = position, after != nil || before != nil,
            let cursor = page.firstResourceMeta?["page"]?["cursor"]?.stringValue
        else { return nil }
        return CursorPagination(size: size, position: .range(after: nil, before: cursor), names: names)
    }

    /// The page without cursors.
    ///
    /// - Parameter page: What the current page held: its size and `meta`, and its first and last resources' `meta`.
    /// - Returns: The first page, of the same size.
    public func first(of page: PageContext) -> CursorPagination? {
        switch position {
        case .range: CursorPagination(size: size, position: .range(after: nil, before: nil), names: names)
        case .token: CursorPagination(size: size, position: .token(nil), names: names)
        }
    }
}

extension PaginationStrategy where Self == CursorPagination {
    /// The Cursor Pagination profile: `page[size]`, `page[after]`, `page[before]` (those that are set).
    ///
    /// - Parameters:
    ///   - size: The page size, or `nil` for the server's.
    ///   - after: The cursor to start after.
    ///   - before: The cursor to end before.
    ///   - names: The parameters' names.
    /// - Returns: The strategy for that page.
    public static func cursorBased(
        size: Int? = nil, after: String? = nil, before: String? = nil, names: CursorPagination.Names = .jsonAPI
    ) -> Self {
        CursorPagination(size: size, position: .range(after: after, before: before), names: names)
    }

    /// One opaque token: `page[cursor]` (when set) and `page[size]`.
    ///
    /// - Parameters:
    ///   - cursor: The token, or `nil` for the first page.
    ///   - size: The page size, or `nil` for the server's.
    ///   - names: The parameters' names.
    /// - Returns: The strategy for that page.
    public static func cursorBased(cursor: String?, size: Int? = nil, names: CursorPagination.Names = .jsonAPI)
        -> Self
    {
        CursorPagination(size: size, position: .token(cursor), names: names)
    }
}
