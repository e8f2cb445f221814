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
            configuration: .init(writes: .offline, writeQueue: .init(maxAttempts: 5, sleep: { delays.record($0) })))
        let memos = api.source(Memo.self, .path("memos/<id>"))
        let (events, following) = Events.following(api.writeQueue.events())
        defer { following.cancel() }
        let response = try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Sent" }
        #expect(response.queued != nil)
        await api.writeQueue.replay()  // returns at once before a wait past maxDelay: the replay goes on
        var outcomes: [String] = []
        while let event = await events.next("the next event") {
            outcomes.append("\(event.outcome)")
            if case .delivered = event.outcome { break }
        }
        #expect(delays.all == waits)
        #expect(api.writeQueue.entries.isEmpty)
        #expect(outcomes.first == "queued" && outcomes.last == "delivered(200)")
        #expect(!outcomes.contains { $0.hasPrefix("rejected") || $0.hasPrefix("failing") })
        #expect(server.requests.filter { $0.method == "PATCH" }.count == statuses.count + 2)
    }

    /// A wait that lasts until the test lets it end.
    final class Gate: @unchecked Sendable {
        private let lock = NSLock()
        private var open = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        func wait() async {
            await withCheckedContinuation { continuation in
                let now = lock.withLock { () -> Bool in
                    if !open { waiting.append(continuation) }
                    return open
                }
                if now { continuation.resume() }
            }
        }
        func release() {
            let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
                open = true
                defer { self.waiting = [] }
                return self.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    @Test("503 with Retry-After for ever: replay() returns, the entry failing at maxAttempts, and the write behind it delivered")
    func retryAfterForever() async throws {
        let server = try LoopbackHTTPServer { request in
            request.target.hasSuffix("/memos/1") ? Self.wait(503, "1") : .response(
                status: 200, headers: [.init(name: "Content-Type", value: "application/vnd.api+json")],
                body: Memo.document(id: "2", title: "Sent"))
        }
        let offline = LockedValue(true)
        let delays = Delays()
        let api = Session(
            baseURL: server.url("/"),
            client: CutOffClient(offline: offline),
            configuration: .init(writes: .offline, writeQueue: .init(sleep: { delays.record($0) }, now: { delays.now })))
        let memos = api.source(Memo.self, .path("memos/<id>"))
        let (events, following) = Events.following(api.writeQueue.events())
        defer { following.cancel() }
        #expect(try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Late" }.queued?.attempts == 0)
        #expect(try await memos.update(Memo(id: "2", title: "Draft")) { $0.title = "Sent" }.queued?.attempts == 0)
        await WriteQueueTests.idle(api.writeQueue)
        offline.withLock { $0 = false }
        await api.writeQueue.replay()
        #expect(api.writeQueue.entries.map(\.resourceID) == ["1"])
        #expect(api.writeQueue.entries.first?.isFailing == true && api.writeQueue.entries.first?.attempts == 10)
        #expect(delays.all == Array(repeating: .seconds(1), count: 10))
        var outcomes: [String] = []
        while let event = await events.next("the next event") {
            outcomes.append(String("\(event.outcome)".prefix { $0 != "(" }) + " " + event.entry.resourceID)
            if case .delivered = event.outcome { break }
        }
        #expect(outcomes.filter { $0.hasPrefix("failing") } == ["failing 1"])
        #expect(outcomes.last == "delivered 2")
        #expect(server.requests.filter { $0.target.hasSuffix("/memos/1") }.count == 10)
    }

    @Test("replay() returns before a Retry-After past maxDelay; the replay waits it in the background, then sends")
    func longWaitInTheBackground() async throws {
        let script = Script([.reset, Self.wait(503, "3600")])
        let server = try LoopbackHTTPServer { _ in script.next() }
        let gate = Gate()
        let delays = Delays()
        let api = Session(
            baseURL: server.url("/"),
            configuration: .init(
                writes: .offline,
                writeQueue: .init(
                    maxDelay: .seconds(60),
                    sleep: { delay in
                        delays.record(delay)
                        if delay > .seconds(60) { await gate.wait() }
                    })))
        let memos = api.source(Memo.self, .path("memos/<id>"))
        let (events, following) = Events.following(api.writeQueue.events())
        defer { following.cancel() }
        _ = try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Sent" }
        await api.writeQueue.replay()  // the wait has not ended: it returns all the same
        #expect(delays.all == [.seconds(3600)])
        #expect(api.writeQueue.entries.count == 1)
        await api.writeQueue.replay()  // joins the waiting replay: returns at once too
        gate.release()
        while let event = await events.next("delivered") {
            if case .delivered = event.outcome { break }
        }
        #expect(api.writeQueue.entries.isEmpty)
        #expect(server.requests.filter { $0.method == "PATCH" }.count == 3)
    }

    @Test("Once the long wait is over, replay() waits for the replay again: through its backoff, to the delivery")
    func afterTheLongWait() async throws {
        let script = Script([.reset, Self.wait(503, "3600"), Self.wait(500, "1")])
        let server = try LoopbackHTTPServer { _ in script.next() }
        let long = Gate()
        let short = Gate()
        let delays = Delays()
        let api = Session(
            baseURL: server.url("/"),
            configuration: .init(
                writes: .offline,
                writeQueue: .init(
                    sleep: { delay in
                        delays.record(delay)
                        await (delay > .seconds(60) ? long : short).wait()
                    })))
        let memos = api.source(Memo.self, .path("memos/<id>"))
        _ = try await memos.update(Memo(id: "1", title: "Draft")) { $0.title = "Sent" }
        await api.writeQueue.replay()  // returns before the hour
        long.release()
        for _ in 0..<10_000 where delays.all.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(delays.all == [.seconds(3600), .seconds(2)])  // the 500's backoff: the entry's second attempt
        let replayed = Task { await api.writeQueue.replay(); return api.writeQueue.entries.count }
        try await Task.sleep(for: .milliseconds(100))
        short.release()
        #expect(await replayed.value == 0)  // it returned only once the write was delivered
        #expect(server.requests.filter { $0.method == "PATCH" }.count == 4)
    }
}

/// The transport, cut off while `offline` holds (every request fails as without a network), else URLSession's.
final class CutOffClient: Client, @unchecked Sendable {
    let offline: LockedValue<Bool>
    let base = URLSessionClient()
    init(offline: LockedValue<Bool>) { self.offline = offline }
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if offline.withLock({ $0 }) { throw URLError(.notConnectedToInternet) }
        return try await base.send(request)
    }
}
