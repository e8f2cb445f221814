import Foundation

/// Reads an `AsyncStream` in tests without ever waiting forever: ``next(within:)`` gives the next element, or `nil`
/// when none came within the limit (or the stream ended), so a change that never comes fails the test in bounded
/// time instead of hanging the run.
///
/// The stream is read from the moment the probe is made, into a buffer: elements are never lost between calls.
public final class StreamProbe<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer: [Element] = []
    private var ended = false
    /// The one caller waiting in `next(within:)`, with the number that tells it from an earlier, timed-out one.
    private var waiter: (id: UInt64, continuation: CheckedContinuation<Element?, Never>)?
    private var waiters: UInt64 = 0
    private var pump: Task<Void, Never>?

    /// Starts reading `stream`.
    public init(_ stream: AsyncStream<Element>) {
        pump = Task { [weak self] in
            for await element in stream {
                guard let self else { return }
                self.deliver(element)
            }
            self?.end()
        }
    }

    deinit { pump?.cancel() }

    /// The next element; `nil` when none came within `limit` (10 s by default: far above any wait a passing test
    /// has, however loaded the machine) or the stream ended.
    public func next(within limit: Duration = .seconds(10)) async -> Element? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
            let id: UInt64? = lock.withLock {
                if !buffer.isEmpty {
                    continuation.resume(returning: buffer.removeFirst())
                    return nil
                }
                if ended {
                    continuation.resume(returning: nil)
                    return nil
                }
                waiters += 1
                waiter = (waiters, continuation)
                return waiters
            }
            guard let id else { return }
            Task { [weak self] in
                try? await Task.sleep(for: limit)
                self?.timeOut(id)
            }
        }
    }

    private func deliver(_ element: Element) {
        let waiting = lock.withLock { () -> CheckedContinuation<Element?, Never>? in
            guard let waiting = waiter else {
                buffer.append(element)
                return nil
            }
            waiter = nil
            return waiting.continuation
        }
        waiting?.resume(returning: element)
    }

    private func end() {
        let waiting = lock.withLock { () -> CheckedContinuation<Element?, Never>? in
            ended = true
            defer { waiter = nil }
            return waiter?.continuation
        }
        waiting?.resume(returning: nil)
    }

    private func timeOut(_ id: UInt64) {
        let waiting = lock.withLock { () -> CheckedContinuation<Element?, Never>? in
            guard let waiting = waiter, waiting.id == id else { return nil }
            waiter = nil
            return waiting.continuation
        }
        waiting?.resume(returning: nil)
    }
}
