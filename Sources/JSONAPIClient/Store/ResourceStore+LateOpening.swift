import Foundation

/// A persisted store whose database could not be opened — a launch before the device's first unlock, a locked
/// launch under `.complete` protection, a folder in the way — runs in memory, and opens it later: at its next
/// ``flush()``, and on Apple platforms as soon as the device says protected data became available. Its state then
/// takes the partition's, as at a switch of account: the observers are told that every record they saw went (live
/// objects load again, now from the database too), the clear count moves (an answer to a request sent before is not
/// merged after), and the optimistic changes shown stay (the write queue holds their writes). The records the store
/// holds go over the database's rows, merged with them member by member when saved, as records merged before their
/// rows read — for a store made alone and a session's that names its account (the partition is that account's). A
/// session's store that names none does not know whose they are under the database's key (its credential digests
/// were the process's): it drops them (they are fetched again as they are read), so that nothing one user fetched
/// lands in another's records, and the flush that opened the database says so (`storeNotSaved`).
extension ResourceStore {
    /// What a late opening did.
    enum LateOpened: Equatable {
        /// The store has its database (it had it already, or opened it now keeping what it held).
        case opened
        /// It opened it now, and dropped the records it held in memory (a session's store that names no account).
        case droppedRecords
        /// It could not open it (logged).
        case notOpened
    }

    /// Whether a late opening runs (and who waits for it to end), whether one dropped records since the last
    /// ``flush()`` asked, and the observer that starts one.
    struct LateOpening: Sendable {
        var running = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var dropped = false
        var observer: ProtectedDataObserver?
    }

    /// Returns once no late opening runs: a request through the store, or a flush, made while one runs (a session
    /// made while another process held the file's lock) waits for it — suspended, no thread waiting — so that it
    /// meets the database rather than an empty store.
    func waitForLateOpening() async {
        guard lateOpening.withLock({ $0.running }) else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = lateOpening.withLock { opening -> Bool in
                guard opening.running else { return true }
                opening.waiters.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    /// Whether a late opening dropped the records the store held since the last call (``flush()`` reports it).
    func takeDroppedRecords() -> Bool {
        lateOpening.withLock { opening in
            defer { opening.dropped = false }
            return opening.dropped
        }
    }

    /// Claims the late opening for a caller that starts it later (``openLate(claimed:)``): a request made in between
    /// waits for it (``waitForLateOpening()``).
    func claimLateOpening() {
        lateOpening.withLock { $0.running = true }
    }

    /// Opens the database of the partition shown when the store runs in memory for want of it (see the
    /// extension's comment); one opening at a time, off the caller's thread.
    ///
    /// - Parameter claimed: Whether the caller claimed it (``claimLateOpening()``); else it is claimed here, and
    ///   nothing is done while another one runs.
    /// - Returns: What it did.
    @discardableResult
    func openLate(claimed: Bool = false) async -> LateOpened {
        if !claimed {
            guard lateOpening.withLock({ opening -> Bool in
                defer { opening.running = true }
                return !opening.running
            }) else { return .notOpened }
        }
        defer {
            let waiters = lateOpening.withLock { opening -> [CheckedContinuation<Void, Never>] in
                opening.running = false
                defer { opening.waiters = [] }
                return opening.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        guard configuration.persistence != nil else { return .notOpened }
        let asked = state.withLock { state -> (partition: String, account: String?)? in
            state.backing.writer == nil ? (state.backing.partition, state.backing.account) : nil
        }
        guard let asked else { return .opened }
        let configuration = configuration
        // Handed over through a lock, as at a switch of account: what the queue made is published by it.
        let opened = LockedValue<(Backing, RowCodec.Contents?, CredentialDigest?)?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global(qos: .userInitiated).async {
                let made = Self.open(account: asked.account, configuration: configuration)
                opened.withLock { $0 = made }
                continuation.resume()
            }
        }
        guard let (backing, contents, owner) = opened.withLock({ $0 }), let writer = backing.writer else {
            return .notOpened
        }
        let target = Self.opened(
            contents, backing: backing, owner: owner, waitsForOwner: ofSession && asked.account == nil,
            limit: configuration.maxResponseBytes)
        // Whose the records held are is known for a store made alone, and for an account's.
        let keeps = !ofSession || asked.account != nil
        let taken = commit(merging: false) { state, effects -> LateOpened? in
            // A switch of account, or another opening, came first: this one is not needed.
            guard state.backing.writer == nil, state.backing.partition == asked.partition else { return nil }
            let overlay = state.overlay
            let held = keeps ? state.records.oldestFirst() : []
            let dropped = !keeps && state.records.count > 0
            effects.changes += state.dropRecords()
            effects.cleared = true
            var shown = target
            // Over the rows, merged with them when saved (``RecordTable/unreadBeneath``), least recently used first.
            for (key, record) in held { shown.records.setRecord(record, for: key) }
            effects.saves = !held.isEmpty
            shown.overlay = overlay
            shown.switching = state.switching
            shown.observers = state.observers
            shown.nextObserver = state.nextObserver
            shown.clears = state.clears
            shown.switches = state.switches
            shown.recordsUsed = state.recordsUsed
            shown.outbox = state.outbox
            state = shown
            return dropped ? .droppedRecords : .opened
        }
        guard let taken else {
            await writer.close()
            return state.withLock { $0.backing.writer != nil } ? .opened : .notOpened
        }
        lateOpening.withLock { opening in
            opening.observer = nil
            if taken == .droppedRecords { opening.dropped = true }
        }
        writer.follow(self)
        saveLeftOut()
        return taken
    }

    /// Opens the database late once the device says the app's protected files can be read (Apple platforms:
    /// `UIApplication.protectedDataDidBecomeAvailableNotification`, named by its string so that the library needs
    /// no UIKit); elsewhere the next ``flush()`` opens it.
    func openWhenProtectedDataIsAvailable() {
        #if canImport(Darwin)
        let token = NotificationCenter.default.addObserver(
            forName: Notification.Name("UIApplicationProtectedDataDidBecomeAvailable"), object: nil, queue: nil
        ) { [weak self] _ in
            guard let self else { return }
            Task { await self.openLate() }
        }
        lateOpening.withLock { $0.observer = ProtectedDataObserver(token: token) }
        #endif
    }
}
