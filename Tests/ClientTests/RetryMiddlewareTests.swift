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

    func source(
        _ client: ScriptedClient, _ waits: Waits, maxAttempts: Int = 3, jitter: RetryMiddleware.Jitter = .none,
        random: Double = 0.5, maxDelay: Duration = .seconds(60)
    ) -> DataSource<ArticleTag> {
        let retry = RetryMiddleware(
            configuration: .init(
                maxAttempts: maxAttempts, initialDelay: .milliseconds(100), maxDelay: maxDelay, jitter: jitter),
            sleep: { waits.add($0) }, now: { Self.now }, random: { random })
        return DataSource<ArticleTag>(
            baseURL: exampleBase, router: .path("tags/<id>"), client: client,
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
            try await source(client, waits).create(ArticleTag(id: "", name: "new"))
        }
        #expect(client.requests.count == 1)

        let slow = Self.answers([Self.busy(429, retryAfter: "3600"), Self.ok])
        let error = await expectThrows(JSONAPIClientError.self) { try await source(slow, waits).fetch().result() }
        #expect(error?.status?.code == 429)
        #expect(error?.responseHeaders?[.retryAfter] == "3600")
        #expect(slow.requests.count == 1)
        #expect(waits.all.isEmpty)
    }

    @Test("A Retry-After date 30 days ahead is waited for exactly (no 32-bit milliseconds to overflow)")
    func retryAfterFarDate() async throws {
        let date = "Thu, 14 Dec 2023 22:13:20 GMT"  // 30 days after `now`
        let client = Self.answers([Self.busy(503, retryAfter: date), Self.ok])
        let waits = Waits()
        _ = try await source(client, waits, maxDelay: .seconds(31 * 86_400)).fetch().result()
        #expect(waits.all == [.seconds(30 * 86_400)])
        #expect(client.requests.count == 2)
    }

    @Test(
        "Retry-After beyond maxDelay or unreadable ends the retries with the response's status",
        arguments: [
            "61", "99999999999999999999", "Tue, 14 Nov 300000000 22:13:25 GMT", "soon", "-1", "1.5", "", "Tue, 14 Nov",
        ])
    func retryAfterNotWaited(_ value: String) async throws {
        let client = Self.answers([Self.busy(503, retryAfter: value), Self.ok])
        let waits = Waits()
        let error = await expectThrows(JSONAPIClientError.self) { try await source(client, waits).fetch().result() }
        #expect(error?.status?.code == 503)
        #expect(client.requests.count == 1)
        #expect(waits.all.isEmpty)
    }

    @Test("Retry-After of exactly maxDelay, zero, or a date already past is waited for (the past as zero)")
    func retryAfterEdges() async throws {
        for (value, wait) in [("60", Duration.seconds(60)), ("0", .zero), ("Tue, 14 Nov 2023 22:13:00 GMT", .zero)] {
            let client = Self.answers([Self.busy(429, retryAfter: value), Self.ok])
            let waits = Waits()
            _ = try await source(client, waits).fetch().result()
            #expect(waits.all == [wait], "\(value)")
            #expect(client.requests.count == 2)
        }
    }

    @Test("A backoff past maxDelay is not waited for")
    func backoffPastMaxDelay() async throws {
        let client = Self.answers([Self.busy(503, retryAfter: nil), Self.ok])
        let waits = Waits()
        await #expect(throws: JSONAPIClientError.self) {
            try await source(client, waits, maxDelay: .milliseconds(99)).fetch().result()
        }
        #expect(client.requests.count == 1)
        let exact = Self.answers([Self.busy(503, retryAfter: nil), Self.ok])
        _ = try await source(exact, waits, maxDelay: .milliseconds(100)).fetch().result()
        #expect(waits.all == [.milliseconds(100)])
    }

    @Test("Jitter: full draws from zero to the backoff, equal from half of it, none is the backoff; Retry-After is exact")
    func jitter() async throws {
        for (jitter, random, expected) in [
            (RetryMiddleware.Jitter.full, 0.25, [Duration.milliseconds(25), .milliseconds(50)]),
            (.full, 0.0, [.zero, .zero]),
            (.equal, 0.5, [.milliseconds(75), .milliseconds(150)]),
            (.equal, 0.0, [.milliseconds(50), .milliseconds(100)]),
            (.none, 0.9, [.milliseconds(100), .milliseconds(200)]),
        ] {
            let client = Self.answers([Self.busy(503, retryAfter: nil), Self.busy(503, retryAfter: nil), Self.ok])
            let waits = Waits()
            _ = try await source(client, waits, jitter: jitter, random: random).fetch().result()
            #expect(waits.all == expected, "\(jitter) with \(random)")
        }
        let client = Self.answers([Self.busy(503, retryAfter: "2"), Self.ok])
        let waits = Waits()
        _ = try await source(client, waits, jitter: .full, random: 0.1).fetch().result()
        #expect(waits.all == [.seconds(2)])
        // A random number outside 0..<1 is clamped: never more than the backoff, never negative.
        #expect(RetryMiddleware.Jitter.full.delay(for: .seconds(1), random: 7) == .seconds(1))
        #expect(RetryMiddleware.Jitter.equal.delay(for: .seconds(1), random: -1) == .milliseconds(500))
        #expect(RetryMiddleware.Configuration().jitter == .full)
    }

    @Test("502, 503 and 504 are retried for a GET and a DELETE, not for a POST", arguments: [502, 503, 504])
    func gatewayStatuses(_ status: Int) async throws {
        let waits = Waits()
        let get = Self.answers([Self.busy(status, retryAfter: nil), Self.ok])
        _ = try await source(get, waits).fetch().result()
        #expect(get.requests.count == 2)
        let delete = Self.answers([Self.busy(status, retryAfter: nil), HTTPResponse(status: 204)])
        try await source(delete, waits).delete(id: "1")
        #expect(delete.requests.map(\.method) == [.delete, .delete])
        let post = Self.answers([Self.busy(status, retryAfter: nil), Self.ok])
        let error = await expectThrows(JSONAPIClientError.self) { try await source(post, waits).create(ArticleTag(id: "", name: "new")) }
        #expect(error?.status?.code == status)
        #expect(post.requests.count == 1)
    }

    /// Fails the first `failures` requests with a transport error, then answers `ok`.
    static func failing(_ failures: Int) -> ScriptedClient {
        let counter = Waits()
        return ScriptedClient { _ in
            counter.add(.zero)
            if counter.all.count <= failures { throw URLError(.networkConnectionLost) }
            return ok
        }
    }

    @Test("A transport error is retried for idempotent methods, with the backoff; not for a POST or PATCH")
    func transportErrors() async throws {
        let waits = Waits()
        let get = Self.failing(2)
        let document = try await source(get, waits).fetch().result()
        #expect(document.data?.isEmpty == true)
        #expect(get.requests.count == 3)
        #expect(waits.all == [.milliseconds(100), .milliseconds(200)])

        let post = Self.failing(1)
        let error = await expectThrows(JSONAPIClientError.self) { try await source(post, waits).create(ArticleTag(id: "", name: "new")) }
        #expect(error?.code == .transportFailed)
        #expect(post.requests.count == 1)

        let patch = Self.failing(1)
        await #expect(throws: JSONAPIClientError.self) {
            try await source(patch, waits).update(ArticleTag(id: "1", name: "old")) { $0.name = "new" }
        }
        #expect(patch.requests.count == 1)

        let off = Self.failing(1)
        let retry = RetryMiddleware(
            configuration: .init(retriesTransportErrors: false), sleep: { waits.add($0) }, now: { Self.now })
        let unretried = DataSource<ArticleTag>(
            baseURL: exampleBase, router: .path("tags/<id>"), client: off, configuration: .init(middlewares: [retry]))
        await #expect(throws: JSONAPIClientError.self) { try await unretried.fetch().result() }
        #expect(off.requests.count == 1)
    }

    @Test("maxAttempts is the limit itself: 1 (and 0) never retries; n sends at most n times, and succeeds on the nth")
    func attemptLimits() async throws {
        for limit in [0, 1] {
            let waits = Waits()
            let busy = Self.answers([Self.busy(429, retryAfter: "1"), Self.ok])
            await #expect(throws: JSONAPIClientError.self) { try await source(busy, waits, maxAttempts: limit).fetch().result() }
            #expect(busy.requests.count == 1)
            let broken = Self.failing(1)
            await #expect(throws: JSONAPIClientError.self) { try await source(broken, waits, maxAttempts: limit).fetch().result() }
            #expect(broken.requests.count == 1)
            #expect(waits.all.isEmpty)
        }
        let waits = Waits()
        let lastChance = Self.failing(2)
        _ = try await source(lastChance, waits, maxAttempts: 3).fetch().result()
        #expect(lastChance.requests.count == 3)
        let tooMany = Self.failing(3)
        await #expect(throws: JSONAPIClientError.self) { try await source(tooMany, waits, maxAttempts: 3).fetch().result() }
        #expect(tooMany.requests.count == 3)
    }

    @Test("Cancellation is not retried")
    func cancellationNotRetried() async throws {
        let waits = Waits()
        let client = ScriptedClient { _ in throw CancellationError() }
        await #expect(throws: CancellationError.self) { try await source(client, waits).fetch().result() }
        #expect(client.requests.count == 1)
        #expect(waits.all.isEmpty)
    }
}
