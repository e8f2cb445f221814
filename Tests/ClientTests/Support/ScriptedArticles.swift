import Foundation
import JSONAPIClient
import JSONAPIClientTesting

/// A JSON:API server of articles in memory, behind a ``ScriptedClient``: `GET /articles` in pages
/// (`page[number]`, `page[size]`, with `next` links), `GET`, `PATCH` and `DELETE` of `/articles/<id>`. A test can make
/// the next request fail, hold the requests of a page until it lets them go, and see each request arrive and each
/// held one cancelled. Each user (the `Authorization` field) sees the titles as their own: `"<user>: <title>"`.
final class ScriptedArticles: @unchecked Sendable {
    static let baseURL = URL(string: "https://api.example.com")!

    private let lock = NSLock()
    private var order: [String]
    private var titles: [String: String]
    private var failures: [Int] = []
    private var held: [String: Signal] = [:]
    private let cacheControl: String?

    /// Each request as it arrives: `GET /articles?page%5Bnumber%5D=1&page%5Bsize%5D=2`.
    let arrivals = Events<String>()
    /// Each held request that was cancelled while held: `page 2`, `article 1`.
    let cancellations = Events<String>()
    /// The transport to give the session.
    private(set) var client: ScriptedClient!

    /// Articles `1...count`, titled `Article <id>`; responses carry `Cache-Control: cacheControl` when given.
    init(count: Int, cacheControl: String? = nil) {
        order = (1...count).map(String.init)
        titles = Dictionary(uniqueKeysWithValues: order.map { ($0, "Article \($0)") })
        self.cacheControl = cacheControl
        client = ScriptedClient { [weak self] request in
            guard let self else { throw CancellationError() }
            return try await self.respond(request)
        }
    }

    /// The next requests answer with `status` (an error document), one each.
    func fail(with status: Int, times: Int = 1) { lock.withLock { failures += Array(repeating: status, count: times) } }

    /// Requests for page `number` wait until ``release(page:)`` (or until their task is cancelled).
    func hold(page number: Int) { lock.withLock { held["page \(number)"] = Signal() } }

    /// Lets the held requests for page `number` go on.
    func release(page number: Int) { release("page \(number)") }

    /// `GET`s of article `id` wait until ``release(article:)`` (or until their task is cancelled).
    func hold(article id: String) { lock.withLock { held["article \(id)"] = Signal() } }

    /// Lets the held `GET`s of article `id` go on.
    func release(article id: String) { release("article \(id)") }

    private func release(_ key: String) { lock.withLock { held.removeValue(forKey: key) }?.fire() }

    /// Waits while requests for `key` are held; throws `CancellationError` when the task is cancelled meanwhile.
    private func pass(_ key: String) async throws {
        guard let gate = lock.withLock({ held[key] }) else { return }
        await withTaskCancellationHandler { await gate.wait() } onCancel: { gate.fire() }
        if Task.isCancelled {
            cancellations.send(key)
            throw CancellationError()
        }
    }

    /// Changes an article's title on the server only (no client is told).
    func retitle(_ id: String, _ title: String) { lock.withLock { titles[id] = title } }

    private func respond(_ request: HTTPRequest) async throws -> HTTPResponse {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let path = components?.path ?? ""
        arrivals.send("\(request.method.rawValue) \(path)\(request.url.query.map { "?\($0)" } ?? "")")
        let user = request.headerFields[.authorization].map { String($0.dropFirst("Bearer ".count)) }
        if let status = lock.withLock({ failures.isEmpty ? nil : failures.removeFirst() }) {
            return .document(#"{"errors": [{"status": "\#(status)", "title": "Scripted failure"}]}"#, status: status)
        }
        let segments = path.split(separator: "/").map(String.init)
        switch (request.method, segments.count) {
        case (.get, 1):
            let query = Dictionary(
                (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
            let number = Int(query["page[number]"] ?? "1") ?? 1
            let size = Int(query["page[size]"] ?? "2") ?? 2
            try await pass("page \(number)")
            return page(number, size: size, user: user)
        case (.get, 2):
            try await pass("article \(segments[1])")
            guard let object = object(segments[1], user: user) else { return notFound }
            return response(#"{"data": \#(object)}"#)
        case (.patch, 2):
            let body = try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]
            let attributes = (body?["data"] as? [String: Any])?["attributes"] as? [String: Any]
            if let title = attributes?["title"] as? String { retitle(segments[1], title) }
            guard let object = object(segments[1], user: user) else { return notFound }
            return response(#"{"data": \#(object)}"#)
        case (.delete, 2):
            lock.withLock {
                order.removeAll { $0 == segments[1] }
                titles[segments[1]] = nil
            }
            return HTTPResponse(status: .init(code: 204), headerFields: [:], body: Data())
        default:
            return notFound
        }
    }

    private var notFound: HTTPResponse { .document(#"{"errors": [{"status": "404"}]}"#, status: 404) }

    private func response(_ body: String) -> HTTPResponse {
        var response = HTTPResponse.document(body)
        if let cacheControl { response.headerFields["Cache-Control"] = cacheControl }
        return response
    }

    private func object(_ id: String, user: String?) -> String? {
        guard let title = lock.withLock({ titles[id] }) else { return nil }
        let shown = user.map { "\($0): \(title)" } ?? title
        return #"{"type": "articles", "id": "\#(id)", "attributes": {"title": "\#(shown)"}}"#
    }

    private func page(_ number: Int, size: Int, user: String?) -> HTTPResponse {
        let ids = lock.withLock { order }
        let start = min((number - 1) * size, ids.count)
        let slice = ids[start..<min(start + size, ids.count)]
        let objects = slice.compactMap { object($0, user: user) }.joined(separator: ", ")
        let link = { (number: Int) in
            "\"https://api.example.com/articles?page%5Bnumber%5D=\(number)&page%5Bsize%5D=\(size)\""
        }
        let next = start + size < ids.count ? link(number + 1) : "null"
        return response(#"{"data": [\#(objects)], "links": {"self": \#(link(number)), "next": \#(next)}}"#)
    }
}

/// An article of ``ScriptedArticles``.
struct Headline: Resource, Equatable {
    static let resourceType = "articles"
    var id: String
    var title: String
}
