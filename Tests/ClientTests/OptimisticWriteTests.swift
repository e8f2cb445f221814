import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// Optimistic writes against a scripted server whose every answer the test gives, in the order it chooses: the
/// store shows a change at once, the server's answer replaces it, a refusal or a transport failure rolls it back,
/// and overlapping writes to one record settle in the order they were made, whatever the order of the answers.
@Suite("Optimistic writes")
struct OptimisticWriteTests {
    /// A session on a held server, its store holding memo 1 titled "Draft".
    static func setUp() throws -> (HeldWrites, Session, DataSource<Memo>) {
        let held = HeldWrites()
        let api = Session(baseURL: HeldWrites.baseURL, client: held.client)
        let store = try #require(api.store)
        store.merge(try JSONAPIDecoder().decode(RawDocument.self, from: Data(Memo.document(id: "1", title: "Draft").utf8)))
        return (held, api, api.source(Memo.self, .path("memos/<id>")))
    }

    /// The titles of memo `id` the store shows, as they change (`nil` when it shows none).
    static func follow(_ store: ResourceStore, id: String = "1") -> (Events<String?>, Task<Void, Never>) {
        let events = Events<String?>()
        let task = Task { for await memo in store.updates(of: Memo.self, id: id) { events.send(memo?.title) } }
        return (events, task)
    }

    static let draft = Memo(id: "1", title: "Draft")

    @Test("The store shows an optimistic update at once; the server's answer replaces it")
    func confirmed() async throws {
        let (held, api, memos) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let (titles, following) = Self.follow(store)
        defer { following.cancel() }
        #expect(await titles.next("the first title") == "Draft")
        let write = Task { try await memos.update(Self.draft, options: .optimistic) { $0.title = "Final" } }
        guard let arrival = await held.arrivals.next("the PATCH") else { return }
        #expect(arrival.method == .patch && arrival.path == "/memos/1")
        #expect(try store.resource(Memo.self, id: "1")?.title == "Final")
        #expect(await titles.next("the optimistic title") == "Final")
        #expect(store.pendingChanges(type: "memos", id: "1")?.changedMembers == ["title"])
        #expect(store.pendingChanges(type: "memos", id: "1")?.server?.attributes?["title"] == "Draft")

        held.confirm(0, id: "1", title: "Final (server)")
        let response = try await write.value
        #expect(response.data?.title == "Final (server)")
        #expect(response.queued == nil)
        #expect(try store.resource(Memo.self, id: "1")?.title == "Final (server)")
        #expect(store.record(type: "memos", id: "1")?.attributes?["title"] == "Final (server)")
        #expect(await titles.next("the server's title") == "Final (server)")
        #expect(store.pendingChanges(type: "memos", id: "1") == nil)
        #expect(store.pendingChanges().isEmpty)
    }

    @Test("A refused optimistic update is rolled back; the error says what was undone", arguments: [400, 403, 409, 422])
    func refused(status: Int) async throws {
        let (held, api, memos) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let (titles, following) = Self.follow(store)
        defer { following.cancel() }
        #expect(await titles.next("the first title") == "Draft")
        let write = Task { try await memos.update(Self.draft, options: .optimistic) { $0.title = "Final" } }
        guard await held.arrivals.next("the PATCH") != nil else { return }
        #expect(await titles.next("the optimistic title") == "Final")
        held.refuse(0, status: status)
        let error = try #require(await expectThrows(JSONAPIClientError.self) { try await write.value })
        #expect(error.status?.code == status)
        #expect(error.rolledBack?.type == "memos" && error.rolledBack?.id == "1")
        #expect(error.rolledBack?.attributes?["title"] == "Final")
        #expect(try store.resource(Memo.self, id: "1")?.title == "Draft")
        #expect(await titles.next("the rolled back title") == "Draft")
        #expect(store.pendingChanges(type: "memos", id: "1") == nil)
    }

    @Test("An optimistic update the transport fails is rolled back when it is not queued")
    func transportFailed() async throws {
        let (held, api, memos) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let write = Task { try await memos.update(Self.draft, options: .optimistic) { $0.title = "Final" } }
        guard await held.arrivals.next("the PATCH") != nil else { return }
        held.cutOff(0)
        let error = try #require(await expectThrows(JSONAPIClientError.self) { try await write.value })
        #expect(error.code == .transportFailed)
        #expect(error.rolledBack?.attributes?["title"] == "Final")
        #expect(try store.resource(Memo.self, id: "1")?.title == "Draft")
        #expect(api.writeQueue.entries.isEmpty)
    }

    @Test("A write that is not optimistic changes the store only when the server answers")
    func immediate() async throws {
        let (held, api, memos) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let write = Task { try await memos.update(Self.draft) { $0.title = "Final" } }
        guard await held.arrivals.next("the PATCH") != nil else { return }
        #expect(try store.resource(Memo.self, id: "1")?.title == "Draft")
        #expect(store.pendingChanges().isEmpty)
        held.confirm(0, id: "1", title: "Final")
        _ = try await write.value
        #expect(try store.resource(Memo.self, id: "1")?.title == "Final")
    }

    /// How the test server answers one write.
    enum Answer: String, CaseIterable, Sendable { case confirm, refuse, cutOff }

    /// Two writes to one record, A (title "A") then B (title "B"), both held, then answered in `order`.
    struct Overlap: Sendable, CustomTestStringConvertible {
        var a: Answer
        var b: Answer
        var bFirst: Bool
        var testDescription: String { "A \(a.rawValue), B \(b.rawValue), answered \(bFirst ? "B first" : "A first")" }

        /// What the store shows once the first answer is in: B while it waits; else B's answer, or A over the server's.
        var afterFirst: String { !bFirst || b == .confirm ? "B" : "A" }
        /// What the store shows at the end: the last confirmed write's title, or the server's.
        var final: String { b == .confirm ? "B" : a == .confirm ? "A" : "Draft" }
    }

    static let overlaps: [Overlap] = Answer.allCases.flatMap { a in
        Answer.allCases.flatMap { b in [false, true].map { Overlap(a: a, b: b, bFirst: $0) } }
    }

    @Test("Overlapping optimistic writes to one record settle in the order they were made", arguments: overlaps)
    func overlapping(_ overlap: Overlap) async throws {
        let (held, api, memos) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let first = Task { try await memos.update(Self.draft, options: .optimistic) { $0.title = "A" } }
        guard await held.arrivals.next("A's PATCH") != nil else { return }
        #expect(try store.resource(Memo.self, id: "1")?.title == "A")
        let second = Task { try await memos.update(Self.draft, options: .optimistic) { $0.title = "B" } }
        guard await held.arrivals.next("B's PATCH") != nil else { return }
        #expect(try store.resource(Memo.self, id: "1")?.title == "B")
        #expect(store.pendingChanges(type: "memos", id: "1")?.writes == 2)

        func settle(_ number: Int, _ answer: Answer, title: String) {
            switch answer {
            case .confirm: held.confirm(number, id: "1", title: title)
            case .refuse: held.refuse(number)
            case .cutOff: held.cutOff(number)
            }
        }
        let steps = overlap.bFirst
            ? [(1, overlap.b, "B", second), (0, overlap.a, "A", first)]
            : [(0, overlap.a, "A", first), (1, overlap.b, "B", second)]
        settle(steps[0].0, steps[0].1, title: steps[0].2)
        let firstResult = await steps[0].3.result
        #expect((try? firstResult.get()) != nil || steps[0].1 != .confirm)
        #expect(try store.resource(Memo.self, id: "1")?.title == overlap.afterFirst)
        settle(steps[1].0, steps[1].1, title: steps[1].2)
        _ = await steps[1].3.result
        #expect(try store.resource(Memo.self, id: "1")?.title == overlap.final)
        #expect(store.record(type: "memos", id: "1")?.attributes?["title"] == .string(overlap.final))
        #expect(store.pendingChanges(type: "memos", id: "1") == nil)
    }

    @Test("An optimistic create shows at once: under its own id, confirmed by the server")
    func createWithID() async throws {
        let (held, api, memos) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let write = Task { try await memos.create(Memo(id: "2", title: "New"), options: .optimistic) }
        guard await held.arrivals.next("the POST") != nil else { return }
        #expect(try store.resources(Memo.self).map(\.id) == ["1", "2"])
        #expect(store.pendingChanges(type: "memos", id: "2")?.server == nil)
        held.confirm(0, id: "2", title: "New", status: 201)
        #expect(try await write.value.status == .created)
        #expect(try store.resource(Memo.self, id: "2")?.title == "New")
        #expect(store.pendingChanges().isEmpty)
    }

    @Test("An optimistic create without an id shows under a local id until the server names it")
    func createWithoutID() async throws {
        let (held, api, memos) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let write = Task { try await memos.create(Memo(id: "", title: "New"), options: .optimistic) }
        guard await held.arrivals.next("the POST") != nil else { return }
        let shown = try store.resources(Memo.self)
        #expect(shown.count == 2)
        let local = try #require(shown.first { $0.id != "1" })
        #expect(local.title == "New" && !local.id.isEmpty)
        held.confirm(0, id: "42", title: "New", status: 201)
        _ = try await write.value
        #expect(try store.resources(Memo.self).map(\.id) == ["1", "42"])
        #expect(try store.resource(Memo.self, id: local.id) == nil)
        #expect(store.pendingChanges().isEmpty)
    }

    @Test("An optimistic delete hides the record at once and brings it back when refused")
    func deleteRefused() async throws {
        let (held, api, memos) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let (titles, following) = Self.follow(store)
        defer { following.cancel() }
        #expect(await titles.next("the first title") == "Draft")
        let write = Task { try await memos.delete(id: "1", options: .optimistic) }
        guard await held.arrivals.next("the DELETE") != nil else { return }
        #expect(try store.resource(Memo.self, id: "1") == nil)
        #expect(try store.resources(Memo.self).isEmpty)
        #expect(await titles.next("the deleted memo") == .some(nil))
        #expect(store.pendingChanges(type: "memos", id: "1")?.local == nil)
        held.refuse(0, status: 403)
        _ = await write.result
        #expect(try store.resource(Memo.self, id: "1")?.title == "Draft")
        #expect(await titles.next("the memo back") == "Draft")
    }

    @Test("A confirmed optimistic delete removes the record")
    func deleteConfirmed() async throws {
        let (held, api, memos) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let write = Task { try await memos.delete(id: "1", options: .optimistic) }
        guard await held.arrivals.next("the DELETE") != nil else { return }
        held.settle(0, .success(HTTPResponse(status: .noContent)))
        #expect(try await write.value.status == .noContent)
        #expect(store.record(type: "memos", id: "1") == nil)
        #expect(store.pendingChanges().isEmpty)
    }

    /// A memo with an owner whose `memos` is the inverse of the memo's `owner`.
    struct OwnedMemo: Resource {
        static let resourceType = "memos"
        static let inverseRelationships = [InverseRelationship("owner", relatedType: "owners", "memos")]
        var id: String
        var title: String
        var owner: ToOne<Owner>?
    }

    struct Owner: Resource {
        static let resourceType = "owners"
        var id: String
    }

    @Test("A confirmed optimistic write moves the inverse relationship of the record it names, as a merge does")
    func inverseOnConfirmation() async throws {
        let held = HeldWrites()
        defer { held.finish() }
        let api = Session(baseURL: HeldWrites.baseURL, client: held.client)
        let store = try #require(api.store)
        let memos = api.source(OwnedMemo.self, .path("memos/<id>"))
        store.merge(
            try JSONAPIDecoder().decode(
                RawDocument.self,
                from: Data(
                    #"{"data":[{"type":"memos","id":"1","attributes":{"title":"Draft"},"relationships":{"owner":{"data":null}}},{"type":"owners","id":"o1","relationships":{"memos":{"data":[]}}}]}"#
                        .utf8)))
        let memo = try #require(try store.resource(OwnedMemo.self, id: "1"))
        let write = Task {
            try await memos.update(memo, options: .optimistic) { $0.owner = ToOne(Owner(id: "o1")) }
        }
        guard await held.arrivals.next("the PATCH") != nil else { return }
        held.settle(0, .success(HTTPResponse(status: .noContent)))
        _ = try await write.value
        #expect(store.record(type: "memos", id: "1")?.relationships?["owner"]?.data == .toOne(ResourceIdentifier(type: "owners", id: "o1")))
        #expect(store.record(type: "owners", id: "o1")?.relationships?["memos"]?.data == .toMany([ResourceIdentifier(type: "memos", id: "1")]))
        #expect(store.pendingChanges().isEmpty)
    }

    @Test("A pending optimistic write shows on the other end of an inverse relationship at once, and a refusal takes it back")
    func inverseWhilePending() async throws {
        let held = HeldWrites()
        defer { held.finish() }
        let api = Session(baseURL: HeldWrites.baseURL, client: held.client)
        let store = try #require(api.store)
        let memos = api.source(OwnedMemo.self, .path("memos/<id>"))
        store.merge(
            try JSONAPIDecoder().decode(
                RawDocument.self,
                from: Data(
                    #"{"data":[{"type":"memos","id":"1","attributes":{"title":"Draft"},"relationships":{"owner":{"data":{"type":"owners","id":"o2"}}}},{"type":"owners","id":"o1","relationships":{"memos":{"data":[]}}},{"type":"owners","id":"o2","relationships":{"memos":{"data":[{"type":"memos","id":"1"}]}}}]}"#
                        .utf8)))
        let owners = StreamProbe(store.changes(of: Owner.self))
        let memo = try #require(try store.resource(OwnedMemo.self, id: "1"))
        let write = Task {
            try await memos.update(memo, options: .optimistic) { $0.owner = ToOne(Owner(id: "o1")) }
        }
        guard await held.arrivals.next("the PATCH") != nil else { return }
        let one = [ResourceIdentifier(type: "memos", id: "1")]
        // Shown at once: o1 gains the memo, o2 loses it; the server's records are unchanged.
        #expect(store.record(type: "owners", id: "o1")?.relationships?["memos"]?.data == .toMany(one))
        #expect(store.record(type: "owners", id: "o2")?.relationships?["memos"]?.data == .toMany([]))
        #expect(Set([await owners.next()?.id, await owners.next()?.id]) == ["o1", "o2"])
        held.refuse(0)
        await #expect(throws: JSONAPIClientError.self) { try await write.value }
        #expect(store.record(type: "owners", id: "o1")?.relationships?["memos"]?.data == .toMany([]))
        #expect(store.record(type: "owners", id: "o2")?.relationships?["memos"]?.data == .toMany(one))
        #expect(Set([await owners.next()?.id, await owners.next()?.id]) == ["o1", "o2"])
    }

    @Test("clear() drops the optimistic changes with the records")
    func clearDropsLayers() async throws {
        let (held, api, memos) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let write = Task { try await memos.create(Memo(id: "2", title: "New"), options: .optimistic) }
        guard await held.arrivals.next("the POST") != nil else { return }
        store.clear()
        #expect(store.record(type: "memos", id: "2") == nil)
        #expect(store.pendingChanges().isEmpty)
        held.confirm(0, id: "2", title: "New", status: 201)
        _ = try await write.value
    }
}

/// A read while an optimistic write waits: only the records it changes are read as shown; the others come straight
/// from the response's shared tape, and a changed record met through another's linkage shows its change.
@Suite("Optimistic writes: reads while one is pending")
struct PendingReadTests {
    typealias Writer = StoreTests.Writer
    typealias Post = StoreTests.Post

    /// A store holding one response: posts 1–3 by writers 8, 9, 9, the writers included (one shared tape).
    static func store() throws -> ResourceStore {
        let body = #"""
            {"data":[
              {"type":"posts","id":"1","attributes":{"title":"One"},"relationships":{"author":{"data":{"type":"writers","id":"8"}}}},
              {"type":"posts","id":"2","attributes":{"title":"Two"},"relationships":{"author":{"data":{"type":"writers","id":"9"}}}},
              {"type":"posts","id":"3","attributes":{"title":"Three"},"relationships":{"author":{"data":{"type":"writers","id":"9"}}}}],
             "included":[
              {"type":"writers","id":"8","attributes":{"name":"Eight"}},
              {"type":"writers","id":"9","attributes":{"name":"Nine"}}]}
            """#
        let store = ResourceStore()
        store.merge(try JSONAPIDecoder().records(from: Data(body.utf8)))
        return store
    }

    @Test("A pending change to an included record shows through every record that names it; the rest read as stored")
    func includedChangeShows() throws {
        let store = try Self.store()
        let layer = store.addPending(.update, object: ResourceObject(type: "writers", id: "9", attributes: ["name": "Nine (edited)"]), id: "9")
        let posts = try store.resources(Post.self)
        #expect(posts.map(\.author?.name) == ["Eight", "Nine (edited)", "Nine (edited)"])
        #expect(posts.map(\.title) == ["One", "Two", "Three"])
        #expect(try store.resource(Writer.self, id: "9")?.name == "Nine (edited)")
        store.dropPending(layer)
        #expect(try store.resources(Post.self).map(\.author?.name) == ["Eight", "Nine", "Nine"])
    }

    @Test("A pending change to a primary record shows in a read of all; a pending create of another shows beside them")
    func primaryChangeShows() throws {
        let store = try Self.store()
        _ = store.addPending(.update, object: ResourceObject(type: "posts", id: "2", attributes: ["title": "Two (edited)"]), id: "2")
        _ = store.addPending(
            .create,
            object: ResourceObject(
                type: "posts", id: "4", attributes: ["title": "Four"],
                relationships: ["author": Relationship(data: .toOne(ResourceIdentifier(type: "writers", id: "8")))]),
            id: "4")
        let posts = try store.resources(Post.self)
        #expect(posts.map(\.title) == ["One", "Two (edited)", "Three", "Four"])
        #expect(posts.map(\.author?.name) == ["Eight", "Nine", "Nine", "Eight"])
    }
}
