import Foundation

extension PageGate {
    /// The gate's logic as a value, tested without tasks or a transport: where the consumer is, which requests it
    /// waits for, which wait for it, and what each event makes of them. Every method runs under the gate's lock and
    /// only changes the value; the continuations to resume it returns as ``Action``s, which ``PageGate`` resumes after
    /// the lock is released. `Parked` is what a request waiting at the gate is resumed through, `Waiter` the
    /// consumer's wait (continuations in the gate; plain values in the tests).
    ///
    /// Why the consumer's wait always ends: it waits (``wait(_:)``) only for ``awaited`` and ``returning``, and each
    /// of their members leaves by an event that needs nothing of the consumer. An awaited ticket belongs to a task the
    /// consumer started before it waited; it leaves when its request reaches the gate (``arrive(ticket:arrival:isCancelled:)``,
    /// which never parks it while the consumer is inside) or when its task ends (``finished(_:)``, whatever way it
    /// ends). A returning arrival was resumed to try again, and tries again before anything else it does. A
    /// cancellation, an error or the end of the walk (``stop()``, ``finish()``) empties both and ends the wait.
    struct StateMachine<Parked, Waiter> {
        /// Where the consumer is, as far as the walk's requests are concerned.
        enum Phase: Equatable {
            /// Running its own code (its loop body): its cancellation cannot be seen, so nothing enters; a request
            /// arriving now waits for the consumer to come back.
            case outside
            /// Inside `next()`, under the cancellation handler that stops the gate: requests enter.
            case inside
            /// Cancelled, failed or dropped mid-walk: nothing of the walk enters again.
            case stopped
            /// Past the last page: what arrives late (a store's background refresh a page started) enters.
            case finished
        }

        /// What a request arriving at the gate does.
        enum Decision {
            /// Calls the transport now, without suspending first; the consumer's wait to end, if this was the last.
            case admit(Waiter?)
            /// Throws `CancellationError`; the consumer's wait to end, if this was the last.
            case refuse(Waiter?)
            /// Waits for the consumer (``park(_:arrival:isCancelled:)``).
            case park
        }

        /// What a request about to wait does.
        enum Parking: Equatable {
            /// It waits; it is resumed by an ``Action``.
            case parked
            /// The consumer came back meanwhile: it arrives again at once.
            case retry
            /// It throws `CancellationError`.
            case refuse
        }

        /// A continuation to resume, outside the lock.
        enum Action {
            /// A parked request arrives again (and is then admitted or refused).
            case retry(Parked)
            /// A parked request throws `CancellationError`.
            case refuse(Parked)
            /// The consumer's wait ends.
            case resume(Waiter)
        }

        private(set) var phase = Phase.outside
        private var lastTicket = 0
        private var lastArrival = 0
        /// The tickets of the requests the consumer's `next()` started and waits for: not yet at the gate, and their
        /// task not yet ended.
        private(set) var awaited: Set<Int> = []
        /// The parked requests resumed to arrive again, by arrival: the consumer waits until they have.
        private(set) var returning: Set<Int> = []
        /// The requests waiting for the consumer to come back, by arrival.
        private var parked: [Int: Parked] = [:]
        private var waiter: Waiter?

        /// How many requests wait for the consumer.
        var parkedCount: Int { parked.count }

        // MARK: The consumer

        /// A ticket for a request about to start, awaited by the consumer when `awaited` (one that goes straight to
        /// the transport, not one that first waits for an earlier page); `nil` once stopped: nothing starts then.
        mutating func start(awaited isAwaited: Bool) -> Int? {
            guard phase != .stopped else { return nil }
            lastTicket += 1
            if isAwaited { awaited.insert(lastTicket) }
            return lastTicket
        }

        /// The consumer enters `next()`; `isCancelled` is its task's state. Returns whether it goes on.
        mutating func enter(isCancelled: Bool) -> (proceeds: Bool, actions: [Action]) {
            switch phase {
            case .stopped: return (false, [])
            case .finished: return (!isCancelled, [])
            case .outside, .inside:
                if isCancelled { return (false, stop()) }
                phase = .inside
                let actions = parked.map { arrival, request -> Action in
                    returning.insert(arrival)
                    return .retry(request)
                }
                parked = [:]
                return (true, actions)
            }
        }

        /// The consumer leaves `next()` with a page: from now on a request waits for it.
        mutating func leave() {
            if phase == .inside { phase = .outside }
        }

        /// The consumer waits for the requests it started: `waiter` is kept while some have not reached the gate, and
        /// given back (to resume at once) when none is left, or the walk is over.
        mutating func wait(_ waiter: Waiter) -> Waiter? {
            guard phase == .inside || phase == .outside, !awaited.isEmpty || !returning.isEmpty else { return waiter }
            self.waiter = waiter
            return nil
        }

        /// The consumer was cancelled (or the walk failed, or was dropped before its end): every parked request is
        /// refused, and nothing enters again.
        mutating func stop() -> [Action] {
            phase = .stopped
            return closing { .refuse($0) }
        }

        /// The walk reached its end: what waits, and what arrives late, enters.
        mutating func finish() -> [Action] {
            guard phase != .stopped else { return closing { .refuse($0) } }
            phase = .finished
            return closing { .retry($0) }
        }

        /// The iterator is gone: as ``stop()``, unless the walk had reached its end.
        mutating func drop() -> [Action] {
            phase == .finished ? [] : stop()
        }

        private mutating func closing(_ action: (Parked) -> Action) -> [Action] {
            var actions = parked.values.map(action)
            parked = [:]
            awaited = []
            returning = []
            if let waiter {
                actions.append(.resume(waiter))
                self.waiter = nil
            }
            return actions
        }

        // MARK: The requests

        /// A request with `ticket` reaches the gate; `arrival` is `nil` the first time (a number is given then), and
        /// the number given when it arrives again after waiting. `isCancelled` is its own task's state.
        mutating func arrive(ticket: Int, arrival: Int?, isCancelled: Bool) -> (decision: Decision, arrival: Int) {
            let number: Int
            if let arrival {
                number = arrival
                returning.remove(arrival)
            } else {
                lastArrival += 1
                number = lastArrival
            }
            awaited.remove(ticket)
            if isCancelled { return (.refuse(released()), number) }
            switch phase {
            case .stopped: return (.refuse(released()), number)
            case .inside, .finished: return (.admit(released()), number)
            case .outside: return (.park, number)
            }
        }

        /// The request of `arrival`, told to wait, is about to: parked unless the consumer came back or stopped
        /// meanwhile, or its own task (`isCancelled`) was cancelled.
        mutating func park(_ request: Parked, arrival: Int, isCancelled: Bool) -> Parking {
            if isCancelled { return .refuse }
            switch phase {
            case .outside:
                parked[arrival] = request
                return .parked
            case .inside, .finished:
                returning.insert(arrival)
                return .retry
            case .stopped:
                return .refuse
            }
        }

        /// The parked request of `arrival` is to be refused, its own task cancelled; `nil` when it is no longer parked
        /// (whoever took it resumes it).
        mutating func unpark(_ arrival: Int) -> Parked? {
            parked.removeValue(forKey: arrival)
        }

        /// The task of `ticket` ended, having reached the gate or not: the consumer's wait to end, if this was the
        /// last.
        mutating func finished(_ ticket: Int) -> Waiter? {
            guard awaited.remove(ticket) != nil else { return nil }
            return released()
        }

        /// The consumer's wait, when nothing it waits for is left.
        private mutating func released() -> Waiter? {
            guard awaited.isEmpty, returning.isEmpty, let waiter else { return nil }
            self.waiter = nil
            return waiter
        }
    }
}
