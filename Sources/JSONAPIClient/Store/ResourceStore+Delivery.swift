import Dispatch
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one way into the store, and when its observers are told.
///
/// Every change of the store's state is an event applied by ``ResourceStore/commit(merging:_:)``: it takes the lock,
/// applies the event to the state (the parts' own methods do the work and say what changed, in ``Effects``),
/// notes the batch for the observers in the ``Outbox`` in the same lock section, moves the clear count when the
/// event is a clear, releases the lock, and then carries out the effects once — the save scheduled, the observers
/// told. No other function does any of the three.
///
/// Observers are told after the outermost store call that made the change has returned, on that thread, one batch
/// at a time in the order made: never from inside a read or a merge, nor from inside another delivery. A change that
/// arises while a delivery runs (an observer reads the store, and the read merges a body) waits and is told after
/// it; one made while another thread delivers is told by that thread.
extension ResourceStore {
    /// What an event does beyond the state, noted by the event and carried out by ``commit(merging:_:)`` alone.
    struct Effects {
        /// The records changed, for the observers: added to, never replaced (a commit that merges the bodies
        /// waiting notes their changes before its event adds its own).
        var changes: [StoreChange] = []
        /// What the fetch whose merge made the changes decoded (``FetchedModels``).
        var fetched: FetchedModels?
        /// Whether the event is a clear (``clear()``, an account switch, another owner): the clear count moves, and
        /// the observers of every type are told even when no record went.
        var cleared = false
        /// Whether the writer has something new to save.
        var saves = false
    }

    /// Applies `event` to the state under the lock — once the bodies waiting are merged, when `merging` (their
    /// changes told too) — then carries out its effects outside the lock: the save scheduled, the observers told
    /// (now, when this is the outermost store call on this thread and no thread delivers; else by the one that
    /// does, after what it is telling).
    ///
    /// - Parameters:
    ///   - merging: Whether the bodies waiting are merged first (every read and write; not a fault-in's placing,
    ///     whose bodies' own rows may not be read yet, nor a response's bookkeeping).
    ///   - event: The change, applied to the state; it notes its effects.
    /// - Returns: What `event` returns.
    @discardableResult
    func commit<Result>(merging: Bool = true, _ event: (inout State, inout Effects) throws -> Result) rethrows -> Result
    {
        if merging {
            // Its own commits (rows placed) are told with this one's, at its end, not before it.
            StoreThread.enter()
            faultInWaiting()
            StoreThread.leave()
        }
        let outermost = StoreThread.isOutermost
        var effects = Effects()
        var first: Outbox.Delivery?
        var queued = false
        var saver: StoreWriter?
        let result = try state.withLock { state in
            defer {
                if effects.cleared { state.clears &+= 1 }
                if !state.observers.isEmpty, !effects.changes.isEmpty || effects.cleared {
                    state.outbox.add(
                        Outbox.Delivery(
                            observers: Array(state.observers.values), changes: effects.changes,
                            fetched: effects.fetched, cleared: effects.cleared))
                    queued = true
                }
                if outermost { first = state.outbox.claim() }
                if effects.saves { saver = state.backing.writer }
            }
            if merging {
                state.recordsUsed = true
                effects.changes += mergeWaiting(&state)
            }
            return try event(&state, &effects)
        }
        // Told by this thread at the end of the store call it is inside (``deliverQueued()``), unless another
        // thread delivers then.
        if queued, !outermost { StoreThread.queued = true }
        saver?.schedule(self)
        if let first { deliver(from: first) }
        return result
    }

    /// Runs `body` as one store call: the observers are told of what it changed once it has returned, not after
    /// each of its steps (a read that faults rows in, then reads).
    func call<Result>(_ body: () throws -> Result) rethrows -> Result {
        StoreThread.enter()
        defer {
            StoreThread.leave()
            deliverQueued()
        }
        return try body()
    }

    /// Tells the observers what waits, when this thread is not inside a store call or a delivery, queued a
    /// delivery in the call it leaves, and no other thread delivers. (A delivery another thread queued is told by
    /// that thread, or by the one delivering then: a call that queued none takes no lock here.)
    func deliverQueued() {
        guard StoreThread.isOutermost, StoreThread.queued else { return }
        StoreThread.queued = false
        guard let first = state.withLock({ $0.outbox.claim() }) else { return }
        deliver(from: first)
    }

    /// Tells `first`, then every delivery that waits, until none is left: this thread is the one that delivers.
    private func deliver(from first: Outbox.Delivery) {
        StoreThread.delivering = true
        defer {
            StoreThread.delivering = false
            StoreThread.queued = false  // what the observers' own reads queued, this loop told
        }
        var delivery: Outbox.Delivery? = first
        while let current = delivery {
            Self.tell(current)
            delivery = state.withLock { $0.outbox.next() }
        }
    }

    /// Tells each observer of a delivery the changes to the records it observes, with what the fetch whose merge
    /// made them decoded. After a clear, the observers of every type — the live objects — are told even when no
    /// record went: an empty batch.
    private static func tell(_ delivery: Outbox.Delivery) {
        for observer in delivery.observers {
            guard let type = observer.type else {
                observer.deliver(delivery.changes, delivery.fetched)
                continue
            }
            let relevant = delivery.changes.filter { $0.type == type && (observer.id == nil || $0.id == observer.id) }
            if !relevant.isEmpty { observer.deliver(relevant, delivery.fetched) }
        }
    }

    /// Whether a live object follows the store (an observer that applies on the main actor).
    var hasLiveFollowers: Bool { state.withLock { $0.observers.values.contains { $0.applyNow != nil } } }

    /// On the main actor, once a clear's own call has told what it changed: every live object applies what waits
    /// for it now — the clear among it — so that nothing of the previous account is drawn after the clear returns.
    /// Nothing when called from inside a store call or a delivery (it is then no clear's own end).
    func applyLiveNow() {
        guard StoreThread.isOutermost, MainQueue.isCurrent else { return }
        let live = state.withLock { $0.observers.values.compactMap(\.applyNow) }
        for apply in live { apply() }
    }
}

/// Whether this thread runs the main queue's work, so that `MainActor.assumeIsolated` holds
/// (`Thread.isMainThread` is not that on Linux, where the main queue's work may run on other threads).
enum MainQueue {
    /// A mark on the main queue, set once when first asked for.
    private struct Mark: @unchecked Sendable {
        // Unchecked: the key is set on the main queue once, when it is made, and only read afterwards (whether the
        // Dispatch overlay declares the key Sendable differs between platforms).
        let key: DispatchSpecificKey<Bool>

        static let shared: Mark = {
            let key = DispatchSpecificKey<Bool>()
            DispatchQueue.main.setSpecific(key: key, value: true)
            return Mark(key: key)
        }()
    }

    /// Whether this thread runs the main queue's work.
    static var isCurrent: Bool { DispatchQueue.getSpecific(key: Mark.shared.key) == true }
}

/// Per thread: how many store calls it is inside (``ResourceStore/call(_:)``), and whether it is telling observers.
/// A store call runs on one thread from start to end (it never suspends), so a thread's count is its own.
enum StoreThread {
    /// The slot of the per-thread word: bit 0 set while delivering, bit 1 once a commit inside a store call queued a
    /// delivery, the rest the depth. `nil` when the system gave no slot (then every commit is outermost, and the
    /// outbox alone keeps deliveries one at a time, in order).
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// The thread's word. Unsafe code's budget: the slot holds an integer written as a pointer's bits, never a
    /// pointer dereferenced or freed (no destructor is registered); it costs one `pthread_getspecific` a store call
    /// (a `Thread.current.threadDictionary` lookup allocates).
    private static var word: Int {
        get { key.map { Int(bitPattern: pthread_getspecific($0)) } ?? 0 }
        set { if let key { _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) } }
    }

    /// Whether this thread is inside no store call and tells no observer.
    static var isOutermost: Bool { word & ~2 == 0 }

    /// Whether this thread tells observers now.
    static var delivering: Bool {
        get { word & 1 == 1 }
        set { word = newValue ? word | 1 : word & ~1 }
    }

    /// Whether a commit inside this thread's store call queued a delivery that its end is to tell.
    static var queued: Bool {
        get { word & 2 == 2 }
        set { word = newValue ? word | 2 : word & ~2 }
    }

    /// Notes that this thread enters a store call.
    static func enter() { word &+= 4 }

    /// Notes that this thread leaves a store call.
    static func leave() { word = max(word &- 4, word & 3) }
}
