/// Observers called on the thread that changes the store, for the live objects: a change made on the main actor —
/// `clear()` when the account signs out — reaches them before it returns, where an `AsyncStream` would tell them a
/// turn later.
extension ResourceStore {
    /// Calls `deliver` with each batch of changes to records of `type`, on the thread that made them and outside the
    /// store's lock (so it may read the store), until ``removeObserver(_:)``.
    ///
    /// - Returns: The observer's number, to remove it with.
    func addObserver(type: String, _ deliver: @escaping @Sendable ([StoreChange]) -> Void) -> UInt64 {
        withMergedState { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = Observer(type: type, id: nil, deliver: deliver)
            return state.nextObserver
        }
    }

    /// How many times ``clear()`` has run: an ``StoreChange/Kind/evicted`` change seen after this count moved came
    /// from a clear (the account changed), not from the store making room.
    var clears: UInt64 { state.withLock { $0.clears } }

    /// Stops calling observer `number`.
    func removeObserver(_ number: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: number) }
    }
}
