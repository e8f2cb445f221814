import Foundation

/// Counts how many times a decode parses one body: the tests' seam for "a body is parsed once". Set for a task with
/// `ParseCounter.$current.withValue(counter) { … }`; every parse in that task (and its child tasks) whose bytes are
/// the body's is counted. Unset — always, outside those tests — a parse only reads the task-local.
package final class ParseCounter: @unchecked Sendable {
    // Unchecked: `parses` is read and written only under `lock`; `body` is never changed.
    /// The counter of the running task, if any.
    @TaskLocal package static var current: ParseCounter?

    private let body: [UInt8]
    private let lock = NSLock()
    private var parses = 0

    /// A counter of the parses of `body`.
    package init(_ body: Data) { self.body = Array(body) }

    /// How many times the body was parsed.
    package var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return parses
    }

    /// Counts `bytes` when they are the body's. Unsafe code's budget: the buffer is only read, inside the caller's
    /// `withUnsafeBytes` (never kept); it is reached only when a test set a counter, and unset the seam costs one
    /// task-local read a parse.
    func note(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count == body.count, bytes.elementsEqual(body) else { return }
        lock.lock()
        defer { lock.unlock() }
        parses += 1
    }
}
