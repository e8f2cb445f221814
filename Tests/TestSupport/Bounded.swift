import Foundation

/// The value of `operation`, or `nil` when it has not finished within `timeout`: a test that waits for something
/// which, wrongly, never happens fails instead of hanging. The operation runs in a task of its own (a `Task.value`
/// awaited does not stop when the waiter is cancelled), which is left running when the bound passes.
///
/// - Parameters:
///   - timeout: How long to wait at most (60 s, for the reason ``Watched/wait(within:until:)`` gives); a passing test
///     never waits for it.
///   - operation: What to wait for.
/// - Returns: Its value, or `nil` after `timeout`.
public func bounded<Value: Sendable>(
    _ timeout: Duration = .seconds(60), _ operation: @escaping @Sendable () async -> Value
) async -> Value? {
    let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
    let work = Task {
        continuation.yield(await operation())
        continuation.finish()
    }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        continuation.finish()
    }
    var iterator = stream.makeAsyncIterator()
    let value = await iterator.next()
    timer.cancel()
    _ = work
    return value
}

/// Whether `result` (of a task, within a bound) is a failure with `CancellationError`.
///
/// - Parameter result: The task's result, or `nil` when it did not end in time.
/// - Returns: `true` for a `CancellationError`.
public func isCancellation<Success>(_ result: Result<Success, any Error>?) -> Bool {
    guard case .failure(let error)? = result else { return false }
    return error is CancellationError
}

/// A value shared between a test and the code it drives, that the test can wait on: ``wait(within:until:)`` returns
/// `true` as soon as the value satisfies a condition, `false` when it has not within the limit — never hangs.
public final class Watched<State: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State
    private var waiters: [UInt64: (condition: @Sendable (State) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = [:]
    private var timedOut: Set<UInt64> = []
    private var lastWaiter: UInt64 = 0

    /// Starts with `state`.
    ///
    /// - Parameter state: The initial value.
    public init(_ state: State) { self.state = state }

    /// The value now.
    public var value: State { lock.withLock { state } }

    /// Changes the value; the waiters whose condition now holds go on.
    ///
    /// - Parameter change: The change.
    public func update(_ change: (inout State) -> Void) {
        let ready = lock.withLock { () -> [CheckedContinuation<Bool, Never>] in
            change(&state)
            let met = waiters.filter { $0.value.condition(state) }
            for id in met.keys { waiters[id] = nil }
            return met.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// Waits until `condition` holds for the value.
    ///
    /// - Parameters:
    ///   - limit: How long to wait at most. 60 s: in a full run on a two-core machine, the hundreds of tests started
    ///     at once keep a scripted walk of a few dozen task hops from running for over 20 s (a test of a pure
    ///     function took 25 s there), and a 10 s bound failed walks that were only waiting for a thread.
    ///   - condition: What to wait for.
    /// - Returns: `true` when it holds, `false` when it did not within `limit`.
    public func wait(within limit: Duration = .seconds(60), until condition: @escaping @Sendable (State) -> Bool) async
        -> Bool
    {
        let id = lock.withLock { () -> UInt64 in
            lastWaiter += 1
            return lastWaiter
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            guard !Task.isCancelled else { return }
            self?.timeOut(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let now: Bool? = lock.withLock {
                if condition(state) { return true }
                if timedOut.remove(id) != nil { return false }
                waiters[id] = (condition, continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    private func timeOut(_ id: UInt64) {
        let waiting = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            guard let waiter = waiters.removeValue(forKey: id) else {
                timedOut.insert(id)
                return nil
            }
            return waiter.continuation
        }
        waiting?.resume(returning: false)
    }
}

/// Holds callers until the test lets them go, by key: ``hold(_:)`` returns once ``release(_:)`` was called for its key
/// (before or after), whatever the caller's cancellation — a test decides when a held request goes on.
public final class Holds<Key: Hashable & Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var released: Set<Key> = []
    private var waiting: [Key: [CheckedContinuation<Void, Never>]] = [:]

    /// No key released.
    public init() {}

    /// Returns once `key` is released.
    ///
    /// - Parameter key: What the caller waits for.
    public func hold(_ key: Key) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = lock.withLock { () -> Bool in
                if released.contains(key) { return true }
                waiting[key, default: []].append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets the holders of `key` go, and those that come later.
    ///
    /// - Parameter key: The key.
    public func release(_ key: Key) {
        let held = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            released.insert(key)
            return waiting.removeValue(forKey: key) ?? []
        }
        for continuation in held { continuation.resume() }
    }
}
