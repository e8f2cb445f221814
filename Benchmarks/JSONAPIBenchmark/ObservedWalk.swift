import Foundation
import JSONAPIClient

/// The store's walk cases: 10,000 articles (with their authors and comments included) in 100 pages of 100, walked
/// through `pages()` over an in-memory transport with no latency, so that what the store costs is not hidden
/// behind the network. Each against `store-walk-bare`, the same walk in a session without a store:
///
/// - `store-walk`: a session with a store nobody reads.
/// - `store-walk-observed`: a session whose store is observed (`changes(of: Article.self)`, drained by a task, as a
///   list would): every page's records are merged as it arrives and the observer is told. Target ≤ 1.2.
enum ObservedWalk {
    static let pageCount = 100
    static let pageSize = 100
    static let label = "\(pageCount)x\(pageSize)"
    static let names = ["store-walk-bare", "store-walk", "store-walk-observed"]

    static func cases() throws -> [BenchmarkCase] {
        let pages = (1...pageCount).map { page in
            let link = { (number: Int) in
                #""https://bench.invalid/articles?include=author%2Ccomments.author&page%5Bnumber%5D=\#(number)&page%5Bsize%5D=\#(pageSize)""#
            }
            let next = page < pageCount ? link(page + 1) : "null"
            let document = GeneratedDocument(
                articles: pageSize, seed: 0x5EED_3000 &+ UInt64(page), firstArticle: (page - 1) * pageSize + 1,
                links: #"{"next":\#(next),"last":\#(link(pageCount))}"#)
            return Data(document.bytes)
        }
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
        return [
            make("store-walk-bare", floor: nil, store: nil, observed: false),
            make("store-walk", floor: "store-walk-bare", store: limits, observed: false),
            make("store-walk-observed", floor: "store-walk-bare", store: limits, observed: true),
        ]
    }
}
