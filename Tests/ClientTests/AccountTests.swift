import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// A session that names its account (`Session.Configuration.account`): credentials are only credentials — a new
/// token keeps the stored responses answering and revalidating and the queued writes sending, in the session and
/// across a relaunch — and another account on the same directory sees none of it.
@Suite("Accounts named by the app")
struct AccountTests {
    /// The token the app's `BearerTokenMiddleware` sends: the app refreshes it by setting a new one.
    final class Token: @unchecked Sendable {
        private let lock = NSLock()
        private var value: String
        init(_ value: String) { self.value = value }
        var current: String {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    /// A server of memo 1: `GET` answers 200 with `ETag: "v1"` (and `cacheControl`), or 304 to `If-None-Match: "v1"`;
    /// `PATCH` answers the memo. Offline, every request fails in the transport. It notes each request it answers.
    final class Server: Client, @unchecked Sendable {
        struct Seen: Equatable {
            var method: HTTPMethod
            var authorization: String?
            var ifNoneMatch: String?
        }
        private let lock = NSLock()
        private var seen: [Seen] = []
        private var offline = false
        let cacheControl: String
        init(cacheControl: String = "max-age=3600") { self.cacheControl = cacheControl }

        var requests: [Seen] { lock.withLock { seen } }
        func go(online: Bool) { lock.withLock { offline = !online } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            try lock.withLock {
                guard !offline else { throw URLError(.notConnectedToInternet) }
                seen.append(Seen(
                    method: request.method, authorization: request.headerFields[.authorization],
                    ifNoneMatch: request.headerFields[.ifNoneMatch]))
            }
            if request.method == .get, request.headerFields[.ifNoneMatch] == "\"v1\"" {
                var response = HTTPResponse(status: .init(code: 304))
                response.headerFields.append("ETag", "\"v1\"")
                response.headerFields.append("Cache-Control", cacheControl)
                return response
            }
            var response = HTTPResponse.document(Memo.document(id: "1", title: request.method == .get ? "Draft" : "Sent"))
            response.headerFields.append("ETag", "\"v1\"")
            response.headerFields.append("Cache-Control", cacheControl)
            return response
        }
    }

    static func session(
        _ server: Server, token: Token, account: String?, directory: URL? = nil
    ) -> Session {
        Session(
            baseURL: exampleBase, client: server,
            configuration: .init(
                middlewares: [BearerTokenMiddleware { token.current }],
                store: .init(persistence: directory.map { .init(directory: $0, delay: .seconds(3600)) }),
                writes: .offline, writeQueue: .init(firstDelay: .milliseconds(1), maxDelay: .milliseconds(5)),
                account: account))
    }

    static let memo = URL(string: "memos/1")!

    /// A `BearerTokenMiddleware` that sends `token` and, on a 401, refreshes it to `renewed`, noting each rejected
    /// token in `refreshes`.
    static func refreshing(_ token: Token, to renewed: String, counting refreshes: Token) -> BearerTokenMiddleware {
        BearerTokenMiddleware(
            token: { token.current },
            refresh: { rejected in
                refreshes.current += rejected
                token.current = renewed
                return renewed
            })
    }

    @Test("A token refreshed within a named account: the stored response answers, then revalidates with its ETag")
    func refreshKeepsCache() async throws {
        let server = Server(cacheControl: "no-cache")
        let token = Token("T1")
        let api = Self.session(server, token: token, account: "alice")
        #expect(try await api.fetch(Self.memo).result().source == .network)
        token.current = "T2"
        let again = try await api.fetch(Self.memo).cachePolicy(.cacheFirst).result()
        #expect(again.source == .revalidated)
        #expect(server.requests.last == .init(method: .get, authorization: "Bearer T2", ifNoneMatch: "\"v1\""))
    }

    @Test("Without an account, a new token is another partition: the response stored under the old one is not used")
    func noAccountKeepsPerCredentials() async throws {
        let server = Server(cacheControl: "no-cache")
        let token = Token("T1")
        let api = Self.session(server, token: token, account: nil)
        _ = try await api.fetch(Self.memo).result()
        token.current = "T2"
        #expect(try await api.fetch(Self.memo).cachePolicy(.cacheFirst).result().source == .network)
        #expect(server.requests.last == .init(method: .get, authorization: "Bearer T2", ifNoneMatch: nil))
    }

    @Test("A write queued under one token is sent under the refreshed one, once; without an account it waits")
    func refreshSendsQueuedWrite() async throws {
        for account in ["alice", nil] as [String?] {
            let server = Server()
            let token = Token("T1")
            let api = Self.session(server, token: token, account: account)
            let memos = api.source(Memo.self, .path("memos/<id>"))
            _ = try await memos.fetch(id: "1").result()
            server.go(online: false)
            let response = try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Sent" }
            #expect(response.queued != nil)
            token.current = "T2"
            server.go(online: true)
            await api.writeQueue.replay()
            let patches = server.requests.filter { $0.method == .patch }
            if account == nil {
                #expect(patches.isEmpty)
                #expect(api.writeQueue.entries.count == 1)
            } else {
                #expect(patches.map(\.authorization) == ["Bearer T2"])
                #expect(api.writeQueue.entries.isEmpty)
            }
        }
    }

    /// A server of memo 1 that, once told, refuses the token `expired` with a 401 (as a server does when a token
    /// expires while the app is offline), and notes each request's token and status.
    final class ExpiringServer: Client, @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [(method: HTTPMethod, authorization: String?, status: Int)] = []
        private var offline = false
        private var expired: String?

        var requests: [(method: HTTPMethod, authorization: String?, status: Int)] { lock.withLock { seen } }
        func go(online: Bool) { lock.withLock { offline = !online } }
        func expire(_ token: String) { lock.withLock { expired = "Bearer " + token } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            try lock.withLock {
                guard !offline else { throw URLError(.notConnectedToInternet) }
                let authorization = request.headerFields[.authorization]
                let refused = authorization != nil && authorization == expired
                seen.append((request.method, authorization, refused ? 401 : 200))
                guard !refused else { return HTTPResponse(status: .init(code: 401)) }
                return HTTPResponse.document(Memo.document(id: "1", title: request.method == .get ? "Draft" : "Sent"))
            }
        }
    }

    @Test(
        "A token that expired while a write was queued: the replay's own request gets the 401, the middleware refreshes, and the write is made once under the new token — with an account or without (the library's refresh keeps the user)",
        arguments: ["alice", nil] as [String?])
    func refreshDuringReplay(account: String?) async throws {
        let server = ExpiringServer()
        let token = Token("T1")
        let refreshes = Token("")
        let api = Session(
            baseURL: exampleBase, client: server,
            configuration: .init(
                middlewares: [Self.refreshing(token, to: "T2", counting: refreshes)],
                writes: .offline, writeQueue: .init(firstDelay: .milliseconds(1), maxDelay: .milliseconds(5)),
                account: account))
        let memos = api.source(Memo.self, .path("memos/<id>"))
        _ = try await memos.fetch(id: "1").result()
        server.go(online: false)
        #expect(try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Sent" }.queued != nil)
        server.expire("T1")
        server.go(online: true)
        await api.writeQueue.replay()
        let patches = server.requests.filter { $0.method == .patch }
        #expect(patches.map(\.authorization) == ["Bearer T1", "Bearer T2"])
        #expect(patches.map(\.status) == [401, 200])
        #expect(refreshes.current == "T1")  // once, with the rejected token
        #expect(api.writeQueue.entries.isEmpty)
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "Sent")
    }

    @Test("A relaunch with a new token finds the account's stored responses and queued writes; another account on the directory sees none, and the first finds them again")
    func relaunchAndSwitch() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("accounts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = Server()
        do {
            let alice = Self.session(server, token: Token("A1"), account: "alice", directory: directory)
            let memos = alice.source(Memo.self, .path("memos/<id>"))
            _ = try await memos.fetch(id: "1").result()
            server.go(online: false)
            _ = try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Sent" }
            #expect(alice.writeQueue.entries.count == 1)
            try await alice.store?.flush()
            await alice.writeQueue.flush()
        }
        // Bob, on the same directory, offline: nothing of Alice's — no record, no response, no queued write.
        let bob = Self.session(server, token: Token("B1"), account: "bob", directory: directory)
        #expect(bob.store?.usage == ResourceStore.Usage(records: 0, responses: 0, responseBytes: 0))
        #expect(bob.store?.record(type: "memos", id: "1") == nil)
        await #expect(throws: JSONAPIClientError.self) {
            try await bob.fetch(Self.memo).cachePolicy(.cacheOnly).result()
        }
        #expect(bob.writeQueue.entries.isEmpty)
        let files = try FileManager.default.contentsOfDirectory(atPath: PartitionDatabase.folder(in: directory).path)
            .filter { $0.hasSuffix(".sqlite") }.sorted()
        #expect(files == [
            PartitionDatabase.partition(forAccount: "alice") + ".sqlite", PartitionDatabase.partition(forAccount: "bob") + ".sqlite",
        ].sorted())
        #expect(!files.joined().contains("alice") && !files.joined().contains("bob"))

        // Alice again, relaunched with a new token: her stored response answers, and her write goes with A2, once.
        let alice = Self.session(server, token: Token("A2"), account: "alice", directory: directory)
        #expect(try await alice.fetch(Self.memo).cachePolicy(.cacheOnly).result().source == .cache)
        #expect(alice.writeQueue.entries.count == 1)
        server.go(online: true)
        await alice.writeQueue.replay()
        #expect(server.requests.filter { $0.method == .patch }.map(\.authorization) == ["Bearer A2"])
        #expect(alice.writeQueue.entries.isEmpty)
    }

    @Test("Removing an account's data removes its files only: its next session starts empty, another account's data stays")
    func removeAccountData() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("accounts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = Server()
        for account in ["alice", "bob"] {
            let api = Self.session(server, token: Token(account), account: account, directory: directory)
            _ = try await api.fetch(Self.memo).result()
            try await api.store?.flush()
        }
        let persistence = ResourceStore.Persistence(directory: directory)
        try persistence.removeData(ofAccount: "alice")
        try persistence.removeData(ofAccount: "alice")  // nothing left: nothing to do
        let path = PartitionDatabase.file(in: directory, partition: PartitionDatabase.partition(forAccount: "alice")).path
        for file in [path, path + "-wal", path + "-shm"] { #expect(!FileManager.default.fileExists(atPath: file)) }
        let alice = Self.session(server, token: Token("alice"), account: "alice", directory: directory)
        #expect(alice.store?.usage.responses == 0)
        let bob = Self.session(server, token: Token("bob"), account: "bob", directory: directory)
        #expect(bob.store?.usage.responses == 1)
    }

    @Test("Account partitions: one per identifier, stable, `account-` and 32 hex digits; none is the default")
    func partitionNames() {
        let alice = PartitionDatabase.partition(forAccount: "alice")
        #expect(alice == PartitionDatabase.partition(forAccount: "alice"))
        #expect(alice != PartitionDatabase.partition(forAccount: "alice "))
        #expect(alice != PartitionDatabase.partition(forAccount: ""))
        #expect(PartitionDatabase.partition(forAccount: nil) == "default")
        #expect(alice.hasPrefix("account-") && alice.count == 8 + 32)
        #expect(alice.dropFirst(8).allSatisfy { $0.isHexDigit })
    }

    @Test("Against the real server: a write queued offline under one token is made exactly once after a relaunch with another")
    func realServerRelaunch() async throws {
        let server = try TestServer.url()
        let run = "account-\(UUID().uuidString.prefix(8))"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("accounts-\(run)")
        defer { try? FileManager.default.removeItem(at: directory) }
        func session(_ token: String, offline: Bool) -> Session {
            Session(
                baseURL: server,
                configuration: .init(
                    middlewares: [BearerTokenMiddleware { token }] + (offline ? [WriteQueueTwoProcessTests.Offline()] : []),
                    store: .init(persistence: .init(directory: directory)), writes: .offline, account: "carol"))
        }
        do {
            let api = session("C1", offline: true)
            let response = try await api.source(ArticleTag.self, .path("tags/<id>")).create(ArticleTag(id: "", name: run))
            #expect(response.queued != nil)
            await api.writeQueue.flush()
        }
        let api = session("C2", offline: false)
        #expect(api.writeQueue.entries.count == 1)
        await api.writeQueue.replay()
        #expect(api.writeQueue.entries.isEmpty)
        #expect(try await ArticleTag.all(containing: run, on: server).map(\.name) == [run])
    }
}
