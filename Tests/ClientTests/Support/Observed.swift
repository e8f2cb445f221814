import Foundation
@testable import JSONAPIClient
import Observation
import Testing

/// Waits on `@Observable` objects without timing: `withObservationTracking` says when what a condition reads
/// changes, and the condition is checked again then. A bound (``bound`` by default) only makes a failing test fail
/// rather than hang; a passing test never waits for it.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
enum Observed {
    /// How long a wait goes on before the test fails: 60 s. Not a timing: a wait ends as soon as its condition
    /// holds. It was 10 s, and a full run in CI failed a wait for the transport to be asked, 16 s into the run:
    /// the cooperative pool's two threads were held by synchronous SQLite work (by gdb samples of a full run: the
    /// fault-injection tests' opens and `fsync`s early on, the write queue's quadratic replay later, now fixed).
    /// Measured since (`JSONAPI_POOL_PROBE`, a full run here): a job waited up to 3.9 s for the pool, 1.1 s for
    /// the main actor.
    nonisolated static let bound: Duration = .seconds(60)

    /// Returns once `condition` holds, checking it again after each change to what it reads; records an issue and
    /// returns `false` when it still does not hold after `timeout`.
    @discardableResult
    static func until(
        _ what: String, timeout: Duration = Observed.bound, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @escaping @MainActor () -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let signal = Signal()
            let holds = withObservationTracking { condition() } onChange: { signal.fire() }
            if holds { return true }
            let timer = Task {
                try? await Task.sleep(until: deadline)
                signal.fire()
            }
            await signal.wait()
            timer.cancel()
            guard ContinuousClock.now < deadline else {
                // Holding now with no change seen: either what it reads is not observable (wait with `polling`), or
                // the main actor was kept from the change until the deadline (seen under the full suite's load in
                // CI: two waits for `isLoading`). A warning, so that it shows in the log without failing the test.
                guard !condition() else {
                    // Issue severities came with Swift 6.3; before it, the test passes without the note.
                    #if compiler(>=6.3)
                    Issue.record(
                        "\(what) held only at the deadline, with no change observed", severity: .warning,
                        sourceLocation: sourceLocation)
                    #endif
                    return true
                }
                Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
                return false
            }
        }
    }

    /// Returns once `condition` holds, checking it every 2 ms: for what no `@Observable` object shows (a
    /// transport's requests), which ``until(_:timeout:sourceLocation:_:)`` would see only at its deadline; records an
    /// issue and returns `false` when it still does not hold after `timeout`.
    @discardableResult
    static func polling(
        _ what: String, timeout: Duration = Observed.bound, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @MainActor () -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
                return false
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    /// The values `read` gives — the first now, then `action` runs, then one after each change — until `condition`
    /// holds for the last: what a view drawing it would have shown, in order.
    static func values<Value>(
        _ what: String, timeout: Duration = Observed.bound, sourceLocation: SourceLocation = #_sourceLocation,
        of read: @escaping @MainActor () -> Value, until condition: @escaping @MainActor (Value) -> Bool,
        then action: @MainActor () -> Void = {}
    ) async -> [Value] {
        var seen = [read()]
        action()
        await until(what, timeout: timeout, sourceLocation: sourceLocation) {
            let value = read()
            seen.append(value)
            return condition(value)
        }
        return seen
    }
}

/// Fires once; a waiter before or after the firing returns.
final class Signal: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false
    private var waiter: CheckedContinuation<Void, Never>?

    func fire() {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            fired = true
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if fired { return true }
                waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// A stream of events with a bounded wait for the next one.
struct Events<Element: Sendable>: Sendable {
    let stream: AsyncStream<Element>
    let continuation: AsyncStream<Element>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded) }

    func send(_ element: Element) { continuation.yield(element) }

    /// The next event, or `nil` (and an issue) when none comes within `timeout` (60 s, as `Observed`'s bound: a
    /// hang guard, never a timing).
    func next(
        _ what: String, timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Element? {
        let stream = stream
        let element = await withTaskGroup(of: Element?.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if element == nil { Issue.record("no \(what) within \(timeout)", sourceLocation: sourceLocation) }
        return element
    }
}

extension Events {
    /// Events that `stream` feeds, until the task returned is cancelled: a store's or a queue's stream read with a
    /// bounded wait, so that a test ends when the store misbehaves instead of waiting forever.
    static func following(_ stream: AsyncStream<Element>) -> (Events, Task<Void, Never>) {
        let events = Events()
        return (events, Task { for await element in stream { events.send(element) } })
    }
}

/// A weak reference, to see an object go (`weak let` needs Swift 6.2; a `weak var` that is never set is warned about).
final class Weak<Object: AnyObject> {
    weak var value: Object?

    init(_ value: Object?) { self.value = value }
}

extension ResourceStore {
    /// Reads the store's parts (``ResourceStore/parts``): copies of its values, never its state.
    func readParts<Result>(_ read: (Parts) -> Result) -> Result { read(parts) }
}
