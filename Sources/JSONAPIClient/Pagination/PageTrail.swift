import Foundation

/// The pages one iteration has visited, in one direction: the loop guard and the page limit.
///
/// Following `next` (or `prev`) from a page extends its trail; a page already on the trail is a loop. Following
/// `first`, `last` or `self`, or turning round, starts a new trail.
struct PageTrail: Sendable, Hashable {
    enum Direction: Sendable, Hashable {
        case none, forward, backward
    }

    private(set) var visited: Set<String>
    private(set) var direction: Direction
    private(set) var pages: Int
    /// Whether this walk has logged a page whose links contradict each other (it does so once).
    var reportedContradiction = false

    init(start url: URL) {
        visited = [url.absoluteString]
        direction = .none
        pages = 1
    }

    /// The trail after moving to `url` in `direction`; throws when `url` was visited or the limit is reached.
    func moving(to url: URL, _ direction: Direction, maxPages: Int, from current: URL) throws(JSONAPIClientError)
        -> PageTrail
    {
        var trail = self
        if direction != self.direction {
            trail = PageTrail(start: current)
            trail.direction = direction
            trail.reportedContradiction = reportedContradiction
        }
        guard !trail.visited.contains(url.absoluteString) else {
            throw JSONAPIClientError(
                code: .paginationLoop,
                detail: "the server's \(direction == .backward ? "prev" : "next") link leads back to a page already "
                    + "visited; stopping instead of looping",
                method: .get, url: url)
        }
        guard trail.pages < maxPages else {
            throw JSONAPIClientError(
                code: .tooManyPages, detail: "more than \(maxPages) pages (Session.Configuration.maxPages)",
                method: .get, url: url)
        }
        trail.visited.insert(url.absoluteString)
        trail.pages += 1
        return trail
    }
}
