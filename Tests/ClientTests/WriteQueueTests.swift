import Foundation
import JSONAPIClientTesting
import Testing

@testable import JSONAPIClient

/// A scripted server of `memos` that can be cut off: offline, every request fails in the transport; online, a write
/// is answered with what it sent (`POST` 201, `PATCH` 200, `DELETE` 204), or with the statuses queued by ``fail``.
final class FlakyMemos: @unchecked Sendable {
    private let lock = NSLock()
    private var online = false
    private var statuses: [Int] = []
    private var log: [String] = []
    private(set) var client: ScriptedClient!

    init() {
        client = ScriptedClient { [weak self] request in
            guard let self else { throw CancellationError() }
            return try self.respond(request)
        }
    }

    func go(online: Bool) { lock.withLock { self.online = online } }
    /// The next requests that reach the server are answered with these error statuses, one each.
    func fail(with statuses: Int...) { lock.withLock { self.statuses += statuses } }
    /// The requests that reached the server: `PATCH /memos/1 {"title":"A"}` (the body's title, if any).
    var served: [String] { lock.withLock { log } }

    private func respond(_ request: HTTPRequest) throws -> HTTPResponse {
        let status = try lock.withLock { () throws -> Int? in
            guard online else { throw URLError(.notConnectedToInternet) }
            let sent = request.body.flatMap { try? JSONAPIDecoder().decode(RawDocument.self, from: $0) }
            let title = sent.flatMap { document -> JSONValue? in
                guard case .resource(let object)? = document.data else { return nil }
                return object.attributes?["title"]
            }
            log.append("\(request.method) \(request.url.path)" + (title.map { " \($0)" } ?? ""))
            return statuses.isEmpty ? nil : statuses.removeFirst()
        }
        if let status { return .document(#"{"errors":[{"status":"\#(status)"}]}"#, status: status) }
        switch request.method {
        case .get: return .document(Memo.document(id: request.url.lastPathComponent, title: "Fetched"))
        case .delete: return HTTPResponse(status: .noContent)
        default:
            var body = request.body ?? Data()
            if request.method == .post, var document = try? JSONAPIDecoder().decode(RawDocument.self, from: body),
                case .resource(var object)? = document.data, object.id == nil
            {
                object.id = "100"
                document.data = .resource(object)
                body = (try? JSONAPIEncoder().encode(document)) ?? body
            }
            return HTTPResponse(
                status: request.method == .post ? .created : .ok,
                headerFields: ["Content-Type": "application/vnd.api+json"], body: body)
        }
    }
}

/// The delays a queue waited, without waiting, and the time by a clock that only they move.
final class Delays: @unchecked Sendable {
    private let lock = NSLock()
    private var waited: [Duration] = []
    private var time = Date(timeIntervalSince1970: 1_700_000_000)
    var all: [Duration] { lock.withLock { waited } }
    /// The fake clock's time.
    var now: Date { lock.withLock { time } }
    func record(_ delay: Duration) {
        lock.withLock {
            waited.append(delay)
            time += WriteQueue.StateMachine.seconds(delay)
        }
    }
    /// Moves the fake clock on, as time passes between writes.
    func advance(_ seconds: TimeInterval) { lock.withLock { time += seconds } }
}

@Suite("Write queue")
struct WriteQueueTests {
    static let draft = Memo(id: "1", title: "Draft")

    /// A session on `server` whose queue waits no time (the delays are recorded), with memo 1 "Draft" in its store.
    static func session(
        _ server: FlakyMemos, delays: Delays = Delays(), maxAttempts: Int = 10,
        persistence: ResourceStore.Persistence? = nil
    ) throws -> (Session, DataSource<Memo>) {
        let queue = WriteQueue.Configuration(
            maxAttempts: maxAttempts, sleep: { delays.record($0) }, now: { delays.now })
        let api = Session(
            baseURL: HeldWrites.baseURL, client: server.client,
            configuration: .init(store: .init(persistence: persistence), writes: .offline, writeQueue: queue))
        let store = try #require(api.store)
        store.merge(try JSONAPIDecoder().decode(RawDocument.self, from: Data(Memo.document(id: "1", title: "Draft").utf8)))
        return (api, api.source(Memo.self, .path("memos/<id>")))
    }

    /// The queue's events, gathered.
    static func events(_ queue: WriteQueue) -> (Events<WriteQueue.Event>, Task<Void, Never>) {
        let events = Events<WriteQueue.Event>()
        let stream = queue.events()
        return (events, Task { for await event in stream { events.send(event) } })
    }

    @Test("A write that cannot reach the server is queued, not thrown; resume() delivers it")
    func queuedThenDelivered() async throws {
        let server = FlakyMemos()
        let (api, memos) = try Self.session(server)
        let (events, following) = Self.events(api.writeQueue)
        defer { following.cancel() }
        let response = try await memos.update(Self.draft) { $0.title = "On a train" }
        let entry = try #require(response.queued)
        #expect(response.status == .accepted && response.document == nil)
        #expect(entry.method == .patch && entry.type == "memos" && entry.resourceID == "1" && entry.attempts == 0)
        #expect(api.writeQueue.entries.map(\.id) == [entry.id])
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "On a train")
        guard case .queued? = await events.next("queued")?.outcome else { Issue.record("not queued"); return }

        server.go(online: true)
        api.writeQueue.resume()
        guard case .delivered(let status)? = await events.next("delivered")?.outcome else {
            Issue.record("not delivered")
            return
        }
        #expect(status == .ok)
        await api.writeQueue.replay()
        #expect(api.writeQueue.entries.isEmpty)
        #expect(server.served == [#"PATCH /memos/1 "On a train""#])
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "On a train")
        #expect(api.store?.pendingChanges().isEmpty == true)
    }

    @Test("Queued writes go in the order they were made, the later ones behind the first without being sent")
    func inOrder() async throws {
        let server = FlakyMemos()
        let (api, memos) = try Self.session(server)
        for title in ["A", "B", "C"] {
            #expect(try await memos.update(Self.draft) { $0.title = title }.queued != nil)
            await api.writeQueue.replay()  // offline: each replay stops once the network is found still down
        }
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "C")
        #expect(api.writeQueue.entries.count == 3)
        server.go(online: true)
        await api.writeQueue.replay()
        #expect(server.served == [#"PATCH /memos/1 "A""#, #"PATCH /memos/1 "B""#, #"PATCH /memos/1 "C""#])
        #expect(api.writeQueue.entries.isEmpty)
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "C")
    }

    @Test("A replay told the network is back counts one transport failure, tries once more after the backoff, then stops: still offline")
    func backoff() async throws {
        let server = FlakyMemos()
        let delays = Delays()
        let (api, memos) = try Self.session(server, delays: delays)
        let (events, following) = Self.events(api.writeQueue)
        defer { following.cancel() }
        _ = try await memos.update(Self.draft) { $0.title = "A" }  // no attempt: thought offline at launch
        await api.writeQueue.replay()  // attempt 1, then a free try after a second
        #expect(delays.all == [.seconds(1)])
        #expect(api.writeQueue.entries.first?.attempts == 1)
        await api.writeQueue.replay()  // attempt 2: the backoff goes on (2 s)
        #expect(delays.all == [.seconds(1), .seconds(2)])
        #expect(api.writeQueue.entries.first?.attempts == 2)
        var outcomes: [String] = []
        for _ in 0..<5 { if let event = await events.next("an event") { outcomes.append("\(event.outcome)") } }
        #expect(outcomes == ["queued", "willRetry(after: 1.0 seconds)", "waiting", "willRetry(after: 2.0 seconds)", "waiting"])
        #expect(server.served.isEmpty)
        server.go(online: true)
        await api.writeQueue.replay()
        #expect(api.writeQueue.entries.isEmpty)
        #expect(delays.all.count == 2)
    }

    @Test("Writes queued offline behind others cost the first entry nothing, however many and however long")
    func offlineWritesCostNothing() async throws {
        let server = FlakyMemos()
        let delays = Delays()
        let (api, memos) = try Self.session(server, delays: delays, maxAttempts: 2)
        for n in 0..<30 {
            #expect(try await memos.create(Memo(id: "n\(n)", title: "\(n)")).queued != nil)
            delays.advance(10)
            await Self.idle(api.writeQueue)
        }
        #expect(api.writeQueue.entries.count == 30)
        #expect(api.writeQueue.entries.map(\.attempts) == Array(repeating: 0, count: 30))
        #expect(!api.writeQueue.entries.contains { $0.isFailing } && delays.all.isEmpty)
        // The next request that succeeds sends them all, once each, in order.
        server.go(online: true)
        let (events, following) = Self.events(api.writeQueue)
        defer { following.cancel() }
        _ = try await memos.fetch(id: "2").result()
        var delivered = 0
        while delivered < 30, let event = await events.next("delivered") {
            if case .delivered = event.outcome { delivered += 1 }
        }
        #expect(server.served == ["GET /memos/2"] + (0..<30).map { #"POST /memos "\#($0)""# })
        #expect(api.writeQueue.entries.isEmpty)
    }

    /// Returns once `queue` runs no replay (a queued write's own try, offline, ends at once).
    static func idle(_ queue: WriteQueue) async {
        for _ in 0..<10_000 where queue.state.withLock({ $0.machine.isReplaying }) {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test("The delay doubles from firstDelay up to maxDelay, for any count")
    func delays() {
        let configuration = WriteQueue.Configuration(firstDelay: .seconds(1), maxDelay: .seconds(60))
        #expect(configuration.delay(after: 0) == .seconds(1))
        #expect(configuration.delay(after: 1) == .seconds(1))
        #expect(configuration.delay(after: 2) == .seconds(2))
        #expect(configuration.delay(after: 6) == .seconds(32))
        #expect(configuration.delay(after: 7) == .seconds(60))
        #expect(configuration.delay(after: .max) == .seconds(60))
        let zero = WriteQueue.Configuration(firstDelay: .zero, maxDelay: .seconds(60))
        #expect(zero.delay(after: .max) == .zero)
        let negative = WriteQueue.Configuration(firstDelay: .seconds(-1), maxDelay: .seconds(-5))
        #expect(negative.delay(after: 3) == .zero)
        let exact = WriteQueue.Configuration(firstDelay: .seconds(3), maxDelay: .seconds(3))
        #expect(exact.delay(after: 2) == .seconds(3))
    }

    @Test("The next successful request replays the queue")
    func nextRequestReplays() async throws {
        let server = FlakyMemos()
        let (api, memos) = try Self.session(server)
        let (events, following) = Self.events(api.writeQueue)
        defer { following.cancel() }
        _ = try await memos.update(Self.draft) { $0.title = "A" }
        _ = await events.next("queued")
        server.go(online: true)
        _ = try await memos.fetch(id: "2").result()
        guard case .delivered? = await events.next("delivered")?.outcome else { Issue.record("not delivered"); return }
        await api.writeQueue.replay()
        #expect(server.served == ["GET /memos/2", #"PATCH /memos/1 "A""#])
    }

    @Test("A write the server refuses (4xx) leaves the queue with its error and is rolled back, never retried")
    func rejected() async throws {
        let server = FlakyMemos()
        let (api, memos) = try Self.session(server)
        let (events, following) = Self.events(api.writeQueue)
        defer { following.cancel() }
        _ = try await memos.update(Self.draft) { $0.title = "Refused" }
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "Refused")
        _ = await events.next("queued")
        server.go(online: true)
        server.fail(with: 422)
        await api.writeQueue.replay()
        guard case .rejected(let error)? = await events.next("rejected")?.outcome else {
            Issue.record("not rejected")
            return
        }
        #expect(error.status?.code == 422)
        #expect(error.rolledBack?.attributes?["title"] == "Refused")
        #expect(api.writeQueue.entries.isEmpty)
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "Draft")
        await api.writeQueue.replay()
        api.writeQueue.resume()
        _ = try await memos.fetch(id: "2").result()
        await api.writeQueue.replay()
        #expect(server.served == [#"PATCH /memos/1 "Refused""#, "GET /memos/2"])
    }

    @Test("5xx answers are retried with backoff; at maxAttempts the entry stays, failing, until retry()")
    func serverErrors() async throws {
        let server = FlakyMemos()
        let delays = Delays()
        let (api, memos) = try Self.session(server, delays: delays, maxAttempts: 3)
        let (events, following) = Self.events(api.writeQueue)
        defer { following.cancel() }
        _ = try await memos.update(Self.draft) { $0.title = "A" }
        _ = await events.next("queued")
        server.go(online: true)
        server.fail(with: 503, 503, 503)  // attempts 1, 2, 3
        await api.writeQueue.replay()
        #expect(server.served.count == 3)
        #expect(delays.all == [.seconds(1), .seconds(2)])
        var last: WriteQueue.Event?
        for _ in 0..<3 { last = await events.next("an event") }
        guard case .failing(let error)? = last?.outcome else { Issue.record("not failing: \(String(describing: last))"); return }
        #expect(error.status?.code == 503)
        // Kept, with its optimistic change; nothing sends it again but the app.
        #expect(api.writeQueue.entries.map(\.isFailing) == [true])
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "A")
        api.writeQueue.resume()
        _ = try await memos.fetch(id: "2").result()
        await api.writeQueue.replay()
        #expect(server.served.count == 4)  // the GET only
        server.fail(with: 503)
        api.writeQueue.retry()
        await api.writeQueue.replay()  // one more 503 waits, then it goes
        #expect(api.writeQueue.entries.isEmpty)
        #expect(server.served.suffix(2) == [#"PATCH /memos/1 "A""#, #"PATCH /memos/1 "A""#])
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "A")
        #expect(api.store?.pendingChanges().isEmpty == true)
    }

    @Test("A failing entry holds the writes to its record, not the others: they are delivered, in order")
    func failingHoldsOnlyItsOwn() async throws {
        let server = FlakyMemos()
        let (api, memos) = try Self.session(server, maxAttempts: 1)
        _ = try await memos.update(Self.draft) { $0.title = "A" }
        _ = try await memos.create(Memo(id: "2", title: "B"))
        _ = try await memos.update(Self.draft) { $0.title = "C" }  // the same record: waits for A
        _ = try await memos.create(Memo(id: "3", title: "D"))
        await Self.idle(api.writeQueue)
        server.go(online: true)
        server.fail(with: 500)  // A's attempt: failing
        await api.writeQueue.replay()
        #expect(server.served == [#"PATCH /memos/1 "A""#, #"POST /memos "B""#, #"POST /memos "D""#])
        #expect(api.writeQueue.entries.map(\.isFailing) == [true, false])
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "C")
        api.writeQueue.retry()
        await api.writeQueue.replay()
        #expect(server.served.suffix(2) == [#"PATCH /memos/1 "A""#, #"PATCH /memos/1 "C""#])
        #expect(api.writeQueue.entries.isEmpty)
    }

    @Test("Attempts are bounded over every replay: each replay told the network is back counts one more")
    func attemptsBoundedOverall() async throws {
        let server = FlakyMemos()
        let delays = Delays()
        let queue = WriteQueue.Configuration(maxAttempts: 3, sleep: { delays.record($0) })
        let api = Session(
            baseURL: HeldWrites.baseURL, client: server.client, configuration: .init(writes: .offline, writeQueue: queue))
        let memos = api.source(Memo.self, .path("memos/<id>"))
        _ = try await memos.update(Self.draft) { $0.title = "A" }
        await api.writeQueue.replay()  // attempt 1, then a free try
        await api.writeQueue.replay()  // attempt 2, then a free try
        #expect(api.writeQueue.entries.first?.attempts == 2)
        #expect(delays.all == [.seconds(1), .seconds(2)])
        await api.writeQueue.replay()  // attempt 3: failing
        #expect(delays.all == [.seconds(1), .seconds(2)])
        #expect(api.writeQueue.entries.first?.attempts == 3)
        #expect(api.writeQueue.entries.first?.isFailing == true)
        await api.writeQueue.replay()  // nothing: it waits for the app
        #expect(api.writeQueue.entries.first?.attempts == 3)
        server.go(online: true)
        api.writeQueue.retry()
        await api.writeQueue.replay()
        #expect(api.writeQueue.entries.isEmpty)
        #expect(server.served == [#"PATCH /memos/1 "A""#])
    }

    @Test("A 409 to a queued create that was never sent is a refusal, not a delivery")
    func conflictNotSent() async throws {
        let server = FlakyMemos()
        let (api, memos) = try Self.session(server)
        _ = try await memos.update(Self.draft) { $0.title = "A" }
        await api.writeQueue.replay()
        #expect(try await memos.create(Memo(id: "7", title: "New")).queued != nil)  // behind A, not sent
        server.go(online: true)
        server.fail(with: 409, 409)  // A and the create
        let (events, following) = Self.events(api.writeQueue)
        defer { following.cancel() }
        await api.writeQueue.replay()
        var outcomes: [String] = []
        for _ in 0..<2 { if let event = await events.next("an outcome") { outcomes.append("\(event.outcome)") } }
        #expect(outcomes.count == 2 && outcomes.allSatisfy { $0.hasPrefix("rejected") })
        #expect(try api.store?.resource(Memo.self, id: "7") == nil)
    }

    @Test("A 409 to a create with its id after an attempt that may have reached the server, and a 404 to a delete, count as made")
    func madeBefore() async throws {
        let server = FlakyMemos()
        let (api, memos) = try Self.session(server)
        let (events, following) = Self.events(api.writeQueue)
        defer { following.cancel() }
        #expect(try await memos.create(Memo(id: "7", title: "New")).queued?.clientGeneratedID == true)
        #expect(try await memos.delete(id: "1").queued != nil)  // behind the create: never sent before the 404
        #expect(try api.store?.resources(Memo.self).map(\.id) == ["7"])
        await api.writeQueue.replay()
        server.go(online: true)
        server.fail(with: 409, 404)
        await api.writeQueue.replay()
        var statuses: [Int] = []
        while statuses.count < 2, let event = await events.next("an outcome") {
            if case .delivered(let status) = event.outcome { statuses.append(status.code) }
            if case .rejected = event.outcome { Issue.record("rejected: \(event)") }
        }
        #expect(statuses == [409, 404])
        #expect(server.served == [#"POST /memos "New""#, "DELETE /memos/1"])
        #expect(api.store?.pendingChanges().isEmpty == true)
        #expect(api.store?.record(type: "memos", id: "7")?.attributes?["title"] == "New")
        #expect(api.store?.record(type: "memos", id: "1") == nil)
    }

    @Test("Local edits not sent yet read as a diff against the server's record, and discard() drops them")
    func discard() async throws {
        let server = FlakyMemos()
        let (api, memos) = try Self.session(server)
        let (events, following) = Self.events(api.writeQueue)
        defer { following.cancel() }
        _ = try await memos.update(Self.draft) { $0.title = "Unsent" }
        _ = await events.next("queued")
        let store = try #require(api.store)
        let diff = try #require(store.pendingChanges(type: "memos", id: "1"))
        #expect(diff.changedMembers == ["title"])
        #expect(diff.server?.attributes?["title"] == "Draft" && diff.local?.attributes?["title"] == "Unsent")
        #expect(diff.writes == 1)
        #expect(api.writeQueue.discard(type: "memos", id: "2").isEmpty)
        let removed = api.writeQueue.discard(type: "memos", id: "1")
        #expect(removed.count == 1)
        guard case .discarded? = await events.next("discarded")?.outcome else { Issue.record("not discarded"); return }
        #expect(try store.resource(Memo.self, id: "1")?.title == "Draft")
        #expect(store.pendingChanges().isEmpty)
        server.go(online: true)
        await api.writeQueue.replay()
        #expect(server.served.isEmpty)
    }

    @Test("removeAll() empties the queue and rolls back every queued change")
    func removeAll() async throws {
        let server = FlakyMemos()
        let (api, memos) = try Self.session(server)
        _ = try await memos.update(Self.draft) { $0.title = "A" }
        _ = try await memos.create(Memo(id: "2", title: "B"))
        #expect(api.writeQueue.removeAll().count == 2)
        #expect(api.writeQueue.entries.isEmpty)
        #expect(try api.store?.resources(Memo.self).map(\.title) == ["Draft"])
    }

    @Test("A queued write with the immediate options throws instead")
    func notQueued() async throws {
        let server = FlakyMemos()
        let (api, memos) = try Self.session(server)
        let error = try #require(
            await expectThrows(JSONAPIClientError.self) {
                try await memos.update(Self.draft, options: .optimistic) { $0.title = "A" }
            })
        #expect(error.code == .transportFailed)
        #expect(api.writeQueue.entries.isEmpty)
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "Draft")
    }
}
