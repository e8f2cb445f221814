import Dispatch

/// How a live object follows the session's store: a change made on the main actor — `clear()` when the account signs
/// out, from a button — is applied before `clear()` returns (nothing of the previous account is drawn after it);
/// changes made elsewhere (a response merged on the network's thread) are applied on the main actor, in order.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
enum LiveFollowing {
    /// Applies the changes to records of `type` (of every type when `nil`: the related records a live object's
    /// models are decoded from) with `apply` from now until the returned token is cancelled in `tasks`, with what
    /// the fetches whose merges made them decoded (``ResourceStore/FetchedModels``, oldest first).
    ///
    /// `apply` re-reads the store for an update (or confirms with it that a fetch's model is what it shows), so a
    /// change applied at once may overtake earlier ones still on their way from another thread without showing
    /// anything older than the store holds. Changes that arrive while the main actor is busy wait together and are
    /// applied in one call, in order: a burst of merges (a walk, a refresh of many pages) costs one re-read of what
    /// they changed, not one per merge.
    @MainActor
    @discardableResult
    static func follow(
        _ store: ResourceStore, type: String?, tasks: LiveTasks,
        apply: @escaping @MainActor @Sendable (Batch) -> Void
    ) -> Int {
        let waiting = Waiting()
        let observer = store.addObserver(type: type) { changes, fetched in
            // A notification with no change is a clear with nothing to evict (``ResourceStore/notify(_:of:fetched:cleared:)``).
            let cleared = changes.isEmpty && fetched == nil
            if isOnMainQueue {
                let all = waiting.takeAll(adding: changes, fetched: fetched, cleared: cleared)
                MainActor.assumeIsolated { apply(all) }
            } else if waiting.add(changes, fetched: fetched, cleared: cleared) {
                Task { @MainActor in
                    let all = waiting.takeAll()
                    if !all.changes.isEmpty || all.cleared { apply(all) }
                }
            }
        }
        return tasks.add {
            store.removeObserver(observer)
            waiting.cancel()
        }
    }

    /// The changes a live object applies in one call, in the order made, and what the fetches that made some of
    /// them decoded, oldest first.
    struct Batch: Sendable {
        var changes: [StoreChange] = []
        var fetched: [ResourceStore.FetchedModels] = []
        /// Whether the store was cleared (the account changed) with no record to evict: a notification with no
        /// change (``ResourceStore/notify(_:of:fetched:cleared:)``).
        var cleared = false

        /// Adds what one notification told: `changes`, what the fetch that made them decoded, and whether it was a
        /// clear.
        mutating func add(_ changes: [StoreChange], fetched: ResourceStore.FetchedModels?, cleared: Bool) {
            if cleared { self.cleared = true }
            self.changes += changes
            if let fetched { self.fetched.append(fetched) }
        }
    }

    /// The changes made off the main actor that wait for it, in order.
    private final class Waiting: Sendable {
        private struct State {
            var batch = Batch()
            /// Whether a main-actor task will take them.
            var scheduled = false
            var cancelled = false
        }

        private let state = LockedValue(State())

        /// Adds `changes`, and what the fetch that made them decoded.
        ///
        /// - Returns: Whether the caller must schedule a task to take them (none is scheduled yet).
        func add(_ changes: [StoreChange], fetched: ResourceStore.FetchedModels?, cleared: Bool) -> Bool {
            state.withLock { state in
                guard !state.cancelled else { return false }
                state.batch.add(changes, fetched: fetched, cleared: cleared)
                guard !state.scheduled else { return false }
                state.scheduled = true
                return true
            }
        }

        /// Takes every change waiting, then `changes` (a clear when `cleared`); nothing once cancelled.
        func takeAll(
            adding changes: [StoreChange] = [], fetched: ResourceStore.FetchedModels? = nil, cleared: Bool = false
        ) -> Batch {
            state.withLock { state in
                guard !state.cancelled else { return Batch() }
                var batch = state.batch
                state.batch = Batch()
                state.scheduled = false
                batch.add(changes, fetched: fetched, cleared: cleared)
                return batch
            }
        }

        /// Drops what waits, and every change from now on.
        func cancel() {
            state.withLock { state in
                state.cancelled = true
                state.batch = Batch()
            }
        }
    }

    /// A mark on the main queue, by which a thread sees that it runs the main queue's work — the main actor's
    /// (`Thread.isMainThread` is not that on Linux, where the main queue's work runs on other threads).
    private struct MainQueueMark: @unchecked Sendable {
        // Unchecked: the key is set on the main queue once, when it is made, and only read afterwards (whether the
        // Dispatch overlay declares the key Sendable differs between platforms).
        let key: DispatchSpecificKey<Bool>

        static let shared: MainQueueMark = {
            let key = DispatchSpecificKey<Bool>()
            DispatchQueue.main.setSpecific(key: key, value: true)
            return MainQueueMark(key: key)
        }()
    }

    /// Whether this thread runs the main queue's work, so that `MainActor.assumeIsolated` holds.
    private static var isOnMainQueue: Bool { DispatchQueue.getSpecific(key: MainQueueMark.shared.key) == true }
}
