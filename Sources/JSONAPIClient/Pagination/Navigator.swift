import Foundation

/// Fetches a document's neighbours: by the server's links when the document has pagination links, by the
/// pagination strategy when it has none.
struct Navigator<Primary: Decodable & Sendable>: Sendable {
    let executor: RequestExecutor
    /// The request that produced the document.
    let prepared: PreparedRequest
    /// The URL it was sent to.
    let url: URL
    let page: PageContext
    let trail: PageTrail

    func canNavigate(_ relation: String, from document: Document<Primary>) -> Bool {
        if relation == "self" { return true }
        if hasPaginationLinks(document.links) { return document.links?[relation] != nil }
        return strategyPage(relation) != nil
    }

    func navigate(_ relation: String, from document: Document<Primary>) async throws -> Document<Primary>? {
        let direction: PageTrail.Direction =
            switch relation {
            case "next": .forward
            case "prev": .backward
            default: .none
            }
        if relation == "self" {
            if let link = document.links?.`self` {
                let target = try executor.resolveLink(link.href, relativeTo: url)
                return try await executor.document(prepared.following(target), as: Primary.self)
            }
            return try await executor.document(prepared, as: Primary.self)
        }
        let next: PreparedRequest
        if hasPaginationLinks(document.links) {
            guard let link = document.links?[relation] else { return nil }
            next = prepared.following(try executor.resolveLink(link.href, relativeTo: url))
        } else {
            guard let strategy = strategyPage(relation) else { return nil }
            next = prepared.with(pagination: strategy)
        }
        let target = try next.url
        let newTrail: PageTrail? =
            direction == .none
            ? nil : try trail.moving(to: target, direction, maxPages: executor.configuration.maxPages, from: url)
        return try await executor.document(next, as: Primary.self, trail: newTrail)
    }

    /// The strategy's page for `relation`, computed from the original request's strategy and this page.
    private func strategyPage(_ relation: String) -> (any PaginationStrategy)? {
        guard let strategy = prepared.pagination else { return nil }
        return Self.neighbour(relation, of: strategy, page: page)
    }

    private static func neighbour<Strategy: PaginationStrategy>(
        _ relation: String, of strategy: Strategy, page: PageContext
    ) -> (any PaginationStrategy)? {
        switch relation {
        case "next": strategy.next(after: page)
        case "prev": strategy.previous(before: page)
        case "first": strategy.first(of: page)
        case "last": strategy.last(of: page)
        default: nil
        }
    }
}

/// Whether `links` has any pagination member (`first`, `last`, `prev`, `next`), even `null`.
func hasPaginationLinks(_ links: Links?) -> Bool {
    guard let links else { return false }
    return ["first", "last", "prev", "next"].contains { links.contains($0) }
}
