import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// A session that names no account: a refresh made by the library (``BearerTokenMiddleware``'s `refresh:`) is the
/// same user — the cache answers and revalidates, the records stay, the queue sends, across a relaunch too — and any
/// other change of credentials is another user, for the records and the queue as for the responses.
@Suite("Sessions that name no account")
struct NoAccountTests {
    typealias Token = AccountTests.Token

    /// A server of memo `id`: refuses an expired token with a 401; answers a `GET` with `ETag: "v1"` and
    /// `Cache-Control: no-cache` (304 to `If-None-Match: "v1"`) and a `PATCH` with the memo. Offline, the transport
    /// fails. It notes each request.
    final class Server: Client, @unchecked Sendable {
        struct Seen: Equatable {
            var method: HTTPMethod
            var authorization: String?
            var ifNoneMatch: String?
            var status: Int
        }
        private let lock = NSLock()
        private var seen: [Seen] = []
        private var offline = false
        private var expired: Set<String> = []

        var requests: [Seen] { lock.withLock { seen } }
        func go(online: Bool) { lock.withLock { offline = !online } }
        func expire(_ token: String) { lock.withLock { _ = expired.insert("Bearer " + token) } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            try lock.withLock {
                guard !offline else { throw URLError(.notConnectedToInternet) }
                let authorization = request.headerFields[.authorization]
                let ifNoneMatch = request.headerFields[.ifNoneMatch]
                let status =
                    authorization.map(expired.contains) == true
                    ? 401 : request.method == .get && ifNoneMatch == "\"v1\"" ? 304 : 200
                seen.append(Seen(method: request.method, authorization: authorization, ifNoneMatch: ifNoneMatch, status: status))
                var response =
                    status == 200
                    ? HTTPResponse.document(
                        Memo.document(id: request.url.lastPathComponent, title: request.method == .get ? "Draft" : "Sent"))
                    : HTTPResponse(status: .init(code: status))
                if status != 401 {
                    response.headerFields.append("ETag", "\"v1\"")
                    response.headerFields.append("Cache-Control", "no-cache")
                }
                return response
            }
        }
    }

    /// A session with a `BearerTokenMiddleware` that refreshes a rejected token to `renewed` (counting the calls in
    /// `refreshes`), an offline write policy, and no account.
    static func session(
        _ server: Server, token: Token, renewed: String = "T2", refreshes: Token = Token(""), directory: URL? = nil
    ) -> Session {
        Session(
            baseURL: exampleBase, client: server,
            configuration: .init(
                middlewares: [AccountTests.refreshing(token, to: renewed, counting: refreshes)],
                store: .init(persistence: directory.map { .init(directory: $0, delay: .seconds(3600)) }),
                writes: .offline, writeQueue: .init(firstDelay: .milliseconds(1), maxDelay: .milliseconds(5))))
    }

    static let memo = URL(string: "memos/1")!

    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("no-account-\(UUID().uuidString)")
    }

    @Test("A token refreshed after a 401: the response stored under the old one revalidates with its ETag, and the records stay")
    func refreshKeepsCacheAndRecords() async throws {
        let server = Server()
        let token = Token("T1")
        let api = Self.session(server, token: token)
        #expect(try await api.fetch(Self.memo).result().source == .network)
        server.expire("T1")
        let again = try await api.fetch(Self.memo).cachePolicy(.cacheFirst).result()
        #expect(again.source == .revalidated)
        #expect(server.requests.suffix(2) == [
            .init(method: .get, authorization: "Bearer T1", ifNoneMatch: "\"v1\"", status: 401),
            .init(method: .get, authorization: "Bearer T2", ifNoneMatch: "\"v1\"", status: 304),
        ])
        #expect(api.store?.record(type: "memos", id: "1") != nil)
    }

    @Test("Other credentials, not a refresh: the records go, observers are told, the old response and the queued write stay the old user's")
    func otherCredentialsAreAnotherUser() async throws {
        let server = Server()
        let token = Token("A")
        let api = Self.session(server, token: token)
        let store = try #require(api.store)
        let memos = api.source(Memo.self, .path("memos/<id>"))
        _ = try await memos.fetch(id: "1").result()
        server.go(online: false)
        #expect(try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Sent" }.queued != nil)
        let evicted = LockedValue<[StoreChange]>([])
        let observer = store.addObserver(type: nil) { changes, _ in evicted.withLock { $0 += changes } }
        defer { store.removeObserver(observer) }
        let clears = store.clears
        token.current = "B"  // another user signed in; the app did not clear the store
        await #expect(throws: JSONAPIClientError.self) {
            try await api.fetch(Self.memo).cachePolicy(.cacheOnly).result()
        }
        #expect(store.clears == clears + 1)
        #expect(store.record(type: "memos", id: "1") == nil)
        #expect(try store.resources(Memo.self).isEmpty)
        #expect(evicted.withLock { $0 }.contains(StoreChange(type: "memos", id: "1", kind: .evicted)))
        server.go(online: true)
        await api.writeQueue.replay()
        #expect(server.requests.filter { $0.method == .patch }.isEmpty)  // never sent with B's token
        #expect(api.writeQueue.entries.count == 1)
        #expect(store.usage.responses == 1)  // A's, answering A only
        // B's own fetch fills the store again, as B's.
        _ = try await memos.fetch(id: "2").result()
        #expect(store.record(type: "memos", id: "2") != nil)
        #expect(store.clears == clears + 1)
    }

    @Test("A request to another origin carries no credentials, and is not taken for a sign-out")
    func otherOriginKeepsRecords() async throws {
        let server = Server()
        let api = Session(
            baseURL: exampleBase, client: server,
            configuration: .init(
                middlewares: [BearerTokenMiddleware { "A" }],
                allowedLinkOrigins: [Origin(scheme: "https", host: "cdn.example.com", port: 443)], store: .init()))
        _ = try await api.fetch(Self.memo).result()
        _ = try await api.fetch(URL(string: "https://cdn.example.com/memos/2")!).result()
        #expect(server.requests.map(\.authorization) == ["Bearer A", nil])
        #expect(api.store?.record(type: "memos", id: "1") != nil)
        #expect(api.store?.clears == 0)
    }

    /// A server that holds the answer to `held` until released, and answers every other request at once.
    final class HoldingServer: Client, @unchecked Sendable {
        let held: String
        private let hold = Hold()
        init(holding held: String) { self.held = held }

        func waitForArrival() async { await hold.waitForArrival() }
        func letGo() { hold.letGo() }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let id = request.url.lastPathComponent
            if id == held { await hold.pass() }
            return HTTPResponse.document(Memo.document(id: id, title: "of " + (request.headerFields[.authorization] ?? "")))
        }
    }

    @Test("A response sent with the old credentials that arrives after the switch is not merged into the new user's records")
    func lateResponseNotMerged() async throws {
        for observed in [false, true] {
            let server = HoldingServer(holding: "a")
            let token = Token("A")
            let api = Session(
                baseURL: exampleBase, client: server,
                configuration: .init(middlewares: [BearerTokenMiddleware { token.current }], store: .init()))
            let store = try #require(api.store)
            let observer = observed ? store.addObserver(type: nil) { _, _ in } : nil
            defer { observer.map(store.removeObserver) }
            let memos = api.source(Memo.self, .path("memos/<id>"))
            let late = Task { try await memos.fetch(id: "a").result() }
            await server.waitForArrival()
            token.current = "B"
            _ = try await memos.fetch(id: "b").result()
            server.letGo()
            #expect(try await late.value.data?.title == "of Bearer A")  // the caller still gets its answer
            #expect(store.record(type: "memos", id: "a") == nil, "observed: \(observed)")
            #expect(try store.resource(Memo.self, id: "b")?.title == "of Bearer B")
        }
    }

    @Test("A relaunch with the refreshed token finds the responses, the records and the queued write of the token before it; one with other credentials finds no record")
    func relaunchAfterRefresh() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = Server()
        do {
            let api = Self.session(server, token: Token("T1"), directory: directory)
            let memos = api.source(Memo.self, .path("memos/<id>"))
            _ = try await memos.fetch(id: "1").result()
            server.expire("T1")
            _ = try await memos.fetch(id: "1").result()  // 401, refreshed to T2, 304
            server.go(online: false)
            #expect(try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Sent" }.queued != nil)
            try await api.store?.flush()
            await api.writeQueue.flush()
        }
        do {
            // The app kept the refreshed token; the library's refresh made it the same user's. Until a request
            // says who is signed in, the records on disk are nobody's to see.
            let api = Self.session(server, token: Token("T2"), directory: directory)
            #expect(api.store?.record(type: "memos", id: "1") == nil)
            server.go(online: true)
            #expect(try await api.fetch(Self.memo).cachePolicy(.cacheFirst).result().source == .revalidated)
            #expect(try api.store?.resource(Memo.self, id: "1")?.title == "Sent")  // the optimistic change, read back
            #expect(server.requests.last == .init(method: .get, authorization: "Bearer T2", ifNoneMatch: "\"v1\"", status: 304))
            await api.writeQueue.replay()
            #expect(server.requests.filter { $0.method == .patch }.map(\.authorization) == ["Bearer T2"])
            #expect(api.writeQueue.entries.isEmpty)
            try await api.store?.flush()
        }
        do {
            // Someone else: the first request takes the records away, on disk too.
            let api = Self.session(server, token: Token("X"), directory: directory)
            _ = try await api.fetch(URL(string: "memos/2")!).result()
            #expect(api.store?.record(type: "memos", id: "1") == nil)
            try await api.store?.flush()
        }
        // T2 again: X's records are not shown before a request, nor after it (another line takes them away).
        let api = Self.session(server, token: Token("T2"), directory: directory)
        #expect(api.store?.record(type: "memos", id: "2") == nil)
        _ = try await api.fetch(URL(string: "memos/3")!).result()
        #expect(api.store?.record(type: "memos", id: "2") == nil)
        #expect(api.store?.record(type: "memos", id: "3") != nil)
    }

    @Test("Relaunched, the records on disk show once a request (a cache-only fetch will do) carries their owner's credentials")
    func recordsWaitForTheFirstRequest() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = Server()
        do {
            let api = Self.session(server, token: Token("T1"), directory: directory)
            _ = try await api.fetch(Self.memo).result()
            try await api.store?.flush()
        }
        let api = Self.session(server, token: Token("T1"), directory: directory)
        #expect(api.store?.record(type: "memos", id: "1") == nil)
        #expect(try api.store?.resources(Memo.self).isEmpty == true)
        server.go(online: false)
        _ = try? await api.fetch(URL(string: "memos/9")!).cachePolicy(.cacheOnly).result()  // nothing sent
        #expect(try api.store?.resources(Memo.self).map(\.id) == ["1"])
        #expect(server.requests.count == 1)
    }
}

@Suite("Credential lineage")
struct CredentialLineageTests {
    static func fields(_ token: String) -> HTTPFields { [.authorization: "Bearer " + token] }
    static let key = DigestKey(k0: 1, k1: 2, k2: 3, k3: 4)
    static func digest(_ token: String) -> CredentialDigest { CredentialDigest(credentialsOf: fields(token), key: key) }

    @Test("Renewals chain to the first credentials; going back to them, or renewing to the same, adds nothing")
    func chains() {
        let kept = LockedValue<[[CredentialLineage.Alias]]>([])
        let lineage = CredentialLineage(key: Self.key) { aliases in kept.withLock { $0.append(aliases) } }
        #expect(lineage.root(of: Self.digest("T1")) == Self.digest("T1"))
        lineage.noteRenewal(from: Self.fields("T1"), to: Self.fields("T2"))
        lineage.noteRenewal(from: Self.fields("T2"), to: Self.fields("T3"))
        #expect(lineage.root(ofCredentialsIn: Self.fields("T3")) == Self.digest("T1"))
        #expect(lineage.root(ofCredentialsIn: Self.fields("T2")) == Self.digest("T1"))
        #expect(kept.withLock { $0.count } == 2)
        lineage.noteRenewal(from: Self.fields("T3"), to: Self.fields("T1"))  // back to the root
        lineage.noteRenewal(from: Self.fields("T3"), to: Self.fields("T3"))  // no change
        lineage.noteRenewal(from: Self.fields("T2"), to: Self.fields("T3"))  // known
        #expect(kept.withLock { $0.count } == 2)
        #expect(lineage.known.count == 2)
        #expect(lineage.root(ofCredentialsIn: Self.fields("U")) == Self.digest("U"))
    }

    @Test("The newest renewals are kept, up to the limit", arguments: [0, 1, CredentialLineage.maxAliases, CredentialLineage.maxAliases + 1])
    func keepsTheNewest(renewals: Int) {
        let lineage = CredentialLineage(key: Self.key)
        for step in 0..<renewals {
            lineage.noteRenewal(from: Self.fields("T\(step)"), to: Self.fields("T\(step + 1)"))
        }
        #expect(lineage.known.count == min(renewals, CredentialLineage.maxAliases))
        if renewals > 0 { #expect(lineage.root(ofCredentialsIn: Self.fields("T\(renewals)")) == Self.digest("T0")) }
        let first = lineage.root(ofCredentialsIn: Self.fields("T1"))
        #expect(first == (renewals == 0 || renewals > CredentialLineage.maxAliases ? Self.digest("T1") : Self.digest("T0")))
        // Read back from what a database keeps, the same.
        let again = CredentialLineage(key: Self.key, aliases: CredentialLineage.aliases(from: CredentialLineage.bytes(of: lineage.known)))
        #expect(again.known == lineage.known)
    }

    @Test("Bytes that are not whole renewals read as none", arguments: [0, 31, 33, 63])
    func badBytes(count: Int) {
        #expect(CredentialLineage.aliases(from: Data(repeating: 7, count: count)).isEmpty)
    }

    @Test("A context notes a renewal for its own origin only, and compares without the session's record")
    func context() {
        let lineage = CredentialLineage(key: Self.key)
        let base = URL(string: "https://api.example.com/v1")!
        let old = HTTPRequest(method: .get, url: base, headerFields: Self.fields("T1"))
        let new = HTTPRequest(method: .get, url: base, headerFields: Self.fields("T2"))
        var context = MiddlewareContext(baseURL: base, origin: Origin(base), request: old, lineage: lineage)
        #expect(context == MiddlewareContext(baseURL: base, isSameOrigin: true))
        #expect(context != MiddlewareContext(baseURL: base, isSameOrigin: false))
        #expect(context != MiddlewareContext(baseURL: URL(string: "https://other.example.com")!, isSameOrigin: true))
        #expect(context.hashValue == MiddlewareContext(baseURL: base, isSameOrigin: true).hashValue)
        context.isSameOrigin = false
        context.noteRenewal(from: old, to: new)
        #expect(lineage.known.isEmpty)
        context.isSameOrigin = true
        context.noteRenewal(from: old, to: new)
        #expect(lineage.root(ofCredentialsIn: Self.fields("T2")) == Self.digest("T1"))
        MiddlewareContext(baseURL: base, isSameOrigin: true).noteRenewal(from: old, to: new)  // by hand: no record, nothing
    }
}
