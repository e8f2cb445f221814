import Foundation

/// The writes of a session that could not reach the server, in the order they were made, until they can: each is
/// sent again when the app says the network is back (``resume()``) and after the next request that succeeds, with
/// backoff between failed tries, and each reports its outcome on ``events()``.
///
/// A write joins the queue when its ``WriteOptions/isQueued`` is set and the transport fails (not when the server
/// answers with an error), or when the queue already holds writes (so that none overtakes another). With the
/// store's ``ResourceStore/Configuration/persistence`` the queue is kept in the same directory and survives a
/// restart: queued writes are sent after the next launch, and their optimistic changes show again in the store.
///
/// ```swift
/// let api = Session(baseURL: url, configuration: .init(writes: .offline))
/// Task { for await event in api.writeQueue.events() { print(event) } }   // delivered, rejected, will retry …
/// try await api.source(Article.self, .path("articles/<id>")).update(article) { $0.title = "On a train" }
/// // later, when the app sees the network again:
/// api.writeQueue.resume()
/// ```
///
/// - **In order.** Only the oldest entry is sent; the next waits for its outcome.
/// - **Backoff.** A transport failure during a replay waits ``Configuration/firstDelay``, then twice as long each
///   time up to ``Configuration/maxDelay``; after ``Configuration/retriesPerReplay`` failures in a row the replay
///   stops until ``resume()`` or the next successful request.
/// - **Rejected, never retried forever.** A 4xx answer removes the entry with its error (``Outcome/rejected(_:)``)
///   and rolls back its optimistic change; so do ``Configuration/maxServerErrors`` 5xx answers.
/// - **Sent once.** An entry is removed (and the file rewritten) as soon as its answer arrives. When an attempt may
///   have reached the server but its answer was lost (a transport failure after sending), the replay sends it again:
///   a `PATCH` then sets the same members twice, and a `DELETE` answered 404 counts as delivered (as it does on any
///   replay: the resource is gone, as it was to be). A create sent
///   with a client-generated `id` (a model whose `id` is set) answered `409 Conflict` on such a replay counts as
///   delivered too: the first attempt made it. A create without one may be made twice; see the article "Writing
///   offline and optimistically".
///
/// Credentials are never written to the queue's file: `Authorization`, `Proxy-Authorization` and `Cookie` fields of
/// a write's own header fields are dropped (middleware adds them again when the entry is sent).
public final class WriteQueue: Sendable {
    /// How the queue retries; every parameter has a default.
    public struct Configuration: Sendable {
        /// The wait after the first failed try of a replay; doubled after each further failure. One second by
        /// default.
        public var firstDelay: Duration
        /// The longest wait between tries; a minute by default.
        public var maxDelay: Duration
        /// How many transport failures in a row a replay waits out before it stops until ``WriteQueue/resume()``;
        /// 5 by default.
        public var retriesPerReplay: Int
        /// How many 5xx answers an entry may get before it is removed as rejected; 5 by default.
        public var maxServerErrors: Int
        /// Waits for a delay (cancellable); `Task.sleep` by default. Tests pass their own so that nothing waits.
        public var sleep: @Sendable (Duration) async throws -> Void

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - firstDelay: The wait after the first failed try.
        ///   - maxDelay: The longest wait.
        ///   - retriesPerReplay: Transport failures in a row before a replay stops.
        ///   - maxServerErrors: 5xx answers before an entry is given up.
        ///   - sleep: Waits for a delay; `Task.sleep(for:)` when `nil`.
        public init(
            firstDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(60), retriesPerReplay: Int = 5,
            maxServerErrors: Int = 5, sleep: (@Sendable (Duration) async throws -> Void)? = nil
        ) {
            self.firstDelay = firstDelay
            self.maxDelay = maxDelay
            self.retriesPerReplay = retriesPerReplay
            self.maxServerErrors = maxServerErrors
            self.sleep = sleep ?? { try await Task.sleep(for: $0) }
        }

        /// The wait after failure number `failure` (from 1): `firstDelay` doubled `failure - 1` times, at most
        /// `maxDelay`. Doubling stops at `maxDelay` (or at once for a zero delay), so it takes a few steps whatever
        /// the count.
        func delay(after failure: Int) -> Duration {
            var delay = max(firstDelay, .zero)
            var step = 1
            while delay > .zero, delay < maxDelay, failure > step {
                delay *= 2
                step += 1
            }
            return min(delay, max(maxDelay, .zero))
        }
    }

    /// One queued write: the request to send again, and the record it changes.
    public struct Entry: Sendable, Hashable, Identifiable {
        /// The entry's id (a UUID), the same across launches.
        public let id: String
        /// The request's method.
        public let method: HTTPMethod
        /// The request's URL.
        public let url: URL
        /// The type of the resource written.
        public let type: String
        /// The id of the resource written; for a create without an id, the local id the store shows it under.
        public let resourceID: String
        /// How many times it was sent without an answer (transport failures) or with a 5xx.
        public internal(set) var attempts: Int
        /// When it was made.
        public let created: Date
        /// The request body.
        let body: Data?
        /// The write's own header fields, without credentials.
        let headerFields: [HTTPField]
        /// What it does to the record.
        let kind: ResourceStore.PendingKind
        /// Whether the store shows it before the server confirms it.
        var optimistic: Bool
        /// Whether it creates a resource with an id chosen by the client (a 409 on a replay means it was made).
        let clientGeneratedID: Bool
        /// How many 5xx answers it got.
        var serverErrors = 0
        /// Whether an attempt may have reached the server (it was sent, and no answer is known): a replay then reads
        /// a 409 to a create with a client-generated id, or a 404 to a delete, as delivered.
        var sent = false
        /// The account that made it (a keyed digest of its credentials): it is sent only with that account's
        /// credentials. `nil` when none was known (no request since launch or since the store was cleared).
        var owner: CredentialDigest?

        init(
            method: HTTPMethod, url: URL, type: String, resourceID: String, body: Data?, headerFields: HTTPFields,
            kind: ResourceStore.PendingKind, clientGeneratedID: Bool, id: String = UUID().uuidString,
            attempts: Int = 0, created: Date = Date(), optimistic: Bool = false
        ) {
            self.id = id
            self.method = method
            self.url = url
            self.type = type
            self.resourceID = resourceID
            self.attempts = attempts
            self.created = created
            self.body = body
            self.headerFields = headerFields.filter { !Self.credentialNames.contains($0.name) }
            self.kind = kind
            self.optimistic = optimistic
            self.clientGeneratedID = clientGeneratedID
        }

        static let credentialNames: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie]

        /// The request to send.
        var request: JSONAPIRequest {
            JSONAPIRequest(method: method, target: .success(url), headerFields: HTTPFields(headerFields), body: body)
        }

        /// What the store shows of it: the body's resource with the entry's id, or the bare record to delete.
        func layerObject(decoder: JSONAPIDecoder) -> ResourceObject? {
            guard kind != .delete else { return ResourceObject(type: type, id: resourceID) }
            guard let body, case .resource(var object)? = try? decoder.decode(RawDocument.self, from: body).data else {
                return nil
            }
            object.id = resourceID
            return object
        }
    }

    /// What happened to an entry.
    public enum Outcome: Sendable {
        /// It joined the queue.
        case queued
        /// The server accepted it with this status, or said it was done already (a `409` to a create with a
        /// client-generated id after an attempt that may have made it, a `404` to a delete); it left the queue.
        case delivered(HTTPResponse.Status)
        /// The server refused it (4xx, or 5xx too many times); it left the queue, and its optimistic change was
        /// rolled back (``JSONAPIClientError/rolledBack``).
        case rejected(JSONAPIClientError)
        /// It could not reach the server; the replay tries again after this delay.
        case willRetry(after: Duration)
        /// It could not reach the server, and the replay stopped until ``WriteQueue/resume()``.
        case waiting
        /// It was removed without being sent (``WriteQueue/discard(type:id:)``, ``WriteQueue/removeAll()``).
        case discarded
    }

    /// An entry and what happened to it.
    public struct Event: Sendable, CustomStringConvertible {
        /// The entry (as it was when this happened).
        public var entry: Entry
        /// What happened.
        public var outcome: Outcome

        /// `delivered 201 POST https://…/articles`, `rejected … `, ….
        public var description: String {
            let what: String =
                switch outcome {
                case .queued: "queued"
                case .delivered(let status): "delivered \(status.code)"
                case .rejected(let error): "rejected \(error.status.map { String($0.code) } ?? error.code.description)"
                case .willRetry(let delay): "will retry after \(delay)"
                case .waiting: "waiting"
                case .discarded: "discarded"
                }
            return "\(what) \(entry.method) \(entry.url.absoluteString)"
        }
    }

    struct State {
        var entries: [Entry] = []
        /// The optimistic layer of each entry that has one, by entry id.
        var layers: [String: ResourceStore.PendingWrite] = [:]
        /// The entry being sent, which a discard leaves alone.
        var sending: String?
        var replay: Task<Void, Never>?
        var observers: [UInt64: AsyncStream<Event>.Continuation] = [:]
        var nextObserver: UInt64 = 0
    }

    /// The session whose writes these are; weak, as the session owns the queue.
    struct Owner: Sendable {
        weak var session: Session?
    }

    /// How the queue retries.
    public let configuration: Configuration
    let state = LockedValue(State())
    let owner = LockedValue(Owner())
    /// Where the queue is kept, when the store is persisted.
    let file: WriteQueueFile?

    init(configuration: Configuration, persistence: ResourceStore.Persistence?) {
        self.configuration = configuration
        self.file = persistence.map(WriteQueueFile.init)
    }

    /// Joins `session`, reading the queue's file and showing its entries' optimistic changes again.
    func attach(_ session: Session) {
        owner.withLock { $0.session = session }
        guard let entries = file?.read(), !entries.isEmpty else { return }
        state.withLock { state in
            state.entries = entries
            for entry in entries where entry.optimistic {
                if let store = session.store, let object = entry.layerObject(decoder: session.configuration.decoder) {
                    state.layers[entry.id] = store.addPending(entry.kind, object: object, id: entry.resourceID)
                }
            }
        }
    }

    // MARK: Reading

    /// The writes waiting, oldest first.
    public var entries: [Entry] { state.withLock { $0.entries } }

    /// What happens to the entries from now on — queued, delivered, rejected, retried, discarded — until the stream is
    /// dropped.
    ///
    /// - Returns: A stream of events, in the order they happen.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        let number = state.withLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = continuation
            return state.nextObserver
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: number) }
        }
        return stream
    }

    // MARK: Replaying

    /// Tells the queue that the network is back: starts sending the entries, in order, unless a replay runs already.
    /// Returns at once; see ``replay()`` to wait.
    public func resume() {
        _ = replayTask()
    }

    /// Sends the entries in order, and returns when the queue is empty or the server cannot be reached (after the
    /// retries of ``Configuration/retriesPerReplay``). Joins the replay that runs, if one does.
    public func replay() async {
        await replayTask()?.value
    }

    /// The replay that runs, or a new one when there are entries; `nil` when there is nothing to send.
    private func replayTask() -> Task<Void, Never>? {
        state.withLock { state -> Task<Void, Never>? in
            if let replay = state.replay { return replay }
            guard !state.entries.isEmpty else { return nil }
            let task = Task { await self.run() }
            state.replay = task
            return task
        }
    }

    /// After a request succeeded: the network is back, so the queue, if it holds anything, is replayed.
    func requestSucceeded() {
        let waiting = state.withLock { !$0.entries.isEmpty && $0.replay == nil }
        if waiting { resume() }
    }

    /// The replay: the oldest entry, then the next, until none is left or the server cannot be reached.
    private func run() async {
        var failures = 0
        replaying: while !Task.isCancelled, let session = owner.withLock({ $0.session }) {
            guard let (entry, layer) = next() else { return }  // empty: next() ended the replay
            let verdict: Verdict
            do {
                let (_, response) = try await session.deliver(entry, layer: layer)
                verdict = .delivered(response.status)
            } catch let error as JSONAPIClientError {
                verdict = classify(error, of: entry)
            } catch {
                break replaying  // cancelled
            }
            switch verdict {
            case .delivered(let status):
                failures = 0
                finish(entry, .delivered(status))
            case .madeBefore(let status):
                // An earlier attempt made it: what was sent stands, as the server's answer would have said.
                failures = 0
                if let layer { session.store?.confirmPending(layer, answer: nil) }
                finish(entry, .delivered(status))
            case .rejected(let error):
                finish(entry, .rejected(rollBack(entry, layer, error, in: session)))
            case .held:
                // Another account is signed in: this write (and those after it) wait for theirs.
                emit(Event(entry: entry, outcome: .waiting))
                break replaying
            case .retry:
                failures += 1
                let updated = update(entry) { $0.attempts += 1 }
                guard failures <= configuration.retriesPerReplay else {
                    emit(Event(entry: updated, outcome: .waiting))
                    break replaying
                }
                let delay = configuration.delay(after: failures)
                emit(Event(entry: updated, outcome: .willRetry(after: delay)))
                do { try await configuration.sleep(delay) } catch { break replaying }
            }
        }
        state.withLock { state in
            state.sending = nil
            state.replay = nil
        }
    }

    /// The oldest entry, marked as being sent, and its layer; `nil` when there is none, and then the replay is over
    /// (in the same step, so that an entry queued just after starts a new one).
    private func next() -> (Entry, ResourceStore.PendingWrite?)? {
        state.withLock { state in
            guard let first = state.entries.first else {
                state.sending = nil
                state.replay = nil
                return nil
            }
            state.sending = first.id
            if !first.sent {
                // Written before it goes, so that a process killed while it is on the way knows after a restart.
                state.entries[0].sent = true
                file?.write(state.entries)
            }
            return (first, state.layers[first.id])
        }
    }

    /// What a replay makes of an attempt.
    private enum Verdict {
        /// The server accepted it.
        case delivered(HTTPResponse.Status)
        /// The server says it is done already: a 409 to a create with a client-generated id after an attempt that
        /// may have made it, a 404 to a delete.
        case madeBefore(HTTPResponse.Status)
        /// The server refused it, for good.
        case rejected(JSONAPIClientError)
        /// It did not reach the server, or the server failed: try again later.
        case retry
        /// It was not sent: another account is signed in.
        case held
    }

    /// What an error means for a queued entry: made by an earlier attempt, rejected, or to retry later.
    private func classify(_ error: JSONAPIClientError, of entry: Entry) -> Verdict {
        if error.code == .accountChanged { return .held }
        guard let status = error.status else { return error.isUnreachable ? .retry : .rejected(error) }
        if entry.sent, status.code == 409, entry.kind == .create, entry.clientGeneratedID { return .madeBefore(status) }
        if status.code == 404, entry.kind == .delete { return .madeBefore(status) }  // gone, as it was to be
        guard status.kind == .serverError else { return .rejected(error) }
        let serverErrors = update(entry) { $0.serverErrors += 1 }.serverErrors
        return serverErrors >= configuration.maxServerErrors ? .rejected(error) : .retry
    }

    /// Drops the optimistic layer of a rejected entry and returns the error that says what was undone.
    private func rollBack(
        _ entry: Entry, _ layer: ResourceStore.PendingWrite?, _ error: JSONAPIClientError, in session: Session
    ) -> JSONAPIClientError {
        var error = error
        if let layer, let undone = session.store?.dropPending(layer) { error.rolledBack = undone }
        return error
    }

    // MARK: Changing

    /// Adds `entry` (with its optimistic layer) at the end, writes the file, and tells the observers.
    func enqueue(_ entry: Entry, layer: ResourceStore.PendingWrite?) {
        state.withLock { state in
            state.entries.append(entry)
            if let layer { state.layers[entry.id] = layer }
            file?.write(state.entries)
        }
        emit(Event(entry: entry, outcome: .queued))
    }

    /// Whether entries wait (a new queued write goes behind them).
    var isWaiting: Bool { state.withLock { !$0.entries.isEmpty } }

    /// Removes the entries that change resource `type` `id` and have not been sent yet, and rolls back their
    /// optimistic changes: the local edits made offline are dropped, and the store shows the server's record again
    /// (see ``ResourceStore/pendingChanges(type:id:)``). An entry being sent at that moment stays.
    ///
    /// - Parameters:
    ///   - type: The resource's type.
    ///   - id: The resource's id (for a resource created without one, the local id of its entry).
    /// - Returns: The entries removed.
    @discardableResult
    public func discard(type: String, id: String) -> [Entry] {
        discard { $0.type == type && $0.resourceID == id }
    }

    /// Removes every entry not being sent and rolls back their optimistic changes — with ``ResourceStore/clear()``,
    /// what to do when the account signs out, so that no write is sent for the next one.
    ///
    /// - Returns: The entries removed.
    @discardableResult
    public func removeAll() -> [Entry] {
        discard { _ in true }
    }

    private func discard(where matches: (Entry) -> Bool) -> [Entry] {
        let removed = state.withLock { state -> [(Entry, ResourceStore.PendingWrite?)] in
            let removed = state.entries.filter { $0.id != state.sending && matches($0) }
            guard !removed.isEmpty else { return [] }
            let ids = Set(removed.map(\.id))
            state.entries.removeAll { ids.contains($0.id) }
            file?.write(state.entries)
            return removed.map { ($0, state.layers.removeValue(forKey: $0.id)) }
        }
        let store = owner.withLock { $0.session?.store }
        for (entry, layer) in removed.reversed() {
            if let layer { store?.dropPending(layer) }
            emit(Event(entry: entry, outcome: .discarded))
        }
        return removed.map(\.0)
    }

    /// Removes a settled entry, writes the file, and tells the observers.
    private func finish(_ entry: Entry, _ outcome: Outcome) {
        state.withLock { state in
            state.entries.removeAll { $0.id == entry.id }
            state.layers[entry.id] = nil
            state.sending = nil
            file?.write(state.entries)
        }
        emit(Event(entry: entry, outcome: outcome))
    }

    /// Changes the queued `entry` with `change` and writes the file.
    ///
    /// - Returns: The entry as changed.
    private func update(_ entry: Entry, _ change: (inout Entry) -> Void) -> Entry {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.id == entry.id }) else {
                var copy = entry
                change(&copy)
                return copy
            }
            change(&state.entries[index])
            file?.write(state.entries)
            return state.entries[index]
        }
    }

    private func emit(_ event: Event) {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer.yield(event) }
    }
}

extension JSONAPIClientError {
    /// Whether the request did not reach the server or its answer did not come back: a transport failure or a
    /// timeout, with no status. A write that fails so may be queued (``WriteOptions/isQueued``).
    var isUnreachable: Bool {
        status == nil && (code == .transportFailed || code == .timedOut)
    }
}
