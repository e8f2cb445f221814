import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// Cuts a session off the network, or loses the answer of the next request after the server handled it.
final class NetworkSwitch: Middleware, @unchecked Sendable {
    private let lock = NSLock()
    private var offline = false
    private var answersToLose = 0

    func go(offline: Bool) { lock.withLock { self.offline = offline } }
    func loseNextAnswer() { lock.withLock { answersToLose += 1 } }

    func intercept(
        _ request: HTTPRequest, context: MiddlewareContext, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        if lock.withLock({ offline }) { throw URLError(.notConnectedToInternet) }
        let response = try await next(request)
        let lose = lock.withLock { () -> Bool in
            guard answersToLose > 0 else { return false }
            answersToLose -= 1
            return true
        }
        if lose { throw URLError(.networkConnectionLost) }
        return response
    }
}

/// Tags at `tags/<id>`, with the collection at `tags?run=<run>` so that a test finds its own `POST`s in the server's
/// access log (the server ignores the parameter).
struct RunRouter: Router {
    var run: String

    func collectionURL(type: String, baseURL: URL) throws -> URL {
        try PathTemplateRouter(template: "tags/<id>").collectionURL(type: type, baseURL: baseURL)
            .appending(queryItems: [URLQueryItem(name: "run", value: run)])
    }

    func resourceURL(type: String, id: String, baseURL: URL) throws -> URL {
        try PathTemplateRouter(template: "tags/<id>").resourceURL(type: type, id: id, baseURL: baseURL)
    }
}

/// The write queue against the real test server (Tests/Server): tags accept client-generated ids there, and answer
/// `409 Conflict` to a second create of the same id. Request counts are read from the server's access log.
@Suite("Write queue against the test server")
struct WriteQueueServerTests {
    /// A fresh client-generated id: the test server's tag ids are small, these are not.
    static func newID() -> String { String(Int.random(in: 1_000_000_000...1_999_999_999)) }

    static func session(
        run: String, network: NetworkSwitch, persistence: ResourceStore.Persistence? = nil
    ) throws -> (Session, DataSource<ArticleTag>) {
        let api = Session(
            baseURL: try TestServer.url(),
            configuration: .init(
                middlewares: [network], store: .init(persistence: persistence), writes: .offline,
                writeQueue: .init(firstDelay: .milliseconds(10), maxDelay: .milliseconds(50))))
        return (api, api.source(ArticleTag.self, RunRouter(run: run)))
    }

    /// How many tags the server has named `name`.
    static func count(named name: String) async throws -> Int {
        let tags = DataSource<ArticleTag>(baseURL: try TestServer.url(), router: .path("tags/<id>"))
        return try await tags.fetch().filter("name", name).result().data?.count ?? -1
    }

    @Test("A create made offline is queued, and sent once when the network is back")
    func offlineThenSent() async throws {
        let run = UUID().uuidString
        let network = NetworkSwitch()
        network.go(offline: true)
        let (api, tags) = try Self.session(run: run, network: network)
        let id = Self.newID()
        let name = "queue-\(run)"
        let response = try await tags.create(ArticleTag(id: id, name: name))
        #expect(response.queued != nil)
        #expect(try api.store?.resource(ArticleTag.self, id: id)?.name == name)
        network.go(offline: false)
        api.writeQueue.resume()
        await api.writeQueue.replay()
        #expect(api.writeQueue.entries.isEmpty)
        #expect(await TestServer.statuses(of: "POST /tags?run=\(run)", count: 1) == [201])
        #expect(try await Self.count(named: name) == 1)
        #expect(api.store?.record(type: "tags", id: id)?.links?.`self` != nil)  // the server's answer, merged
        #expect(api.store?.pendingChanges().isEmpty == true)
    }

    @Test("A create whose answer was lost is replayed, and the server's 409 to its client-generated id counts as made")
    func lostAnswer() async throws {
        let run = UUID().uuidString
        let network = NetworkSwitch()
        network.loseNextAnswer()
        let (api, tags) = try Self.session(run: run, network: network)
        let events = Events<WriteQueue.Event>()
        let stream = api.writeQueue.events()
        let following = Task { for await event in stream { events.send(event) } }
        defer { following.cancel() }
        let id = Self.newID()
        let name = "lost-\(run)"
        #expect(try await tags.create(ArticleTag(id: id, name: name)).queued != nil)
        _ = await events.next("queued")
        await api.writeQueue.replay()
        guard case .delivered(let status)? = await events.next("delivered")?.outcome else {
            Issue.record("not delivered")
            return
        }
        #expect(status.code == 409)
        #expect(await TestServer.statuses(of: "POST /tags?run=\(run)", count: 2) == [201, 409])
        #expect(try await Self.count(named: name) == 1)
        #expect(try api.store?.resource(ArticleTag.self, id: id)?.name == name)
        #expect(api.store?.record(type: "tags", id: id)?.attributes?["name"] == .string(name))
        #expect(api.store?.pendingChanges().isEmpty == true)  // settled: what was sent stands
    }

    @Test("Without a client-generated id, a create whose answer was lost is made twice (as the docs say)")
    func lostAnswerWithoutID() async throws {
        let run = UUID().uuidString
        let network = NetworkSwitch()
        network.loseNextAnswer()
        let (api, tags) = try Self.session(run: run, network: network)
        let name = "twice-\(run)"
        #expect(try await tags.create(ArticleTag(id: "", name: name)).queued != nil)
        await api.writeQueue.replay()
        #expect(await TestServer.statuses(of: "POST /tags?run=\(run)", count: 2) == [201, 201])
        #expect(try await Self.count(named: name) == 2)
    }

    @Test("An update the server rejects (400) leaves the queue and is rolled back; it is not sent again")
    func rejected() async throws {
        let run = UUID().uuidString
        let network = NetworkSwitch()
        let (api, tags) = try Self.session(run: run, network: network)
        let id = Self.newID()
        let tag = try #require(try await tags.create(ArticleTag(id: id, name: "kept-\(run)")).data)
        network.go(offline: true)
        let tooLong = String(repeating: "x", count: 60)  // the server's names have at most 50 characters
        #expect(try await tags.update(tag) { $0.name = tooLong }.queued != nil)
        #expect(try api.store?.resource(ArticleTag.self, id: id)?.name == tooLong)
        network.go(offline: false)
        await api.writeQueue.replay()
        #expect(api.writeQueue.entries.isEmpty)
        #expect(try api.store?.resource(ArticleTag.self, id: id)?.name == "kept-\(run)")
        _ = try await tags.fetch(id: id).result()  // a successful request: would replay anything left
        await api.writeQueue.replay()
        #expect(await TestServer.statuses(of: "PATCH /tags/\(id)", count: 1) == [400])
    }

    @Test("A queue kept beside the store is sent after a restart, once")
    func restart() async throws {
        let run = UUID().uuidString
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queue-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let persistence = ResourceStore.Persistence(directory: directory)
        let id = Self.newID()
        let name = "restart-\(run)"
        do {
            let network = NetworkSwitch()
            network.go(offline: true)
            let (api, tags) = try Self.session(run: run, network: network, persistence: persistence)
            #expect(try await tags.create(ArticleTag(id: id, name: name)).queued != nil)
            #expect(api.writeQueue.entries.count == 1)
        }
        let (api, _) = try Self.session(run: run, network: NetworkSwitch(), persistence: persistence)
        #expect(api.writeQueue.entries.count == 1)
        #expect(try api.store?.resource(ArticleTag.self, id: id)?.name == name)
        await api.writeQueue.replay()
        #expect(api.writeQueue.entries.isEmpty)
        #expect(await TestServer.statuses(of: "POST /tags?run=\(run)", count: 1) == [201])
        #expect(try await Self.count(named: name) == 1)
    }
}
