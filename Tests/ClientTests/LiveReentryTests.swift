import Foundation
@testable import JSONAPIClient
import JSONAPIClientTesting
import Observation
import Testing

/// A live object is never entered again while it changes its own state: the store tells observers after the
/// outermost call that made a change has returned, never from inside a read, and a live object hears of changes on
/// the main actor in a turn of its own (issue 42: the runtime's exclusivity trap, "Simultaneous accesses").
@Suite("Live objects are never entered again")
@MainActor
struct LiveReentryTests {
    /// A body that waits for its decode in the store when the list's own read of the store (the keys its models
    /// reach) merges it: before, the store told the list at once, on the main thread, from inside that read — inside
    /// the list's change of its own dependencies — and the process trapped.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A body merged by a live list's read of the store reaches the list after that read, not inside it")
    func bodyMergedInsideTheListsRead() async throws {
        let server = ScriptedArticles(count: 4)
        let api = Session(baseURL: ScriptedArticles.baseURL, client: server.client)
        let store = try #require(api.store)
        let list = api.source(Headline.self, .path("articles/<id>")).fetch().page(.pageBased(1, 2))
            .liveList(prefetch: 0)
        // When the first page's records are merged (on the fetch's thread, before the list shows the page), a body
        // arrives that changes article 1 and waits for its decode, as a second screen's fetch leaves it.
        let changed = Data(#"{"data": [{"type": "articles", "id": "1", "attributes": {"title": "Changed"}}]}"#.utf8)
        let once = LockedValue(false)
        let observer = store.addObserver(type: "articles") { _, _ in
            guard once.withLock({ done in defer { done = true }; return !done }) else { return }
            store.merge(from: changed, awaitsDecode: true)
        }
        defer { store.removeObserver(observer) }

        await list.load()
        #expect(list.resources.map(\.id) == ["1", "2"])
        await Observed.until("the list shows the waiting body's change") { list.resources.first?.title == "Changed" }
        #expect(list.resources.map(\.title) == ["Changed", "Article 2"])
    }

    /// The same for a live resource with an included record: its read of the keys the model reaches merges a body
    /// that changes the related record.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A body merged by a live resource's read of the store reaches it after that read, not inside it")
    func bodyMergedInsideTheResourcesRead() async throws {
        let server = ScriptedArticles(count: 2)
        let api = Session(baseURL: ScriptedArticles.baseURL, client: server.client)
        let store = try #require(api.store)
        let live = api.source(Headline.self, .path("articles/<id>")).fetch(id: "1").live()
        let changed = Data(#"{"data": [{"type": "articles", "id": "1", "attributes": {"title": "Changed"}}]}"#.utf8)
        let once = LockedValue(false)
        let observer = store.addObserver(type: "articles") { _, _ in
            guard once.withLock({ done in defer { done = true }; return !done }) else { return }
            store.merge(from: changed, awaitsDecode: true)
        }
        defer { store.removeObserver(observer) }

        await live.load()
        await Observed.until("the resource shows the waiting body's change") { live.resource?.title == "Changed" }
        #expect(live.resource?.title == "Changed")
    }

    /// A model removed from the store after the response of a fetch in flight was merged, and before the live
    /// object shows that fetch: the removal is told first, and the fetch must not bring the model back (the store
    /// shows none: a live object equals a fresh read).
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A model removed while the fetch that brought it is in flight is not shown by that fetch")
    func removedDuringFetch() async throws {
        let server = ScriptedArticles(count: 4)
        let api = Session(baseURL: ScriptedArticles.baseURL, client: server.client)
        let store = try #require(api.store)
        let source = api.source(Headline.self, .path("articles/<id>"))
        let list = source.fetch().page(.pageBased(1, 2)).liveList(prefetch: 0)
        let live = source.fetch(id: "1").live()
        await list.load()
        await live.load()
        #expect(list.resources.map(\.id) == ["1", "2"])
        #expect(live.resource?.id == "1")
        // When a refresh's records are merged (on the fetch's thread), article 2 — and then article 1 — is removed:
        // what a confirmed delete of another task does.
        let armed = LockedValue<String?>("2")
        let observer = store.addObserver(type: "articles") { changes, _ in
            guard changes.contains(where: { $0.kind == .updated }),
                let id = armed.withLock({ id in defer { id = nil }; return id })
            else { return }
            store.remove(type: "articles", id: id)
        }
        defer { store.removeObserver(observer) }
        server.retitle("2", "Changed")  // the refresh changes it: the merge tells of it
        await list.refresh()
        await Observed.until("the list has applied what the store told") { list.resources.map(\.id) == ["1"] }
        #expect(list.resources.map(\.id) == ["1"])
        #expect(store.record(type: "articles", id: "2") == nil)
        armed.withLock { $0 = "1" }
        server.retitle("1", "Changed")
        await live.refresh()
        await Observed.until("the resource has applied what the store told") { live.resource == nil }
        #expect(live.resource == nil)
        #expect(store.record(type: "articles", id: "1") == nil)
    }

    /// A write's commit merges the bodies waiting first: the observers are told of their changes too, with the
    /// write's (the write's changes replaced them, and a live list kept a related record's old name).
    @Test("The changes of the bodies a commit merges first are told with its own", arguments: ["merge", "remove", "linkage"])
    func bodiesMergedFirstAreTold(event: String) throws {
        let store = ResourceStore()
        store.merge([ResourceObject(type: "articles", id: "1", attributes: ["title": "One"])])
        let told = LockedValue<[String]>([])
        let observer = store.addObserver(type: nil) { changes, _ in
            told.withLock { $0 += changes.map { "\($0.type) \($0.id)" } }
        }
        defer { store.removeObserver(observer) }
        let body = Data(#"{"data": {"type": "people", "id": "9", "attributes": {"name": "Renamed"}}}"#.utf8)
        store.merge(from: body, awaitsDecode: true)  // waits for a decode that never hands it over
        switch event {
        case "merge": store.merge([ResourceObject(type: "articles", id: "2", attributes: ["title": "Two"])])
        case "remove": store.remove(type: "articles", id: "1")
        default: store.changeLinkage(of: "author", type: "articles", id: "1") { _ in .toOne(nil) }
        }
        #expect(told.withLock { $0 }.contains("people 9"))
        #expect(told.withLock { $0 }.contains { $0.hasPrefix("articles ") })
    }

    /// A change raised while a delivery runs — the observer reads the store, and the read merges a waiting body —
    /// is delivered after that delivery returns, on the same thread, in the order made: never inside it.
    @Test("A change raised during a delivery is delivered after it, in order")
    func changeDuringADeliveryWaits() throws {
        let store = ResourceStore()
        let log = LockedValue<[String]>([])
        let depth = LockedValue(0)
        let second = Data(#"{"data": {"type": "articles", "id": "2", "attributes": {"title": "Two"}}}"#.utf8)
        let observer = store.addObserver(type: "articles") { changes, _ in
            let nested = depth.withLock { depth in
                depth += 1
                return depth > 1
            }
            log.withLock { $0.append((nested ? "nested " : "") + changes.map(\.id).joined(separator: ",")) }
            if changes.map(\.id) == ["1"] {
                // A body waits; the read below merges it (a change raised inside this delivery).
                store.merge(from: second, awaitsDecode: true)
                _ = store.record(type: "articles", id: "2")
                log.withLock { $0.append("read returned") }
            }
            depth.withLock { $0 -= 1 }
        }
        defer { store.removeObserver(observer) }
        store.merge([ResourceObject(type: "articles", id: "1", attributes: ["title": "One"])])
        #expect(log.withLock { $0 } == ["1", "read returned", "2"])
    }
}
