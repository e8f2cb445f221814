import Foundation

extension Document {
    /// The next page: the server's `next` link, or — when the document has no pagination links at all — the
    /// page after this one by the request's pagination strategy. `nil` when there is none (the link is absent or
    /// `null`, or the strategy cannot justify one).
    ///
    /// Links are followed exactly as given (scheme, host, path, whole query), relative ones resolved against this
    /// document's request URL, and only to allowed origins. A `next` link that leads back to a page of the same
    /// iteration throws ``JSONAPIClientError/Code/paginationLoop``.
    public func next() async throws -> Document? { try await navigate("next") }

    /// The previous page (`prev` link, or the strategy's page before); `nil` when there is none.
    public func prev() async throws -> Document? { try await navigate("prev") }

    /// The first page (`first` link, or the strategy's first page); `nil` when there is none.
    public func first() async throws -> Document? { try await navigate("first") }

    /// The last page (`last` link, or the strategy's last page when `meta` reports totals); `nil` when unknown.
    public func last() async throws -> Document? { try await navigate("last") }

    /// This document fetched again: its `self` link, or else the request that produced it.
    public func reload() async throws -> Document {
        guard let document = try await navigate("self") else { throw Self.notNavigable(relation: "self") }
        return document
    }

    /// Whether ``next()`` would fetch a page (without fetching it); `false` for a document without origin.
    public var hasNext: Bool { origin?.canNavigate("next", self) ?? false }

    /// Whether ``prev()`` would fetch a page (without fetching it); `false` for a document without origin.
    public var hasPrev: Bool { origin?.canNavigate("prev", self) ?? false }

    private func navigate(_ relation: String) async throws -> Document? {
        guard let origin else { throw Self.notNavigable(relation: relation) }
        return try await origin.navigate(relation, self)
    }

    static func notNavigable(relation: String) -> JSONAPIClientError {
        JSONAPIClientError(
            code: .notNavigable,
            detail: "the document has no origin to navigate from (\(relation)); only documents fetched by a "
                + "DataSource can navigate")
    }
}

/// What ``Document/appendNext()`` added.
public struct AppendResult<Element> {
    /// The resources of the next page that were not on the document yet, in order.
    public var added: [Element]
    /// Whether there is a page after the one appended (`false` also when there was no page to append).
    public var hasMore: Bool
    /// Whether a page was fetched.
    public var fetchedPage: Bool

    /// Creates a result.
    public init(added: [Element], hasMore: Bool, fetchedPage: Bool) {
        self.added = added
        self.hasMore = hasMore
        self.fetchedPage = fetchedPage
    }
}

extension AppendResult: Sendable where Element: Sendable {}

extension Document where Primary: PageablePrimary {
    /// Fetches the next page and merges it into this document: its resources are appended (those already here,
    /// by `(type, id)`, are left out), its `included` resources merged without duplicates, and `links`, `meta`
    /// and the origin replaced by the new page's, so that the next call advances.
    ///
    /// Without a next page nothing changes and the result says so; that is not an error. Pagination loops and the
    /// page limit throw, as for ``next()``.
    ///
    /// ```swift
    /// var document = try await source.fetch().paginate(.pageBased(1, 50))
    /// while try await document.appendNext().hasMore {}
    /// ```
    @discardableResult
    public mutating func appendNext() async throws -> AppendResult<Primary.Element> {
        guard origin != nil else { throw Self.notNavigable(relation: "next") }
        guard let page = try await next() else { return AppendResult(added: [], hasMore: false, fetchedPage: false) }
        let added = merge(page)
        return AppendResult(added: added, hasMore: hasNext, fetchedPage: true)
    }

    /// Merges `page` into this document as ``appendNext()`` does; returns the resources added.
    @discardableResult
    mutating func merge(_ page: Document) -> [Primary.Element] {
        var seen = Set((data?.pageElements ?? []).compactMap(Primary.pageIdentity(of:)))
        var added: [Primary.Element] = []
        for element in page.data?.pageElements ?? [] {
            if let identity = Primary.pageIdentity(of: element) {
                guard seen.insert(identity).inserted else { continue }
            }
            added.append(element)
        }
        if data == nil { data = page.data } else { data?.appendPageElements(added) }
        if let newIncluded = page.included {
            var included = self.included ?? []
            var known = Set(included.map(\.identifier))
            for resource in newIncluded where known.insert(resource.identifier).inserted { included.append(resource) }
            self.included = included
        }
        links = page.links
        meta = page.meta
        if let jsonapi = page.jsonapi { self.jsonapi = jsonapi }
        origin = page.origin
        return added
    }
}
