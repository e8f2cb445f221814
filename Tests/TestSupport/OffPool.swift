import Foundation

/// The value of `body`, run on a thread of its own: for what blocks — reading a child process's output to its end,
/// waiting for it to exit, a semaphore — which must not run on the cooperative pool. On a 2-core machine the pool
/// has two threads, and on Linux the main queue's work (the main actor's) waits for a thread of the same global
/// dispatch pool: two tests blocked there at once held every other test, and the main actor, for seconds at the
/// start of a full run (gdb: both threads in `ToolRunner.spawn`'s `readDataToEndOfFile`).
///
/// - Parameter body: The blocking work.
/// - Returns: What `body` returned.
/// - Throws: What `body` threw.
public func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
