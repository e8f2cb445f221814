import Dispatch
import Foundation

/// Where a ``WriteQueue``'s entries are kept between launches: the partition's database
/// (``WriteQueueDatabase``), a test's memory in tests.
///
/// It is told what changed, never the whole queue: an append writes one row, however long the queue.
protocol WriteQueueStorage: Sendable {
    /// The entries kept, oldest first (empty: none); what does not read as an entry is set aside (logged).
    ///
    /// - Throws: The storage's error when it cannot be read now (the device cannot read the file yet): nothing is
    ///   known of what it holds, and ``WriteQueuePersister`` reads it again before it writes.
    func read() throws -> [WriteQueue.Entry]
    /// Writes `changes` — entries added, changed, removed — all or none. Called on ``WriteQueuePersister``'s queue
    /// only, never under a lock. An update or removal of an entry the storage no longer holds (another process sent
    /// it) changes nothing; an update never adds it back.
    ///
    /// - Throws: The storage's error when they could not be written; what was kept before is intact.
    func save(_ changes: [WriteQueue.Change]) throws
    /// Claims `entry` for this process before it is sent, writing it as given (marked sent): so that of several
    /// processes replaying one queue, exactly one sends it. Called on ``WriteQueuePersister``'s queue only.
    ///
    /// - Returns: Whether it was claimed, is held by another live process, or is gone (another process sent or
    ///   discarded it).
    /// - Throws: The storage's error when the claim could not be made.
    func claim(_ entry: WriteQueue.Entry) throws -> WriteQueue.Claim
    /// Closes what the storage holds open, for good: its files are about to be removed. Every later save or
    /// claim fails. Called on ``WriteQueuePersister``'s queue only.
    func close()
    /// Tells `arrived`, from now on, of the entries another process adds (an app extension queued them), once the
    /// storage was read: each with where it goes (``WriteQueue/Arrival``), in the order added.
    func follow(_ arrived: @escaping @Sendable ([WriteQueue.Arrival]) -> Void)
}

extension WriteQueueStorage {
    /// A storage no other process shares claims every entry.
    func claim(_ entry: WriteQueue.Entry) throws -> WriteQueue.Claim { .claimed }
    /// A storage with no file has nothing to close.
    func close() {}
    /// A storage no other process shares has nothing to follow.
    func follow(_ arrived: @escaping @Sendable ([WriteQueue.Arrival]) -> Void) {}
}

extension WriteQueue {
    /// One change of the queue, for its storage to write.
    enum Change: Sendable, Equatable {
        /// An entry joined the queue (at its end).
        case insert(Entry)
        /// An entry changed (attempts, sent, failing); never adds one that is gone.
        case update(Entry)
        /// An entry left the queue.
        case delete(id: String)

        /// The id of the entry changed.
        var id: String {
            switch self {
            case .insert(let entry), .update(let entry): entry.id
            case .delete(let id): id
            }
        }
    }

    /// An entry another process added to the storage (``WriteQueueStorage/follow(_:)``), and the entry it goes
    /// before: the first of those this queue holds that was added after it (`nil`: at the end).
    struct Arrival: Sendable, Equatable {
        var entry: Entry
        var before: String?
    }

    /// What a claim before sending found (``WriteQueueStorage/claim(_:)``).
    enum Claim: Sendable, Equatable {
        /// This process may send it.
        case claimed
        /// Another process that is alive sends it now (its claim has not expired): wait, then ask again.
        case held
        /// It is no longer kept: another process sent or discarded it.
        case gone
    }
}

/// The changes handed to a ``WriteQueuePersister`` and not yet written, merged by entry: the newest change of each
/// entry wins, an insert followed by an update is an insert of the newer entry, and an insert followed by its delete
/// is nothing at all. A value, tested alone.
///
/// Changes may arrive out of order (each snapshot is made under the queue's lock but handed over after it), so each
/// is numbered with its snapshot's version, and one older than what was already taken for its entry is dropped — a
/// late update would write stale counts, a late insert would bring back an entry already discarded. For that, the
/// newest version taken is remembered per entry while the entry lives, and after its delete when no insert of it was
/// seen (an entry read at launch, or an insert still to come): a tombstone that the late insert, if it comes, clears.
struct WriteQueueOutbox {
    /// A change waiting, with its snapshot's version and where an insert goes (the insert's version: entries are
    /// appended in the order of their inserts).
    struct Item: Equatable {
        var change: WriteQueue.Change
        var version: UInt64
        var order: UInt64
    }

    /// What is known of an entry's changes.
    private struct Seen {
        var version: UInt64
        /// Whether its insert was taken here.
        var inserted: Bool
        /// Whether it was deleted (a tombstone).
        var deleted = false
    }

    /// The changes waiting, by entry id.
    private(set) var pending: [String: Item] = [:]
    private var seen: [String: Seen] = [:]

    var isEmpty: Bool { pending.isEmpty }

    /// How many entries are remembered (live ones and tombstones): bounded by the entries the queue holds and those
    /// read at launch.
    var remembered: Int { seen.count }

    /// Takes `snapshot`'s changes.
    mutating func take(_ snapshot: WriteQueue.StateMachine.Snapshot) {
        for change in snapshot.changes { take(change, version: snapshot.version) }
    }

    /// Takes `change`, made at `version`.
    mutating func take(_ change: WriteQueue.Change, version: UInt64) {
        let id = change.id
        if let known = seen[id] {
            if known.deleted {
                // After its delete: dropped. Its late insert clears the tombstone (no other change can come).
                if case .insert = change { seen[id] = nil }
                return
            }
            guard version > known.version else { return }  // late, or the same snapshot handed over twice
        }
        switch change {
        case .insert:
            seen[id] = Seen(version: version, inserted: true)
            pending[id] = Item(change: change, version: version, order: version)
        case .update(let entry):
            seen[id] = Seen(version: version, inserted: seen[id]?.inserted ?? false)
            if var item = pending[id], case .insert = item.change {
                item.change = .insert(entry)
                item.version = version
                pending[id] = item
            } else {
                pending[id] = Item(change: change, version: version, order: version)
            }
        case .delete:
            // Once its insert was taken, nothing older can still come: it is forgotten. Otherwise a tombstone.
            seen[id] = seen[id]?.inserted == true ? nil : Seen(version: version, inserted: false, deleted: true)
            if let item = pending[id], case .insert = item.change {
                pending[id] = nil  // never written: nothing to delete
            } else {
                pending[id] = Item(change: change, version: version, order: version)
            }
        }
    }

    /// Takes every change waiting, to write: deletes and updates first, then inserts in the queue's order.
    mutating func takeAll() -> [Item] {
        let items = pending.values.sorted { ($0.isInsert ? 1 : 0, $0.order) < ($1.isInsert ? 1 : 0, $1.order) }
        pending = [:]
        return items
    }

    /// Puts back `items`, whose write failed, under any newer change of the same entries taken meanwhile.
    mutating func restore(_ items: [Item]) {
        for item in items {
            let id = item.change.id
            guard let newer = pending[id] else {
                pending[id] = item
                continue
            }
            switch (item.change, newer.change) {
            case (.insert, .update(let entry)):
                pending[id] = Item(change: .insert(entry), version: newer.version, order: item.order)
            case (.insert, .delete):
                pending[id] = nil  // never written, and deleted since
            default:
                break  // the newer change stands
            }
        }
    }
}

extension WriteQueueOutbox.Item {
    var isInsert: Bool { if case .insert = change { true } else { false } }
}

/// Makes a ``WriteQueue``'s changes durable on a serial queue of its own, as ``StoreWriter`` does the store's: the
/// encoding and the database's transactions never run under the queue's lock, nor on the cooperative pool's threads.
///
/// Snapshots are numbered (``WriteQueue/StateMachine/version``) and carry the changes made since the one before;
/// those handed over while a write runs are merged (``WriteQueueOutbox``), so a burst of changes costs one
/// transaction, and a waiter is resumed by the write that took its own changes (never by a newer snapshot's: they
/// are deltas). A write that fails fails the waiters it would have made durable, unless a later snapshot waits to be
/// written (then they wait for it); its changes are kept, to go with the next write.
final class WriteQueuePersister: Sendable {
    private let storage: any WriteQueueStorage
    private let queue = DispatchQueue(label: "JSONAPIClient.WriteQueue.persister", qos: .utility)
    private let log: @Sendable (String) -> Void

    private struct State {
        /// The changes not yet written.
        var outbox = WriteQueueOutbox()
        /// Whether a write is due (changes waiting, or a waiter whose write failed asks again).
        var dirty = false
        /// How many writes took the outbox's changes (``WriteQueueOutbox/takeAll()``): the changes taken now go
        /// with write number `takes + 1`.
        var takes: UInt64 = 0
        /// Whether the queue is draining.
        var draining = false
        /// Whether the storage could not be read yet (``read()``): it is read before anything is written, so that
        /// the entries it holds go ahead of those queued since (``onLateRead``).
        var unread = false
        /// Told of the entries a late read found, before the write that follows it (``WriteQueue``'s placing
        /// them ahead of its own).
        var onLateRead: (@Sendable ([WriteQueue.Entry]) -> Void)?
        /// Each waiter with the number of the write that carries its changes. Changes are deltas: a snapshot's are
        /// durable only once the write that took them is, whatever newer snapshot was written before (snapshots are
        /// handed over after the queue's lock, so a newer one may be written first).
        var waiters: [(write: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []

        /// Takes `snapshot`'s changes.
        mutating func take(_ snapshot: WriteQueue.StateMachine.Snapshot) {
            outbox.take(snapshot)
            dirty = true
        }

        /// Whether the caller must start draining (`dirty`, and no drain runs).
        mutating func startsDraining() -> Bool {
            guard dirty, !draining else { return false }
            draining = true
            return true
        }
    }

    private let state = LockedValue(State())

    init(storage: any WriteQueueStorage, log: @escaping @Sendable (String) -> Void) {
        self.storage = storage
        self.log = log
    }

    /// Reads the entries kept (a session reads its queue when it is made); `nil` when the storage cannot be read
    /// now: then it is read again before the next write, or at ``readLate()``, and `onLateRead` is told what it
    /// holds.
    func read(onLateRead: @escaping @Sendable ([WriteQueue.Entry]) -> Void) -> [WriteQueue.Entry]? {
        state.withLock { $0.onLateRead = onLateRead }
        do {
            return try storage.read()
        } catch {
            state.withLock { $0.unread = true }
            return nil
        }
    }

    /// Whether the storage could not be read yet.
    var isUnread: Bool { state.withLock { $0.unread } }

    /// Tells `arrived` of the entries another process adds from now on (``WriteQueueStorage/follow(_:)``).
    func follow(_ arrived: @escaping @Sendable ([WriteQueue.Arrival]) -> Void) {
        storage.follow(arrived)
    }

    /// Reads the storage, on the queue, when it could not be read before (``read(onLateRead:)``), and returns once
    /// `onLateRead` was told what it holds — or at once when it was read.
    func readLate() async {
        guard isUnread else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                _ = try? readIfUnread()
                continuation.resume()
            }
        }
    }

    /// Reads the storage when it was not read yet and tells `onLateRead` what it holds; on the queue only.
    ///
    /// - Throws: The storage's error when it still cannot be read.
    private func readIfUnread() throws {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let tell = state.withLock({ $0.unread ? $0.onLateRead : nil }) else { return }
        let entries = try storage.read()
        state.withLock { $0.unread = false }
        tell(entries)
    }

    /// Hands `snapshot` over to be written in the background; a failure is logged.
    func submit(_ snapshot: WriteQueue.StateMachine.Snapshot) {
        let start = state.withLock { state -> Bool in
            state.take(snapshot)
            return state.startsDraining()
        }
        if start { queue.async { self.drain() } }
    }

    /// Hands `snapshot` over and returns once a write that includes it is durable.
    ///
    /// - Throws: The storage's error when that write failed.
    func save(_ snapshot: WriteQueue.StateMachine.Snapshot) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let start = state.withLock { state -> Bool in
                // Its changes go with the next write to take the outbox — not with one already running, which took
                // what was there before — and it waits for that write (even when they were all superseded).
                state.take(snapshot)
                state.waiters.append((state.takes + 1, continuation))
                return state.startsDraining()
            }
            if start { queue.async { self.drain() } }
        }
    }

    /// Claims `entry` for this process before it is sent (``WriteQueueStorage/claim(_:)``), on the queue, after
    /// the writes handed over before.
    ///
    /// - Throws: The storage's error when the claim could not be made (logged).
    func claim(_ entry: WriteQueue.Entry) async throws -> WriteQueue.Claim {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WriteQueue.Claim, any Error>) in
            queue.async { [self] in
                let result = Result { try storage.claim(entry) }
                if case .failure(let error) = result { log("JSONAPIClient write queue: not claimed: \(error)") }
                continuation.resume(with: result)
            }
        }
    }

    /// Writes the changes waiting until none is left to write; runs on `queue` only, never under a lock.
    private func drain() {
        dispatchPrecondition(condition: .onQueue(queue))
        while let (items, write) = state.withLock({ state -> ([WriteQueueOutbox.Item], UInt64)? in
            guard state.dirty else {
                state.draining = false
                return nil
            }
            state.dirty = false
            state.takes += 1
            return (state.outbox.takeAll(), state.takes)
        }) {
            // Read first when it could not be read before: the entries it holds go ahead of these.
            let result = Result {
                try readIfUnread()
                try items.isEmpty ? () : storage.save(items.map(\.change))
            }
            let settled = state.withLock { state -> [(CheckedContinuation<Void, any Error>, Result<Void, any Error>)] in
                if case .failure = result {
                    state.outbox.restore(items)
                    // Newer changes wait: the failed ones go with them, and so do their waiters.
                    if state.dirty {
                        for index in state.waiters.indices where state.waiters[index].write <= write {
                            state.waiters[index].write = state.takes + 1
                        }
                        return []
                    }
                }
                let done = state.waiters.filter { $0.write <= write }
                state.waiters.removeAll { $0.write <= write }
                return done.map { ($0.continuation, result) }
            }
            if case .failure(let error) = result { log("JSONAPIClient write queue: not saved: \(error)") }
            for (continuation, result) in settled { continuation.resume(with: result) }
        }
    }

    /// Closes the storage once every snapshot handed over so far is written (or its write failed), and returns
    /// then (``WriteQueueStorage/close()``).
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                storage.close()
                continuation.resume()
            }
        }
    }

    /// Returns once every snapshot handed over so far is written (or its write failed).
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }
}
