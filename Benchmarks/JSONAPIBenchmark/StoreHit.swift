import Foundation
import JSONAPIClient

/// The `store-hit` case: `cacheFirst` reads of one stored resource whose response is fresh, answered from the store
/// and never sent — what a screen that reads a resource the store already has pays per request. One run is
/// ``requests`` such reads, one after the other, in one task (a run's figure divided by ``requests`` is one read's);
/// no floor.
enum StoreHit {
    static let name = "store-hit"
    /// The reads in one run.
    static let requests = 100
    static let label = "1x\(requests)"

    /// The one article, with no relationships included.
    static let body = Data(
        #"{"data":{"type":"articles","id":"1","attributes":{"title":"Stored","body":"Read from the store","created":"2024-01-02T03:04:05Z","viewCount":7,"tags":["a","b"]},"relationships":{"author":{"data":null},"comments":{"data":[]}}}}"#
            .utf8)

    static func cases() throws -> [BenchmarkCase] {
        guard let base = URL(string: "https://bench.invalid") else { throw BenchmarkFailure(description: "bad URL") }
        var response = HTTPResponse(status: .ok, headerFields: ["Content-Type": "application/vnd.api+json"], body: body)
        response.headerFields.append("Cache-Control", "max-age=86400")
        let client = CountingSends(response: response)
        let api = Session(baseURL: base, client: client, configuration: .init(store: .init()))
        let articles = api.source(Article.self, .path("articles/<id>"))
        let read = { @Sendable () async throws -> Int in
            try await articles.fetch(id: "1").cachePolicy(.cacheFirst).result().data?.viewCount ?? 0
        }
        // Stored, and its records used once, before the first timed run.
        _ = try Pipeline.runBlocking { try await read() }
        let run = { () throws -> Int in
            try Pipeline.runBlocking {
                var total = 0
                for _ in 0..<requests { total += try await read() }
                return total
            }
        }
        return [
            BenchmarkCase(
                name: name, floor: nil, bytes: body.count * requests, resources: requests, run: run,
                check: {
                    let sent = client.count
                    guard try run() == 7 * requests else { return "the reads did not give the stored article" }
                    return client.count == sent ? nil : "a read was sent: \(client.count - sent) requests"
                })
        ]
    }

    /// A transport that answers every request with `response`, and counts them.
    final class CountingSends: Client, @unchecked Sendable {
        private let lock = NSLock()
        private var sent = 0
        let response: HTTPResponse
        init(response: HTTPResponse) { self.response = response }
        var count: Int { lock.withLock { sent } }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            lock.withLock { sent += 1 }
            return response
        }
    }
}
