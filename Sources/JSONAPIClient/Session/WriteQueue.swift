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
/// - **Backoff.** An attempt that gets no answer (or a 5xx) waits ``Configuration/firstDelay``, then twice as long
///   each time up to ``Configuration/maxDelay``; the backoff goes on from an entry's earlier attempts, so a
///   ``resume()`` or a successful request sends it once at once, not a new round of quick tries. After
///   ``Configuration/retriesPerReplay`` such attempts in a row the replay stops until ``resume()`` or the next
///   successful request.
/// - **The server says when.** A `429 Too Many Requests` or `503 Service Unavailable` with `Retry-After` waits as long
///   as it says (at most ``Configuration/maxRetryAfter``) and is sent again; it is not a failure of the write.
/// - **Rejected only by the server.** A 4xx answer removes the entry with its error (``Outcome/rejected(_:)``) and
///   rolls back its optimistic change. Nothing else does: an entry that got no answer ``Configuration/maxAttempts``
///   times, or ``Configuration/maxServerErrors`` 5xx answers, stays queued, marked ``Entry/isFailing``
///   (``Outcome/failing(_:)``), its optimistic change still shown — as does one whose connection is refused for its
///   security (``JSONAPIClientError/Code/securityFailed``) — and holds the entries behind it until the app
///   sends it again (``retry()``) or drops it (``discard(type:id:)``, ``removeAll()``).
/// - **Durable first.** With persistence, a queued write returns only once its entry is committed to the database
///   (`<directory>/JSONAPIClient/default.sqlite`: a row per entry, an append writes its row only); when it cannot be
///   saved the write throws ``JSONAPIClientError/Code/storeNotSaved`` and is neither sent nor queued. The database is
///   written on a queue of its own, never under a lock nor on the caller's thread. A committed entry survives the
///   process being killed at any instant; a power cut may lose the last commits before it (SQLite's WAL with
///   `synchronous=NORMAL`), never the database.
/// - **Several processes.** An app and its extensions may share the directory (an app group's container). Each
///   reads the queue when its session is made, and queues its writes after the others'. An entry is claimed in the
///   database before it is sent, so exactly one process sends it; another that reaches it waits while the sender is
///   alive (and for at most two minutes), then finds it gone and reports it ``Outcome/discarded`` — its own
///   optimistic change dropped, the server's record showing on the next fetch. A process that dies while sending
///   leaves its claim to be taken over at once.
/// - **Sent once.** An entry is removed as soon as its answer arrives. When an attempt may
///   have reached the server but its answer was lost (a transport failure after sending), the replay sends it again:
///   a `PATCH` then sets the same members twice, and a `DELETE` answered 404 counts as delivered (as it does on any
///   replay: the resource is gone, as it was to be). A create sent
///   with a client-generated `id` (a model whose `id` is set) answered `409 Conflict` on such a replay counts as
///   delivered too: the first attempt made it. A create without one may be made twice; see the article "Writing
///   offline and optimistically".
///
/// Credentials are never written to the queue's database: `Authorization`, `Proxy-Authorization` and `Cookie` fields
/// of a write's own header fields are dropped (middleware adds them again when the entry is sent).
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
        /// How many 5xx answers an entry may get before it is marked failing (it stays queued until
        /// ``WriteQueue/retry()`` or a discard); 5 by default.
        public var maxServerErrors: Int
        /// How many attempts without an answer (or with a 5xx) an entry may make in all, over every replay and
        /// launch, before it is marked failing; 10 by default.
        public var maxAttempts: Int
        /// The longest wait a `429` or `503`'s `Retry-After` is granted; a longer one waits this long. A day by
        /// default.
        public var maxRetryAfter: Duration
        /// Waits for a delay (cancellable); `Task.sleep` by default. Tests pass their own so that nothing waits.
        public var sleep: @Sendable (Duration) async throws -> Void
        /// The current time, to read a `Retry-After` date; `Date()` by default.
        public var now: @Sendable () -> Date

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - firstDelay: The wait after the first failed try.
        ///   - maxDelay: The longest wait of the backoff.
        ///   - retriesPerReplay: Failed tries in a row before a replay stops.
        ///   - maxServerErrors: 5xx answers before an entry is marked failing.
        ///   - maxAttempts: Tries without an answer (or with a 5xx) before an entry is marked failing.
        ///   - maxRetryAfter: The longest `Retry-After` waited for.
        ///   - sleep: Waits for a delay; `Task.sleep(for:)` when `nil`.
        ///   - now: The current time; `Date()` when `nil`.
        public init(
            firstDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(60), retriesPerReplay: Int = 5,
            maxServerErrors: Int = 5, maxAttempts: Int = 10, maxRetryAfter: Duration = .seconds(86_400),
            sleep: (@Sendable (Duration) async throws -> Void)? = nil, now: (@Sendable () -> Date)? = nil
        ) {
            self.firstDelay = firstDelay
            self.maxDelay = maxDelay
            self.retriesPerReplay = retriesPerReplay
            self.maxServerErrors = maxServerErrors
            self.maxAttempts = maxAttempts
            self.maxRetryAfter = maxRetryAfter
            self.sleep = sleep ?? { try await Task.sleep(for: $0) }
            self.now = now ?? { Date() }
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
        /// How many times it was sent without an answer (transport failures) or with a 5xx, over every replay.
        public internal(set) var attempts: Int
        /// Whether it is held until the app says: it got no answer ``Configuration/maxAttempts`` times, or
        /// ``Configuration/maxServerErrors`` 5xx answers. ``WriteQueue/retry()`` sends it again; a discard drops it.
        public internal(set) var isFailing = false
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
        /// For a write to a relationship endpoint: the relationship's name, and the whole linkage the record has
        /// once the write is made (worked out when it was made, from the linkage the store showed then), as a
        /// document whose primary data is the record with that relationship alone — what the store shows and
        /// keeps of it, since the body (identifiers to add, remove or set) does not say it.
        var relationship: String?
        var shown: Data?
        /// When the server said it may be sent again (a `429` or `503` with `Retry-After`): kept across launches,
        /// so that a restarted app does not send it earlier.
        var notBefore: Date?

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

        /// What the store shows of it: the body's resource with the entry's id (``shown``'s for a relationship
        /// endpoint), or the bare record to delete.
        func layerObject(decoder: JSONAPIDecoder) -> ResourceObject? {
            guard kind != .delete else { return ResourceObject(type: type, id: resourceID) }
            guard let document = shown ?? body,
                case .resource(var object)? = try? decoder.decode(RawDocument.self, from: document).data
            else {
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
        /// The server refused it (4xx); it left the queue, and its optimistic change was rolled back
        /// (``JSONAPIClientError/rolledBack``).
        case rejected(JSONAPIClientError)
        /// It could not reach the server, or the server asked to wait (`429`, `503` with `Retry-After`); the replay
        /// tries again after this delay.
        case willRetry(after: Duration)
        /// It got no answer ``Configuration/maxAttempts`` times, or ``Configuration/maxServerErrors`` 5xx answers
        /// (the last error given): it stays queued, marked ``Entry/isFailing``, with its optimistic change, until
        /// the app calls ``WriteQueue/retry()`` or discards it.
        case failing(JSONAPIClientError)
        /// It could not reach the server, and the replay stopped until ``WriteQueue/resume()``.
        case waiting
        /// It was removed without being sent (``WriteQueue/discard(type:id:)``, ``WriteQueue/removeAll()``), or
        /// another process sharing the directory sent or discarded it (its optimistic change is dropped here).
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
                case .failing(let error): "failing \(error.status.map { String($0.code) } ?? error.code.description)"
                case .waiting: "waiting"
                case .discarded: "discarded"
                }
            return "\(what) \(entry.method) \(entry.url.absoluteString)"
        }
    }

    struct State {
        var machine = StateMachine()
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
    /// Keeps the queue on disk, when the store is persisted.
    let persister: WriteQueuePersister?

    convenience init(
        configuration: Configuration, persistence: ResourceStore.Persistence?,
        partition: String = PartitionDatabase.defaultPartition
    ) {
        self.init(
            configuration: configuration, storage: persistence.map { WriteQueueDatabase($0, partition: partition) },
            log: persistence?.log)
    }

    init(configuration: Configuration, storage: (any WriteQueueStorage)?, log: (@Sendable (String) -> Void)?) {
        self.configuration = configuration
        self.persister = storage.map { WriteQueuePersister(storage: $0, log: log ?? { _ in }) }
    }

    /// Joins `session`, reading the queue's entries and showing their optimistic changes again.
    func attach(_ session: Session) {
        owner.withLock { $0.session = session }
        guard let entries = persister?.load(), !entries.isEmpty else { return }
        var layers: [String: ResourceStore.PendingWrite] = [:]
        if let store = session.store {
            for entry in entries where entry.optimistic {
                if let object = entry.layerObject(decoder: session.configuration.decoder) {
                    layers[entry.id] = store.addPending(entry.kind, object: object, id: entry.resourceID)
                }
            }
        }
        state.withLock { $0.machine.loaded(entries, layers: layers) }
    }

    // MARK: Reading

    /// The writes waiting, oldest first.
    public var entries: [Entry] { state.withLock { $0.machine.entries } }

    /// What happens to the entries from now on — queued, delivered, rejected, retried, failing, discarded — until the
    /// stream is dropped.
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

    /// The replay that runs, so that ``replay()`` can join it.
    private let running = LockedValue<Task<Void, Never>?>(nil)

    /// Tells the queue that the network is back: starts sending the entries, in order, unless a replay runs already
    /// or the first entry is failing (see ``retry()``). Returns at once; see ``replay()`` to wait.
    public func resume() {
        _ = replayTask()
    }

    /// Sends the entries in order, and returns when the queue is empty, the server cannot be reached (after the
    /// retries of ``Configuration/retriesPerReplay``) or the first entry is failing. Joins the replay that runs, if
    /// one does.
    public func replay() async {
        await replayTask()?.value
    }

    /// Sends the entries marked ``Entry/isFailing`` again, their counts of attempts started over: what an app does
    /// when its user asks to try again.
    public func retry() {
        guard let snapshot = state.withLock({ $0.machine.retryFailing() }) else { return }
        persister?.submit(snapshot)
        resume()
    }

    /// The replay that runs, or a new one when there is something to send; `nil` when there is nothing.
    private func replayTask() -> Task<Void, Never>? {
        running.withLock { running -> Task<Void, Never>? in
            let starts = state.withLock { $0.machine.startReplay() }
            guard starts else { return state.withLock { $0.machine.isReplaying } ? running : nil }
            let task = Task { await self.run() }
            running = task
            return task
        }
    }

    /// After a request succeeded: the network is back, so the queue, if it holds anything, is replayed.
    func requestSucceeded() {
        if state.withLock({ $0.machine.canReplay }) { resume() }
    }

    /// The replay: the oldest entry, then the next, until none is left, the server cannot be reached or an entry is
    /// failing.
    private func run() async {
        replaying: while !Task.isCancelled, let session = owner.withLock({ $0.session }) {
            let next = state.withLock { $0.machine.next(now: configuration.now(), configuration: configuration) }
            if case .wait(let delay) = next {
                // The server asked for time (`Retry-After`), in this process or before a restart.
                do { try await configuration.sleep(delay) } catch { break replaying }
                state.withLock { $0.machine.waitServed() }
                continue replaying
            }
            guard case .send(let entry, let layer, let persist) = next else {
                return  // next() ended the replay
            }
            if let persist, let persister {
                // Written before it goes, so that a process killed while it is on the way knows after a restart.
                do { try await persister.save(persist) } catch {
                    emit(Event(entry: entry, outcome: .waiting))
                    break replaying
                }
            }
            if let persister {
                // Claimed before it goes, so that of several processes replaying this queue exactly one sends it.
                var claimed = entry
                claimed.sent = true
                let claim: Claim
                do { claim = try await persister.claim(claimed) } catch {
                    _ = state.withLock { $0.machine.claimFinished(entry, .held, configuration: configuration) }
                    emit(Event(entry: entry, outcome: .waiting))
                    break replaying
                }
                switch state.withLock({ $0.machine.claimFinished(entry, claim, configuration: configuration) }) {
                case .send: break
                case .skip(let actions):
                    perform(actions, in: session)
                    continue replaying
                case .wait(let delay):
                    do { try await configuration.sleep(delay) } catch { break replaying }
                    continue replaying
                }
            }
            let attempt: StateMachine.Attempt
            do {
                let (_, response) = try await session.deliver(entry, layer: layer)
                attempt = .answered(response.status)
            } catch let error as JSONAPIClientError {
                attempt = .failed(error)
            } catch {
                break replaying  // cancelled
            }
            let (actions, then) = state.withLock { $0.machine.attemptFinished(entry, attempt, configuration: configuration) }
            perform(actions, in: session)
            switch then {
            case .next: continue
            case .wait(let delay):
                do { try await configuration.sleep(delay) } catch { break replaying }
                state.withLock { $0.machine.waitServed() }
            case .stop: break replaying
            }
        }
        state.withLock { $0.machine.replayEnded() }
    }

    /// Carries out what the state machine decided, outside its lock.
    private func perform(_ actions: [StateMachine.Action], in session: Session?) {
        for action in actions {
            switch action {
            case .persist(let snapshot):
                persister?.submit(snapshot)
            case .emit(let event):
                emit(event)
            case .confirm(let layer):
                session?.store?.confirmPending(layer, answer: nil)
            case .reject(let entry, let layer, var error):
                if let layer, let undone = session?.store?.dropPending(layer) { error.rolledBack = undone }
                emit(Event(entry: entry, outcome: .rejected(error)))
            case .discard(let entry, let layer):
                if let layer { session?.store?.dropPending(layer) }
                emit(Event(entry: entry, outcome: .discarded))
            }
        }
    }

    // MARK: Changing

    /// Adds `entry` (with its optimistic layer) at the end, and returns once it is durable; then tells the
    /// observers.
    ///
    /// - Throws: ``JSONAPIClientError/Code/storeNotSaved`` when it could not be saved: it left the queue unsent (its
    ///   layer is the caller's to drop).
    func enqueue(_ entry: Entry, layer: ResourceStore.PendingWrite?) async throws(JSONAPIClientError) {
        let snapshot = state.withLock { $0.machine.enqueued(entry, layer: layer) }
        if let persister {
            do {
                try await persister.save(snapshot)
            } catch {
                let (_, snapshot) = state.withLock { $0.machine.notSaved(entry.id) }
                persister.submit(snapshot)
                throw JSONAPIClientError(
                    code: .storeNotSaved,
                    detail: "the write could not be queued: its entry was not saved (\(error)); it was not sent",
                    method: entry.method, url: entry.url, underlyingError: error)
            }
        }
        state.withLock { $0.machine.saved(entry.id) }
        emit(Event(entry: entry, outcome: .queued))
    }

    /// Whether entries wait (a new queued write goes behind them).
    var isWaiting: Bool { state.withLock { $0.machine.isWaiting } }

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
        let (removed, snapshot) = state.withLock { $0.machine.discard(where: matches) }
        if let snapshot { persister?.submit(snapshot) }
        let store = owner.withLock { $0.session?.store }
        for (entry, layer) in removed.reversed() {
            if let layer { store?.dropPending(layer) }
            emit(Event(entry: entry, outcome: .discarded))
        }
        return removed.map(\.0)
    }

    /// Returns once every change made so far is on disk (or failed to be written: logged).
    func flush() async {
        await persister?.flush()
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
