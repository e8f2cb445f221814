import Foundation

/// A value guarded by a lock, for the little shared mutable state that is not worth an actor (callbacks from
/// URLSession's delegate queue, cancellation handlers).
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    #if DEBUG
    /// How many times the lock was taken, for the tests that bound a path's lock sections (debug builds only).
    private var sections = 0
    #endif

    init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        #if DEBUG
        sections &+= 1
        #endif
        return try body(&value)
    }

    #if DEBUG
    /// How many lock sections have run (``withLock(_:)``); reading it is none.
    var sectionCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return sections
    }
    #endif
}
