import Dispatch

/// How a live object follows the session's store: changes reach it on the main actor in a turn of its own, in
/// order — never inside a store call, another delivery, or the live object's own change of its state — and a clear
/// made on the main actor (`clear()` when the account signs out, from a button) is applied before `clear()` returns
/// (nothing of the previous account is drawn after it), by that call at its end (``ResourceStore/applyLiveNow()``).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
enum LiveFollowing {
    /// Applies the changes to records of `type` (of every type when `nil`: the related records a live object's
    /// models are decoded from) with `apply` from now until the returned token is cancelled in `tasks`, with what
    /// the fetches whose merges made them decoded (``ResourceStore/FetchedModels``, oldest first).
    ///
    /// `apply` re-reads the store for an update (or confirms with it that a fetch's model is what it shows), so a
    /// change applied may overtake earlier ones still on their way without showing anything older than the store
    /// holds. Changes that arrive while the main actor is busy wait together and are applied in one call, in order:
    /// a burst of merges (a walk, a refresh of many pages) costs one re-read of what they changed, not one per merge.
    @MainActor
    @discardableResult
    static func follow(
        _ store: ResourceStore, type: String?, tasks: LiveTasks,
        apply: @escaping @MainActor @Sendable (Batch) -> Void
    ) -> Int {
        let waiting = Waiting()
        let applyNow: @Sendable () -> Void = {
            // Called by a clear made on the main actor, at its end: the clear reaches the object even when another
            // thread is still telling the observers of it.
            MainActor.assumeIsolated {
                var batch = waiting.takeAll(cleared: true)
                batch.restarts = true
                apply(batch)
            }
        }
        let observer = store.addObserver(type: type, applyNow: applyNow) { changes, fetched in
            // A notification with no change is a clear with nothing to evict (``ResourceStore/Effects/cleared``).
            let cleared = changes.isEmpty && fetched == nil
            guard waiting.add(changes, fetched: fetched, cleared: cleared) else { return }
            Task { @MainActor in
                let all = waiting.takeAll()
                if !all.changes.isEmpty || all.cleared { apply(all) }
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
        /// change (``ResourceStore/Effects/cleared``), or the clear's own call applying it
        /// (``ResourceStore/applyLiveNow()``).
        var cleared = false
        /// Whether this is the end of a clear or a switch of account (``ResourceStore/applyLiveNow()``): the object
        /// starts again when it has not seen the clear yet, or when what it shows or fetches was asked for while a
        /// switch was under way (the session may have sent it as the account left).
        var restarts = false

        /// Adds what one notification told: `changes`, what the fetch that made them decoded, and whether it was a
        /// clear.
        mutating func add(_ changes: [StoreChange], fetched: ResourceStore.FetchedModels?, cleared: Bool) {
            if cleared { self.cleared = true }
            self.changes += changes
            if let fetched { self.fetched.append(fetched) }
        }
    }

    /// The changes that wait for the main actor, in order.
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

        /// Takes every change waiting (marked a clear when `cleared`); nothing once cancelled.
        func takeAll(cleared: Bool = false) -> Batch {
            state.withLock { state in
                guard !state.cancelled else { return Batch() }
                var batch = state.batch
                state.batch = Batch()
                state.scheduled = false
                if cleared { batch.cleared = true }
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
}
