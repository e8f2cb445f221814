import Foundation
@testable import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

#if DEBUG
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

    @Test("A response's arrival says whether its decode's records are taken: a kept body's yes, a no-store one's no")
    func arrivalTellsWhetherRecordsAreTaken() throws {
        let store = ResourceStore()
        _ = store.count  // the records used: a decode's records are taken from now on
        let request = HTTPRequest(method: .get, url: exampleBase.appendingPathComponent("posts"))
        let key = store.responseKey(for: request)
        func arrived(_ response: HTTPResponse, awaitsDecode: Bool = true) -> Bool {
            store.responseArrived(
                response, for: request, key: key, requestTime: Date(), responseTime: Date(), epoch: store.clears,
                listing: nil, awaitsDecode: awaitsDecode)
        }
        var forbidden = HTTPResponse.document(Self.page.replacingOccurrences(of: "One", with: "Uno"))
        forbidden.headerFields.append("Cache-Control", "no-store")
        #expect(!arrived(forbidden))
        #expect(!arrived(.document(Self.page), awaitsDecode: false))  // merged by the store itself
        #expect(arrived(.document(Self.page.replacingOccurrences(of: "Two", with: "Dos"))))
    }

    static func post(_ title: String) -> ResourceObject {
        ResourceObject(type: "posts", id: "1", attributes: ["title": .string(title)])
    }

    @Test("A store call whose delivery another thread was telling leaves no lock to take at the end of the next call")
    func deliveryToldElsewhereLeavesNothingQueued() async throws {
        let store = ResourceStore()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let held = LockedValue(true)
        let observer = store.addObserver(type: "posts") { _, _ in
            if held.withLock({ $0 }) {
                held.withLock { $0 = false }
                entered.signal()
                release.wait()
            }
        }
        defer { store.removeObserver(observer) }
        // One thread tells the first change and is held inside its observer.
        let told = DispatchSemaphore(value: 0)
        let teller = Thread {
            store.merge([Self.post("One")])
            told.signal()
        }
        teller.start()
        try await offPool { entered.wait() }
        // Another thread's merge queues its change while the first thread delivers: that thread tells it.
        let sections = LockedValue<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let other = Thread {
            store.merge([Self.post("Two")])
            release.signal()
            told.wait()  // the first thread has told both changes: it takes no section while this one counts
            // The next call on this thread queued nothing: one section, its read.
            let before = store.state.sectionCount
            _ = store.record(type: "posts", id: "1")
            sections.withLock { $0 = store.state.sectionCount - before }
            done.signal()
        }
        other.start()
        try await offPool { done.wait() }
        #expect(sections.withLock { $0 } == 1)
    }
}
#endif
