import Foundation

extension WriteQueue {
    /// The queue's logic as a value, tested without a session, a transport or a file: the entries in order, their
    /// optimistic layers, which one is being sent, and what each event makes of them. Every method runs under the
    /// queue's lock and only changes the value; what must happen outside — send, wait, save, tell the observers,
    /// settle a layer — it returns as ``Action``s for ``WriteQueue`` to carry out after the lock is released, so no
    /// file work, encoding or waiting ever happens under it.
    ///
    /// Events: a write that failed in the transport before it was queued (``sendFailed(_:configuration:)``), a write
    /// queued (``enqueued(_:layer:)``), its entry made durable or not (``saved(_:)``, ``notSaved(_:)``), word that
    /// the network is back (``networkBack()``), a replay started (``startReplay()``) taking the next entry
    /// (``next()``), an attempt finished (``attemptFinished(_:_:configuration:)``), entries discarded
    /// (``discard(where:)``) or retried (``retryFailing()``).
    ///
    /// What counts: an attempt is a request that got an answer other than a success or the server's refusal (a 5xx,
    /// a `429`, a `503`, with or without `Retry-After`), or that failed in the transport while the network was thought
    /// up. The network is thought up after ``networkBack()`` and after any answer; a transport failure makes it
    /// thought down, as it is at launch, and a transport failure while it is thought down costs nothing and stops
    /// the replay (so that a process launched offline again and again spends nothing).
    /// At ``Configuration/maxAttempts`` the entry is marked failing and the replay goes on with the entries that do
    /// not depend on it (``depends(_:on:)``).
    struct StateMachine {
        /// The entries, oldest first.
        private(set) var entries: [Entry] = []
        /// The optimistic layer of each entry that has one, by entry id.
        private(set) var layers: [String: ResourceStore.PendingWrite] = [:]
        /// The entries whose enqueue is not durable yet: none is sent before it is (it may still be refused).
        private var unsaved: Set<String> = []
        /// The entry being sent, which a discard leaves alone.
        private(set) var sending: String?
        /// Whether a replay runs.
        private(set) var isReplaying = false
        /// Whether the network is thought up: a transport failure then counts as an attempt; while it is thought
        /// down (as at launch, until told otherwise), one costs nothing and stops the replay.
        private(set) var isOnline = false
        /// Counts the changes to save: a snapshot of a later version replaces any earlier one not yet written.
        private(set) var version: UInt64 = 0

        /// What changed in the entries, to be saved, numbered: the changes of one event (never the whole queue, so
        /// that an append costs the same however long the queue is).
        struct Snapshot: Sendable {
            var changes: [Change]
            var version: UInt64
        }

        /// What the queue does after an event, in order.
        enum Action {
            /// Save the entries (in the background; a later snapshot supersedes it).
            case persist(Snapshot)
            /// Tell the observers.
            case emit(Event)
            /// The server's answer stands for the optimistic layer without a body (an earlier attempt made it).
            case confirm(ResourceStore.PendingWrite)
            /// The server refused the entry: drop its layer and tell the observers, with what was undone.
            case reject(Entry, ResourceStore.PendingWrite?, JSONAPIClientError)
            /// The entry left the queue unsent here (another process sent or discarded it): drop its layer and tell
            /// the observers it was discarded.
            case discard(Entry, ResourceStore.PendingWrite?)
        }

        /// What the replay does next.
        enum Then: Equatable {
            /// Sends the next entry.
            case next
            /// Waits this long, then sends the next entry.
            case wait(Duration)
            /// Stops until ``WriteQueue/resume()``, the next successful request, the next queued write or
            /// ``WriteQueue/retry()``.
            case stop
        }

        /// A new snapshot of `changes`.
        private mutating func changed(_ changes: [Change]) -> Snapshot {
            version += 1
            return Snapshot(changes: changes, version: version)
        }

        // MARK: Entries

        /// The entries read back at launch, and the layers that show their optimistic changes again.
        mutating func loaded(_ loaded: [Entry], layers: [String: ResourceStore.PendingWrite]) {
            entries = loaded
            self.layers = layers
        }

        /// The entries read from the database late (it could not be read at launch), and their layers: they go
        /// ahead of the entries queued since, which are newer (one the machine holds already stays where it is).
        mutating func loadedLate(_ loaded: [Entry], layers: [String: ResourceStore.PendingWrite]) {
            let held = Set(entries.map(\.id))
            entries = loaded.filter { !held.contains($0.id) } + entries
            self.layers.merge(layers) { held, _ in held }
        }

        /// Entries another process added to the database since (``WriteQueueStorage/follow(_:)``), and their
        /// layers: each goes before the entry it names (one added after it), else at the end; one the machine
        /// holds already stays where it is. They are on disk already: nothing to save.
        mutating func arrived(_ arrivals: [Arrival], layers: [String: ResourceStore.PendingWrite]) {
            var held = Set(entries.map(\.id))
            for arrival in arrivals where !held.contains(arrival.entry.id) {
                held.insert(arrival.entry.id)
                let index = arrival.before.flatMap { before in entries.firstIndex { $0.id == before } } ?? entries.endIndex
                entries.insert(arrival.entry, at: index)
                if let layer = layers[arrival.entry.id] { self.layers[arrival.entry.id] = layer }
            }
        }

        /// `entry` joins the end of the queue; it is not sent until ``saved(_:)``.
        ///
        /// - Returns: The snapshot whose write makes it durable.
        mutating func enqueued(_ entry: Entry, layer: ResourceStore.PendingWrite?) -> Snapshot {
            entries.append(entry)
            unsaved.insert(entry.id)
            if let layer { layers[entry.id] = layer }
            return changed([.insert(entry)])
        }

        /// `entry` was sent outside the queue (none waited) and failed in the transport: it may have reached the
        /// server, and it made an attempt if the network was thought up (marked failing when that is
        /// ``Configuration/maxAttempts``); the network is thought down now.
        ///
        /// - Returns: The entry to queue.
        mutating func sendFailed(_ entry: Entry, configuration: Configuration) -> Entry {
            var entry = entry
            entry.sent = true
            if isOnline { Self.count(&entry, configuration: configuration) }
            isOnline = false
            return entry
        }

        /// The app says the network is back (``WriteQueue/resume()``, ``WriteQueue/replay()``), or a request
        /// succeeded: the next transport failure counts again.
        mutating func networkBack() {
            isOnline = true
        }

        /// `id`'s entry is durable: it may be sent.
        mutating func saved(_ id: String) {
            unsaved.remove(id)
        }

        /// `id`'s entry could not be made durable: it leaves the queue, unsent, and its write fails.
        ///
        /// - Returns: Its layer, to drop, and the snapshot without it.
        mutating func notSaved(_ id: String) -> (layer: ResourceStore.PendingWrite?, snapshot: Snapshot) {
            unsaved.remove(id)
            removeEntry(id)
            return (layers.removeValue(forKey: id), changed([.delete(id: id)]))
        }

        /// Whether a replay would send something now: none runs, and an entry may go (``nextIndex``).
        var canReplay: Bool {
            !isReplaying && nextIndex != nil
        }

        /// The entry the replay sends next: the oldest that is neither failing nor behind a failing one it depends
        /// on (``depends(_:on:)``, through any entry held so); `nil` when there is none, or when an entry before it
        /// is not durable yet.
        private var nextIndex: Int? {
            var held: [Entry] = []
            for index in entries.indices {
                let entry = entries[index]
                guard !unsaved.contains(entry.id) else { return nil }
                guard entry.isFailing || held.contains(where: { Self.depends(entry, on: $0) }) else { return index }
                held.append(entry)
            }
            return nil
        }

        /// Whether `later` must wait for `earlier`, queued before it, while `earlier` is failing: they change the
        /// same record (type and id), they go to the same URL (two creates posted to one collection excepted: they
        /// make two resources), or `earlier` creates a resource that `later` names — its id (a local id, for a
        /// create without one) is a component of `later`'s URL or a string of its body (a linkage to it).
        static func depends(_ later: Entry, on earlier: Entry) -> Bool {
            if later.type == earlier.type && later.resourceID == earlier.resourceID { return true }
            if later.url == earlier.url && !(later.kind == .create && earlier.kind == .create) { return true }
            guard earlier.kind == .create, !earlier.resourceID.isEmpty else { return false }
            if later.url.pathComponents.contains(earlier.resourceID) { return true }
            guard let body = later.body else { return false }
            return body.range(of: Data("\"\(earlier.resourceID)\"".utf8)) != nil
        }

        /// Whether entries wait (a new queued write goes behind them).
        var isWaiting: Bool { !entries.isEmpty }

        // MARK: Replaying

        /// Starts a replay when ``canReplay``, or when the database is still to be read (`unread`: the replay reads
        /// it first).
        ///
        /// - Returns: Whether the caller must run a new replay.
        mutating func startReplay(unread: Bool = false) -> Bool {
            guard canReplay || (unread && !isReplaying) else { return false }
            isReplaying = true
            return true
        }

        /// What the replay sends next.
        enum Next {
            /// This entry (as it was before this attempt: ``Entry/sent`` says whether an earlier one may have reached
            /// the server), with its layer; `persist` first, when set, so that a process killed while the request is
            /// on its way knows after a restart that it may have been made.
            case send(Entry, ResourceStore.PendingWrite?, persist: Snapshot?)
            /// Nothing yet: the server asked not to send the first entry before a time still this far off
            /// (``Entry/notBefore``, kept across launches). Ask again after it.
            case wait(Duration)
            /// Nothing: the queue is empty, every entry is failing or waits for a failing one, or the next is not
            /// durable yet. The replay is over.
            case finished
        }

        /// The oldest entry that may go (``nextIndex``), marked as being sent and as sent; or the end of the replay
        /// (in the same step, so that an entry queued just after starts a new one).
        ///
        /// - Parameters:
        ///   - now: The time by the queue's clock.
        ///   - configuration: The queue's limits (a wait the server asked for is at most
        ///     ``Configuration/maxRetryAfter``, whatever the clock did since).
        mutating func next(now: Date, configuration: Configuration) -> Next {
            guard let index = nextIndex else {
                replayEnded()
                return .finished
            }
            let first = entries[index]
            if let notBefore = first.notBefore, notBefore > now {
                let seconds = notBefore.timeIntervalSince(now)
                // Below the limit, a valid `Duration` bounds it: converting cannot overflow.
                guard seconds < Self.seconds(configuration.maxRetryAfter) else { return .wait(configuration.maxRetryAfter) }
                return .wait(.seconds(seconds))
            }
            sending = first.id
            guard !first.sent else { return .send(first, layers[first.id], persist: nil) }
            entries[index].sent = true
            return .send(first, layers[first.id], persist: changed([.update(entries[index])]))
        }

        /// The replay slept the wait the server asked for (``Next/wait`` or a `429`/`503` answer's): the next entry
        /// goes, whatever the clock says now. Without this, a clock set back (or a `sleep` that returns early)
        /// would make ``next(now:configuration:)`` ask for the wait again and again. Only the entry in memory
        /// forgets its time; the stored one keeps it, and it is in the past by the time a restart reads it.
        mutating func waitServed() {
            guard let index = nextIndex else { return }
            entries[index].notBefore = nil
        }

        /// The replay ended (it finished, stopped or was cancelled).
        mutating func replayEnded() {
            sending = nil
            isReplaying = false
        }

        /// What the replay does after the storage answered the claim of the entry ``next()`` returned.
        enum AfterClaim {
            /// Send it: this process holds the claim.
            case send
            /// It left the queue (another process sent or discarded it): carry out the actions, then take the next.
            case skip([Action])
            /// Another process is sending it: wait this long, then take it again (``next()``).
            case wait(Duration)
        }

        /// Settles the claim of `entry` (as ``next()`` returned it), made with several processes on one queue in
        /// mind: exactly one of them sends an entry.
        ///
        /// - Parameters:
        ///   - entry: The entry to send.
        ///   - claim: What the storage found.
        ///   - configuration: The queue's delays (a held entry is asked for again after ``Configuration/firstDelay``,
        ///     at most a second).
        /// - Returns: Whether to send it, skip it or wait.
        mutating func claimFinished(_ entry: Entry, _ claim: Claim, configuration: Configuration) -> AfterClaim {
            switch claim {
            case .claimed:
                return .send
            case .held:
                sending = nil
                return .wait(min(max(configuration.firstDelay, .milliseconds(1)), .seconds(1)))
            case .gone:
                sending = nil
                guard removeEntry(entry.id) else { return .skip([]) }
                unsaved.remove(entry.id)
                let layer = layers.removeValue(forKey: entry.id)
                // Nothing to save: its row is gone already.
                return .skip([.discard(entry, layer)])
            }
        }

        /// The outcome of one attempt to send `entry`: a success status, or the error it failed with.
        enum Attempt {
            case answered(HTTPResponse.Status)
            case failed(JSONAPIClientError)
        }

        /// Settles `entry`'s attempt: delivered, made before, refused, counted and tried again after a wait (marked
        /// failing at ``Configuration/maxAttempts``), still offline, or held for its account.
        ///
        /// - Parameters:
        ///   - entry: The entry sent (as ``next()`` returned it).
        ///   - attempt: What came of it.
        ///   - configuration: The queue's limits and backoff.
        /// - Returns: What to do now, and what the replay does next.
        mutating func attemptFinished(_ entry: Entry, _ attempt: Attempt, configuration: Configuration) -> (
            actions: [Action], then: Then
        ) {
            sending = nil
            let layer = layers[entry.id]
            switch attempt {
            case .answered(let status):
                isOnline = true
                return (remove(entry, .delivered(status)), .next)
            case .failed(let error):
                return failed(entry, error, layer: layer, configuration: configuration)
            }
        }

        private mutating func failed(
            _ entry: Entry, _ error: JSONAPIClientError, layer: ResourceStore.PendingWrite?,
            configuration: Configuration
        ) -> (actions: [Action], then: Then) {
            if error.code == .accountChanged {
                // Another account is signed in: this write (and those after it) wait for theirs.
                return (unchanged(entry) + [.emit(Event(entry: entry, outcome: .waiting))], .stop)
            }
            if error.code == .securityFailed {
                // The connection was refused for its security (TLS, a certificate, a pin): not the server's no, and
                // not to be tried again by itself. The write stays, for the app to decide.
                let updated = update(entry.id) { $0.isFailing = true }
                return (
                    [.persist(changed(updated.map { [.update($0)] } ?? [])),
                     .emit(Event(entry: updated ?? entry, outcome: .failing(error)))],
                    .next
                )
            }
            guard let status = error.status else {
                guard error.isUnreachable else {
                    return ([.reject(entry, layer, error)] + remove(entry, nil), .next)
                }
                // No answer: an attempt only when the network was thought up. Thought down already, it is still
                // offline: the replay stops, and nothing is counted.
                guard isOnline else { return (unchanged(entry) + [.emit(Event(entry: entry, outcome: .waiting))], .stop) }
                isOnline = false
                return counted(entry, error, wait: nil, configuration: configuration)
            }
            isOnline = true
            let madeBefore = entry.sent && status.code == 409 && entry.kind == .create && entry.clientGeneratedID
            if madeBefore || status.code == 404 && entry.kind == .delete {
                // An earlier attempt made it (or the resource is gone, as it was to be): what was sent stands.
                return ((layer.map { [.confirm($0)] } ?? []) + remove(entry, .delivered(status)), .next)
            }
            let wait = Self.serverWait(error, configuration: configuration)
            guard wait != nil || status.kind == .serverError || status.code == 429 else {
                return ([.reject(entry, layer, error)] + remove(entry, nil), .next)
            }
            return counted(entry, error, wait: wait, configuration: configuration)
        }

        /// An attempt that counts: the entry is tried again after `wait` (the server's, from `Retry-After`) or the
        /// backoff, which goes on from its earlier attempts; at ``Configuration/maxAttempts`` it is marked failing,
        /// and the replay goes on with the entries that do not depend on it (after the server's wait, if it gave one).
        private mutating func counted(
            _ entry: Entry, _ error: JSONAPIClientError, wait: Duration?, configuration: Configuration
        ) -> (actions: [Action], then: Then) {
            let now = configuration.now()
            let changedEntry = update(entry.id) { entry in
                Self.count(&entry, configuration: configuration)
                if let wait { entry.notBefore = now.addingTimeInterval(Self.seconds(wait)) }
            }
            let updated = changedEntry ?? entry
            let snapshot = changed(changedEntry.map { [.update($0)] } ?? [])
            if updated.isFailing {
                return ([.persist(snapshot), .emit(Event(entry: updated, outcome: .failing(error)))], wait.map { .wait($0) } ?? .next)
            }
            let delay = wait ?? configuration.delay(after: updated.attempts)
            return ([.persist(snapshot), .emit(Event(entry: updated, outcome: .willRetry(after: delay)))], .wait(delay))
        }

        /// One more attempt of `entry` (its count never overflows, whatever a file said), failing at
        /// ``Configuration/maxAttempts``.
        private static func count(_ entry: inout Entry, configuration: Configuration) {
            entry.attempts = entry.attempts < Int.max ? entry.attempts + 1 : Int.max
            entry.isFailing = entry.attempts >= configuration.maxAttempts
        }

        /// `duration` in seconds.
        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        }

        /// How long a `429` or `503` asks to wait by its `Retry-After` (seconds or an HTTP date), at most
        /// ``Configuration/maxRetryAfter``; `nil` for any other answer, or one without a readable `Retry-After`.
        static func serverWait(_ error: JSONAPIClientError, configuration: Configuration) -> Duration? {
            guard let code = error.status?.code, code == 429 || code == 503,
                let value = error.responseHeaders?[.retryAfter],
                let seconds = RetryAfter.seconds(value, now: configuration.now())
            else { return nil }
            let limit = max(configuration.maxRetryAfter, .zero)
            // Compared in floating point before a Duration is made: no server value overflows an integer.
            guard seconds < limit.timeInterval else { return limit }
            return .milliseconds(Int64((max(seconds, 0) * 1000).rounded(.up)))
        }

        /// Saves `entry` as it is, which ends this process's claim of it (other processes may send it at once).
        private mutating func unchanged(_ entry: Entry) -> [Action] {
            guard let entry = entries.first(where: { $0.id == entry.id }) else { return [] }
            return [.persist(changed([.update(entry)]))]
        }

        /// Removes `entry` after its outcome (`nil`: the caller emits its own).
        private mutating func remove(_ entry: Entry, _ outcome: Outcome?) -> [Action] {
            removeEntry(entry.id)
            layers[entry.id] = nil
            unsaved.remove(entry.id)
            let snapshot = changed([.delete(id: entry.id)])
            return [.persist(snapshot)] + (outcome.map { [.emit(Event(entry: entry, outcome: $0))] } ?? [])
        }

        /// Removes the entry `id`, with one move of the entries after it (and another should a second have its id, which
        /// nothing makes): `removeAll(where:)` swapped
        /// each of them one by one, a copy and a release apiece, under the queue's lock. A replay removes the oldest
        /// entry each time, so a backlog of n writes cost n²/2 swaps (8,700 writes queued by a child of the queue's
        /// kill test: about a third of the test run's busy time, by gdb samples).
        ///
        /// - Returns: Whether it was queued.
        @discardableResult
        private mutating func removeEntry(_ id: String) -> Bool {
            guard let index = entries.firstIndex(where: { $0.id == id }) else { return false }
            entries.remove(at: index)
            while let another = entries[index...].firstIndex(where: { $0.id == id }) { entries.remove(at: another) }
            return true
        }

        /// Changes the entry `id` with `change`.
        ///
        /// - Returns: The entry as changed; `nil` when it is not queued (discarded while it was sent).
        private mutating func update(_ id: String, _ change: (inout Entry) -> Void) -> Entry? {
            guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
            change(&entries[index])
            return entries[index]
        }

        // MARK: Discarding and retrying

        /// Removes the entries `matches` selects, but the one being sent.
        ///
        /// - Returns: The entries removed with their layers, and the snapshot to save (`nil` when none was).
        mutating func discard(where matches: (Entry) -> Bool) -> (
            removed: [(Entry, ResourceStore.PendingWrite?)], snapshot: Snapshot?
        ) {
            let removed = entries.filter { $0.id != sending && matches($0) }
            guard !removed.isEmpty else { return ([], nil) }
            let ids = Set(removed.map(\.id))
            entries.removeAll { ids.contains($0.id) }
            unsaved.subtract(ids)
            return (
                removed.map { ($0, layers.removeValue(forKey: $0.id)) }, changed(removed.map { .delete(id: $0.id) })
            )
        }

        /// Gives the entries marked failing a new start: no longer failing, their counts of attempts at zero.
        ///
        /// - Returns: The snapshot to save; `nil` when no entry was failing.
        mutating func retryFailing() -> Snapshot? {
            guard entries.contains(where: \.isFailing) else { return nil }
            var changes: [Change] = []
            for index in entries.indices where entries[index].isFailing {
                entries[index].isFailing = false
                entries[index].attempts = 0
                changes.append(.update(entries[index]))
            }
            return changed(changes)
        }
    }
}
