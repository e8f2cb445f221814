import Dispatch
import Foundation
import JSONAPIClient

/// The `pipeline` case: a `DataSource` over an in-memory `Client` serving a paginated collection (each page a
/// compound document with its authors and comments, and a `next` link), consumed through the resource stream; its
/// floor, `pages-decode`, decodes the same pages with `JSONAPIDecoder` alone.
enum Pipeline {
    static let pageCount = 100
    static let pageSize = 100
    static let baseURL = "https://bench.invalid"
    static let label = "\(pageCount)x\(pageSize)"

    /// Serves the pages by their `page[number]`; 404 for anything else.
    struct InMemoryClient: Client {
        let pages: [Data]

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            guard let number = Self.pageNumber(in: request.url), pages.indices.contains(number - 1) else {
                return HTTPResponse(status: 404)
            }
            return HTTPResponse(
                status: 200, headerFields: [.contentType: "application/vnd.api+json"], body: pages[number - 1])
        }

        /// The `page[number]` of the query, brackets percent-encoded or not. Read from the bytes: this transport
        /// stands in for a server, and parsing the query with `URLComponents` (about 12,000 instructions a page) is
        /// the stand-in's cost, not the pipeline's.
        static func pageNumber(in url: URL) -> Int? {
            let text = Array(url.absoluteString.utf8)
            let markers = ["page%5Bnumber%5D=", "page[number]="].map { Array($0.utf8) }
            for marker in markers where text.count >= marker.count {
                for start in 0...(text.count - marker.count)
                where text[start..<start + marker.count].elementsEqual(marker) {
                    let digits = text[(start + marker.count)...].prefix { (0x30...0x39).contains($0) }
                    return Int(String(decoding: digits, as: UTF8.self))
                }
            }
            return nil
        }
    }

    static func cases() throws -> [BenchmarkCase] {
        let documents = (1...pageCount).map { page in
            let next =
                page < pageCount
                ? #"{"next":"\#(baseURL)/articles?include=author%2Ccomments.author&page%5Bnumber%5D=\#(page + 1)&page%5Bsize%5D=\#(pageSize)"}"#
                : #"{"next":null}"#
            return GeneratedDocument(
                articles: pageSize, seed: 0x5EED_1000 &+ UInt64(page), firstArticle: (page - 1) * pageSize + 1,
                links: next)
        }
        let pages = documents.map { Data($0.bytes) }
        let bytes = pages.reduce(0) { $0 + $1.count }
        let resources = pageCount * pageSize
        let decoder = JSONAPIDecoder()
        guard let base = URL(string: baseURL) else { throw BenchmarkFailure(description: "bad base URL") }

        // The floor's output is checked page by page against the generator; the pipeline's against the floor's.
        var expected = Checksum()
        for (document, page) in zip(documents, pages) {
            let articles = try decoder.decode(Document<[Article]>.self, from: page).data ?? []
            if let problem = document.check(articles) { throw BenchmarkFailure(description: "pages-decode: \(problem)") }
            for article in articles { expected.add(article) }
        }
        let expectedChecksum = expected.value

        let decodePages = {
            var count = 0
            for page in pages { count += try decoder.decode(Document<[Article]>.self, from: page).data?.count ?? 0 }
            return count
        }
        // Timed runs only count (as the floor does); the check also sums what it reads.
        let stream = { @Sendable (checksumming: Bool) async throws -> (count: Int, checksum: UInt64) in
            let source = DataSource<Article>(
                baseURL: base, router: .path("articles/<id>"), client: InMemoryClient(pages: pages))
            var count = 0
            var checksum = Checksum()
            let request = source.fetch().include("author", "comments.author").page(.pageBased(1, pageSize))
            for try await article in request.resources() {
                count += 1
                if checksumming { checksum.add(article) }
            }
            return (count, checksum.value)
        }
        return [
            BenchmarkCase(
                name: "pages-decode", floor: nil, bytes: bytes, resources: resources, run: decodePages,
                check: { nil }),
            BenchmarkCase(
                name: "pipeline", floor: "pages-decode", bytes: bytes, resources: resources,
                run: { try runBlocking { try await stream(false) }.count },
                check: {
                    let (count, checksum) = try runBlocking { try await stream(true) }
                    guard count == resources else { return "expected \(resources) resources, got \(count)" }
                    return checksum == expectedChecksum ? nil : "resolved checksum differs from decoding the pages"
                }),
        ]
    }

    /// Runs `body` on the cooperative pool and waits for it (the benchmark loop is synchronous).
    static func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        guard let result = box.result else { throw BenchmarkFailure(description: "the task ended without a result") }
        return try result.get()
    }
}

/// Carries a task's result back to the waiting thread (written before the semaphore is signalled, read after).
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

extension Checksum {
    /// Adds what a resolving decode must give for one article: its title, its author's name and each comment's
    /// author's name.
    mutating func add(_ article: Article) {
        add(article.title)
        add(article.author?.name ?? "-")
        for comment in article.comments { add(comment.author?.name ?? "-") }
    }
}
