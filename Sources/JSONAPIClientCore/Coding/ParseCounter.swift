import Foundation

/// Counts how many times a decode parses one body: the tests' seam for "a body is parsed once". Set for a task with
/// `ParseCounter.$current.withValue(counter) { … }`; every parse in that task (and its child tasks) whose bytes are
/// the body's is counted. Unset — always, outside those tests — a parse only reads the task-local.
package final class ParseCounter: Sendable {
    /// The counter of the running task, if any.
    @TaskLocal package static var current: ParseCounter?

    private let body: [UInt8]
    private let parses = LockedCount()

    /// A counter of the parses of `body`.
    package init(_ body: Data) { self.body = Array(body) }

    /// How many times the body was parsed.
    package var count: Int { parses.value }

    /// Counts `bytes` when they are the body's.
    func note(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count == body.count, bytes.elementsEqual(body) else { return }
        parses.increment()
    }
}

/// A count behind a lock.
private final class LockedCount: @unchecked Sendable {
    // Unchecked: `count` is read and written only under `lock`.
    private let lock = NSLock()
    private var count = 0

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    func increment() {
        lock.lock()
        defer { lock.unlock() }
        count += 1
    }
}
