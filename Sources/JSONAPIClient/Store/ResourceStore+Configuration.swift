import Foundation

extension ResourceStore {
    /// The limits of a store, and its clock.
    public struct Configuration: Sendable, Hashable {
        /// The most records kept; past it the least recently used are evicted.
        public var maxResources: Int
        /// The most bytes of response bodies kept; past it the least recently used responses are evicted, and a
        /// body larger than this is not kept.
        public var maxResponseBytes: Int
        /// The current time, by which stored responses age (their freshness, RFC 9111 §4.2); the system clock by
        /// default. Tests pass a clock of their own to age responses without waiting.
        public var now: @Sendable () -> Date
        /// Where the store keeps its records and responses across launches; `nil` (the default) for memory only.
        public var persistence: Persistence?
        /// The names of the query items that are credentials — an API key sent in each request's URL, such as
        /// `api_key` — as `Authorization` is in a header: a stored response is partitioned by their values (a
        /// keyed digest, as for the credential header fields) and kept under its URL without them, so that they
        /// are never written to disk. Empty by default: a query item is then part of the URL like any other.
        ///
        /// The URL as sent keeps them; what the server writes in a body (a link that repeats the query) is stored
        /// as it came. Add such an item in a ``Middleware`` rather than in the request's URL, so that a queued
        /// offline write (``WriteQueue``), which keeps its URL as made, does not carry it either.
        public var credentialQueryItems: Set<String>

        /// Creates limits: 10,000 records and 32 MiB of responses by default, in memory only.
        ///
        /// - Parameters:
        ///   - maxResources: The most records kept.
        ///   - maxResponseBytes: The most bytes of response bodies kept.
        ///   - persistence: Where to keep the store across launches; `nil` for memory only.
        ///   - credentialQueryItems: The names of the query items that are credentials (see
        ///     ``credentialQueryItems``); none by default.
        ///   - now: The current time; `Date()` by default.
        public init(
            maxResources: Int = 10_000, maxResponseBytes: Int = 32 << 20, persistence: Persistence? = nil,
            credentialQueryItems: Set<String> = [], now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.maxResources = maxResources
            self.maxResponseBytes = maxResponseBytes
            self.persistence = persistence
            self.credentialQueryItems = credentialQueryItems
            self.now = now
        }

        /// Whether two configurations have the same limits, persistence and credential query items (their clocks
        /// are not compared).
        ///
        /// - Parameters:
        ///   - lhs: A configuration.
        ///   - rhs: Another configuration.
        /// - Returns: `true` when both limits, the persistence and the credential query items are equal.
        public static func == (lhs: Configuration, rhs: Configuration) -> Bool {
            lhs.maxResources == rhs.maxResources && lhs.maxResponseBytes == rhs.maxResponseBytes
                && lhs.persistence == rhs.persistence && lhs.credentialQueryItems == rhs.credentialQueryItems
        }

        /// Hashes the limits, persistence and credential query items (not the clock).
        ///
        /// - Parameter hasher: The hasher to feed.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(maxResources)
            hasher.combine(maxResponseBytes)
            hasher.combine(persistence)
            hasher.combine(credentialQueryItems)
        }
    }
}
