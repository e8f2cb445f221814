import Foundation
@testable import JSONAPIClient
import JSONAPIClientCore
import JSONAPIClientTesting
import Testing
import TestSupport

/// One write path: a data source's write, a graph's creates (ordered or atomic) and an Atomic Operations batch hand
/// their answer to the store the same way (`ResourceStore.apply`), decoded once, in one batch for the observers.
@Suite("One write path: every write's answer applied to the store the same way")
struct WriteAnswerTests {
    struct Note: Resource, Equatable {
        static let resourceType = "notes"
        var id: String?
        var lid: String?
        var title: String

        init(id: String? = nil, lid: String? = nil, title: String) {
            self.id = id
            self.lid = lid
            self.title = title
        }
    }

    static let atomic = JSONAPIMediaType(ext: [AtomicOperation.extensionURI])

    /// The server's answer to creating a note: id 7, its title as the server writes it.
    static let created = #"{"data":{"type":"notes","id":"7","attributes":{"title":"From the server"}}}"#

    /// A server of notes: `GET /notes` lists (fresh for a day), a `POST /notes` creates note 7, `POST /operations`
    /// answers with `results`, `PATCH /notes/1` with `patched` (or `refusal` when set).
    final class Server: @unchecked Sendable {
        let lock = NSLock()
        var results = #"{"atomic:results":[{"data":{"type":"notes","id":"7","attributes":{"title":"From the server"}}}]}"#
        var patched = #"{"data":{"type":"notes","id":"1","attributes":{"title":"Patched by the server"}}}"#
        var refusal: Int?
        private(set) var lists = 0

        func respond(_ request: HTTPRequest) -> HTTPResponse {
            lock.withLock {
                switch (request.method, request.url.path) {
                case (.get, "/v1/notes"):
                    lists += 1
                    var response = HTTPResponse.document(#"{"data":[{"type":"notes","id":"1","attributes":{"title":"Listed"}}]}"#)
                    response.headerFields[HTTPField.Name("Cache-Control")] = "max-age=86400"
                    return response
                case (.post, "/v1/notes"): return .document(WriteAnswerTests.created, status: 201)
                case (.post, "/v1/operations"): return .document(results)
                case (.patch, "/v1/notes/1"):
                    if let refusal { return .document(#"{"errors":[{"status":"\#(refusal)"}]}"#, status: refusal) }
                    return .document(patched)
                default: return HTTPResponse(status: 404)
                }
            }
        }
    }

    /// A session on `server` with a store, observed by a counter of the batches it is told.
    static func session(_ server: Server, mediaType: JSONAPIMediaType = JSONAPIMediaType()) -> (Session, Batches) {
        let api = Session(
            baseURL: exampleBase, client: ScriptedClient { server.respond($0) },
            configuration: .init(mediaType: mediaType, store: .init()))
        let batches = Batches()
        _ = api.store?.addObserver(type: nil) { changes, _ in batches.add(changes) }
        return (api, batches)
    }

    /// The batches an observer of every type was told.
    final class Batches: @unchecked Sendable {
        private let lock = NSLock()
        private var batches: [[StoreChange]] = []
        func add(_ changes: [StoreChange]) { lock.withLock { batches.append(changes) } }
        var all: [[StoreChange]] { lock.withLock { batches } }
        func reset() { lock.withLock { batches = [] } }
    }

    /// Lists the notes once through the store, so that a stored list of the type exists (fresh for a day).
    static func storeTheList(_ api: Session) async throws {
        _ = try await api.source(Note.self, .path("notes/<id>")).fetch().cachePolicy(.cacheFirst).result()
    }

    /// Whether the stored list is stale now: a `cacheFirst` read of it asks the server again.
    static func listIsStale(_ api: Session, _ server: Server) async throws -> Bool {
        let before = server.lock.withLock { server.lists }
        try await storeTheList(api)
        return server.lock.withLock { server.lists } > before
    }

    enum Path: String, CaseIterable {
        case single, graphInOrder, graphAtomic, atomic
    }

    /// Creates the note by `path`.
    static func create(by path: Path, in api: Session) async throws {
        switch path {
        case .single:
            _ = try await api.source(Note.self, .path("notes/<id>")).create(Note(title: "Sent"))
        case .graphInOrder, .graphAtomic:
            var graph = ResourceGraph()
            graph.add(Note(lid: "n1", title: "Sent"))
            _ = try await api.create(graph)
        case .atomic:
            _ = try await api.atomic([.add(ResourceObject(type: "notes", lid: "n1", attributes: ["title": "Sent"]))])
        }
    }

    @Test(
        "A created resource is stored as the server answered, the type's lists go stale, the observers hear once",
        arguments: Path.allCases)
    func createsTheSame(_ path: Path) async throws {
        let server = Server()
        let (api, batches) = Self.session(server, mediaType: path == .graphAtomic || path == .atomic ? Self.atomic : .init())
        let store = try #require(api.store)
        try await Self.storeTheList(api)
        batches.reset()
        try await Self.create(by: path, in: api)
        #expect(store.record(type: "notes", id: "7")?.attributes?["title"] == "From the server")
        #expect(batches.all.count == 1)
        #expect(batches.all.first?.contains(StoreChange(type: "notes", id: "7", kind: .updated)) == true)
        #expect(try await Self.listIsStale(api, server))
    }

    @Test("An Atomic Operations batch that adds and removes is one batch for the observers, its lists stale")
    func atomicBatchIsOneEvent() async throws {
        let server = Server()
        server.results = #"{"atomic:results":[{"data":{"type":"notes","id":"7","attributes":{"title":"From the server"}}},{}]}"#
        let (api, batches) = Self.session(server, mediaType: Self.atomic)
        let store = try #require(api.store)
        try await Self.storeTheList(api)
        _ = store.record(type: "notes", id: "1")  // merged now, not with the batch
        batches.reset()
        try await api.atomic([
            .add(ResourceObject(type: "notes", lid: "n1", attributes: ["title": "Sent"])),
            .remove(ResourceIdentifier(type: "notes", id: "1")),
        ])
        #expect(store.record(type: "notes", id: "7") != nil)
        #expect(store.record(type: "notes", id: "1") == nil)
        #expect(batches.all.count == 1)
        #expect(Set(batches.all.first ?? []) == [
            StoreChange(type: "notes", id: "7", kind: .updated), StoreChange(type: "notes", id: "1", kind: .removed),
        ])
        #expect(try await Self.listIsStale(api, server))
    }

    @Test("An optimistic write's answer confirms its layer with the server's version; a refused one is rolled back")
    func optimisticSettles() async throws {
        let server = Server()
        let (api, batches) = Self.session(server)
        let store = try #require(api.store)
        store.merge([ResourceObject(type: "notes", id: "1", attributes: ["title": "Before"])])
        let notes = api.source(Note.self, .path("notes/<id>"))
        let note = Note(id: "1", title: "Before")
        batches.reset()
        _ = try await notes.update(note, options: .optimistic) { $0.title = "Sent" }
        #expect(store.record(type: "notes", id: "1")?.attributes?["title"] == "Patched by the server")
        #expect(store.pendingChanges().isEmpty)
        #expect(batches.all.count == 2)  // the layer shown, then the answer
        server.lock.withLock { server.refusal = 422 }
        let refused = await expectThrows(JSONAPIClientError.self) {
            _ = try await notes.update(note, options: .optimistic) { $0.title = "Refused" }
        }
        #expect(refused?.rolledBack?.attributes?["title"] == "Refused")
        #expect(store.record(type: "notes", id: "1")?.attributes?["title"] == "Patched by the server")
        #expect(store.pendingChanges().isEmpty)
    }

    @Test("A write's answer is parsed once: its typed decode keeps the records the store takes", arguments: Path.allCases)
    func answerParsedOnce(_ path: Path) async throws {
        let server = Server()
        let (api, _) = Self.session(server, mediaType: path == .graphAtomic || path == .atomic ? Self.atomic : .init())
        let store = try #require(api.store)
        let body = Data((path == .graphAtomic || path == .atomic ? server.results : Self.created).utf8)
        let counter = ParseCounter(body)
        try await ParseCounter.$current.withValue(counter) {
            try await Self.create(by: path, in: api)
            _ = store.record(type: "notes", id: "7")  // a body left for the store to parse would be parsed here
        }
        #expect(counter.count == 1)
    }

    @Test("A write that changes a record while a fetched body waits for its decode: the observers hear of both")
    func waitingBodyToldWithAWrite() async throws {
        // A middleware removes a record on the way back of a `GET`: after the store step kept the page's body, before
        // the decode hands over its records. The removal merges the body first: its changes are told with it.
        struct RemoveOnTheWayBack: Middleware {
            let store: @Sendable () -> ResourceStore?
            func intercept(
                _ request: HTTPRequest, context: MiddlewareContext,
                next: @Sendable (HTTPRequest) async throws -> HTTPResponse
            ) async throws -> HTTPResponse {
                let response = try await next(request)
                store()?.remove(type: "people", id: "9")
                return response
            }
        }
        let holder = LockedValue<ResourceStore?>(nil)
        let api = Session(
            baseURL: exampleBase, client: ScriptedClient { server in Server().respond(server) },
            configuration: .init(
                middlewares: [RemoveOnTheWayBack(store: { holder.withLock { $0 } })], store: .init()))
        let store = try #require(api.store)
        holder.withLock { $0 = store }
        store.merge([ResourceObject(type: "people", id: "9", attributes: ["name": "Gone"])])
        let batches = Batches()
        _ = store.addObserver(type: nil) { changes, _ in batches.add(changes) }
        try await Self.storeTheList(api)
        let told = batches.all.flatMap { $0 }
        #expect(told.contains(StoreChange(type: "people", id: "9", kind: .removed)))
        #expect(told.contains(StoreChange(type: "notes", id: "1", kind: .updated)))
    }
}
