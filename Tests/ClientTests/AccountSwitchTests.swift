import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// Switching accounts on one session (`Session.signIn(account:)`, `signOut(removingData:)`): another account sees
/// none of the first one's records, responses, optimistic changes, queued writes or live contents, under any cache
/// policy, and a switch back shows them again; sign-out keeps or removes, in memory and on disk.
@Suite("Switching accounts on one session")
struct AccountSwitchTests {
    typealias Token = AccountTests.Token
    typealias Server = AccountTests.Server

    static func session(_ server: Server, token: Token, account: String?, directory: URL? = nil) -> Session {
        AccountTests.session(server, token: token, account: account, directory: directory)
    }

    static let memo = AccountTests.memo

    /// Alice fetches memo 1 and updates it offline (queued, shown optimistically): what every test starts from.
    static func aliceWrites(_ api: Session, _ server: Server) async throws {
        let memos = api.source(Memo.self, .path("memos/<id>"))
        _ = try await memos.fetch(id: "1").result()
        server.go(online: false)
        #expect(try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Sent" }.queued != nil)
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "Sent")
    }

    /// What another account must not see of Alice's, under every cache policy: no record, no stored response, no
    /// queued write.
    static func seesNothingOfAlice(_ api: Session) async throws {
        let store = try #require(api.store)
        #expect(store.record(type: "memos", id: "1") == nil)
        #expect(try store.resources(Memo.self).isEmpty)
        #expect(store.usage == ResourceStore.Usage(records: 0, responses: 0, responseBytes: 0))
        #expect(api.writeQueue.entries.isEmpty)
        #expect(store.pendingChanges(type: "memos", id: "1") == nil)
        #expect(store.pendingChanges().isEmpty)
        for policy in [CachePolicy.cacheOnly, .cacheFirst, .staleWhileRevalidate, .networkFirst] {
            // Offline: a policy that may answer from the store has nothing of Alice's to answer with.
            await #expect(throws: JSONAPIClientError.self, "\(policy)") {
                try await api.fetch(Self.memo).cachePolicy(policy).result()
            }
        }
    }

    @Test("In memory: Bob sees nothing of Alice's under any policy, her write is not sent with his token; back to Alice, all of it is there and her write goes once")
    func switchInMemory() async throws {
        let server = Server()
        let token = Token("A1")
        let api = Self.session(server, token: token, account: "alice")
        let store = try #require(api.store)
        try await Self.aliceWrites(api, server)
        let evicted = LockedValue<[StoreChange]>([])
        let observer = store.addObserver(type: nil) { changes, _ in evicted.withLock { $0 += changes } }
        defer { store.removeObserver(observer) }
        let aliceQueue = api.writeQueue

        token.current = "B1"
        try await api.signIn(account: "bob")
        #expect(api.account == "bob")
        #expect(api.writeQueue !== aliceQueue)
        #expect(evicted.withLock { $0 }.contains(StoreChange(type: "memos", id: "1", kind: .evicted)))
        try await Self.seesNothingOfAlice(api)
        server.go(online: true)
        let bobs = try await api.source(Memo.self, .path("memos/<id>")).fetch(id: "1").result()
        #expect(bobs.source == .network)
        #expect(bobs.data?.title == "Draft")  // the server's, not Alice's optimistic change
        await aliceQueue.replay()  // even asked to, Alice's queue sends nothing with Bob's token
        #expect(server.requests.filter { $0.method == .patch }.isEmpty)

        token.current = "A2"
        try await api.signIn(account: "alice")
        #expect(try store.resource(Memo.self, id: "1")?.title == "Sent")
        #expect(api.writeQueue === aliceQueue)  // her write goes now that she is back (and online): once
        #expect(store.usage.responses == 1)
        await api.writeQueue.replay()
        #expect(server.requests.filter { $0.method == .patch }.map(\.authorization) == ["Bearer A2"])
        #expect(api.writeQueue.entries.isEmpty)
    }

    @Test("Signing in the account already signed in changes nothing")
    func sameAccount() async throws {
        let server = Server()
        let api = Self.session(server, token: Token("A1"), account: "alice")
        try await Self.aliceWrites(api, server)
        let clears = api.store?.clears
        try await api.signIn(account: "alice")
        #expect(api.store?.clears == clears)
        #expect(api.writeQueue.entries.count == 1)
        #expect(api.store?.record(type: "memos", id: "1") != nil)
    }

    @Test("Persisted: sign-out keeps Alice's data on disk for her next session; sign-out removing data leaves nothing of hers")
    func signOutPersisted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = Server()
        let token = Token("A1")
        let alicePath = PartitionDatabase.file(in: directory, partition: PartitionDatabase.partition(forAccount: "alice")).path
        do {
            let api = Self.session(server, token: token, account: "alice", directory: directory)
            try await Self.aliceWrites(api, server)
            try await api.signOut()
            #expect(api.account == nil)
            #expect(api.store?.record(type: "memos", id: "1") == nil)
            #expect(api.writeQueue.entries.isEmpty)
            try await api.signIn(account: "bob")
            try await Self.seesNothingOfAlice(api)
            #expect(FileManager.default.fileExists(atPath: alicePath))
        }
        do {
            // Her next session, on the same directory, finds all of it.
            let api = Self.session(server, token: Token("A2"), account: "alice", directory: directory)
            #expect(try api.store?.resource(Memo.self, id: "1")?.title == "Sent")
            #expect(api.writeQueue.entries.count == 1)
            try await api.signIn(account: "bob")
            try await Self.seesNothingOfAlice(api)
            try await api.signIn(account: "alice")
            #expect(api.writeQueue.entries.count == 1)
            try await api.signOut(removingData: true)
            for file in [alicePath, alicePath + "-wal", alicePath + "-shm"] {
                #expect(!FileManager.default.fileExists(atPath: file), "\(file)")
            }
            try await api.signIn(account: "alice")
            try await Self.seesNothingOfAlice(api)
        }
        server.go(online: true)
        let api = Self.session(server, token: Token("A3"), account: "alice", directory: directory)
        #expect(api.writeQueue.entries.isEmpty)
        await api.writeQueue.replay()
        #expect(server.requests.filter { $0.method == .patch }.isEmpty)  // removed: never sent
    }

    @Test("Removing an account's data and signing it in again at once: another session opening its files meanwhile reads every save, though the app still held the removed account's queue")
    func removeThenSignInAgain() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = Server()
        let api = Self.session(server, token: Token("A1"), account: "alice", directory: directory)
        let memos = api.source(Memo.self, .path("memos/<id>"))
        try await Self.aliceWrites(api, server)
        var removedQueue: WriteQueue? = api.writeQueue  // the app holds it (for its events, say)
        try await api.signOut(removingData: true)
        try await api.signIn(account: "alice")
        // Her new data: a fetch, saved, and a queued write.
        server.go(online: true)
        _ = try await memos.fetch(id: "1").result()
        try await api.store?.flush()
        server.go(online: false)
        #expect(try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Again" }.queued != nil)
        #expect(removedQueue?.entries.count == 1)
        removedQueue = nil  // a connection it still held to the removed file would close now
        // Another session (an extension, a relaunch) opens her files while this one is still open.
        let other = Self.session(server, token: Token("A2"), account: "alice", directory: directory)
        #expect(other.writeQueue.entries.map(\.method) == [.patch])
        #expect(other.store?.usage.responses == 1)
        #expect(try other.store?.resource(Memo.self, id: "1")?.title == "Again")
        withExtendedLifetime(api) {}
    }

    #if os(Linux)
    @Test("Removing an account's data closes every connection to its files first, though the app holds the removed account's queue: no descriptor of this process is left on them")
    func removalClosesConnections() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = Server()
        let alicePath = PartitionDatabase.file(in: directory, partition: PartitionDatabase.partition(forAccount: "alice")).path
        let api = Self.session(server, token: Token("A1"), account: "alice", directory: directory)
        try await Self.aliceWrites(api, server)
        let removedQueue = api.writeQueue
        #expect(!Self.descriptors(on: alicePath).isEmpty)
        try await api.signOut(removingData: true)
        #expect(Self.descriptors(on: alicePath).isEmpty, "\(Self.descriptors(on: alicePath))")
        // The removed queue writes nowhere, and makes no file again.
        _ = removedQueue.removeAll()
        await removedQueue.flush()
        #expect(!FileManager.default.fileExists(atPath: alicePath))
    }

    /// The targets of this process's open file descriptors that are `path` or SQLite's files beside it (Linux:
    /// `/proc/self/fd`; a removed file shows as `<path> (deleted)`).
    static func descriptors(on path: String) -> [String] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
            .filter { $0.hasPrefix(path) }
    }
    #endif

    @Test("An account's data is not removed while another session of this process has its files open: the removal throws and that session's saves stay")
    func removalRefusedWhileOpen() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = Server()
        let api = Self.session(server, token: Token("A1"), account: "alice", directory: directory)
        let other = Self.session(server, token: Token("A1"), account: "alice", directory: directory)
        _ = try await other.source(Memo.self, .path("memos/<id>")).fetch(id: "1").result()
        await #expect(throws: JSONAPIClientError.self) { try await api.signOut(removingData: true) }
        #expect(api.account == nil)  // signed out all the same
        try await other.store?.flush()
        let relaunched = Self.session(server, token: Token("A2"), account: "alice", directory: directory)
        #expect(relaunched.store?.usage.responses == 1)
        #expect(try relaunched.store?.resource(Memo.self, id: "1")?.title == "Draft")
        withExtendedLifetime(other) {}
    }

    @Test("Without an account, sign-out empties the store and keeps the queue; removing data empties the queue too")
    func signOutWithoutAccount() async throws {
        for removing in [false, true] {
            let server = Server()
            let api = Self.session(server, token: Token("A1"), account: nil)
            try await Self.aliceWrites(api, server)
            try await api.signOut(removingData: removing)
            #expect(api.store?.record(type: "memos", id: "1") == nil)
            #expect(api.store?.usage.responses == 0)
            #expect(api.writeQueue.entries.count == (removing ? 0 : 1))
        }
    }

    /// A server that holds the answer to memo `held` until released; every other request is answered at once.
    typealias HoldingServer = NoAccountTests.HoldingServer

    @Test("An answer to a request Alice sent, arriving after Bob signed in, goes to its caller and not into Bob's store")
    func lateAnswer() async throws {
        let server = HoldingServer(holding: "a")
        let token = Token("A")
        let api = Session(
            baseURL: exampleBase, client: server,
            configuration: .init(middlewares: [BearerTokenMiddleware { token.current }], account: "alice"))
        let memos = api.source(Memo.self, .path("memos/<id>"))
        let late = Task { try await memos.fetch(id: "a").result() }
        await server.waitForArrival()
        token.current = "B"
        try await api.signIn(account: "bob")
        server.letGo()
        #expect(try await late.value.data?.title == "of Bearer A")
        #expect(api.store?.record(type: "memos", id: "a") == nil)
        try await api.signIn(account: "alice")
        #expect(api.store?.record(type: "memos", id: "a") == nil)  // not kept for Alice either: fetched again
    }

    /// A middleware that holds the request of memo `held`, its credentials added by the middleware before it,
    /// until let go: a token refresh that takes its time.
    final class HoldingMiddleware: Middleware {
        let held: String
        private let hold = Hold()
        init(holding held: String) { self.held = held }

        func waitForArrival() async { await hold.waitForArrival() }
        func letGo() { hold.letGo() }

        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext,
            next: @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            if request.url.lastPathComponent == held { await hold.pass() }
            return try await next(request)
        }
    }

    @Test(
        "A request made before a switch whose credentials were added before it reaches the store after it: neither kept nor merged, whichever account is shown next",
        arguments: [nil, "carol"] as [String?])
    func credentialsAddedBeforeSwitch(next: String?) async throws {
        let holding = HoldingMiddleware(holding: "a")
        let token = Token("B")
        let api = Session(
            baseURL: exampleBase, client: HoldingServer(holding: "none"),
            configuration: .init(middlewares: [BearerTokenMiddleware { token.current }, holding], account: "bob"))
        #expect(api.store != nil)
        let memos = api.source(Memo.self, .path("memos/<id>"))
        let late = Task { try await memos.fetch(id: "a").result() }
        await holding.waitForArrival()  // Bob's token on it
        token.current = next.map { "token of \($0)" } ?? "anonymous"
        if let next { try await api.signIn(account: next) } else { try await api.signOut() }
        holding.letGo()
        _ = try? await late.value
        #expect(api.store?.record(type: "memos", id: "a") == nil)
        #expect(try api.store?.resources(Memo.self).isEmpty == true)
        #expect(api.store?.usage.responses == 0)
    }

    /// A server that holds every request until opened, and tells each arrival.
    final class GateServer: Client, @unchecked Sendable {
        private let lock = NSLock()
        private var waiting: [CheckedContinuation<Void, Never>] = []
        private var isOpen = false
        private let arrived = AsyncStream<Void>.makeStream()

        func waitForArrival() async { for await _ in arrived.stream { return } }
        func open() {
            let resumed = lock.withLock {
                isOpen = true
                defer { waiting = [] }
                return waiting
            }
            for continuation in resumed { continuation.resume() }
        }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            arrived.continuation.yield()
            await withCheckedContinuation { continuation in
                let now = lock.withLock {
                    if !isOpen { waiting.append(continuation) }
                    return isOpen
                }
                if now { continuation.resume() }
            }
            return HTTPResponse.document(
                Memo.document(id: request.url.lastPathComponent, title: "of " + (request.headerFields[.authorization] ?? "")))
        }
    }

    @Test("A request of Bob's never shares the exchange of the same request Alice has in flight")
    func inFlightNotShared() async throws {
        let server = GateServer()
        let token = Token("A")
        let api = Session(
            baseURL: exampleBase, client: server,
            configuration: .init(middlewares: [BearerTokenMiddleware { token.current }], account: "alice"))
        let memos = api.source(Memo.self, .path("memos/<id>"))
        let alices = Task { try await memos.fetch(id: "a").result() }
        await server.waitForArrival()
        token.current = "B"
        try await api.signIn(account: "bob")
        let bobs = Task { try await memos.fetch(id: "a").result() }
        await server.waitForArrival()  // sent on its own, not joined to Alice's
        server.open()
        #expect(try await alices.value.data?.title == "of Bearer A")
        #expect(try await bobs.value.data?.title == "of Bearer B")
        #expect(try api.store?.resource(Memo.self, id: "a")?.title == "of Bearer B")
    }

    @Test("Switches run one at a time, in the order called")
    func serialSwitches() async throws {
        let api = Self.session(Server(), token: Token("A"), account: "alice")
        async let first: Void = api.signIn(account: "bob")
        async let second: Void = api.signIn(account: "carol")
        _ = try await (first, second)
        try await api.signOut()
        #expect(api.account == nil)
        try await api.signIn(account: "bob")
        #expect(api.account == "bob")
    }

    /// Fails every request in the transport while `offline` holds.
    struct Switch: Middleware {
        let offline: Token
        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext,
            next: @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            if offline.current == "yes" { throw URLError(.notConnectedToInternet) }
            return try await next(request)
        }
    }

    @Test("Against the real server: Alice's tag queued offline is not made while Bob is signed in, and is made exactly once when she is back")
    func realServer() async throws {
        let server = try TestServer.url()
        let run = "switch-\(UUID().uuidString.prefix(8))"
        let token = Token("A")
        let offline = Token("yes")
        let api = Session(
            baseURL: server,
            configuration: .init(
                middlewares: [BearerTokenMiddleware { token.current }, Switch(offline: offline)],
                writes: .offline, account: "alice"))
        let tags = api.source(ArticleTag.self, .path("tags/<id>"))
        #expect(try await tags.create(ArticleTag(id: "", name: run + "-alice")).queued != nil)
        token.current = "B"
        try await api.signIn(account: "bob")
        offline.current = "no"
        #expect(try await tags.create(ArticleTag(id: "", name: run + "-bob")).queued == nil)
        await api.writeQueue.replay()
        #expect(try await ArticleTag.all(containing: run, on: server).map(\.name) == [run + "-bob"])
        token.current = "A"
        try await api.signIn(account: "alice")
        await api.writeQueue.replay()
        #expect(api.writeQueue.entries.isEmpty)
        #expect(try await ArticleTag.all(containing: run, on: server).map(\.name).sorted() == [run + "-alice", run + "-bob"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor
    @Test("A live object drops Alice's model at the switch and loads Bob's")
    func liveObjectReloads() async throws {
        let token = TokenBox("alice")
        let server = ScriptedArticles(count: 3)
        let api = Session(
            baseURL: ScriptedArticles.baseURL, client: server.client,
            configuration: .init(middlewares: [BearerTokenMiddleware { token.value }], account: "alice"))
        let article = api.source(Headline.self, .path("articles/<id>")).live(id: "1")
        await article.load()
        #expect(article.resource?.title == "alice: Article 1")
        token.value = "bob"
        let switched = Task { try await api.signIn(account: "bob") }
        let shown = await Observed.values(
            // A bound for a failing test only: under the whole suite beside another's, the main actor's queue was
            // seen to take over 10 s to run the refetch's end (its request had reached the server).
            "bob's article shows", timeout: .seconds(120), of: { article.resource?.title },
            until: { $0 == "bob: Article 1" })
        try await switched.value
        #expect(
            shown.last == "bob: Article 1",
            "shown \(shown); now \(String(describing: article.resource?.title)), loading \(article.isLoading), account \(String(describing: api.account)), clears \(String(describing: api.store?.clears)), requests \(server.client.requests.map { "\($0.headerFields[.authorization] ?? "") \($0.url.path)" })")
        // Alice's fetch, then Bob's: and once more when the first of Bob's was asked for while the switch was under
        // way (the session may still have sent it as Alice), asked again at its end.
        #expect((2...3).contains(server.client.requests.count))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor
    @Test("An empty live list loads as Bob after he signs in (the store held nothing of it to evict)")
    func emptyListReloads() async throws {
        let token = TokenBox("alice")
        let client = LiveListTests.noneForAlice()
        let api = Session(
            baseURL: ScriptedArticles.baseURL, client: client,
            configuration: .init(middlewares: [BearerTokenMiddleware { token.value }], account: "alice"))
        let list = api.source(Headline.self, .path("articles/<id>")).fetch().liveList()
        await list.load()
        #expect(list.resources.isEmpty)
        token.value = "bob"
        try await api.signIn(account: "bob")
        #expect(await Observed.until("bob's article shows", timeout: .seconds(60)) { list.resources.map(\.title) == ["bob's"] })
        // The same: a page asked for while the switch was under way is asked again at its end.
        #expect((2...3).contains(client.requests.count))
    }

    @Test("Persisted: a write Bob queues after signing in is on disk in his database (a new account's queue is persisted)")
    func newAccountQueuePersisted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = Server()
        do {
            let api = Self.session(server, token: Token("A1"), account: "alice", directory: directory)
            try await api.signIn(account: "bob")
            _ = try await api.source(Memo.self, .path("memos/<id>")).fetch(id: "1").result()
            server.go(online: false)
            #expect(try await api.source(Memo.self, .path("memos/<id>")).update(Memo(id: "1", title: "Draft")) { $0.title = "Bob's" }.queued != nil)
        }
        let bob = Self.session(server, token: Token("B2"), account: "bob", directory: directory)
        #expect(bob.writeQueue.entries.count == 1)
    }
}
