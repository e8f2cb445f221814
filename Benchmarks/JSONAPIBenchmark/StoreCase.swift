import Foundation
import JSONAPIClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The store's cases, on the generated document, each against `decode-typed` (what the same response costs an app
/// without a store):
///
/// - `store-merge`: what a response through the store adds to its typed decode — the typed decode keeping the
///   document's records from its parse (`decodeKeepingRecords`, as the session decodes a body the store keeps),
///   then merging them into an empty store (N articles, N/10 people, 3N comments: 4.1 N records); its ratio is
///   what it adds, (time − `decode-typed`) / `decode-typed`.
/// - `store-read`: every article, typed, from a store holding that document (`resources(Article.self)`: the
///   records' nodes copied into one tape and decoded; nothing written or parsed).
/// - `store-save`: `flush()` of a persisted store holding that document's records and its stored response, after
///   a one-record change: that record's row written, in one transaction.
/// - `store-read-pending`: `store-read` while one optimistic write waits for its answer, on a record no article
///   reaches (a person of its own); against `store-read` (the target is ≤ 1.1).
/// - `store-load`: opening a new store on that directory and reading every article typed from it
///   (`resources(Article.self)`): the stored responses read when it opens, then the records' rows as the read asks
///   for them (the articles' ids, their rows, then the rows their linkage reaches), and the decode.
/// - `sqlite-floor-select`: the rows `store-load` reads (every row of the store's tables of that database), through
///   SQLite's C API alone (`SQLiteFloor.select`): the floor of `store-load`, whose target is ≤ 1.3 × this plus
///   `decode-typed` (issue 43).
/// - `store-save-cold`: `store-load`, then a one-record change and `flush()`: this less `store-load` is the first
///   save after opening.
enum StoreCase {
    static let names = [
        "store-merge", "store-read", "store-read-pending", "store-save", "sqlite-floor-select", "store-load",
        "store-save-cold",
    ]

    /// A transport that answers every request with the same response.
    struct FixedClient: Client {
        let response: HTTPResponse
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { response }
    }

    static func cases(for document: GeneratedDocument, selected: Set<String>) throws -> [BenchmarkCase] {
        guard !selected.isDisjoint(with: names) else { return [] }
        let data = Data(document.bytes)
        let decoder = JSONAPIDecoder()
        let records = document.articleCount + document.peopleCount + document.commentCount
        let limits = ResourceStore.Configuration(maxResources: 10 * records + 10, maxResponseBytes: 4 * data.count + 1024)
        var cases: [BenchmarkCase] = []

        if selected.contains("store-merge") {
            cases.append(
                BenchmarkCase(
                    name: "store-merge", floor: "decode-typed", bytes: data.count, addsToFloor: true,
                    run: {
                        let (document, _, kept) = try decoder.decodeKeepingRecords(
                            Document<[Article]>.self, from: data, resourceMeta: false)
                        let store = ResourceStore(configuration: limits)
                        if let kept { store.merge(kept) }
                        return store.count + (document.data?.count ?? 0)
                    },
                    check: {
                        let (_, _, kept) = try decoder.decodeKeepingRecords(
                            Document<[Article]>.self, from: data, resourceMeta: false)
                        let store = ResourceStore(configuration: limits)
                        if let kept { store.merge(kept) }
                        guard store.count == records else { return "expected \(records) records, got \(store.count)" }
                        let articles = try store.resources(Article.self).sorted { (Int($0.id) ?? 0) < (Int($1.id) ?? 0) }
                        return document.check(articles)
                    }))
        }

        // A persisted store filled the way an app fills it: one fetch of the document through a session.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-bench-store-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: directory)
        var persisted = limits
        persisted.persistence = .init(directory: directory, delay: .seconds(3600))
        var response = HTTPResponse(status: .ok, headerFields: ["Content-Type": "application/vnd.api+json"], body: data)
        response.headerFields.append("Cache-Control", "max-age=86400")
        response.headerFields.append("ETag", "\"bench\"")
        let api = Session(
            baseURL: URL(string: "https://bench.example.com")!, client: FixedClient(response: response),
            configuration: .init(store: persisted))
        guard let store = api.store else { throw BenchmarkFailure(description: "the session has no store") }
        _ = try Pipeline.runBlocking {
            try await api.fetch(URL(string: "articles")!, as: [Article].self).result().data?.count ?? 0
        }
        _ = store.count  // merged now, not in the first timed run
        try Pipeline.runBlocking { try await store.flush() }
        let saves = Counter()

        if selected.contains("store-read") {
            cases.append(
                BenchmarkCase(
                    name: "store-read", floor: "decode-typed", bytes: data.count,
                    run: { try store.resources(Article.self).count },
                    check: {
                        let articles = try store.resources(Article.self).sorted { (Int($0.id) ?? 0) < (Int($1.id) ?? 0) }
                        return document.check(articles)
                    }))
        }
        if selected.contains("store-read-pending") {
            let pending = try pendingStore(data: data, limits: limits)
            cases.append(
                BenchmarkCase(
                    name: "store-read-pending", floor: "store-read", bytes: data.count,
                    run: { try pending.resources(Article.self).count },
                    check: {
                        guard pending.pendingChanges().count == 1 else { return "no write pending" }
                        let articles = try pending.resources(Article.self).sorted { (Int($0.id) ?? 0) < (Int($1.id) ?? 0) }
                        return document.check(articles)
                    }))
        }
        if selected.contains("store-save") {
            cases.append(
                BenchmarkCase(
                    name: "store-save", floor: "decode-typed", bytes: data.count,
                    run: {
                        store.merge([ResourceObject(type: "bench", id: "1", attributes: ["n": .string("\(saves.next())")])])
                        try Pipeline.runBlocking { try await store.flush() }
                        return store.count
                    },
                    check: {
                        store.merge([ResourceObject(type: "bench", id: "1", attributes: ["n": .string("check")])])
                        try Pipeline.runBlocking { try await store.flush() }
                        let reopened = ResourceStore(configuration: persisted)
                        guard reopened.record(type: "bench", id: "1")?.attributes?["n"] == .string("check") else {
                            return "the change was not saved"
                        }
                        return nil
                    }))
        }
        if selected.contains("sqlite-floor-select") {
            // The engine's floor of `store-load`: the same database's rows read through SQLite's C API alone.
            let path = directory.appendingPathComponent("JSONAPIClient/default.sqlite").path
            cases.append(
                BenchmarkCase(
                    name: "sqlite-floor-select", floor: nil, bytes: data.count,
                    run: { try SQLiteFloor.select(path).count },
                    check: {
                        let rows = try SQLiteFloor.select(path).count
                        return rows >= records ? nil : "read \(rows) rows, fewer than the \(records) records"
                    }))
        }
        if selected.contains("store-load") {
            cases.append(
                BenchmarkCase(
                    name: "store-load", floor: "decode-typed", bytes: data.count,
                    run: { try ResourceStore(configuration: persisted).resources(Article.self).count },
                    check: {
                        let loaded = ResourceStore(configuration: persisted)
                        let articles = try loaded.resources(Article.self).sorted { (Int($0.id) ?? 0) < (Int($1.id) ?? 0) }
                        let usage = loaded.usage
                        guard usage.records >= records, usage.responses == 1 else {
                            return "loaded \(usage.records) records and \(usage.responses) responses"
                        }
                        return document.check(articles)
                    }))
        }
        if selected.contains("store-save-cold") {
            cases.append(
                BenchmarkCase(
                    name: "store-save-cold", floor: "decode-typed", bytes: data.count,
                    run: {
                        let opened = ResourceStore(configuration: persisted)
                        opened.merge([ResourceObject(type: "bench", id: "1", attributes: ["n": .string("\(saves.next())")])])
                        try Pipeline.runBlocking { try await opened.flush() }
                        return opened.count
                    },
                    check: { nil }))
        }
        return cases
    }
}

extension StoreCase {
    /// A transport whose writes never end (until the process does): an optimistic write through it stays pending.
    struct PendingClient: Client {
        let response: HTTPResponse
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            guard request.method == .get else {
                try await Task.sleep(for: .seconds(86_400))
                throw CancellationError()
            }
            return response
        }
    }

    /// A store holding the document's records (fetched through a session) and one optimistic update pending on a
    /// person of its own, which no article names.
    static func pendingStore(data: Data, limits: ResourceStore.Configuration) throws -> ResourceStore {
        let response = HTTPResponse(status: .ok, headerFields: ["Content-Type": "application/vnd.api+json"], body: data)
        let api = Session(
            baseURL: URL(string: "https://bench.example.com")!, client: PendingClient(response: response),
            configuration: .init(store: limits))
        guard let store = api.store else { throw BenchmarkFailure(description: "the session has no store") }
        _ = try Pipeline.runBlocking {
            try await api.fetch(URL(string: "articles")!, as: [Article].self).result().data?.count ?? 0
        }
        store.merge([ResourceObject(type: "people", id: "pending", attributes: ["name": "Before", "email": "p@example.com"])])
        let people = api.source(Person.self, .path("people/<id>"))
        let person = Person(id: "pending", name: "Before", email: "p@example.com")
        Task { _ = try? await people.update(person, options: .optimistic) { $0.name = "After" } }
        let deadline = Date().addingTimeInterval(10)
        while store.pendingChanges().isEmpty, Date() < deadline { usleep(1000) }
        _ = store.count  // merged now, not in the first timed run
        return store
    }
}

/// Counts the saves, so each one has a change to write.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}
