import Foundation

/// The value of `operation`, or `nil` when it has not finished within `timeout`: a test that waits for something
/// which, wrongly, never happens fails instead of hanging. The operation runs in a task of its own (a `Task.value`
/// awaited does not stop when the waiter is cancelled), which is left running when the bound passes.
///
/// - Parameters:
///   - timeout: How long to wait at most; a passing test never waits for it.
///   - operation: What to wait for.
/// - Returns: Its value, or `nil` after `timeout`.
public func bounded<Value: Sendable>(
    _ timeout: Duration = .seconds(10), _ operation: @escaping @Sendable () async -> Value
) async -> Value? {
    let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
    Task {
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
    return value
}

/// Whether `result` (of a task, within a bound) is a failure with `CancellationError`.
///
/// - Parameter result: The task's result, or `nil` when it did not end in time.
/// - Returns: `true` for a `CancellationError`.
public func isCancellation(_ result: Result<Void, any Error>?) -> Bool {
    guard case .failure(let error)? = result else { return false }
    return error is CancellationError
}
