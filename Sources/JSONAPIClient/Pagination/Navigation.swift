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

    /// Whether the document has a `relation` page to fetch (without fetching it).
    func canFetch(_ relation: PageRelation, links: Links?) -> Bool {
        if hasPaginationLinks(links) { return links?[relation.rawValue] != nil }
        return strategyPage(relation) != nil
    }

    /// The `relation` page of the document whose links are `links`; `nil` when there is none.
    func fetch<Primary: Decodable & Sendable>(_ relation: PageRelation, links: Links?, as type: Primary.Type)
        async throws -> FetchResponse<Primary>?
    {
        let next: JSONAPIRequest
        if hasPaginationLinks(links) {
            guard let link = links?[relation.rawValue] else { return nil }
            next = request.following(try session.resolveLink(link.href, relativeTo: url))
        } else {
            guard let strategy = strategyPage(relation) else { return nil }
            next = request.with(pagination: strategy)
        }
        let target = try next.url()
        let newTrail: PageTrail? =
            switch relation {
            case .next: try trail.moving(to: target, .forward, maxPages: session.configuration.maxPages, from: url)
            case .prev: try trail.moving(to: target, .backward, maxPages: session.configuration.maxPages, from: url)
            case .first, .last: nil
            }
        return try await session.response(to: next, at: target, as: type, trail: newTrail)
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
            return try await session.response(to: request.following(target), at: target, as: type)
        }
        return try await session.response(to: request, as: type)
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

/// Whether `links` has any pagination member (`first`, `last`, `prev`, `next`), even `null`.
func hasPaginationLinks(_ links: Links?) -> Bool {
    guard let links else { return false }
    return PageRelation.allCases.contains { links.contains($0.rawValue) }
}
