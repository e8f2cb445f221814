import Foundation
@testable import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

/// How many times one exchange takes the store's lock (issue 42: the store has one way in, and a request few
/// entries): counted in debug builds, where `LockedValue` counts its sections.
@Suite("Store lock sections")
struct StoreLockSectionTests {
    struct Post: Resource, Equatable {
        static let resourceType = "posts"
        var id: String?
        var title: String
    }

    static let page = #"{"data":[{"type":"posts","id":"1","attributes":{"title":"One"}},{"type":"posts","id":"2","attributes":{"title":"Two"}}]}"#
    static let created = #"{"data":{"type":"posts","id":"3","attributes":{"title":"Three"}}}"#

    /// A session whose transport answers every `GET` with the page (fresh for a minute when `fresh`; its titles
    /// new each time when `changing`) and every `POST` with post 3.
    private func session(fresh: Bool = false, changing: Bool = false) -> Session {
        let count = LockedValue(0)
        let client = ScriptedClient { request in
            guard request.method == .get else { return .document(Self.created, status: 201) }
            let page = changing ? Self.page.replacingOccurrences(of: "One", with: "One \(count.withLock { $0 += 1; return $0 })") : Self.page
            var response = HTTPResponse.document(page)
            if fresh { response.headerFields.append("Cache-Control", "max-age=60") }
            return response
        }
        return Session(baseURL: exampleBase, client: client)
    }

    /// The store's lock sections `body` takes.
    private func sections(of store: ResourceStore, _ body: () async throws -> Void) async rethrows -> Int {
        let before = store.state.sectionCount
        try await body()
        return store.state.sectionCount - before
    }

    @Test("A GET answered by the network takes 3: the store as the request is made, its lookup, its answer")
    func getFromNetwork() async throws {
        let api = session()
        let posts = api.source(Post.self, .path("posts/<id>"))
        let store = try #require(api.store)
        _ = try await posts.fetch().result()  // the first: types registered, decodes remembered
        let taken = try await sections(of: store) {
            let page = try await posts.fetch().result()
            #expect(page.data?.count == 2)
        }
        #expect(taken == 3)
    }

    @Test("A GET the store answers (fresh, cache-first) takes 2: the store as the request is made, and its lookup")
    func storeHit() async throws {
        let api = session(fresh: true)
        let posts = api.source(Post.self, .path("posts/<id>"))
        let store = try #require(api.store)
        _ = try await posts.fetch().result()
        let taken = try await sections(of: store) {
            let page = try await posts.fetch().cachePolicy(.cacheFirst).result()
            #expect(page.source == .cache)
        }
        #expect(taken == 2)
    }

    @Test("An observed GET that changes a record takes 2 more: its decode's records handed over, and the check for more")
    func observedGet() async throws {
        let api = session(changing: true)
        let posts = api.source(Post.self, .path("posts/<id>"))
        let store = try #require(api.store)
        let told = LockedValue(0)
        let observer = store.addObserver(type: "posts") { changes, _ in told.withLock { $0 += changes.count } }
        defer { store.removeObserver(observer) }
        _ = try await posts.fetch().result()
        let taken = try await sections(of: store) { _ = try await posts.fetch().result() }
        #expect(told.withLock { $0 } == 3)  // two new records, then one changed
        #expect(taken == 5)
    }

    @Test("A write takes 3: the store as the request is made, its credentials noted, and its answer (1)")
    func writeAnswer() async throws {
        let api = session()
        let posts = api.source(Post.self, .path("posts/<id>"))
        let store = try #require(api.store)
        _ = try await posts.create(Post(title: "Zero"))
        let taken = try await sections(of: store) {
            let created = try await posts.create(Post(title: "Three"))
            #expect(created.data?.id == "3")
        }
        #expect(taken == 3)
    }
}
