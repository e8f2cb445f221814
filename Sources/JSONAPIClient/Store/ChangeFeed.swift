/// What ``ResourceStore/changes(of:)`` streams: the changes one observer was told and its consumer has not taken yet.
///
/// The store tells an observer a batch of changes at a time (one merge's); an `AsyncStream`'s continuation takes them
/// one `yield` at a time, and each `yield` that finds the consumer waiting resumes it — a task switch per change
/// (`store-walk-observed`: 10,000 of them per walk, about 8,000 instructions each between the two sides). Here a batch
/// is added under one lock and wakes a waiting consumer once; the consumer then takes the changes that wait without
/// suspending. The stream is the `AsyncStream(unfolding:onCancel:)` over ``next()``, so the public type stays
/// `AsyncStream<StoreChange>`, with the same order (the order the batches were added in), no bound, and the same
/// ends: the consumer's task cancelled, or the stream dropped, stops the observer.
final class ChangeFeed: Sendable {
    private struct State {
        /// The changes not taken yet, from `head` on.
        var changes: [StoreChange] = []
        var head = 0
        /// The consumers waiting for a change, oldest first (one, unless several tasks iterate one stream).
        var waiting: [CheckedContinuation<StoreChange?, Never>] = []
        /// Whether the stream has ended: nothing more is added, and every consumer gets `nil`.
        var ended = false

        /// The oldest change not taken, taken.
        mutating func take() -> StoreChange? {
            guard head < changes.count else { return nil }
            let change = changes[head]
            head += 1
            if head == changes.count {
                changes.removeAll(keepingCapacity: true)
                head = 0
            }
            return change
        }
    }

    private let state = LockedValue(State())

    /// Adds `changes` after those waiting, and gives the consumers waiting the first of them.
    func add(_ changes: [StoreChange]) {
        guard !changes.isEmpty else { return }
        let woken = state.withLock { state -> [(CheckedContinuation<StoreChange?, Never>, StoreChange)] in
            guard !state.ended else { return [] }
            state.changes += changes
            var woken: [(CheckedContinuation<StoreChange?, Never>, StoreChange)] = []
            while !state.waiting.isEmpty, let change = state.take() {
                woken.append((state.waiting.removeFirst(), change))
            }
            return woken
        }
        // Resumed outside the lock: a consumer resumed here may call `next()` at once.
        for (consumer, change) in woken { consumer.resume(returning: change) }
    }

    /// What ``take()`` found.
    enum Taken {
        /// The oldest change not taken yet, now taken.
        case change(StoreChange)
        /// None: the feed has ended.
        case ended
        /// None yet: ``wait()`` for one.
        case none
    }

    /// The oldest change not taken yet, taken, without waiting: what the consumer does while changes wait (no
    /// suspension, no async call).
    func take() -> Taken {
        state.withLock { state -> Taken in
            if let change = state.take() { return .change(change) }
            return state.ended ? .ended : .none
        }
    }

    /// The oldest change not taken yet, waiting for one when none is; `nil` once the feed has ended.
    func next() async -> StoreChange? {
        switch take() {
        case .change(let change): change
        case .ended: nil
        case .none: await wait()
        }
    }

    /// Waits for the next change (``take()`` found none); `nil` once the feed has ended.
    func wait() async -> StoreChange? {
        await withCheckedContinuation { consumer in
            // Looked at again under the lock: a change added, or an end, since the first look is not missed.
            let taken = state.withLock { state -> Taken in
                if let change = state.take() { return .change(change) }
                if state.ended { return .ended }
                state.waiting.append(consumer)
                return .none
            }
            switch taken {
            case .change(let change): consumer.resume(returning: change)
            case .ended: consumer.resume(returning: nil)
            case .none: break
            }
        }
    }

    /// Ends the feed: the changes not taken are dropped, and every consumer waiting, or to come, gets `nil`.
    func end() {
        let waiting = state.withLock { state -> [CheckedContinuation<StoreChange?, Never>] in
            state.ended = true
            state.changes = []
            state.head = 0
            defer { state.waiting = [] }
            return state.waiting
        }
        for consumer in waiting { consumer.resume(returning: nil) }
    }

    /// The stream's end of a feed: held by the stream alone (the store's observer holds the feed), so that dropping
    /// the stream drops the reader, whose `deinit` stops the observer.
    final class Reader: Sendable {
        let feed: ChangeFeed
        private let stop: @Sendable () -> Void

        /// A reader of `feed`; `stop` removes the observer that adds to it (it may run more than once).
        init(_ feed: ChangeFeed, stop: @escaping @Sendable () -> Void) {
            self.feed = feed
            self.stop = stop
        }

        deinit { stop() }

        /// Ends the feed and stops the observer: the consumer's task was cancelled.
        func cancel() {
            feed.end()
            stop()
        }
    }

    /// A stream of the changes added to a new feed by `observe`, which starts an observer that adds to the feed it
    /// is given and returns what stops it.
    static func stream(observe: (ChangeFeed) -> @Sendable () -> Void) -> AsyncStream<StoreChange> {
        let feed = ChangeFeed()
        let reader = Reader(feed, stop: observe(feed))
        // `next()` spelled out: a change waiting is taken with no async call beyond the stream's own (each costs a
        // frame and an executor check, per change).
        return AsyncStream(
            unfolding: {
                switch reader.feed.take() {
                case .change(let change): change
                case .ended: nil
                case .none: await reader.feed.wait()
                }
            },
            onCancel: { reader.cancel() })
    }
}
