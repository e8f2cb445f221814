import Foundation
import Testing

@testable import JSONAPIClient
import TestSupport

@Suite("RetryMiddleware")
struct RetryMiddlewareTests {
    /// Records the waits instead of sleeping.
    final class Waits: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [Duration] = []
        var all: [Duration] { lock.withLock { recorded } }
        func add(_ duration: Duration) { lock.withLock { recorded.append(duration) } }
    }

    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    func source(_ client: ScriptedClient, _ waits: Waits, maxAttempts: Int = 3) -> DataSource<Tag> {
        let retry = RetryMiddleware(
            configuration: .init(maxAttempts: maxAttempts, initialDelay: .milliseconds(100), maxDelay: .seconds(60)),
            sleep: { waits.add($0) }, now: { Self.now })
        return DataSource<Tag>(
            baseURL: exampleBase, strategy: .path("tags/<id>"), client: client,
            configuration: .init(middlewares: [retry]))
    }

    static func answers(_ responses: [HTTPResponse]) -> ScriptedClient {
        let counter = Waits()
        return ScriptedClient { _ in
            counter.add(.zero)
            let index = min(counter.all.count - 1, responses.count - 1)
            return responses[index]
        }
    }

    static let ok = HTTPResponse.document(#"{"data": []}"#)
    static func busy(_ status: Int, retryAfter: String?) -> HTTPResponse {
        var response = HTTPResponse.document(#"{"errors": [{"status": "\#(status)"}]}"#, status: status)
        if let retryAfter { response.headerFields[.retryAfter] = retryAfter }
        return response
    }

    @Test("429 with Retry-After in seconds: waits that long, then succeeds")
    func retryAfterSeconds() async throws {
        let client = Self.answers([Self.busy(429, retryAfter: "2"), Self.ok])
        let waits = Waits()
        let document = try await source(client, waits).fetch().result()
        #expect(document.data?.isEmpty == true)
        #expect(client.requests.count == 2)
        #expect(waits.all == [.seconds(2)])
    }

    @Test("Retry-After as an HTTP date; no Retry-After backs off exponentially")
    func retryAfterDateAndBackoff() async throws {
        let date = "Tue, 14 Nov 2023 22:13:25 GMT"  // 5 s after `now`
        let client = Self.answers([Self.busy(503, retryAfter: date), Self.busy(503, retryAfter: nil), Self.ok])
        let waits = Waits()
        _ = try await source(client, waits).fetch().result()
        #expect(waits.all == [.seconds(5), .milliseconds(200)])
        #expect(client.requests.count == 3)
    }

    @Test("Gives up after maxAttempts and returns the last response as an error")
    func givesUp() async throws {
        let client = Self.answers([Self.busy(429, retryAfter: "1")])
        let waits = Waits()
        await #expect(throws: JSONAPIClientError.self) { try await source(client, waits, maxAttempts: 3).fetch().result() }
        #expect(client.requests.count == 3)
        #expect(waits.all.count == 2)
    }

    @Test("A 503 to a POST is not retried; a wait longer than maxDelay is not waited for")
    func notRetried() async throws {
        let client = Self.answers([Self.busy(503, retryAfter: "1"), Self.ok])
        let waits = Waits()
        await #expect(throws: JSONAPIClientError.self) {
            try await source(client, waits).create(Tag(id: "", name: "new"))
        }
        #expect(client.requests.count == 1)

        let slow = Self.answers([Self.busy(429, retryAfter: "3600"), Self.ok])
        let error = await #expect(throws: JSONAPIClientError.self) { try await source(slow, waits).fetch().result() }
        #expect(error?.status?.code == 429)
        #expect(error?.responseHeaders?[.retryAfter] == "3600")
        #expect(slow.requests.count == 1)
        #expect(waits.all.isEmpty)
    }
}
