import Foundation
import Testing

@testable import JSONAPIClient

/// A queued write replayed against a real HTTP server (on 127.0.0.1) that answers `429` or `503` with `Retry-After`
/// before it lets the write through: the replay waits as the server says and delivers it.
@Suite("Write queue: a server that says wait")
struct WriteQueueRetryAfterTests {
    /// A server of `memos` that resets the connection of the first `count` … answers: `reset` first (the write
    /// cannot reach it and is queued), then each status of `answers` with its `Retry-After`, then 200.
    final class Script: @unchecked Sendable {
        private let lock = NSLock()
        private var replies: [LoopbackHTTPServer.Reply]
        init(_ replies: [LoopbackHTTPServer.Reply]) { self.replies = replies }
        func next() -> LoopbackHTTPServer.Reply {
            lock.withLock {
                replies.isEmpty
                    ? .response(
                        status: 200, headers: [.init(name: "Content-Type", value: "application/vnd.api+json")],
                        body: Memo.document(id: "1", title: "Sent"))
                    : replies.removeFirst()
            }
        }
    }

    static func wait(_ status: Int, _ retryAfter: String) -> LoopbackHTTPServer.Reply {
        .response(
            status: status,
            headers: [
                .init(name: "Retry-After", value: retryAfter),
                .init(name: "Content-Type", value: "application/vnd.api+json"),
            ],
            body: #"{"errors":[{"status":"\#(status)"}]}"#)
    }

    @Test(
        "429 three times with Retry-After: 1, or 503 once with Retry-After: 3600: waited as said, then delivered",
        arguments: [
            ([429, 429, 429], "1", [Duration.seconds(1), .seconds(1), .seconds(1)]),
            ([503], "3600", [.seconds(3600)]),
        ])
    func waitsAsTheServerSays(statuses: [Int], retryAfter: String, waits: [Duration]) async throws {
        let script = Script([.reset] + statuses.map { Self.wait($0, retryAfter) })
        let server = try LoopbackHTTPServer { _ in script.next() }
        let delays = Delays()
        let api = Session(
            baseURL: server.url("/"),
            configuration: .init(
                writes: .offline,
                writeQueue: .init(maxServerErrors: 1, maxAttempts: 2, sleep: { delays.record($0) })))
        let memos = api.source(Memo.self, .path("memos/<id>"))
        let (events, following) = Events.following(api.writeQueue.events())
        defer { following.cancel() }
        let response = try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Sent" }
        #expect(response.queued != nil)
        await api.writeQueue.replay()
        #expect(delays.all == waits)
        #expect(api.writeQueue.entries.isEmpty)
        var outcomes: [String] = []
        while let event = await events.next("the next event") {
            outcomes.append("\(event.outcome)")
            if case .delivered = event.outcome { break }
        }
        #expect(outcomes.first == "queued" && outcomes.last == "delivered(200)")
        #expect(!outcomes.contains { $0.hasPrefix("rejected") || $0.hasPrefix("failing") })
        #expect(server.requests.filter { $0.method == "PATCH" }.count == statuses.count + 2)
    }
}
