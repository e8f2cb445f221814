import Foundation

extension FetchResponse {
    /// The next page: the server's `next` link, or — when the document has no pagination links at all — the
    /// page after this one by the request's pagination strategy. `nil` when there is none (the link is absent or
    /// `null`, or the strategy cannot justify one). A page whose links have no `next` while its `last` link or
    /// `meta` totals say later pages exist (a server defect) is walked on by the strategy up to that last page, and
    /// the walk logs it once (``Session/Configuration/log``).
    ///
    /// Links are followed exactly as given (scheme, host, path, whole query), relative ones resolved against
    /// ``url``, and only to allowed origins. A `next` link that leads back to a page of the same iteration throws
    /// ``JSONAPIClientError/Code/paginationLoop``; more pages than `maxPages` throw
    /// ``JSONAPIClientError/Code/tooManyPages``.
    ///
    /// - Returns: The next page, or `nil` when there is none.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    public func next() async throws -> FetchResponse? { try await fetch(.next) }

    /// The previous page (`prev` link, or the strategy's page before); `nil` when there is none.
    ///
    /// - Returns: The previous page, or `nil` when there is none.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    public func prev() async throws -> FetchResponse? { try await fetch(.prev) }

    /// The first page (`first` link, or the strategy's first page); `nil` when there is none.
    ///
    /// - Returns: The first page, or `nil` when there is none.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    public func first() async throws -> FetchResponse? { try await fetch(.first) }

    /// The last page (`last` link, or the strategy's last page when `meta` reports totals); `nil` when unknown.
    ///
    /// - Returns: The last page, or `nil` when there is none.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    public func last() async throws -> FetchResponse? { try await fetch(.last) }

    /// The page `relation` names; `nil` when there is none. See ``next()``.
    ///
    /// - Parameter relation: Which page: `.next`, `.prev`, `.first` or `.last`.
    /// - Returns: That page, or `nil` when there is none.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    public func fetch(_ relation: PageRelation) async throws -> FetchResponse? {
        try await navigation.fetch(relation, links: document.links, as: Primary.self)
    }

    /// This document fetched again: its `self` link, or else the request that produced it. It asks the server
    /// whatever the cache policy (conditionally, so an unchanged document costs a `304`).
    ///
    /// - Returns: The document as the server has it now.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    public func reload() async throws -> FetchResponse {
        try await navigation.reload(links: document.links, as: Primary.self)
    }

    /// Whether ``next()`` would fetch a page (without fetching it).
    public var hasNext: Bool { navigation.canFetch(.next, links: document.links) }

    /// Whether ``prev()`` would fetch a page (without fetching it).
    public var hasPrev: Bool { navigation.canFetch(.prev, links: document.links) }

    /// Fetches the next page and merges it into this response: its resources are appended (those already here,
    /// by `(type, id)`, are left out), its `included` resources merged without duplicates, and `links`, `meta`,
    /// the status, headers and URL replaced by the new page's, so that the next call advances.
    ///
    /// Without a next page nothing changes and the result says so; that is not an error. Pagination loops and the
    /// page limit throw, as for ``next()``.
    ///
    /// ```swift
    /// var document = try await source.fetch().paginate(.pageBased(1, 50))
    /// while try await document.appendNext().hasMore {}
    /// ```
    ///
    /// - Returns: The resources added, and whether there is a page after them.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    @discardableResult
    public mutating func appendNext<Element>() async throws -> AppendResult<Element> where Primary == [Element] {
        try await appendingNext()
    }

    /// Fetches the next page and merges it into this schema-less document; see `appendNext()`. Linkage
    /// (identifiers) stays linkage.
    ///
    /// - Returns: The resources added, and whether there is a page after them.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    @discardableResult
    public mutating func appendNext() async throws -> AppendResult<ResourceObject> where Primary == PrimaryData {
        try await appendingNext()
    }
}

/// What `appendNext()` added.
public struct AppendResult<Element> {
    /// The resources of the next page that were not on the document yet, in order.
    public var added: [Element]
    /// Whether there is a page after the one appended (`false` also when there was no page to append).
    public var hasMore: Bool
}

extension AppendResult: Sendable where Element: Sendable {}

extension FetchResponse where Primary: PageList {
    mutating func appendingNext() async throws -> AppendResult<Primary.Element> {
        guard let page = try await next() else { return AppendResult(added: [], hasMore: false) }
        let added = document.merge(page.document)
        status = page.status
        headerFields = page.headerFields
        navigation = page.navigation
        return AppendResult(added: added, hasMore: hasNext)
    }
}

extension Document where Primary: PageList {
    /// Merges `page` into this document as `appendNext()` does; returns the resources added.
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
        return added
    }
}
