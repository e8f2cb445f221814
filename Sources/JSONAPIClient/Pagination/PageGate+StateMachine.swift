import Foundation

/// The state of a ``PageGate``, as a value: what happens when the consumer enters and leaves `next()`, is cancelled,
/// or a request of the walk reaches the transport. `Parked` is what a request waiting for the consumer is resumed
/// through, `Waiting` the consumer waiting for the requests it started (continuations in the gate; plain values in
/// the tests).
struct PageGateState<Parked, Waiting> {
    enum Phase: Equatable {
        /// The consumer is running its own code: its cancellation cannot be seen, so nothing may enter.
        case outside
        /// The consumer is inside `next()`, under a cancellation handler: requests may enter.
        case inside
        /// The consumer was cancelled: nothing enters, ever again.
        case cancelled
        /// The walk is over without a cancellation (last page, an error, the iterator dropped): what comes late (a
        /// store's background refresh) enters.
        case ended
    }

    /// What a request reaching the transport does.
    enum Arrival: Equatable {
        case enter
        case park
        case refuse
    }

    private(set) var phase = Phase.outside
    private var nextTicket = 0
    /// The requests started by the consumer's `next()` that have not entered (or finished) yet: `next()` returns once
    /// they have, so that none of them enters while the consumer runs its own code.
    private(set) var pending: Set<Int> = []
    /// The requests waiting for the consumer to come back, by arrival.
    private var parked: [Int: (ticket: Int, parked: Parked)] = [:]
    private var waiting: Waiting?

    /// A ticket for a request about to start, counted as pending when `counted`; `nil` once cancelled: the refill
    /// starts nothing then.
    mutating func start(counted: Bool) -> Int? {
        guard phase != .cancelled else { return nil }
        nextTicket += 1
        if counted { pending.insert(nextTicket) }
        return nextTicket
    }

    /// The consumer enters `next()`; `isCancelled` is its task's state. Returns whether it may go on, and the parked
    /// requests to resume: to enter when it may, else to be refused.
    mutating func enter(isCancelled: Bool) -> (proceeds: Bool, resume: [Parked]) {
        switch phase {
        case .cancelled: return (false, [])
        case .ended: return (!isCancelled, [])
        case .outside, .inside:
            if isCancelled { return (false, cancel().parked) }
            phase = .inside
            let resumed = parked.values
            parked = [:]
            for request in resumed { pending.remove(request.ticket) }
            return (true, resumed.map(\.parked))
        }
    }

    /// The consumer leaves `next()`.
    mutating func leave() {
        if phase == .inside { phase = .outside }
    }

    /// The consumer was cancelled: the parked requests to refuse, and the consumer's wait to end.
    mutating func cancel() -> (parked: [Parked], waiting: Waiting?) {
        phase = .cancelled
        return takeAll()
    }

    /// The walk is over without a cancellation: the parked requests enter, and a wait ends.
    mutating func end() -> (parked: [Parked], waiting: Waiting?) {
        if phase != .cancelled { phase = .ended }
        return takeAll()
    }

    private mutating func takeAll() -> (parked: [Parked], waiting: Waiting?) {
        let resumed = parked.values.map(\.parked)
        parked = [:]
        pending = []
        defer { waiting = nil }
        return (resumed, waiting)
    }

    /// A request with `ticket` reaches the transport (`arrival` names this attempt); `isCancelled` is its own task's
    /// state. When it parks, `parked` is kept; when it enters, the consumer's wait to end, if that was the last.
    mutating func arrive(ticket: Int, arrival: Int, isCancelled: Bool, parked request: Parked)
        -> (Arrival, waiting: Waiting?)
    {
        if isCancelled { return (.refuse, nil) }
        switch phase {
        case .cancelled: return (.refuse, nil)
        case .outside:
            parked[arrival] = (ticket, request)
            return (.park, nil)
        case .inside, .ended:
            return (.enter, settle(ticket))
        }
    }

    /// A request's own task was cancelled while it was parked: it is resumed (refused) by whoever takes it from here.
    mutating func unpark(arrival: Int) -> Parked? {
        parked.removeValue(forKey: arrival)?.parked
    }

    /// The request with `ticket` is done, or shares a request in flight: it will not enter. The consumer's wait to
    /// end, if that was the last.
    mutating func settle(_ ticket: Int) -> Waiting? {
        guard pending.remove(ticket) != nil, pending.isEmpty else { return nil }
        defer { waiting = nil }
        return waiting
    }

    /// The consumer waits for the requests its `next()` started to enter: `false` (and `waiting` kept) while some
    /// have not; `true` when there is nothing to wait for.
    mutating func wait(_ waiter: Waiting) -> Bool {
        guard phase != .cancelled, phase != .ended, !pending.isEmpty else { return true }
        waiting = waiter
        return false
    }
}
