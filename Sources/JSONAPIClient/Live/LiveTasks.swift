/// The tasks a live object runs — its store observer, its fetches, the pages it prefetches — kept where the
/// object's `deinit` can cancel them: a main-actor class's `deinit` is not isolated, so the handles live behind a
/// lock, and no task outlives the object that started it.
final class LiveTasks: Sendable {
    private struct State {
        var cancels: [Int: @Sendable () -> Void] = [:]
        var next = 0
        var closed = false
    }

    private let state = LockedValue(State())

    /// Keeps `task` to cancel with the others; a task added after ``cancelAll()`` is cancelled at once.
    ///
    /// - Returns: Its token, to ``cancel(_:)`` it alone or ``forget(_:)`` it once it is done.
    @discardableResult
    func add<Success, Failure>(_ task: Task<Success, Failure>) -> Int {
        add { task.cancel() }
    }

    /// Keeps `cancel` — what stops a piece of work, such as a store observer — to call with the others; called at
    /// once when added after ``cancelAll()``.
    ///
    /// - Returns: Its token, to ``cancel(_:)`` it alone or ``forget(_:)`` it.
    @discardableResult
    func add(cancel: @escaping @Sendable () -> Void) -> Int {
        let (token, closed) = state.withLock { state -> (Int, Bool) in
            state.next += 1
            if !state.closed { state.cancels[state.next] = cancel }
            return (state.next, state.closed)
        }
        if closed { cancel() }
        return token
    }

    /// Cancels the task of `token` (when it is still kept) and forgets it.
    func cancel(_ token: Int?) {
        guard let token else { return }
        state.withLock { $0.cancels.removeValue(forKey: token) }?()
    }

    /// Forgets the task of `token` without cancelling it: it is done.
    func forget(_ token: Int?) {
        guard let token else { return }
        _ = state.withLock { $0.cancels.removeValue(forKey: token) }
    }

    /// Cancels every task kept, and every task added from now on.
    func cancelAll() {
        let cancels = state.withLock { state -> [@Sendable () -> Void] in
            state.closed = true
            defer { state.cancels = [:] }
            return Array(state.cancels.values)
        }
        for cancel in cancels { cancel() }
    }
}
