import Foundation

/// Keeps a page walk's requests from reaching the transport once its consumer is cancelled.
///
/// The pages ahead of a ``PageSequence`` run in tasks of their own, which the consumer's cancellation does not reach,
/// and while the consumer runs its own loop body nothing of the walk can see that cancellation: no handler of the
/// walk is installed then. So a request of those tasks enters the transport only while the consumer is inside
/// `next()`, under the cancellation handler that cancels the gate (under the lock a request enters by): one that
/// arrives while the consumer is outside waits for it to come back (and is refused if it comes back cancelled), and
/// `next()` returns only once the requests it started have entered, so that waiting costs no overlap. The
/// transport's entry (``GatedClient``) finds the gate of its request in a task-local ``Ticket``, which the tasks of
/// the request inherit (an exchange shared through ``InFlightRequests``, a store's background refresh).
final class PageGate: Sendable {
    /// A request of a walk, as its tasks carry it.
    struct Ticket: Sendable {
        let gate: PageGate
        let number: Int
    }

    /// The walk request the current task works for, if any.
    @TaskLocal static var current: Ticket?

    private typealias State = PageGateState<CheckedContinuation<Void, any Error>, CheckedContinuation<Void, Never>>
    private let state = LockedValue(State())
    private let arrivals = LockedValue(0)

    /// A ticket for a request the walk is about to start; `nil` once the consumer is cancelled.
    ///
    /// - Parameter counted: Whether the consumer's `next()` waits for it to enter before returning (a request that
    ///   can start at once); `false` for one that waits for an earlier page first.
    /// - Returns: The ticket, or `nil`.
    func start(counted: Bool) -> Ticket? {
        state.withLock { $0.start(counted: counted) }.map { Ticket(gate: self, number: $0) }
    }

    /// The consumer enters `next()`: the requests waiting for it enter (or are refused, when it is cancelled).
    ///
    /// - Parameter isCancelled: Whether the consumer's task is cancelled.
    /// - Returns: Whether the consumer may go on.
    func enter(isCancelled: Bool) -> Bool {
        let (proceeds, resume) = state.withLock { $0.enter(isCancelled: isCancelled) }
        for request in resume {
            if proceeds { request.resume() } else { request.resume(throwing: CancellationError()) }
        }
        return proceeds
    }

    /// The consumer leaves `next()`: from now on a request waits for it.
    func leave() {
        state.withLock { $0.leave() }
    }

    /// The consumer was cancelled: nothing of the walk enters the transport any more.
    func cancel() {
        let (parked, waiting) = state.withLock { $0.cancel() }
        for request in parked { request.resume(throwing: CancellationError()) }
        waiting?.resume()
    }

    /// The walk is over without a cancellation: what arrives late enters.
    func end() {
        let (parked, waiting) = state.withLock { $0.end() }
        for request in parked { request.resume() }
        waiting?.resume()
    }

    /// Waits until the requests started by the consumer's `next()` have entered the transport, or finished
    /// without, or the consumer is cancelled.
    func admissions() async {
        // Nothing to wait for (a quick consumer, nothing ahead): no continuation.
        guard state.withLock({ !$0.pending.isEmpty }) else { return }
        await withCheckedContinuation { continuation in
            if state.withLock({ $0.wait(continuation) }) { continuation.resume() }
        }
    }

    /// The request `ticket` is done, or shares another's exchange: it will not enter itself.
    func settle(_ ticket: Ticket) {
        state.withLock { $0.settle(ticket.number) }?.resume()
    }

    /// At the transport's entry: returns when the request may enter, at once while the consumer is inside `next()`.
    ///
    /// - Parameter ticket: The request.
    /// - Throws: `CancellationError` when the consumer, or the request's own task, is cancelled.
    func arrive(_ ticket: Ticket) async throws {
        let arrival = arrivals.withLock { count in
            count += 1
            return count
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, waiting) = state.withLock {
                    $0.arrive(ticket: ticket.number, arrival: arrival, isCancelled: Task.isCancelled, parked: continuation)
                }
                waiting?.resume()
                switch outcome {
                case .enter: continuation.resume()
                case .refuse: continuation.resume(throwing: CancellationError())
                case .park: break
                }
            }
        } onCancel: {
            state.withLock { $0.unpark(arrival: arrival) }?.resume(throwing: CancellationError())
        }
    }
}

/// The transport as a session calls it: a request of a page walk enters only when its ``PageGate`` lets it.
struct GatedClient: Client {
    /// The transport itself.
    let base: any Client

    /// Sends `request` through `base`, once the walk it belongs to (if any) lets it.
    ///
    /// - Parameter request: The request.
    /// - Returns: What `base` answers.
    /// - Throws: `CancellationError` when the walk's consumer was cancelled; what `base` throws.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let ticket = PageGate.current {
            try await ticket.gate.arrive(ticket)
            try Task.checkCancellation()
        }
        return try await base.send(request)
    }
}
