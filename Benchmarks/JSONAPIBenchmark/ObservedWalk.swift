import Foundation
import JSONAPIClient

/// The store's walk cases: 10,000 articles (with their authors and comments included) in 100 pages of 100 (every page
/// agreeing on each of the 10 people, as a server's pages do), walked
/// through `pages()` over an in-memory transport with no latency, so that what the store costs is not hidden
/// behind the network. Each against `store-walk-bare`, the same walk in a session without a store:
///
/// - `store-walk`: a session with a store nobody reads.
/// - `store-walk-observed`: a session whose store is observed (`changes(of: Article.self)`, drained by a task, as a
///   list would): every page's records are merged as it arrives and the observer is told. Target ≤ 1.2.
/// - `live-apply`: a `LiveList` holds all 10,000 articles; the walk is done again elsewhere in the session, and
///   every article has changed (another version of every page): the time until the list shows every new title,
///   against `store-walk` (the same walk with no list). Target ≤ 1.5. The list's work runs on the main actor, which
///   the benchmark's main thread serves by running its run loop until the list is up to date.
/// - `store-walk-observer-program`: the walk as a program on the public API writes it — a store with the default
///   limits (10,000 records: the walk's 41,000 evict), `pages()` with its default prefetch — while a task consumes
///   `store.changes(of: Article.self)`, and the walk ends once that task has taken every article's change (the
///   observed case cancels its task when the walk ends, whatever it has not taken yet).
enum ObservedWalk {
    static let pageCount = 100
    static let pageSize = 100
    static let label = "\(pageCount)x\(pageSize)"
    static let names = ["store-walk-bare", "store-walk", "store-walk-observed", "store-walk-observer-program", "live-apply"]

    /// The pages of the collection: version `version` of each (another version changes every resource).
    static func pages(version: UInt64) -> [Data] {
        (1...pageCount).map { page in
            let link = { (number: Int) in
                #""https://bench.invalid/articles?include=author%2Ccomments.author&page%5Bnumber%5D=\#(number)&page%5Bsize%5D=\#(pageSize)""#
            }
            let next = page < pageCount ? link(page + 1) : "null"
            let document = GeneratedDocument(
                articles: pageSize, seed: 0x5EED_3000 &+ UInt64(page) &+ version << 32,
                firstArticle: (page - 1) * pageSize + 1, links: #"{"next":\#(next),"last":\#(link(pageCount))}"#,
                peopleSeed: 0x5EED_4000 &+ version)
            return Data(document.bytes)
        }
    }

    static func cases(liveApply selected: Bool = true) throws -> [BenchmarkCase] {
        let pages = pages(version: 0)
        guard let base = URL(string: "https://bench.invalid") else { throw BenchmarkFailure(description: "bad URL") }
        let bytes = pages.reduce(0) { $0 + $1.count }
        let resources = pageCount * pageSize
        let client = Pipeline.InMemoryClient(pages: pages)
        let walk = { @Sendable (store: ResourceStore.Configuration?, observed: Bool) async throws -> [String] in
            let api = Session(baseURL: base, client: client, configuration: .init(store: store))
            var observer: Task<Int, Never>?
            if observed, let store = api.store {
                let changes = store.changes(of: Article.self)
                observer = Task { var count = 0; for await _ in changes { count += 1 }; return count }
            }
            var ids: [String] = []
            let request = api.source(Article.self, .path("articles/<id>")).fetch().include("author", "comments.author")
                .page(.pageBased(1, pageSize))
            for try await page in request.pages(prefetch: 0) { ids += page.data?.map(\.id) ?? [] }
            observer?.cancel()
            return ids
        }
        let limits = ResourceStore.Configuration(maxResources: 100_000, maxResponseBytes: 256 << 20)
        let expected = (1...resources).map(String.init)
        func make(_ name: String, floor: String?, store: ResourceStore.Configuration?, observed: Bool) -> BenchmarkCase {
            BenchmarkCase(
                name: name, floor: floor, bytes: bytes, resources: resources,
                run: { try Pipeline.runBlocking { try await walk(store, observed) }.count },
                check: {
                    let ids = try Pipeline.runBlocking { try await walk(store, observed) }
                    return ids == expected ? nil : "expected ids 1...\(resources) in order, got \(ids.count) ids"
                })
        }
        // The program: the default store, the default prefetch, an observer whose every change is taken.
        let program = { @Sendable () async throws -> [String] in
            let api = Session(baseURL: base, client: client, configuration: .init(store: .init()))
            guard let store = api.store else { throw BenchmarkFailure(description: "the session has no store") }
            let changes = store.changes(of: Article.self)
            let observer = Task {
                var seen = 0
                for await change in changes where change.kind == .updated {
                    seen += 1
                    if seen == resources { break }
                }
                return seen
            }
            var ids: [String] = []
            let request = api.source(Article.self, .path("articles/<id>")).fetch().include("author", "comments.author")
                .page(.pageBased(1, pageSize))
            for try await page in request.pages() { ids += page.data?.map(\.id) ?? [] }
            guard await observer.value == resources else { throw BenchmarkFailure(description: "changes missed") }
            return ids
        }
        var cases = [
            make("store-walk-bare", floor: nil, store: nil, observed: false),
            make("store-walk", floor: "store-walk-bare", store: limits, observed: false),
            make("store-walk-observed", floor: "store-walk-bare", store: limits, observed: true),
            BenchmarkCase(
                name: "store-walk-observer-program", floor: "store-walk-bare", bytes: bytes, resources: resources,
                run: { try Pipeline.runBlocking { try await program() }.count },
                check: {
                    let ids = try Pipeline.runBlocking { try await program() }
                    return ids == expected ? nil : "expected ids 1...\(resources) in order, got \(ids.count) ids"
                }),
        ]
        if selected, #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
            cases.append(try liveApply(base: base, bytes: bytes, limits: limits))
        }
        return cases
    }

    /// Serves one version of the pages at a time.
    final class VersionedPages: Client, @unchecked Sendable {
        private let lock = NSLock()
        private let versions: [Pipeline.InMemoryClient]
        private var current = 0
        init(_ versions: [[Data]]) { self.versions = versions.map { Pipeline.InMemoryClient(pages: $0) } }
        /// Serves the next version from now on.
        func advance() { lock.withLock { current = (current + 1) % versions.count } }
        var version: Int { lock.withLock { current } }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            try await lock.withLock { versions[current] }.send(request)
        }
    }

    /// Runs the main run loop until `done` holds (10 minutes at most), so that the main actor's work gets done.
    static func runMainLoop(until done: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(600)
        while !done() {
            guard Date() < deadline else { throw BenchmarkFailure(description: "the main actor's work did not end") }
            _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.001))
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    static func liveApply(base: URL, bytes: Int, limits: ResourceStore.Configuration) throws -> BenchmarkCase {
        let resources = pageCount * pageSize
        let versions = (0..<2).map { pages(version: UInt64($0)) }
        // The title each version gives the last article, to tell when the list shows the version.
        let client = VersionedPages(versions)
        let api = Session(baseURL: base, client: client, configuration: .init(store: limits))
        let request = api.source(Article.self, .path("articles/<id>")).fetch().include("author", "comments.author")
            .page(.pageBased(1, pageSize))
        let list = MainActor.assumeIsolated { request.liveList(prefetch: 0) }
        let loaded = Flag()
        Task { @MainActor in
            await list.load()
            while list.hasMore { await list.loadMore() }
            loaded.set()
        }
        try runMainLoop { loaded.isSet }
        guard MainActor.assumeIsolated({ list.resources.count }) == resources else {
            throw BenchmarkFailure(description: "live-apply: the list holds \(MainActor.assumeIsolated { list.resources.count })")
        }
        // What every article's title is in each version, decoded from its pages (not through the session).
        let titles = try versions.map { pages in
            try pages.flatMap { try JSONAPIDecoder().decode(Document<[Article]>.self, from: $0).data ?? [] }.map(\.title)
        }
        // A refresh elsewhere: the next version walked, then the main actor run until the list shows its last
        // article's new title (the list applies the pages' changes in order: every earlier one is shown by then).
        let refresh = { () throws -> Int in
            client.advance()
            let expected = titles[client.version]
            let count = try Pipeline.runBlocking { try await request.pages(prefetch: 0).reduce(0) { $0 + ($1.data?.count ?? 0) } }
            try runMainLoop { MainActor.assumeIsolated { list.resources.last?.title == expected.last } }
            return count
        }
        return BenchmarkCase(
            name: "live-apply", floor: "store-walk", bytes: bytes, resources: resources, run: refresh,
            check: {
                guard try refresh() == resources else { return "the walk did not deliver \(resources) articles" }
                let shown = MainActor.assumeIsolated { list.resources.map(\.title) }
                return shown == titles[client.version] ? nil : "the list does not show every new title"
            })
    }
}

/// A flag set once, read from any thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
