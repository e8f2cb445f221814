import Foundation
import JSONAPIClientCore

extension ResourceStore {
    /// A response body waiting to be merged: as it came, or — once its typed decode handed over its parse — as
    /// records (``ResourceStore/merge(_:from:)``), merged then without parsing anything.
    struct WaitingBody {
        /// The body, until its records are handed over (then empty: the records hold a copy of its bytes).
        var body: Data
        var records: ResourceRecords?
        /// The body's size: what the byte limit on waiting bodies counts.
        var count: Int

        /// Whether this waits as `body`, not yet handed over.
        func isBody(_ other: Data) -> Bool { records == nil && ResourceStore.same(body, other) }
    }

    /// The response bodies not merged yet, oldest first: merging waits for the first read (or observer), so that a
    /// session nobody reads the store of pays only for keeping the bytes, and a typed fetch's decode can hand over
    /// its parse so that the body is parsed once.
    ///
    /// A value: ``ResourceStore`` holds one under its lock; tests make their own.
    struct WaitingBodies {
        private(set) var bodies: [WaitingBody] = []
        /// The bytes of the bodies waiting.
        private(set) var bytes = 0
        /// How many bodies the store parsed itself (not handed over by a decode): what one parse keeps at zero for
        /// typed fetches.
        private(set) var parsed = 0

        /// The number of bodies waiting.
        var count: Int { bodies.count }
        /// Whether none waits.
        var isEmpty: Bool { bodies.isEmpty }

        /// Whether `body` waits, not yet handed over.
        func contains(_ body: Data) -> Bool { bodies.contains { $0.isBody(body) } }

        /// Whether those waiting must be merged before a body of `size` bytes waits too: `maximum` bodies wait, or
        /// the bytes would pass `limit`.
        func isFull(adding size: Int, limit: Int, maximum: Int) -> Bool {
            let limit = max(limit, 0)
            return !bodies.isEmpty && (bodies.count >= maximum || size > limit - min(bytes, limit))
        }

        /// Adds `body` as the newest.
        mutating func append(_ body: Data) {
            bodies.append(WaitingBody(body: body, count: body.count))
            bytes += body.count
        }

        /// Takes every body waiting, oldest first.
        mutating func takeAll() -> [WaitingBody] {
            defer { removeAll() }
            return bodies
        }

        /// Puts `records`, parsed from `body` by its decode, in the place of `body`, which then waits as records.
        ///
        /// - Returns: Whether `body` waited.
        mutating func hand(_ records: ResourceRecords, for body: Data) -> Bool {
            guard let position = bodies.firstIndex(where: { $0.isBody(body) }) else { return false }
            bodies[position].records = records
            bodies[position].body = Data()
            return true
        }

        /// Takes `body` and every body older than it out, when `body` waits.
        ///
        /// - Returns: The older bodies, oldest first; `nil` when `body` does not wait.
        mutating func take(through body: Data) -> ArraySlice<WaitingBody>? {
            guard let position = bodies.firstIndex(where: { $0.isBody(body) }) else { return nil }
            let earlier = bodies[..<position]
            bodies.removeFirst(position + 1)
            bytes = bodies.reduce(0) { $0 + $1.count }
            return earlier
        }

        /// Notes that the store parsed a body itself.
        mutating func noteParsed() { parsed += 1 }

        /// Drops every body waiting.
        mutating func removeAll() {
            bodies.removeAll()
            bytes = 0
        }
    }
}
