import Foundation

extension ResourceStore {
    /// Where and how a ``ResourceStore`` is kept across launches: opt in with
    /// `ResourceStore.Configuration(persistence: .init(directory: url))`.
    ///
    /// The store keeps its records and stored responses — with their validators, freshness and the collection
    /// types they list — in a SQLite database inside `directory`, `JSONAPIClient/default.sqlite` for a session that
    /// names no account and `JSONAPIClient/account-<digest>.sqlite` for each named one
    /// (``Session/Configuration/account``), writing in the background, at most once per ``delay``, the rows of what
    /// changed since it last wrote (a refetched page writes
    /// its own records and response, whatever else the store holds); a new store (a restarted app) on the same
    /// directory finds them: it reads the stored responses when it opens, and each record when a read, merge or
    /// write first needs it (``ResourceStore/init(configuration:decoder:)``). ``ResourceStore/flush()`` writes at
    /// once and returns when it is committed — call it when the app moves to the background, since changes of the
    /// last ``delay`` are otherwise lost if the process is then killed; ``ResourceStore/clear()`` deletes the rows
    /// (a `flush()` after it returns once they are gone). A save keeps the database within
    /// ``ResourceStore/Configuration/maxResources`` records, the least recently written going first. A stored
    /// response's resources are written once, as records: its body keeps the text around them and is put back
    /// together from the records when first used after a launch (one whose resources are not all in the store any
    /// more is fetched again).
    ///
    /// ```swift
    /// // On macOS, Application Support is shared by every app that is not sandboxed: keep yours under your bundle id.
    /// let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
    ///     .appendingPathComponent(Bundle.main.bundleIdentifier ?? "com.example.app", isDirectory: true)
    ///     .appendingPathComponent("api-store", isDirectory: true)
    /// let api = Session(baseURL: url, configuration: .init(store: .init(persistence: .init(directory: folder))))
    /// ```
    ///
    /// Responses stay partitioned by credentials across launches: the database keeps a random key of its own under
    /// which the credentials are digested; the credentials themselves are never written — the credential header
    /// fields, and the query items ``Configuration/credentialQueryItems`` names — nor responses with
    /// `Cache-Control: no-store` (<doc:CachingResources> lists what is written). The library works in its `JSONAPIClient` folder and leaves `directory` itself as
    /// it is; on Apple platforms that folder is excluded from backups and has the data protection class
    /// ``fileProtection`` says (the app's own by default). Any number of processes may open one directory (an app
    /// and its extensions in an app group's container): each writes the rows of its own changes, so none
    /// overwrites another's saves, and a store reads what the others saved when it first needs it. The session's
    /// ``WriteQueue`` keeps its entries in the same database (see ``WriteQueue``).
    public struct Persistence: Sendable, Hashable {
        /// The app's directory the library keeps its `JSONAPIClient` folder in; made (owner-only) when missing.
        public var directory: URL
        /// How long after a change the store waits before writing, gathering the changes that follow into the
        /// same write; one second by default, from zero to an hour.
        public var delay: Duration
        /// Told why a file was set aside (damaged, another program's, of a later version), a row discarded, or a
        /// read or write failed, for the store and the ``WriteQueue``: paths, reasons and byte offsets, never a credential, URL
        /// or body. By default the unified log on Apple platforms (subsystem `JSONAPIClient`, category
        /// `persistence`, at the error level; Console and `log stream` show it) and standard error elsewhere; give
        /// your own to send the lines to the app's logging.
        public var log: @Sendable (String) -> Void
        /// The data protection class of the library's folder and database files on Apple platforms: given to the
        /// folder, to the files already there before each open, and (iOS, tvOS, watchOS, visionOS) to the files
        /// SQLite makes; ``FileProtection/appDefault`` (the default) sets none, so they take the app's (its
        /// `com.apple.developer.default-data-protection` entitlement, else until first unlock). Nothing elsewhere.
        public var fileProtection: FileProtection

        /// When the device lets the app read the store's files (Apple's data protection classes). A store whose
        /// files the device cannot read yet — a background launch before the first unlock, with `complete` — is
        /// not damaged: its database does not open, the store stays in memory for that session (logged), and nothing
        /// on disk is set aside or discarded; the ``WriteQueue`` reads the database when it first can, ahead of the
        /// writes queued since.
        public enum FileProtection: Sendable, Hashable {
            /// The app's own class: the library sets none.
            case appDefault
            /// Readable only while the device is unlocked (`FileProtectionType.complete`): not for a store touched in
            /// the background, since about ten seconds after the device locks SQLite's memory-mapped `-shm` cannot
            /// be read, and every read and save fails until it unlocks.
            case complete
            /// Files open when the device locks stay readable; new ones cannot be opened until it unlocks
            /// (`completeUnlessOpen`).
            case completeUnlessOpen
            /// Readable once the device was unlocked after it started (`completeUntilFirstUserAuthentication`):
            /// what background work such as a silent push or a background fetch needs.
            case completeUntilFirstUserAuthentication
            /// Always readable (`none`).
            case none
        }

        /// Suspends every persisted store's and write queue's database writes in this process, for an app about
        /// to be suspended: iOS terminates an app suspended while it holds a lock on a file in an app group's
        /// container (the `0xdead10cc` exception). A write transaction running is interrupted and rolled back;
        /// it and every later one wait, on their own queues, until ``resume()``, then run whole — nothing is lost,
        /// and a ``ResourceStore/flush()`` made meanwhile returns once its save is written after the resume. A
        /// database opened while suspended that must first be given its schema or key is not opened (the store
        /// stays in memory for that session, the write queue opens it at its next use). Reads go on. Call it when
        /// the app has finished its work in the background, and ``resume()`` when it comes back (see
        /// <doc:CachingResources>). Each write transaction also runs as the system's expiring activity
        /// (`ProcessInfo.performExpiringActivity`), so that the system does not suspend the process in its middle.
        public static func suspend() { Suspension.shared.suspend() }

        /// Resumes the writes ``suspend()`` held: those waiting run now.
        public static func resume() { Suspension.shared.resume() }

        /// Whether ``suspend()`` holds the writes now.
        public static var isSuspended: Bool { Suspension.shared.isSuspended }

        /// Creates a persistence.
        ///
        /// - Parameters:
        ///   - directory: The directory of the store's files, e.g. in Application Support (see
        ///     <doc:CachingResources> for each platform's place).
        ///   - delay: How long after a change the store writes; one second by default.
        ///   - fileProtection: The data protection class of the store's files on Apple platforms; the app's own by
        ///     default.
        ///   - log: Where to report discarded files and failed writes; when `nil`, the unified log on Apple platforms
        ///     and standard error elsewhere (see ``log``).
        public init(
            directory: URL, delay: Duration = .seconds(1), fileProtection: FileProtection = .appDefault,
            log: (@Sendable (String) -> Void)? = nil
        ) {
            self.directory = directory
            self.delay = delay
            self.fileProtection = fileProtection
            self.log = log ?? { message in LibraryLog.write(message, category: "persistence") }
        }

        /// Removes everything kept on disk in ``directory`` for `account` (``Session/Configuration/account``; `nil`:
        /// the data of sessions that name none): its records, stored responses and queued writes, request bodies
        /// included — its database file and SQLite's files beside it. What to do when the user asks to remove their
        /// account's data from the device (a session of that account does it with
    /// ``Session/signOut(removingData:)``); to sign out keeping it for their next sign-in, call
    /// ``Session/signOut(removingData:)`` without `removingData`.
        ///
        /// Call it when no session of that account is open, in this process or another (an app extension): a
        /// session still open keeps its file open and writes into it. In this process that is checked: while a
        /// connection to the account's database is open (a session of the account, or one that signed out of it
        /// without removing its data), nothing is removed and this throws — SQLite's last connection to a file
        /// deletes its `-wal` and `-shm` by path when it closes, which would take them from a database made there
        /// again meanwhile. A removal and an opening of the same account's database in this process never
        /// interleave. A store dropped less than ``delay`` after its last change still writes that change when the
        /// delay ends; `flush()` it before dropping it to have the writes done first.
        ///
        /// - Parameter account: The account whose data goes.
        /// - Throws: ``JSONAPIClientError`` with code ``JSONAPIClientError/Code/storeNotSaved`` when a file exists and
        ///   cannot be removed (the rest are removed all the same), or when this process has the database open
        ///   (nothing is removed).
        public func removeData(ofAccount account: String?) throws(JSONAPIClientError) {
            if let failure = PartitionDatabase.remove(PartitionDatabase.partition(forAccount: account), in: directory) {
                throw JSONAPIClientError(code: .storeNotSaved, detail: failure)
            }
        }

        /// Whether two persistences use the same directory, delay and file protection (their logs are not compared).
        ///
        /// - Parameters:
        ///   - lhs: A persistence.
        ///   - rhs: Another persistence.
        /// - Returns: `true` when the directories, delays and file protections are equal.
        public static func == (lhs: Persistence, rhs: Persistence) -> Bool {
            lhs.directory.standardizedFileURL == rhs.directory.standardizedFileURL && lhs.delay == rhs.delay
                && lhs.fileProtection == rhs.fileProtection
        }

        /// Hashes the directory, delay and file protection.
        ///
        /// - Parameter hasher: The hasher to feed.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(directory.standardizedFileURL)
            hasher.combine(delay)
            hasher.combine(fileProtection)
        }
    }

    /// Writes what changed in the store since its last write, without waiting for ``Persistence/delay``, and
    /// returns when it is committed: every change made before the call survives the process being killed after
    /// it. Does nothing for a store in memory only (no ``Configuration/persistence``), or when nothing changed
    /// since the last write.
    ///
    /// - Throws: ``JSONAPIClientError`` with code ``JSONAPIClientError/Code/storeNotSaved`` when the database could
    ///   not be written (it holds the previous write, whole; the next write includes these changes), or when the
    ///   store has persistence but its database could not be opened — the `.sqlite` is a folder, the library's
    ///   folder is a file or read-only, the device cannot read the file yet — so that it runs in memory: nothing it
    ///   holds is on disk. Such a store tries to open it again first; when it can, the flush saves into it what the
    ///   store holds (its observers are told its records went, and load them again) — but a session's store that
    ///   names no account drops the records it held instead, not knowing whose they are, and this flush throws.
    public func flush() async throws(JSONAPIClientError) {
        guard let persistence = configuration.persistence else { return }
        if writer == nil {
            await waitForLateOpening()
            if writer == nil { await openLate() }
        }
        if takeDroppedRecords() {
            throw JSONAPIClientError(
                code: .storeNotSaved,
                detail: "the database in \(PartitionDatabase.folder(in: persistence.directory).path) is open now, but the "
                    + "records the store held before could not be kept (whose they are is not known to it): they are "
                    + "fetched again as they are read")
        }
        guard let writer else {
            throw JSONAPIClientError(
                code: .storeNotSaved,
                detail: "the database in \(PartitionDatabase.folder(in: persistence.directory).path) could not be opened: "
                    + "the store is in memory only, and nothing it holds is saved")
        }
        try await writer.flush(self)
    }

    /// What a save writes: the records and responses of the keys noted, each with its value (`nil`: gone).
    struct Unsaved: @unchecked Sendable {
        // @unchecked Sendable: the values are copies taken under the store's lock; a record's tape is never changed
        // after it is parsed (`ResourceRecords`), so the writer's queue reads them while the store goes on.
        var records: [(key: Key, record: Record?)]
        var responses: [(key: ResponseKey, response: StoredResponse?)]
        /// The keys of `records` whose record was placed over a row the store could not read
        /// (``RecordTable/unreadBeneath``): the save merges that row under the record, member by member, rather
        /// than write the record over it.
        var beneath: Set<Key> = []
    }

    /// What changed since the last save, taken for a save: the records and responses of the keys noted, each with
    /// its value now (`nil`: gone). Only the copy is made under the lock (after merging the bodies waiting); the
    /// encoding happens outside it.
    func takeUnsaved(for writer: StoreWriter? = nil) -> Unsaved {
        withMergedState { state in
            // A save of a writer the store switched away from (``switchAccount(to:)``) takes nothing of the account
            // shown now: the switch handed its own changes over.
            if let writer, state.backing.writer !== writer { return Unsaved(records: [], responses: []) }
            return state.takeUnsaved()
        }
    }

    /// Schedules a save when opening a partition left stored responses out (past the limit): the save deletes
    /// their rows.
    func saveLeftOut() {
        commit(merging: false) { state, effects in effects.saves = state.responses.unsaved.keys?.isEmpty == false }
    }

    /// Puts back the keys of a save that failed, so that the next save writes them (with their values then).
    func restoreUnsaved(records: Set<Key>, responses: Set<ResponseKey>) {
        state.withLock { state in
            state.records.unsaved.restore(records)
            state.responses.unsaved.restore(responses)
        }
    }

    /// Fills a new state with the stored responses its database holds, oldest change first, within the limit,
    /// and starts noting what changes: what the limit left out is deleted by the next save (``saveLeftOut()``),
    /// what was loaded is not written again. The records are read as they are asked for (``faultIn(_:)``): another
    /// process may save some at any time.
    static func load(_ contents: RowCodec.Contents, into state: inout State, limit: Int) {
        state.records.unsaved.track()
        state.responses.unsaved.track()
        if !state.ownerUnconfirmed { state.records.readDisk() }
        state.clock = state.responses.load(contents.responses, from: state.clock + 1, limit: limit) - 1
    }
}
