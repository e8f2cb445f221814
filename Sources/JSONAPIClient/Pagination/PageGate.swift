import Foundation

/// Keeps a page walk's requests out of the transport once its consumer is cancelled.
///
/// The pages ahead of a ``PageSequence`` run in tasks of their own, which the consumer's cancellation does not reach,
/// and while the consumer runs its loop body nothing of the walk can see that cancellation: no handler of the walk is
/// installed then. So a request of the walk goes on to the transport only while the consumer is inside `next()`,
/// whose cancellation handler stops the gate under the lock the requests pass by:
///
/// - `next()` waits until the requests it started have reached the gate (or ended without), so that they are on the
///   network while the consumer works, as before;
/// - one that arrives while the consumer is outside (a page that waits for an earlier page first, a retry, a store's
///   background refresh) waits for the consumer to come back, and is refused if it comes back cancelled;
/// - once stopped, nothing passes, and a refill starts nothing (``start(awaited:)`` gives no ticket).
///
/// The middleware chain calls ``admit(_:)`` just before the store step or the transport; the request finds its gate
/// in the task-local ``current`` ticket, which the tasks it starts inherit (a store's background refresh).
final class PageGate: Sendable {
    /// A request of a walk, as its task carries it.
    struct Ticket: Sendable {
        let gate: PageGate
        let number: Int
    }

    /// The walk request the current task works for, if any.
    @TaskLocal static var current: Ticket?

    private typealias Machine = StateMachine<CheckedContinuation<Void, any Error>, CheckedContinuation<Void, Never>>
    private let state = LockedValue(Machine())

    private func perform(_ actions: [Machine.Action]) {
        for action in actions {
            switch action {
            case .retry(let request): request.resume()
            case .refuse(let request): request.resume(throwing: CancellationError())
            case .resume(let waiter): waiter.resume()
            }
        }
    }

    // MARK: The consumer

    /// A ticket for a request the walk is about to start; `nil` once the gate is stopped.
    ///
    /// - Parameter awaited: Whether the consumer's `next()` waits for it to reach the gate before returning (a request
    ///   that goes there at once); `false` for one that waits for an earlier page first.
    /// - Returns: The ticket, or `nil`.
    func start(awaited: Bool) -> Ticket? {
        state.withLock { $0.start(awaited: awaited) }.map { Ticket(gate: self, number: $0) }
    }

    /// The consumer enters `next()`: the requests waiting for it arrive again (and are refused when it is cancelled).
    ///
    /// - Parameter isCancelled: Whether the consumer's task is cancelled.
    /// - Returns: Whether the consumer goes on.
    func enter(isCancelled: Bool) -> Bool {
        let (proceeds, actions) = state.withLock { $0.enter(isCancelled: isCancelled) }
        perform(actions)
        return proceeds
    }

    /// The consumer leaves `next()` with a page: from now on a request of the walk waits for it.
    func leave() {
        state.withLock { $0.leave() }
    }

    /// Waits until the requests started by the consumer's `next()` have reached the gate or ended, or the walk is
    /// over.
    func admissions() async {
        // Nothing to wait for (a quick consumer, nothing ahead): no continuation.
        guard state.withLock({ !$0.awaited.isEmpty || !$0.returning.isEmpty }) else { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            state.withLock { $0.wait(waiter) }?.resume()
        }
    }

    /// The consumer was cancelled, or the walk failed: nothing of the walk passes again.
    func stop() {
        perform(state.withLock { $0.stop() })
    }

    /// The walk reached its end: what arrives late passes.
    func finish() {
        perform(state.withLock { $0.finish() })
    }

    /// The iterator is gone: nothing of the walk passes again, unless it had reached its end.
    func drop() {
        perform(state.withLock { $0.drop() })
    }

    /// The task of `ticket` ended.
    func finished(_ ticket: Ticket) {
        state.withLock { $0.finished(ticket.number) }?.resume()
    }

    /// How many requests wait for the consumer to come back (for tests).
    var parkedCount: Int { state.withLock { $0.parkedCount } }

    // MARK: The requests

    /// Returns when `request` may go on to the store step or the transport: at once, without suspending, unless it
    /// is a `GET` of a page walk (``current``) whose consumer is outside `next()` — then when the consumer comes back.
    /// Only a `GET` belongs to a walk: a task started from a page's task inherits its ticket (the write queue's
    /// replay, which a page's success starts), and a write must not wait for, or be refused with, a walk it has
    /// nothing to do with.
    ///
    /// - Parameter request: The request, as the middleware made it.
    /// - Throws: `CancellationError` when the request's task is cancelled, or its walk's consumer was.
    static func admit(_ request: HTTPRequest) async throws {
        try Task.checkCancellation()
        guard request.method == .get, let ticket = current else { return }
        try await ticket.gate.admit(ticket)
    }

    /// Returns when the request of `ticket` may go on (nothing suspends between this decision and the caller's
    /// next step when it is made at once); throws `CancellationError` when it may not.
    private func admit(_ ticket: Ticket) async throws {
        var arrival: Int?
        while true {
            let (decision, number) = state.withLock {
                $0.arrive(ticket: ticket.number, arrival: arrival, isCancelled: Task.isCancelled)
            }
            arrival = number
            switch decision {
            case .admit(let waiter):
                waiter?.resume()
                return
            case .refuse(let waiter):
                waiter?.resume()
                throw CancellationError()
            case .park:
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { (request: CheckedContinuation<Void, any Error>) in
                        switch state.withLock({ $0.park(request, arrival: number, isCancelled: Task.isCancelled) }) {
                        case .parked: break
                        case .retry: request.resume()
                        case .refuse: request.resume(throwing: CancellationError())
                        }
                    }
                } onCancel: {
                    state.withLock { $0.unpark(number) }?.resume(throwing: CancellationError())
                }
            // Resumed to arrive again: the loop decides, before anything else happens.
            }
        }
    }
}
