import Dispatch
import Foundation

/// Where a ``WriteQueue``'s entries are kept between launches: the queue's file today (``WriteQueueFile``), a test's
/// memory in tests.
protocol WriteQueueStorage: Sendable {
    /// The entries kept; `nil` when none are, or when what was kept could not be read (logged, and set aside).
    func load() -> [WriteQueue.Entry]?
    /// Replaces what is kept with `entries`. Called on ``WriteQueuePersister``'s queue only, never under a lock.
    ///
    /// - Throws: The system's error when they could not be kept; what was kept before is intact.
    func save(_ entries: [WriteQueue.Entry]) throws
}

/// Makes a ``WriteQueue``'s snapshots durable on a serial queue of its own, as ``StoreWriter`` does the store's: the
/// encoding, the writes and the `fsync`s never run under the queue's lock, nor on the cooperative pool's threads.
///
/// Snapshots are numbered (``WriteQueue/StateMachine/version``): one handed over while another waits replaces it,
/// so a burst of changes costs one write, and a waiter is resumed by the first write that includes its version. A
/// write that fails fails the waiters it would have made durable, unless a later snapshot waits to be written (then
/// they wait for it).
final class WriteQueuePersister: Sendable {
    private let storage: any WriteQueueStorage
    private let queue = DispatchQueue(label: "JSONAPIClient.WriteQueue.persister", qos: .utility)
    private let log: @Sendable (String) -> Void

    private struct State {
        /// The newest snapshot handed over.
        var newest: WriteQueue.StateMachine.Snapshot?
        /// Whether `newest` is still to be written.
        var dirty = false
        /// The version being written, while one is.
        var writing: UInt64?
        /// The newest version written.
        var written: UInt64 = 0
        /// Whether the queue is draining.
        var draining = false
        var waiters: [(version: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []

        /// Takes `snapshot` as the newest, when it is newer.
        mutating func take(_ snapshot: WriteQueue.StateMachine.Snapshot) {
            guard snapshot.version > newest?.version ?? 0 else { return }
            newest = snapshot
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

    /// Reads the entries kept (on the caller's thread: a session reads its queue once, when it is made).
    func load() -> [WriteQueue.Entry]? { storage.load() }

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
            let start = state.withLock { state -> Bool? in
                guard snapshot.version > state.written else { return nil }
                state.waiters.append((snapshot.version, continuation))
                state.take(snapshot)
                // A write in progress that includes it settles it; otherwise the newest (which includes it) is
                // written again, even when its last write failed.
                if state.writing ?? 0 < snapshot.version { state.dirty = true }
                return state.startsDraining()
            }
            switch start {
            case nil: continuation.resume()
            case true?: queue.async { self.drain() }
            case false?: break
            }
        }
    }

    /// Writes the newest snapshot until none is left to write; runs on `queue` only, never under a lock.
    private func drain() {
        dispatchPrecondition(condition: .onQueue(queue))
        while let snapshot = state.withLock({ state -> WriteQueue.StateMachine.Snapshot? in
            guard state.dirty, let newest = state.newest else {
                state.draining = false
                return nil
            }
            state.dirty = false
            state.writing = newest.version
            return newest
        }) {
            let result = Result { try storage.save(snapshot.entries) }
            let settled = state.withLock { state -> [(CheckedContinuation<Void, any Error>, Result<Void, any Error>)] in
                state.writing = nil
                let settles: UInt64
                switch result {
                case .success:
                    state.written = max(state.written, snapshot.version)
                    settles = state.written
                case .failure:
                    guard !state.dirty else { return [] }  // a newer snapshot may still make them durable
                    settles = snapshot.version
                }
                let done = state.waiters.filter { $0.version <= settles }
                state.waiters.removeAll { $0.version <= settles }
                return done.map { ($0.continuation, result) }
            }
            if case .failure(let error) = result { log("JSONAPIClient write queue: not saved: \(error)") }
            for (continuation, result) in settled { continuation.resume(with: result) }
        }
    }

    /// Returns once every snapshot handed over so far is written (or its write failed).
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }
}
