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
/// - **In order.** Only the oldest entry is sent; the next waits for its outcome. An entry marked failing (below) is
///   passed over: the entries behind it go on, but for those that depend on it — the same record, the same URL
///   (two creates posted to one collection excepted), or a write that names a resource it creates (its id or local
///   id in the URL or the body) — which wait with it, so that none is sent out of order.
/// - **Attempts.** An attempt is a request that got an answer other than a success or a refusal — a 5xx, a
///   `429`, a `503`, with or without `Retry-After` — or that failed in the transport while the network was thought
///   up. It is thought up after ``resume()``, ``replay()``, ``retry()``, a request of the session that succeeded
///   and any answer; a transport failure makes it thought down, as it is at launch. A transport failure while it is
///   thought down is "still offline": it costs nothing, and the replay stops (``Outcome/waiting``) until one of
///   those, or the next queued write, starts it again (a queued write tries the next entry without saying the
///   network is back: offline, that costs nothing).
/// - **Backoff.** After its first attempt an entry is sent again after ``Configuration/firstDelay``, after each
///   further one twice as long, up to ``Configuration/maxDelay``: the backoff goes on from an entry's earlier
///   attempts, across replays and launches. A `429` or `503` with `Retry-After` waits as long as it says instead
///   (at most ``Configuration/maxRetryAfter``).
/// - **One bound.** At ``Configuration/maxAttempts`` attempts, over every replay and launch, the entry is marked
///   ``Entry/isFailing`` (``Outcome/failing(_:)``) — as is one whose connection is refused for its security
///   (``JSONAPIClientError/Code/securityFailed``). It stays queued, its optimistic change still shown, saved so, and
///   listed in ``entries`` by any process that opens the directory later, until the app sends it again
///   (``retry()``) or drops it (``discard(type:id:)``, ``removeAll()``).
/// - **Rejected only by the server.** A 4xx answer (but a `429`) removes the entry with its error
///   (``Outcome/rejected(_:)``) and rolls back its optimistic change. Nothing else removes one.
/// - **Durable first.** With persistence, a queued write returns only once its entry is committed to the database
///   (`<directory>/JSONAPIClient/default.sqlite`: a row per entry, an append writes its row only); when it cannot be
///   saved the write throws ``JSONAPIClientError/Code/storeNotSaved`` and is neither sent nor queued. The database is
///   written on a queue of its own, never under a lock nor on the caller's thread. A committed entry survives the
///   process being killed at any instant; a power cut may lose the last commits before it (SQLite's WAL with
///   `synchronous=NORMAL`), never the database.
/// - **Several processes.** An app and its extensions may share the directory (an app group's container). Each
///   reads the queue when its session is made — or, when the device cannot read the file yet, when it first can
///   (before its next write, at its next replay, and on Apple platforms when protected data becomes available),
///   ahead of the writes queued since — and queues its writes after the others'. An entry is claimed in the
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
        /// The wait after an entry's first attempt; doubled after each further one. One second by default.
        public var firstDelay: Duration
        /// The longest wait of the backoff, and the longest wait ``WriteQueue/replay()`` waits out before it
        /// returns (a longer `Retry-After` is waited in the background); a minute by default.
        public var maxDelay: Duration
        /// How many attempts an entry may make in all, over every replay and launch, before it is marked failing
        /// (it stays queued until ``WriteQueue/retry()`` or a discard): answers other than a success or a refusal
        /// (5xx, `429`, `503`, with or without `Retry-After`), and transport failures while the network was thought
        /// up; 10 by default.
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
        ///   - firstDelay: The wait after an entry's first attempt.
        ///   - maxDelay: The longest wait of the backoff, and of ``WriteQueue/replay()``.
        ///   - maxAttempts: Attempts before an entry is marked failing.
        ///   - maxRetryAfter: The longest `Retry-After` waited for.
        ///   - sleep: Waits for a delay; `Task.sleep(for:)` when `nil`.
        ///   - now: The current time; `Date()` when `nil`.
        public init(
            firstDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(60), maxAttempts: Int = 10,
            maxRetryAfter: Duration = .seconds(86_400),
            sleep: (@Sendable (Duration) async throws -> Void)? = nil, now: (@Sendable () -> Date)? = nil
        ) {
            self.firstDelay = firstDelay
            self.maxDelay = maxDelay
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
        /// How many attempts it made, over every replay and launch: answers other than a success or a refusal, and
        /// transport failures while the network was thought up (one while it was thought down costs nothing).
        public internal(set) var attempts: Int
        /// Whether it is held until the app says: it made ``Configuration/maxAttempts`` attempts, or its connection
        /// was refused for its security. Kept across launches: a process that opens the directory later finds it
        /// so in ``WriteQueue/entries``. The entries that do not depend on it are sent; ``WriteQueue/retry()`` sends
        /// it again; a discard drops it.
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
        /// It made an attempt (``Entry/attempts``): a 5xx, a `429`, a `503` (after the `Retry-After` it gave, if
        /// any), or no answer while the network was thought up; the replay tries again after this delay.
        case willRetry(after: Duration)
        /// It made ``Configuration/maxAttempts`` attempts, or its connection was refused for its security (the last
        /// error given): it stays queued, marked ``Entry/isFailing``, with its optimistic change, until the app calls
        /// ``WriteQueue/retry()`` or discards it; the entries that do not depend on it go on. A process that opens
        /// the directory later gets no event for it: it finds it marked in ``WriteQueue/entries``.
        case failing(JSONAPIClientError)
        /// It could not reach the server while the network was thought down (still offline: no attempt counted),
        /// or its account is not signed in; the replay stopped until ``WriteQueue/resume()``, the next request that
        /// succeeds or the next queued write.
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
        /// The callers of ``WriteQueue/replay()`` waiting for the replay to end or to wait longer than
        /// ``Configuration/maxDelay``.
        var settled: [CheckedContinuation<Void, Never>] = []
        /// Whether the replay waits longer than ``Configuration/maxDelay``: ``WriteQueue/replay()`` returns at once.
        var waitsLong = false

        /// Takes the callers of ``WriteQueue/replay()`` waiting, to resume outside the lock.
        mutating func takeSettled() -> [CheckedContinuation<Void, Never>] {
            defer { settled = [] }
            return settled
        }
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
    ///
    /// When the database cannot be read yet (a device that cannot read the file before its first unlock, a
    /// locked launch under `complete` protection) the queue starts empty and reads it later — before its next
    /// write, before a write of the session decides whether to queue behind it (``readLate()``), at the next replay,
    /// and on Apple platforms when the device says protected data became available — placing what it finds ahead
    /// of the entries queued since, so that none overtakes an older one.
    func attach(_ session: Session) {
        owner.withLock { $0.session = session }
        guard let persister else { return }
        let entries = persister.read { [weak self] entries in self?.place(entries, late: true) }
        if let entries {
            place(entries, late: false)
        } else {
            observeProtectedData()
        }
        persister.follow { [weak self] arrivals in self?.arrived(arrivals) }
    }

    /// Puts the entries another process added (an app extension queued them) in the queue, each where it goes, with
    /// their optimistic changes shown, and replays: claimed before each is sent, so exactly one process sends it.
    private func arrived(_ arrivals: [Arrival]) {
        guard !arrivals.isEmpty else { return }
        let layers = self.layers(of: arrivals.map(\.entry))
        state.withLock { $0.machine.arrived(arrivals, layers: layers) }
        wake()
    }

    /// Puts `entries`, read from the database, in the queue with their optimistic changes shown again: in place of
    /// what it holds (at attach), or `late`, ahead of the entries queued since.
    private func place(_ entries: [Entry], late: Bool) {
        guard !entries.isEmpty else { return }
        let layers = self.layers(of: entries)
        state.withLock { state in
            if late { state.machine.loadedLate(entries, layers: layers) } else { state.machine.loaded(entries, layers: layers) }
        }
    }

    /// The optimistic changes of `entries`, shown in the session's store.
    private func layers(of entries: [Entry]) -> [String: ResourceStore.PendingWrite] {
        var layers: [String: ResourceStore.PendingWrite] = [:]
        guard let session = owner.withLock({ $0.session }), let store = session.store else { return layers }
        for entry in entries where entry.optimistic {
            if let object = entry.layerObject(decoder: session.configuration.decoder) {
                layers[entry.id] = store.addPending(entry.kind, object: object, id: entry.resourceID)
            }
        }
        return layers
    }

    /// Reads the database when it could not be read before (``attach(_:)``), and returns once what it holds is
    /// in the queue; at once otherwise.
    func readLate() async {
        guard let persister else { return }
        await persister.readLate()
        // The files can be read now: a session store that could not open its database opens it too.
        if !persister.isUnread, let store = owner.withLock({ $0.session })?.store, store.configuration.persistence != nil,
            store.writer == nil
        {
            await store.openLate()
        }
    }

    /// The observer of `UIApplication.protectedDataDidBecomeAvailableNotification` while the database could not be
    /// read (Apple platforms); removed when the queue goes.
    private let protectedData = LockedValue<ProtectedDataObserver?>(nil)

    /// Reads the database and replays once the device says the app's protected files can be read (on Apple
    /// platforms; elsewhere the next use reads it). The notification is named by its string, so that the library
    /// needs no UIKit; it is posted on iOS, iPadOS, tvOS, visionOS and Mac Catalyst.
    private func observeProtectedData() {
        #if canImport(Darwin)
        let token = NotificationCenter.default.addObserver(
            forName: Notification.Name("UIApplicationProtectedDataDidBecomeAvailable"), object: nil, queue: nil
        ) { [weak self] _ in
            guard let self else { return }
            Task {
                await self.readLate()
                if !self.persisterUnread { self.protectedData.withLock { $0 = nil } }
                self.wake()
            }
        }
        protectedData.withLock { $0 = ProtectedDataObserver(token: token) }
        #endif
    }

    /// Whether the database is still unread.
    private var persisterUnread: Bool { persister?.isUnread ?? false }

    // MARK: Reading

    /// The writes waiting, oldest first — those marked ``Entry/isFailing`` too, by this process or by one before
    /// it on the same directory: what an app looks at after launch to tell its user of the writes that wait for
    /// them (``retry()``, ``discard(type:id:)``).
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

    /// Tells the queue that the network is back: starts sending the entries, in order, unless a replay runs
    /// already or every entry is failing or waits for a failing one (see ``retry()``). Returns at once; see
    /// ``replay()`` to wait.
    public func resume() {
        state.withLock { $0.machine.networkBack() }
        _ = replayTask()
    }

    /// Tells the queue that the network is back, sends the entries in order, and returns when what can be sent now
    /// is sent: the queue is empty, what is left is failing or waits for a failing entry, the network is found
    /// still down, or the next entry must wait longer than ``Configuration/maxDelay`` (a `Retry-After`: the replay
    /// waits it in the background and goes on). Joins the replay that runs, if one does.
    public func replay() async {
        state.withLock { $0.machine.networkBack() }
        guard replayTask() != nil else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.machine.isReplaying, !state.waitsLong else { return true }
                state.settled.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Sends the entries marked ``Entry/isFailing`` again, their counts of attempts started over: what an app does
    /// when its user asks to try again.
    public func retry() {
        if let snapshot = state.withLock({ $0.machine.retryFailing() }) { persister?.submit(snapshot) }
        resume()
    }

    /// The replay that runs, or a new one when there is something to send (or the database is still to read);
    /// `nil` when there is nothing.
    private func replayTask() -> Task<Void, Never>? {
        let unread = persisterUnread
        return running.withLock { running -> Task<Void, Never>? in
            let starts = state.withLock { $0.machine.startReplay(unread: unread) }
            guard starts else { return state.withLock { $0.machine.isReplaying } ? running : nil }
            let task = Task { await self.run() }
            running = task
            return task
        }
    }

    /// After a request succeeded: the network is back, so the queue, if it holds anything to send, is replayed.
    func requestSucceeded() {
        let unread = persisterUnread
        if state.withLock({ $0.machine.networkBack(); return $0.machine.canReplay || unread }) { _ = replayTask() }
    }

    /// After a write was queued behind others, or its account signed in: tries the next entry without saying the
    /// network is back, so that, offline, it costs nothing and the replay stops at once.
    func wake() {
        _ = replayTask()
    }

    /// The replay: the oldest entry that may go, then the next, until none is left, the network is found down or
    /// every entry left is failing or waits for a failing one.
    private func run() async {
        await readLate()
        replaying: while !Task.isCancelled, let session = owner.withLock({ $0.session }) {
            let (next, ended) = state.withLock { state in
                let next = state.machine.next(now: configuration.now(), configuration: configuration)
                return (next, state.machine.isReplaying ? [] : state.takeSettled())
            }
            for waiter in ended { waiter.resume() }
            if case .wait(let delay) = next {
                // The server asked for time (`Retry-After`), in this process or before a restart.
                do { try await wait(delay) } catch { break replaying }
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
                do { try await wait(delay) } catch { break replaying }
                state.withLock { $0.machine.waitServed() }
            case .stop: break replaying
            }
        }
        let ended = state.withLock { state in
            state.machine.replayEnded()
            return state.takeSettled()
        }
        for waiter in ended { waiter.resume() }
    }

    /// Sleeps `delay`; one longer than ``Configuration/maxDelay`` lets the callers of ``replay()`` return first.
    private func wait(_ delay: Duration) async throws {
        guard delay > max(configuration.maxDelay, .zero) else { return try await configuration.sleep(delay) }
        let waiting = state.withLock { state in
            state.waitsLong = true
            return state.takeSettled()
        }
        for waiter in waiting { waiter.resume() }
        defer { state.withLock { $0.waitsLong = false } }
        try await configuration.sleep(delay)
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
    /// - Parameters:
    ///   - entry: The write.
    ///   - layer: Its optimistic layer.
    ///   - failure: The transport failure of the write's own attempt, when it was sent before it was queued (an
    ///     attempt if the network was thought up; see ``StateMachine/sendFailed(_:configuration:)``).
    /// - Returns: The entry as queued.
    /// - Throws: ``JSONAPIClientError/Code/storeNotSaved`` when it could not be saved: it left the queue unsent (its
    ///   layer is the caller's to drop).
    @discardableResult
    func enqueue(_ entry: Entry, layer: ResourceStore.PendingWrite?, failure: JSONAPIClientError? = nil)
        async throws(JSONAPIClientError) -> Entry
    {
        let (entry, snapshot) = state.withLock { state in
            let entry = failure == nil ? entry : state.machine.sendFailed(entry, configuration: configuration)
            return (entry, state.machine.enqueued(entry, layer: layer))
        }
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
        if let failure, entry.isFailing { emit(Event(entry: entry, outcome: .failing(failure))) }
        return entry
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

    /// Writes every change made so far, then closes the queue's database for good (its files are about to be
    /// removed: ``Session/signOut(removingData:)``); later changes are not saved.
    func close() async {
        await persister?.close()
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

/// Holds a `NotificationCenter` observer and removes it when it goes (``WriteQueue``'s protected-data observer).
final class ProtectedDataObserver: @unchecked Sendable {
    // @unchecked Sendable: `token` is set once and only handed back to `NotificationCenter`, which is thread-safe.
    private let token: any NSObjectProtocol

    init(token: any NSObjectProtocol) { self.token = token }

    deinit { NotificationCenter.default.removeObserver(token) }
}
