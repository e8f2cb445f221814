import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// No one sees another's data through the store: stored responses, the validators sent from them and shared
/// exchanges are keyed by the credentials the middleware added; `Vary` and `no-store` are honoured.
@Suite("Resource store: users and variants")
struct StorePartitionTests {
    struct Label: Resource, Equatable {
        static let resourceType = "labels"
        var id: String
        var name: String
    }

    /// A server whose `/labels` answers each bearer token with that user's label, under one `ETag` whatever the
    /// user (the server's tag does not depend on who asks), and answers a matching `If-None-Match` with a 304.
    final class UserServer: @unchecked Sendable {
        private let lock = NSLock()
        private var log: [HTTPRequest] = []
        let cacheControl: String?
        let vary: String?

        init(cacheControl: String? = "max-age=60", vary: String? = nil) {
            self.cacheControl = cacheControl
            self.vary = vary
        }

        var requests: [HTTPRequest] { lock.withLock { log } }

        func respond(_ request: HTTPRequest) -> HTTPResponse {
            lock.withLock { log.append(request) }
            var headers: HTTPFields = [.eTag: "\"same\""]
            if let cacheControl { headers.append("Cache-Control", cacheControl) }
            if let vary { headers.append("Vary", vary) }
            if request.headerFields[.ifNoneMatch] == "\"same\"" {
                return HTTPResponse(status: .notModified, headerFields: headers)
            }
            let user = (request.headerFields[.authorization] ?? "Bearer nobody").replacingOccurrences(of: "Bearer ", with: "")
            let language = request.headerFields["Accept-Language"] ?? "-"
            var response = HTTPResponse.document(
                #"{"data":[{"type":"labels","id":"1","attributes":{"name":"\#(user) \#(language)"}}]}"#)
            for field in headers { response.headerFields.append(field) }
            return response
        }
    }

    static let policies: [CachePolicy] = [
        .networkOnly, .networkFirst, .cacheFirst, .cacheFirst(maxStale: .seconds(3600)), .cacheOnly,
        .staleWhileRevalidate,
    ]

    @Test("After signing in as B on the same session, B never sees A's stored response", arguments: policies)
    func tokenSwitch(policy: CachePolicy) async throws {
        let server = UserServer()
        let account = Account()
        account.token = "alice"
        let api = Session(
            baseURL: exampleBase, client: ScriptedClient { server.respond($0) },
            configuration: .init(middlewares: [BearerTokenMiddleware { account.token }]))
        let labels = api.source(Label.self, .path("labels/<id>"))
        #expect(try await labels.fetch().result().data?.first?.name == "alice -")
        account.token = "bob"
        if policy == .cacheOnly {
            let error = await expectThrows(JSONAPIClientError.self) {
                try await labels.fetch().cachePolicy(policy).result()
            }
            #expect(error?.code == .notCached)
            #expect(server.requests.count == 1)
        } else {
            let answer = try await labels.fetch().cachePolicy(policy).result()
            #expect(answer.data?.first?.name == "bob -")
            #expect(answer.source == .network)
            // Bob's request carried no validator of Alice's, so the server could not answer 304 with her body.
            #expect(server.requests.last?.headerFields[.ifNoneMatch] == nil)
            #expect(server.requests.last?.headerFields[.authorization] == "Bearer bob")
        }
        // Both partitions stay: Alice signing in again finds her own.
        account.token = "alice"
        let again = try await labels.fetch().cachePolicy(.cacheFirst).result()
        #expect(again.source == .cache)
        #expect(again.data?.first?.name == "alice -")
    }

    @Test("updates() for B yields only B's documents after A's were stored")
    func tokenSwitchUpdates() async throws {
        let server = UserServer()
        let account = Account()
        account.token = "alice"
        let api = Session(
            baseURL: exampleBase, client: ScriptedClient { server.respond($0) },
            configuration: .init(middlewares: [BearerTokenMiddleware { account.token }]))
        let labels = api.source(Label.self, .path("labels/<id>"))
        _ = try await labels.fetch().result()
        account.token = "bob"
        var names: [String?] = []
        for try await response in labels.fetch().updates() { names.append(response.data?.first?.name) }
        #expect(names == ["bob -"])
    }

    @Test("A networkOnly request of B after A's, same ETag: B gets a 200 with B's body, not a 304 with A's")
    func sameETagNetworkOnly() async throws {
        let server = UserServer(cacheControl: nil)
        let account = Account()
        account.token = "alice"
        let api = Session(
            baseURL: exampleBase, client: ScriptedClient { server.respond($0) },
            configuration: .init(middlewares: [BearerTokenMiddleware { account.token }]))
        let labels = api.source(Label.self, .path("labels/<id>"))
        _ = try await labels.fetch().result()
        let alice = try await labels.fetch().result()
        #expect(alice.source == .revalidated)  // Alice's own validator, for Alice
        account.token = "bob"
        let bob = try await labels.fetch().result()
        #expect(bob.source == .network)
        #expect(bob.data?.first?.name == "bob -")
        #expect(server.requests.map { $0.headerFields[.ifNoneMatch] } == [nil, "\"same\"", nil])
    }

    @Test("Credentials a request sets itself, and cookies, partition the store too")
    func requestCredentials() async throws {
        let server = UserServer()
        let api = Session(baseURL: exampleBase, client: ScriptedClient { server.respond($0) })
        let labels = api.source(Label.self, .path("labels/<id>"))
        _ = try await labels.fetch().header(.authorization, "Bearer alice").result()
        let bob = try await labels.fetch().header(.authorization, "Bearer bob").cachePolicy(.cacheFirst).result()
        #expect(bob.data?.first?.name == "bob -")
        let anonymous = try await labels.fetch().cachePolicy(.cacheFirst).result()
        #expect(anonymous.data?.first?.name == "nobody -")
        #expect(anonymous.source == .network)
        _ = try await labels.fetch().header(.cookie, "session=1").result()
        let otherCookie = try await labels.fetch().header(.cookie, "session=2").cachePolicy(.cacheFirst).result()
        #expect(otherCookie.source == .network)
        #expect(try await labels.fetch().header(.cookie, "session=1").cachePolicy(.cacheFirst).result().source == .cache)
        #expect(server.requests.count == 5)
    }

    @Test("Two users' identical GETs in flight at once are two exchanges; one user's are one")
    func coalescingPerUser() async throws {
        let gate = OpenGate()
        let server = UserServer()
        let client = CountingClient(ScriptedClient { request in
            await gate.wait()
            return server.respond(request)
        })
        let arrived = Counter()
        let api = Session(
            baseURL: exampleBase, client: client, configuration: .init(middlewares: [Arrivals(counter: arrived)]))
        let labels = api.source(Label.self, .path("labels/<id>"))
        let tasks = ["alice", "bob", "alice", "bob", "alice"].map { user in
            Task { try await labels.fetch().header(.authorization, "Bearer \(user)").result().data?.first?.name }
        }
        while await gate.waiting < 2 || arrived.value < 5 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(50))  // the others, past the middleware, join the two flights
        await gate.open()
        var names: [String?] = []
        for task in tasks { names.append(try await task.value) }
        #expect(names == ["alice -", "bob -", "alice -", "bob -", "alice -"])
        #expect(client.count == 2)
    }

    /// The user a task acts for, whose token ``BearerTokenMiddleware`` adds.
    enum CurrentUser {
        @TaskLocal static var token: String?
    }

    @Test("Tokens added by middleware: two users' identical GETs in flight at once are two exchanges")
    func coalescingPerMiddlewareUser() async throws {
        let gate = OpenGate()
        let server = UserServer()
        let client = CountingClient(ScriptedClient { request in
            await gate.wait()
            return server.respond(request)
        })
        let arrived = Counter()
        let api = Session(
            baseURL: exampleBase, client: client,
            configuration: .init(middlewares: [BearerTokenMiddleware { CurrentUser.token }, Arrivals(counter: arrived)]))
        let labels = api.source(Label.self, .path("labels/<id>"))
        let tasks = ["alice", "bob", "alice", "bob"].map { user in
            Task { try await CurrentUser.$token.withValue(user) { try await labels.fetch().result().data?.first?.name } }
        }
        while await gate.waiting < 2 || arrived.value < 4 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(50))  // the others, past the middleware, join the two flights
        await gate.open()
        var names: [String?] = []
        for task in tasks { names.append(try await task.value) }
        #expect(names == ["alice -", "bob -", "alice -", "bob -"])
        #expect(client.count == 2)
    }

    @Test("A response with Cache-Control: no-store is not kept, nor its resources; nor one a request forbids")
    func noStore() async throws {
        let server = UserServer(cacheControl: "no-store")
        let api = Session(baseURL: exampleBase, client: ScriptedClient { server.respond($0) })
        let labels = api.source(Label.self, .path("labels/<id>"))
        let store = try #require(api.store)
        _ = try await labels.fetch().result()
        #expect(store.usage.responses == 0)
        #expect(store.count == 0)
        let error = await expectThrows(JSONAPIClientError.self) {
            try await labels.fetch().cachePolicy(.cacheOnly).result()
        }
        #expect(error?.code == .notCached)
        _ = try await labels.fetch().cachePolicy(.cacheFirst).result()
        #expect(server.requests.map { $0.headerFields[.ifNoneMatch] } == [nil, nil])
        // A request's own no-store: its response is not kept, and replaces what was.
        let cacheable = UserServer()
        let other = Session(baseURL: exampleBase, client: ScriptedClient { cacheable.respond($0) })
        let otherLabels = other.source(Label.self, .path("labels/<id>"))
        _ = try await otherLabels.fetch().result()
        #expect(other.store?.usage.responses == 1)
        _ = try await otherLabels.fetch().header("Cache-Control", "no-store").result()
        #expect(other.store?.usage.responses == 0)
    }

    @Test("A 304 with no-store answers from the stored response and removes it")
    func notModifiedNoStore() async throws {
        let counter = Counter()
        let client = ScriptedClient { request in
            if counter.next() == 1 {
                var response = HTTPResponse.document(#"{"data":[{"type":"labels","id":"1","attributes":{"name":"a"}}]}"#)
                response.headerFields[.eTag] = "\"1\""
                return response
            }
            return HTTPResponse(status: .notModified, headerFields: [.eTag: "\"1\"", "Cache-Control": "no-store"])
        }
        let api = Session(baseURL: exampleBase, client: client)
        let labels = api.source(Label.self, .path("labels/<id>"))
        _ = try await labels.fetch().result()
        let second = try await labels.fetch().result()
        #expect(second.source == .revalidated)
        #expect(second.data?.first?.name == "a")
        #expect(api.store?.usage.responses == 0)
    }

    @Test("Vary: a stored response answers only a request with the same values of the fields it names")
    func vary() async throws {
        let server = UserServer(vary: "Accept-Language")
        let api = Session(baseURL: exampleBase, client: ScriptedClient { server.respond($0) })
        let labels = api.source(Label.self, .path("labels/<id>"))
        _ = try await labels.fetch().header("Accept-Language", "en").result()
        let english = try await labels.fetch().header("Accept-Language", "en").cachePolicy(.cacheFirst).result()
        #expect(english.source == .cache)
        let german = try await labels.fetch().header("Accept-Language", "de").cachePolicy(.cacheFirst).result()
        #expect(german.source == .network)
        #expect(german.data?.first?.name == "nobody de")
        // Without the field is another value too.
        let none = try await labels.fetch().cachePolicy(.cacheFirst).result()
        #expect(none.data?.first?.name == "nobody -")
        // No validator of another variant was sent.
        #expect(server.requests.map { $0.headerFields[.ifNoneMatch] } == [nil, nil, nil])
    }

    @Test("Vary: * is never answered from the store")
    func varyStar() async throws {
        let server = UserServer(vary: "*")
        let api = Session(baseURL: exampleBase, client: ScriptedClient { server.respond($0) })
        let labels = api.source(Label.self, .path("labels/<id>"))
        _ = try await labels.fetch().result()
        #expect(try await labels.fetch().cachePolicy(.cacheFirst).result().source == .network)
        #expect(api.store?.usage.responses == 0)
    }

    @Test("The keys of stored responses and shared exchanges hold a digest of the credentials, never them")
    func keysHoldNoCredential() {
        let url = URL(string: "https://api.example.com/v1/labels")!
        func request(_ fields: HTTPFields) -> HTTPRequest { HTTPRequest(method: .get, url: url, headerFields: fields) }
        let alice = request([.accept: "application/vnd.api+json", .authorization: "Bearer alice-secret"])
        let bob = request([.accept: "application/vnd.api+json", .authorization: "Bearer bob-secret"])
        let cookie = request([.accept: "application/vnd.api+json", .cookie: "session=cookie-secret"])
        for key in [InFlightRequests.key(for: alice), "\(ResponseKey(alice))", InFlightRequests.key(for: cookie)] {
            #expect(!key.contains("secret"))
        }
        #expect(InFlightRequests.key(for: alice) != InFlightRequests.key(for: bob))
        #expect(ResponseKey(alice) != ResponseKey(bob))
        #expect(ResponseKey(alice) != ResponseKey(cookie))
        #expect(ResponseKey(alice) == ResponseKey(alice))
        // An empty credential is not the same as none.
        #expect(ResponseKey(request([.authorization: ""])) != ResponseKey(request([:])))
        // The field's name is case-insensitive; its value is not.
        #expect(ResponseKey(request(["authorization": "Bearer a"])) == ResponseKey(request([.authorization: "Bearer a"])))
        #expect(ResponseKey(request([.authorization: "Bearer A"])) != ResponseKey(request([.authorization: "Bearer a"])))
    }

    @Test("A 304's header fields replace the stored ones: its new validator and freshness count from then on")
    func notModifiedUpdatesHeaders() async throws {
        let counter = Counter()
        let client = ScriptedClient { request in
            switch counter.next() {
            case 1:
                var response = HTTPResponse.document(#"{"data":[{"type":"labels","id":"1","attributes":{"name":"a"}}]}"#)
                response.headerFields[.eTag] = "\"1\""
                return response
            case 2: return HTTPResponse(status: .notModified, headerFields: [.eTag: "\"2\"", "Cache-Control": "max-age=60"])
            default: return HTTPResponse(status: .notModified, headerFields: [.eTag: "\"2\""])
            }
        }
        let api = Session(baseURL: exampleBase, client: client)
        let labels = api.source(Label.self, .path("labels/<id>"))
        _ = try await labels.fetch().result()
        let second = try await labels.fetch().cachePolicy(.cacheFirst).result()  // stale (no freshness): asks
        #expect(second.source == .revalidated)
        #expect(second.headerFields[.eTag] == "\"2\"")
        #expect(second.headerFields["Cache-Control"] == "max-age=60")
        #expect(try await labels.fetch().cachePolicy(.cacheFirst).result().source == .cache)  // fresh now
        _ = try await labels.fetch().result()
        #expect(client.requests.map { $0.headerFields[.ifNoneMatch] } == [nil, "\"1\"", "\"2\""])
    }

    @Test("Credentials the server sends (Set-Cookie) are not kept: a stored response answers without them")
    func setCookieNotKept() async throws {
        let counter = Counter()
        let client = ScriptedClient { _ in
            var response = HTTPResponse.document(#"{"data":[{"type":"labels","id":"1","attributes":{"name":"a"}}]}"#)
            response.headerFields.append("Set-Cookie", "session=secret-\(counter.next())")
            response.headerFields.append("Cache-Control", "max-age=60")
            response.headerFields[.eTag] = "\"1\""
            if counter.value > 1 { return HTTPResponse(status: .notModified, headerFields: response.headerFields) }
            return response
        }
        let api = Session(baseURL: exampleBase, client: client)
        let labels = api.source(Label.self, .path("labels/<id>"))
        let first = try await labels.fetch().result()
        #expect(first.headerFields["Set-Cookie"] == "session=secret-1")  // the caller sees what the server sent
        let cached = try await labels.fetch().cachePolicy(.cacheFirst).result()
        #expect(cached.source == .cache)
        #expect(cached.headerFields["Set-Cookie"] == nil)
        #expect(cached.headerFields["Cache-Control"] == "max-age=60")
        let revalidated = try await labels.fetch().result()  // a 304 with Set-Cookie: not kept either
        #expect(revalidated.source == .revalidated)
        #expect(revalidated.headerFields["Set-Cookie"] == nil)
    }

    @Test("removeResponses(credentials:) removes one account's responses and keeps the others'")
    func removeOneAccount() async throws {
        let server = UserServer()
        let api = Session(baseURL: exampleBase, client: ScriptedClient { server.respond($0) })
        let labels = api.source(Label.self, .path("labels/<id>"))
        let store = try #require(api.store)
        _ = try await labels.fetch().header(.authorization, "Bearer alice").result()
        _ = try await labels.fetch().header(.authorization, "Bearer alice").query("page", "2").result()
        _ = try await labels.fetch().header(.authorization, "Bearer bob").result()
        #expect(store.removeResponses(credentials: [.authorization: "Bearer nobody"]) == 0)
        #expect(store.removeResponses(credentials: [.authorization: "Bearer alice", "X-Other": "ignored"]) == 2)
        #expect(store.usage.responses == 1)
        let bob = try await labels.fetch().header(.authorization, "Bearer bob").cachePolicy(.cacheOnly).result()
        #expect(bob.data?.first?.name == "bob -")
        await #expect(throws: JSONAPIClientError.self) {
            try await labels.fetch().header(.authorization, "Bearer alice").cachePolicy(.cacheOnly).result()
        }
    }
}

/// A counter shared by a scripted transport's calls.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func next() -> Int { lock.withLock { count += 1; return count } }
}

/// Counts the requests that pass it.
struct Arrivals: Middleware {
    let counter: Counter
    func intercept(
        _ request: HTTPRequest, context: MiddlewareContext, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        _ = counter.next()
        return try await next(request)
    }
}

/// Holds every caller until opened.
actor OpenGate {
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false
    var waiting: Int { waiters.count }

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
