import Foundation
import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The resource store against the real server, which sends ETags and 304s (Django's ConditionalGetMiddleware).
/// Requests are counted twice: at the transport, and in the server's access log.
@Suite("Resource store against the test server")
struct StoreServerTests {
    /// A freshness lifetime no run outlives, for tests that read the real clock: a sanitized full run on two cores
    /// has taken over a minute between two fetches of one test, which expired a `max-age=60` response.
    static let day = "max-age=86400"

    struct Item: Resource, Equatable {
        static let resourceType = "items"
        var id: String
        var name: String
    }

    /// A transport that records each exchange's status and body size as the network delivered them.
    final class RecordingClient: Client, @unchecked Sendable {
        let base: any Client
        let delay: Duration
        private let lock = NSLock()
        private var log: [(status: Int, bytes: Int)] = []

        init(_ base: any Client = URLSessionClient(), delay: Duration = .zero) {
            self.base = base
            self.delay = delay
        }

        var exchanges: [(status: Int, bytes: Int)] { lock.withLock { log } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if delay > .zero { try await Task.sleep(for: delay) }
            let response = try await base.send(request)
            lock.withLock { log.append((response.status.code, response.body.count)) }
            return response
        }
    }

    @Test("A repeated fetch under cacheFirst sends nothing while the response is fresh")
    func cacheFirst() async throws {
        let client = RecordingClient()
        let api = Session(
            baseURL: try TestServer.url(), client: client,
            configuration: .init(headerFields: ["X-Test-Cache-Control": Self.day]))
        let people = api.source(Person.self, .path("people/<id>"))
        let first = try await people.fetch(id: "17").fields(["people": ["name", "email"]]).cachePolicy(.cacheFirst).result()
        let second = try await people.fetch(id: "17").fields(["people": ["name", "email"]]).cachePolicy(.cacheFirst).result()
        #expect(first.source == .network)
        #expect(second.source == .cache)
        #expect(second.document == first.document)
        #expect(client.exchanges.count == 1)
        #expect(await TestServer.statuses(of: "GET /people/17?fields%5Bpeople%5D=name%2Cemail", count: 1) == [200])
    }

    /// A clock the test moves by hand, from now (the server's `Date` must not make responses look old).
    final class TestClock: @unchecked Sendable {
        private let lock = NSLock()
        private var current = Date()
        var now: Date { lock.withLock { current } }
        func advance(_ seconds: Double) { lock.withLock { current += seconds } }
    }

    @Test(
        "Signed out and in as someone else on one session: /me is the new user's under every policy",
        arguments: [CachePolicy.networkOnly, .networkFirst, .cacheFirst, .cacheOnly, .staleWhileRevalidate])
    func tokenSwitch(policy: CachePolicy) async throws {
        let account = Account("secret-token")
        let client = RecordingClient()
        // The server's ETag for /me does not depend on who asks: a validator sent across users would get a 304.
        let api = Session(
            baseURL: try TestServer.url(), client: client,
            configuration: .init(
                middlewares: [BearerTokenMiddleware { account.token }],
                headerFields: ["X-Test-Cache-Control": Self.day, "X-Test-ETag": "\"me-\(policy)\""]))
        let me = api.fetch(URL(string: "me")!, as: Person.self)
        #expect(try await me.result().data?.id == "1")
        account.token = "other-token"
        if policy == .cacheOnly {
            let error = await expectThrows(JSONAPIClientError.self) { try await me.cachePolicy(policy).result() }
            #expect(error?.code == .notCached)
            #expect(client.exchanges.count == 1)
        } else {
            let other = try await me.cachePolicy(policy).result()
            #expect(other.data?.id == "2")
            #expect(other.source == .network)
            #expect(client.exchanges.map(\.status) == [200, 200])
        }
        account.token = "secret-token"
        #expect(try await me.cachePolicy(.cacheFirst).result().data?.id == "1")
    }

    @Test("A no-store response is not kept: the next fetch is a full 200, not conditional")
    func noStore() async throws {
        let client = RecordingClient()
        let api = Session(
            baseURL: try TestServer.url(), client: client,
            configuration: .init(headerFields: ["X-Test-Cache-Control": "no-store"]))
        let people = api.source(Person.self, .path("people/<id>"))
        let first = try await people.fetch(id: "16").result()
        #expect(api.store?.usage.responses == 0)
        #expect(api.store?.count == 0)
        let second = try await people.fetch(id: "16").cachePolicy(.cacheFirst).result()
        #expect(second.source == .network)
        #expect(second.document == first.document)
        #expect(client.exchanges.map(\.status) == [200, 200])
        #expect(await TestServer.statuses(of: "GET /people/16", count: 2) == [200, 200])
    }

    @Test("After the server changes a resource and the stored response expires, cacheFirst shows the change")
    func expiry() async throws {
        let clock = TestClock()
        let client = RecordingClient()
        let url = try TestServer.url()
        let api = Session(
            baseURL: url, client: client,
            configuration: .init(headerFields: ["X-Test-Cache-Control": "max-age=60"], store: .init(now: { clock.now })))
        let people = api.source(Person.self, .path("people/<id>"))
        // Another client (no shared store) creates the person and later renames it.
        let other = Session(baseURL: url).source(Person.self, .path("people/<id>"))
        let created = try #require(try await other.create(Person(id: "", name: "Before", email: "expiry@example.com")).data)
        #expect(try await people.fetch(id: created.id).cachePolicy(.cacheFirst).result().data?.name == "Before")
        var change = ResourceUpdate<Person>(id: created.id)
        change.set("name", to: "After")
        try await other.update(change)
        clock.advance(59)
        let fresh = try await people.fetch(id: created.id).cachePolicy(.cacheFirst).result()
        #expect(fresh.source == .cache)
        #expect(fresh.data?.name == "Before")
        clock.advance(1)
        let expired = try await people.fetch(id: created.id).cachePolicy(.cacheFirst).result()
        #expect(expired.source == .network)
        #expect(expired.data?.name == "After")
        #expect(client.exchanges.map(\.status) == [200, 200])
        #expect(await TestServer.statuses(of: "GET /people/\(created.id)", count: 2) == [200, 200])
        try await other.delete(id: created.id)
    }

    @Test("A create through the session makes its stored list stale: the next cacheFirst list shows the new one")
    func createThenList() async throws {
        let api = Session(
            baseURL: try TestServer.url(), configuration: .init(headerFields: ["X-Test-Cache-Control": Self.day]))
        let people = api.source(Person.self, .path("people/<id>"))
        let name = "Listed \(UUID().uuidString)"
        let list = people.fetch().filter("name", name).cachePolicy(.cacheFirst)
        #expect(try await list.result().data?.isEmpty == true)
        #expect(try await list.result().source == .cache)
        let created = try #require(try await people.create(Person(id: "", name: name, email: "listed@example.com")).data)
        let after = try await list.result()
        #expect(after.source == .network)
        #expect(after.data?.map(\.id) == [created.id])
        try await people.delete(id: created.id)
        let gone = try await list.result()
        #expect(gone.source == .network)
        #expect(gone.data?.isEmpty == true)
    }

    @Test("A revalidated fetch is a 304 with an empty body and returns the same document")
    func revalidation() async throws {
        let client = RecordingClient()
        let api = Session(baseURL: try TestServer.url(), client: client)
        let people = api.source(Person.self, .path("people/<id>"))
        let first = try await people.fetch(id: "18").result()
        let second = try await people.fetch(id: "18").result()
        #expect(first.source == .network)
        #expect(second.source == .revalidated)
        #expect(second.document == first.document)
        #expect(client.exchanges.map(\.status) == [200, 304])
        #expect(client.exchanges.last?.bytes == 0)
        #expect(await TestServer.statuses(of: "GET /people/18", count: 2) == [200, 304])
    }

    @Test("100 concurrent identical fetches send one request")
    func coalescing() async throws {
        // The transport holds each request 300 ms before sending it, so all 100 fetches are surely asked for while
        // the first is in flight.
        let client = RecordingClient(delay: .milliseconds(300))
        let api = Session(baseURL: try TestServer.url(), client: client)
        let people = api.source(Person.self, .path("people/<id>"))
        let names = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<100 { group.addTask { try await people.fetch(id: "19").result().data?.name } }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(names == Array(repeating: "Person 19", count: 100))
        #expect(client.exchanges.count == 1)
        #expect(await TestServer.statuses(of: "GET /people/19", count: 1) == [200])
    }

    @Test("A PATCH through one data source is seen by an observer of the resource; a delete too")
    func observedWrite() async throws {
        let api = Session(baseURL: try TestServer.url())
        let people = api.source(Person.self, .path("people/<id>"))
        let store = try #require(api.store)
        let created = try #require(
            try await people.create(Person(id: "", name: "Observed", email: "observed@example.com")).data)
        let updates = StreamProbe(store.updates(of: Person.self, id: created.id))
        #expect(await updates.next()??.name == "Observed")  // the create's response is in the store
        // Another data source of the session (another screen) changes it.
        var change = ResourceUpdate<Person>(id: created.id)
        change.set("name", to: "Renamed")
        try await api.source(Person.self, .path("people/<id>")).update(change)
        #expect(await updates.next()??.name == "Renamed")
        try await people.delete(id: created.id)
        #expect(await updates.next() == .some(nil))
    }

    @Test("A 10,000-resource walk holds the store's limits at every page")
    func boundedWalk() async throws {
        let limits = ResourceStore.Configuration(maxResources: 1_000, maxResponseBytes: 200_000)
        let api = Session(baseURL: try TestServer.url(), configuration: .init(store: limits))
        let items = api.source(Item.self, .path("items/<id>"))
        let store = try #require(api.store)
        var walked = 0
        var largest = (records: 0, responseBytes: 0)
        for try await page in items.fetch().page(.pageBased(1, 500)).pages() {
            walked += page.data?.count ?? 0
            let usage = store.usage
            largest.records = max(largest.records, usage.records)
            largest.responseBytes = max(largest.responseBytes, usage.responseBytes)
        }
        #expect(walked == 10_000)
        #expect(largest.records <= 1_000)
        #expect(largest.records >= 500)
        #expect(largest.responseBytes <= 200_000)
        #expect(try store.resource(Item.self, id: "10000") == Item(id: "10000", name: "item-10000"))
        #expect(try store.resource(Item.self, id: "1") == nil)  // evicted long ago
    }
    @Test("A restarted app — a second session on the same store directory — answers cacheFirst from disk: one request in the server's log")
    func restartFromDisk() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        func launch() throws -> (Session, RecordingClient) {
            let client = RecordingClient()
            let configuration = Session.Configuration(
                headerFields: ["X-Test-Cache-Control": "max-age=3600"],
                store: .init(persistence: .init(directory: directory)))
            return (Session(baseURL: try TestServer.url(), client: client, configuration: configuration), client)
        }
        let (first, firstClient) = try launch()
        let people = first.source(PersonName.self, .path("people/<id>"))
        let fetched = try await people.fetch(id: "20").fields(["people": ["name"]]).cachePolicy(.cacheFirst).result()
        #expect(fetched.source == .network)
        #expect(firstClient.exchanges.count == 1)
        try await first.store?.flush()

        let (second, secondClient) = try launch()
        let again = second.source(PersonName.self, .path("people/<id>"))
        let answered = try await again.fetch(id: "20").fields(["people": ["name"]]).cachePolicy(.cacheFirst).result()
        #expect(answered.source == .cache)
        #expect(answered.document == fetched.document)
        #expect(answered.data?.name == fetched.data?.name)
        #expect(secondClient.exchanges.isEmpty)
        #expect(await TestServer.statuses(of: "GET /people/20?fields%5Bpeople%5D=name", count: 1) == [200])
    }
}
