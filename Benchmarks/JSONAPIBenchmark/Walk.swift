import Foundation
import JSONAPIClient

/// The `walk-*` cases: a collection walked through the resource stream over an in-memory `Client` that answers each
/// request after a fixed latency, by a consumer that spends a comparable time on each page. `walk-sequential`
/// fetches each page when the consumer asks for it (`prefetch: 0`), `walk-prefetch` keeps the next page in flight
/// (the default), `walk-concurrent4` fetches up to four addressed pages at once; the ratios are to the sequential
/// walk.
enum Walk {
    static let pageCount = 20
    static let pageSize = 100
    static let latency = Duration.milliseconds(10)
    /// 10 ms, or `JSONAPI_BENCH_WALK_WORK_MS`: with the consumer as slow as the network, no walk can beat half the
    /// sequential time (the consumer's own share); a lighter consumer shows what concurrency adds.
    static let consumerTime = Duration.milliseconds(
        ProcessInfo.processInfo.environment["JSONAPI_BENCH_WALK_WORK_MS"].flatMap { Int($0) } ?? 10)
    static let label = "\(pageCount)x\(pageSize)"
    static let names = ["walk-sequential", "walk-prefetch", "walk-concurrent4"]

    /// Serves the pages as the pipeline's in-memory client does, after `latency`.
    struct SlowClient: Client {
        let pages: Pipeline.InMemoryClient

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            try await Task.sleep(for: latency)
            return try await pages.send(request)
        }
    }

    static func cases() throws -> [BenchmarkCase] {
        let pages = (1...pageCount).map { page in
            let link = { (number: Int) in
                #""https://bench.invalid/articles?include=author%2Ccomments.author&page%5Bnumber%5D=\#(number)&page%5Bsize%5D=\#(pageSize)""#
            }
            let next = page < pageCount ? link(page + 1) : "null"
            let document = GeneratedDocument(
                articles: pageSize, seed: 0x5EED_2000 &+ UInt64(page), firstArticle: (page - 1) * pageSize + 1,
                links: #"{"next":\#(next),"last":\#(link(pageCount))}"#)
            return Data(document.bytes)
        }
        guard let base = URL(string: "https://bench.invalid") else { throw BenchmarkFailure(description: "bad URL") }
        let bytes = pages.reduce(0) { $0 + $1.count }
        let resources = pageCount * pageSize
        let walk = { @Sendable (prefetch: Int, concurrency: Int) async throws -> [String] in
            let source = DataSource<Article>(
                baseURL: base, router: .path("articles/<id>"), client: SlowClient(pages: Pipeline.InMemoryClient(pages: pages)))
            var ids: [String] = []
            let request = source.fetch().include("author", "comments.author").page(.pageBased(1, pageSize))
            for try await page in request.pages(prefetch: prefetch, concurrency: concurrency) {
                ids += page.data?.map(\.id) ?? []
                try await Task.sleep(for: consumerTime)  // the consumer's work on the page
            }
            return ids
        }
        let expected = (1...resources).map(String.init)
        func make(_ name: String, floor: String?, prefetch: Int, concurrency: Int) -> BenchmarkCase {
            BenchmarkCase(
                name: name, floor: floor, bytes: bytes, resources: resources,
                run: { try Pipeline.runBlocking { try await walk(prefetch, concurrency) }.count },
                check: {
                    let ids = try Pipeline.runBlocking { try await walk(prefetch, concurrency) }
                    return ids == expected ? nil : "expected ids 1...\(resources) in order, got \(ids.count) ids"
                })
        }
        return [
            make("walk-sequential", floor: nil, prefetch: 0, concurrency: 1),
            make("walk-prefetch", floor: "walk-sequential", prefetch: 1, concurrency: 1),
            make("walk-concurrent4", floor: "walk-sequential", prefetch: 1, concurrency: 4),
        ]
    }
}
