import Foundation

/// Where a ``FetchResponse`` came from, and how to fetch its neighbours: by the server's links when the document has
/// pagination links, by the request's pagination strategy when it has none. Plain data but for the session.
struct Navigation: Sendable {
    /// The session that sent the request.
    let session: Session
    /// The request that produced the document.
    let request: JSONAPIRequest
    /// The URL it was sent to.
    let url: URL
    /// What the page says about its collection, for the strategy.
    let page: PageContext
    /// The pages this iteration has visited.
    let trail: PageTrail
    /// The strategy the walk began with (its first request's), kept along the server's links, which drop it: a page
    /// whose links end the walk early is walked on by it.
    let walk: (any PaginationStrategy)?

    /// Whether the document has a `relation` page to fetch (without fetching it).
    func canFetch(_ relation: PageRelation, links: Links?) -> Bool {
        if hasPaginationLinks(links) {
            return links?[relation.rawValue] != nil || (relation == .next && pageBeyondLinks(links) != nil)
        }
        return strategyPage(relation) != nil
    }

    /// The `relation` page of the document whose links are `links`; `nil` when there is none.
    func fetch<Primary: Decodable & Sendable>(_ relation: PageRelation, links: Links?, as type: Primary.Type)
        async throws -> FetchResponse<Primary>?
    {
        let next: JSONAPIRequest
        var contradicted = false
        if hasPaginationLinks(links) {
            if let link = links?[relation.rawValue] {
                next = request.following(try session.resolveLink(link.href, relativeTo: url))
            } else if relation == .next, let strategy = pageBeyondLinks(links) {
                next = request.with(pagination: strategy)
                contradicted = true
            } else {
                return nil
            }
        } else {
            guard let strategy = strategyPage(relation) else { return nil }
            next = request.with(pagination: strategy)
        }
        let target = try next.url()
        var newTrail: PageTrail? =
            switch relation {
            case .next: try trail.moving(to: target, .forward, maxPages: session.configuration.maxPages, from: url)
            case .prev: try trail.moving(to: target, .backward, maxPages: session.configuration.maxPages, from: url)
            case .first, .last: nil
            }
        if contradicted, newTrail?.reportedContradiction == false {
            session.configuration.log(Self.contradiction(at: url))
            newTrail?.reportedContradiction = true
        }
        return try await session.response(to: next, at: target, as: type, trail: newTrail, walk: walk)
    }

    /// The page after this one by the walk's strategy when the links have no `next` (absent or `null`) but the
    /// strategy, from `meta`'s totals or the `last` link's query, says later pages exist: links that contradict each
    /// other (safrs leaves `next` out of the page before its last). `nil` when they agree, or when the strategy
    /// cannot address pages (cursors) or cannot tell where this page is.
    private func pageBeyondLinks(_ links: Links?) -> (any PaginationStrategy)? {
        guard links?[PageRelation.next.rawValue] == nil,
            let here = request.pagination ?? walk.flatMap({ Self.located($0, by: JSONAPIRequest.split(url).items) })
        else { return nil }
        return Self.remaining(of: here, after: page, lastLinkQuery: lastLinkQuery(links))?.first
    }

    /// What the log says of a page whose links end the walk before its `last` page (the path only: a query may
    /// carry what an app would not log).
    static func contradiction(at url: URL) -> String {
        "JSONAPIClient: the page at \(url.path) has no `next` link, but its `last` link or `meta` says later pages "
            + "exist (a server defect); this walk goes on by its pagination strategy up to the last page"
    }

    static func remaining(of strategy: any PaginationStrategy, after page: PageContext, lastLinkQuery: [QueryItem]?)
        -> [any PaginationStrategy]?
    {
        func remaining<Strategy: PaginationStrategy>(_ strategy: Strategy) -> [any PaginationStrategy]? {
            strategy.remainingPages(after: page, lastLinkQuery: lastLinkQuery)
        }
        return remaining(strategy)
    }

    private static func located(_ strategy: any PaginationStrategy, by query: [QueryItem])
        -> (any PaginationStrategy)?
    {
        func located<Strategy: PaginationStrategy>(_ strategy: Strategy) -> (any PaginationStrategy)? {
            strategy.page(selectedBy: query)
        }
        return located(strategy)
    }

    /// The document fetched again: by its `self` link, else by the request that produced it.
    func reload<Primary: Decodable & Sendable>(links: Links?, as type: Primary.Type) async throws
        -> FetchResponse<Primary>
    {
        // A reload asks the server (conditionally, when the store can revalidate), whatever the cache policy.
        var request = request
        request.cachePolicy = .networkOnly
        if let link = links?.`self` {
            let target = try session.resolveLink(link.href, relativeTo: url)
            return try await session.response(to: request.following(target), at: target, as: type, walk: walk)
        }
        return try await session.response(to: request, as: type, walk: walk)
    }

    /// The strategy's page for `relation`, computed from the original request's strategy and this page.
    private func strategyPage(_ relation: PageRelation) -> (any PaginationStrategy)? {
        guard let strategy = request.pagination else { return nil }
        return Self.neighbour(relation, of: strategy, page: page)
    }

    private static func neighbour<Strategy: PaginationStrategy>(
        _ relation: PageRelation, of strategy: Strategy, page: PageContext
    ) -> (any PaginationStrategy)? {
        switch relation {
        case .next: strategy.next(after: page)
        case .prev: strategy.previous(before: page)
        case .first: strategy.first(of: page)
        case .last: strategy.last(of: page)
        }
    }
}

/// The query of the `last` link in `links`, when there is one.
func lastLinkQuery(_ links: Links?) -> [QueryItem]? {
    links?.last.flatMap { URL(percentEncoding: $0.href) }.map { JSONAPIRequest.split($0).items }
}

/// Whether `links` has any pagination member (`first`, `last`, `prev`, `next`), even `null`.
func hasPaginationLinks(_ links: Links?) -> Bool {
    guard let links else { return false }
    return PageRelation.allCases.contains { links.contains($0.rawValue) }
}
