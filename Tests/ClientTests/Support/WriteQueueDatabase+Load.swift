@testable import JSONAPIClient

extension WriteQueueDatabase {
    /// The entries, oldest first; `nil` when there are none or the database cannot be read: the tests' shorthand
    /// for ``read()``, which the library calls itself (a failed read there is an error, never an empty queue).
    func load() -> [WriteQueue.Entry]? {
        guard let entries = try? read(), !entries.isEmpty else { return nil }
        return entries
    }
}
