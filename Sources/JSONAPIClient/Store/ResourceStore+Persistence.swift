import Foundation

extension ResourceStore {
    /// Where and how a ``ResourceStore`` is kept across launches: opt in with
    /// `ResourceStore.Configuration(persistence: .init(directory: url))`.
    ///
    /// The store writes its records and stored responses — with their validators, freshness and the collection
    /// types they list — to one file in `directory`, in the background, at most once per ``delay``; a new store
    /// (a restarted app) on the same directory starts with them. ``ResourceStore/flush()`` writes at once and
    /// returns when it is on disk — call it when the app moves to the background, since changes of the last
    /// ``delay`` are otherwise lost if the process is then killed; ``ResourceStore/clear()`` removes the file.
    ///
    /// ```swift
    /// let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
    ///     .appendingPathComponent("api-store")
    /// let api = Session(baseURL: url, configuration: .init(store: .init(persistence: .init(directory: folder))))
    /// ```
    ///
    /// Responses stay partitioned by credentials across launches: the directory keeps a random key of its own
    /// (`partition.key`, readable by its owner only) under which the credentials are digested; the credentials
    /// themselves are never written, nor responses with `Cache-Control: no-store`. On Apple platforms the directory
    /// is excluded from backups and its files are protected until the device is first unlocked
    /// (`completeUntilFirstUserAuthentication`). The store's file is for one process at a time: two processes on
    /// one directory (an app and its extension) each save their own store over the other's. The session's
    /// ``WriteQueue`` keeps its entries in a SQLite database in the `JSONAPIClient` folder inside the directory,
    /// which any number of processes may share (see ``WriteQueue``).
    public struct Persistence: Sendable, Hashable {
        /// The directory of the store's files; made (owner-only) when missing.
        public var directory: URL
        /// How long after a change the store waits before writing, gathering the changes that follow into the
        /// same write; one second by default, from zero to an hour.
        public var delay: Duration
        /// Told why a file was discarded (another format version, another key, damaged) or a write failed, for the
        /// store's file and the ``WriteQueue``'s database: paths, reasons and byte offsets, never a credential, URL
        /// or body. By default the unified log on Apple platforms (subsystem `JSONAPIClient`, category
        /// `persistence`, at the error level; Console and `log stream` show it) and standard error elsewhere; give
        /// your own to send the lines to the app's logging.
        public var log: @Sendable (String) -> Void

        /// Creates a persistence.
        ///
        /// - Parameters:
        ///   - directory: The directory of the store's files, e.g. in Application Support.
        ///   - delay: How long after a change the store writes; one second by default.
        ///   - log: Where to report discarded files and failed writes; when `nil`, the unified log on Apple platforms
        ///     and standard error elsewhere (see ``log``).
        public init(directory: URL, delay: Duration = .seconds(1), log: (@Sendable (String) -> Void)? = nil) {
            self.directory = directory
            self.delay = delay
            self.log = log ?? { message in LibraryLog.write(message, category: "persistence") }
        }

        /// Whether two persistences use the same directory and delay (their logs are not compared).
        ///
        /// - Parameters:
        ///   - lhs: A persistence.
        ///   - rhs: Another persistence.
        /// - Returns: `true` when the directories and delays are equal.
        public static func == (lhs: Persistence, rhs: Persistence) -> Bool {
            lhs.directory.standardizedFileURL == rhs.directory.standardizedFileURL && lhs.delay == rhs.delay
        }

        /// Hashes the directory and delay.
        ///
        /// - Parameter hasher: The hasher to feed.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(directory.standardizedFileURL)
            hasher.combine(delay)
        }
    }

    /// Writes what the store holds now to its directory, without waiting for ``Persistence/delay``, and returns
    /// when it is on disk: every change made before the call survives a crash after it. Does nothing for a store
    /// in memory only, or when nothing changed since the last write.
    ///
    /// - Throws: ``JSONAPIClientError`` with code ``JSONAPIClientError/Code/storeNotSaved`` when the file could not
    ///   be written (the previous one stays, whole).
    public func flush() async throws(JSONAPIClientError) {
        try await writer?.flush(self)
    }

    /// What to write: the records (with their keys and when they last changed) and the responses, least recently
    /// used first. Only the copy is made under the lock (after merging the bodies waiting); the ordering happens
    /// outside it.
    func contentsToSave() -> (
        records: [(key: Key, record: Record)], responses: [(key: ResponseKey, response: StoredResponse)]
    ) {
        let (records, responses) = withMergedState { ($0.records, $0.responses) }
        return (records.oldestFirst(), responses.oldestFirst())
    }

    /// Fills the new store with a file's contents, oldest use first, within the limits.
    func load(_ contents: StoreFile.Contents) {
        let limit = configuration.maxResponseBytes
        state.withLock { state in
            if let records = contents.records {
                state.records.reserve(adding: records.resources.count)  // once, when the store opens: no regrowth
                // The file holds each key once (it is written from the table), so every resource is held.
                for entry in records.resources {
                    let record = Record(entry.record(in: records), lastUse: state.tick())
                    _ = state.records.placeUncounted(record, for: Key(type: entry.type, id: entry.id))
                }
                let count = records.resources.count
                state.records.share(records, held: Array(repeating: true, count: count), live: count)
            }
            _ = evictRecords(&state)
            for (key, stored) in contents.responses where stored.response.body.count <= limit {
                state.responses.insert(stored, for: key, at: state.tick(), limit: limit)
            }
        }
    }
}
