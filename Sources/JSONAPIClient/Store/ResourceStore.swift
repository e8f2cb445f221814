import Foundation

/// What a session remembers of what it has fetched and written: one record per resource, and the last response of
/// each URL it fetched.
///
/// - **Identity map.** Every resource of every document the session fetches (primary data and `included`) and every
///   resource a write returns is merged into one record per `(type, id)`, member by member, the newest winning; a
///   relationship sent without `data` keeps the linkage the record had. A delete removes the record.
/// - **Responses.** The body and validators (`ETag`, `Last-Modified`) of each successful `GET`, for conditional
///   requests and the ``CachePolicy``s — per credentials the request carried and per `Vary`, never a `no-store`
///   one, fresh by HTTP's rules (RFC 9111). The records are shared: ``clear()`` when the account changes.
/// - **Bounded.** At most ``Configuration/maxResources`` records and ``Configuration/maxResponseBytes`` of bodies;
///   the least recently used go first.
/// - **Optimistic.** Writes with ``WriteOptions/isOptimistic`` show before the server answers, as layers over the
///   records, settled in the order they were made; ``pendingChanges(type:id:)`` reads them as a diff.
/// - **Kept across launches, when asked.** With ``Configuration/persistence`` the records and responses that changed
///   are written to a SQLite database in the background and read back as a store opening it asks for them, so a cold start under
///   ``CachePolicy/cacheFirst`` or ``CachePolicy/cacheOnly`` answers with no request; ``flush()`` waits for them to
///   be on disk. See ``Persistence``.
///
/// ```swift
/// let api = Session(baseURL: url)                     // a store by default; `store: nil` turns it off
/// _ = try await api.source(Article.self, .path("articles/<id>")).fetch().include(["author"]).result()
/// let article = try api.store?.resource(Article.self, id: "1")   // its author resolved from the store
/// for await change in api.store!.changes(of: Article.self) { print(change) }
/// ```
///
/// Reads are synchronous and safe from any thread; observers receive changes as `AsyncStream`s. A response's
/// resources are merged when the store is next read, or at once while someone observes it: a session whose store
/// nobody reads pays for keeping the bytes, not for reading them twice.
public final class ResourceStore: Sendable {
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

    /// A record's key: a resource's type and id.
    ///
    /// Its hash is computed once, when the key is made, and a table hashes that number: a key is hashed again at
    /// every lookup, in every set and dictionary it goes through (the identity map, and again each time it grows;
    /// a live object's dependencies; a read's walk), and hashing two strings costs several hundred instructions
    /// where combining one `Int` costs a few dozen. Equality compares the hashes first (most unequal keys differ
    /// there), then the strings, so two keys are equal exactly when their types and ids are, as `String` compares
    /// them; equal keys have equal hashes because equal strings do.
    struct Key: Hashable, Sendable {
        let type: String
        let id: String
        /// `type` and `id` hashed by a `Hasher` (seeded per process, as every `Set`'s: a server cannot choose ids
        /// that collide).
        private let hash: Int

        init(type: String, id: String) {
            self.type = type
            self.id = id
            var hasher = Hasher()
            hasher.combine(type)
            hasher.combine(id)
            hash = hasher.finalize()
        }

        /// A key with the hash given instead of computed: for tests of keys whose hashes collide.
        init(type: String, id: String, hash: Int) {
            self.type = type
            self.id = id
            self.hash = hash
        }

        /// `type` and `id` hashed by the process's seeded `Hasher`: what ``RecordMap`` places the key by.
        var seededHash: Int { hash }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.hash == rhs.hash && lhs.id == rhs.id && lhs.type == rhs.type
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(hash)
        }

        /// What a `Set` or `Dictionary` with seed `seed` hashes the key to: the key's hash, already mixed by a
        /// seeded `Hasher`, mixed with the table's seed by a bijection (murmur3's finaliser), in place of feeding it
        /// through a `Hasher` again — a full SipHash finalisation per lookup and per key each time a table grows.
        ///
        /// Relies on: equal keys have equal `hash` (above), so they hash alike under any seed; tables with different
        /// seeds order their buckets differently (the mix of `hash ^ seed` is a bijection that spreads every bit),
        /// which is what the seed is for (copying one table into another never meets long clusters); and `hash` is
        /// not known outside the process (a per-process seeded `Hasher` made it), so no server can choose ids that
        /// collide.
        func _rawHashValue(seed: Int) -> Int {
            var mixed = UInt64(bitPattern: Int64(hash ^ seed))
            mixed = (mixed ^ (mixed >> 33)) &* 0xFF51_AFD7_ED55_8CCD
            mixed = (mixed ^ (mixed >> 33)) &* 0xC4CE_B9FE_1A85_EC53
            // Truncated to `Int`: 32 bits on watchOS's arm64_32, where a converting `Int(_:)` would trap.
            return Int(truncatingIfNeeded: mixed ^ (mixed >> 33))
        }
    }

    /// A record: its resource object as parsed (a place in the tape of the response it came in, shared with that
    /// response's other records, or a tape of its own), when it was last used and when it last changed.
    ///
    /// Copying a record — as sorting them by use for eviction or for a save does — retains one reference.
    struct Record {
        var stored: ResourceRecord
        var lastUse: UInt64
        /// When the record last changed (a tick): a persisted store saves when something changed since it last
        /// wrote (`StoreWriter`).
        var changed: UInt64

        /// The resource object, read from the record's tape.
        var object: ResourceObject { stored.resourceObject() }

        init(_ stored: ResourceRecord, lastUse: UInt64, changed: UInt64? = nil) {
            self.stored = stored
            self.lastUse = lastUse
            self.changed = changed ?? lastUse
        }

        /// A record of `object` in a tape of its own; `nil` when it has no `id` or does not write as JSON (a
        /// number that is not finite).
        init?(object: ResourceObject, lastUse: UInt64, changed: UInt64? = nil) {
            guard let stored = try? ResourceRecord(object) else { return nil }
            self.init(stored, lastUse: lastUse, changed: changed)
        }
    }

    /// How many records of a response's shared tape the store still holds: once fewer than half, the rest are
    /// copied into tapes of their own (``State/compact(_:)``), so that a few records never keep a large response's
    /// tape alive.
    ///
    /// It also says which of them are still the store's: while `held[i]` is set, the record of resource `i`'s
    /// `(type, id)` is that resource in this tape, so a read that meets it through another record's linkage takes
    /// it without looking its key up (``ResourceStore/graph(from:)``).
    struct SharedRecords {
        let records: ResourceRecords
        /// By position in `records.resources`: whether the store's record of that resource is it.
        var held: [Bool]
        var live: Int
        /// What each resource's linkage names, found by the first read that walked it (``LinkTable``).
        var links = LinkTable()

        /// Notes that the table no longer holds the resource at `position`.
        ///
        /// - Returns: Whether it held it.
        mutating func release(_ position: Int) -> Bool {
            guard held[position] else { return false }
            held[position] = false
            live -= 1
            return true
        }
    }

    struct Observer {
        /// The type observed; `nil` for every type (a live object follows the related records its models are
        /// decoded from too).
        var type: String?
        var id: String?
        /// Takes a batch of changes and, when a fetch's merge made them, what the fetch decoded.
        var deliver: @Sendable ([StoreChange], FetchedModels?) -> Void
        /// A live object's: applies what waits for it now, on the main actor (``ResourceStore/applyLiveNow()``).
        var applyNow: (@Sendable () -> Void)?
    }

    /// What the store holds, behind its lock: the four parts, each a value that can be read and tested alone
    /// (``RecordTable``, ``ResponseCache``, ``WaitingBodies``, ``OptimisticOverlay``), and what the façade itself
    /// keeps — the clock, the observers, and whether the records were ever used.
    struct State {
        /// The identity map.
        var records = RecordTable()
        /// The stored responses.
        var responses = ResponseCache()
        /// The response bodies not merged yet (at most ``ResourceStore/maxWaiting``, and the response byte
        /// limit's worth: past either, those waiting are merged, none is dropped).
        var waiting = WaitingBodies()
        /// The optimistic writes not settled yet, and the inverse relationships.
        var overlay = OptimisticOverlay()
        var clock: UInt64 = 0
        var observers: [UInt64: Observer] = [:]
        var nextObserver: UInt64 = 0
        /// The changes not told to the observers yet, in order (``ResourceStore/commit(merging:_:)``).
        var outbox = Outbox()
        /// How many switches of account are under way (``ResourceStore/beginSwitch()``): a request answered
        /// meanwhile reads, keeps and merges nothing of the store, whose account it may not be.
        var switching = 0
        /// How many switches of account were made (``ResourceStore/switchAccount(to:)``): a request made before one
        /// is another account's, whatever the records' owner says when it is answered.
        var switches: UInt64 = 0
        /// The records last removed (``RemovedKeys``).
        var removed = RemovedKeys()
        /// Whether the records were ever used — read, observed, written, saved (anything that merges the bodies
        /// waiting): until then a fetch's decode keeps no records for the store (``takesRecords(of:)``), so a
        /// session whose store is never used pays for keeping the bytes only.
        var recordsUsed = false
        /// How many times ``clear()`` ran, or the records' owner changed (``admit(_:)``): a live object tells a clear
        /// (the account changed) from an eviction to make room, and a response sent before one is not merged after it.
        var clears: UInt64 = 0
        /// Whose records these are, in a session that names no account (``admit(_:)``); the account's in one that
        /// names it; `nil` until known, and after ``clear()`` (the next request's credentials own what comes, without
        /// emptying the store a second time).
        var owner: CredentialDigest?
        /// Whether the records on disk wait for a request to say whose they are: a session that names no account
        /// does not read the rows the last credentials left until its first request shows the same line
        /// (``admit(_:)``).
        var ownerUnconfirmed = false

        mutating func tick() -> UInt64 {
            clock += 1
            return clock
        }

        /// The record of `key` as the store shows it (``OptimisticOverlay/visibleObject(_:in:)``).
        func visibleObject(_ key: Key) -> ResourceObject? { overlay.visibleObject(key, in: records) }

        /// The record of `key` as the store shows it, as a record (``OptimisticOverlay/visibleRecord(_:in:)``).
        func visibleRecord(_ key: Key) -> ResourceRecord? { overlay.visibleRecord(key, in: records) }

        /// The keys whose shown record is not the stored one (``OptimisticOverlay/layeredKeys(in:)``).
        func layeredKeys() -> Set<Key> { overlay.layeredKeys(in: records) }

        /// The records whose shown inverse relationships the pending layers of `key` move.
        func pendingInverseTargets(of key: Key) -> [Key] { overlay.pendingInverseTargets(of: key, in: records) }

        /// Changes the other end of every declared pair that the change of record `key` from `old` to `new` (`nil`:
        /// created, or removed) moves: the records it no longer points at lose it, those it now points at gain it.
        ///
        /// - Returns: The keys of the records changed.
        mutating func followInverses(
            of key: Key, from old: ResourceObject?, to new: ResourceObject?, at tick: UInt64
        ) -> [Key] {
            var changed: [Key] = []
            for move in overlay.inverseMoves(of: key, from: old, to: new) {
                guard let record = records[move.target], let relinked = OptimisticOverlay.relinked(record.object, move),
                    let updated = ResourceStore.Record(object: relinked, lastUse: record.lastUse, changed: tick)
                else { continue }
                records.setRecord(updated, for: move.target)
                changed.append(move.target)
            }
            return changed
        }

        /// Folds the confirmed layers at the bottom of `key`'s stack into the server's record, oldest first, up to
        /// the first layer still waiting for its answer, keeping the inverse relationships in step as a merge does.
        ///
        /// - Returns: The keys of the other records whose inverse relationships changed.
        mutating func foldConfirmed(_ key: Key) -> [Key] {
            let confirmed = overlay.takeConfirmedBottom(of: key)
            guard !confirmed.isEmpty else { return [] }
            let now = tick()
            var related: [Key] = []
            for layer in confirmed {
                let old = records[key]?.object
                switch layer.kind {
                case .delete:
                    records.removeRecord(key)
                    removed.insert(key)
                    related += followInverses(of: key, from: old, to: nil, at: now)
                case .create, .update:
                    let merged = old.map { ResourceStore.merged($0, with: layer.object) } ?? layer.object
                    if let record = Record(object: merged, lastUse: now) { records.setRecord(record, for: key) }
                    related += followInverses(of: key, from: old, to: merged, at: now)
                }
            }
            return related
        }
    }

    /// The store's parts as they are now (the bodies waiting not merged): copies of the values, which cost a
    /// reference count each, for tests and diagnostics to read without reaching into the state.
    struct Parts {
        var records: RecordTable
        var responses: ResponseCache
        var waiting: WaitingBodies
        var overlay: OptimisticOverlay
        /// Whether the records were ever used (``State/recordsUsed``).
        var recordsUsed: Bool
    }

    /// The store's parts as they are now; see ``Parts``.
    var parts: Parts {
        state.withLock {
            Parts(
                records: $0.records, responses: $0.responses, waiting: $0.waiting, overlay: $0.overlay,
                recordsUsed: $0.recordsUsed)
        }
    }

    /// The most response bodies that wait to be merged; past it they are merged at once.
    static let maxWaiting = 256

    /// The limits.
    public let configuration: Configuration
    let state = LockedValue(State())
    let decoder: JSONAPIDecoder
    /// The account partition the store shows now: its database's writer and key, the account, the credentials'
    /// lineage (``Backing``); another after ``switchAccount(to:)``. Its lock is taken alone, or inside the state's.
    let backing: LockedValue<Backing>
    /// The accounts signed out of on this store's session, each with its state as it was (``switchAccount(to:)``).
    let parked = LockedValue<[String: Parked]>([:])

    /// The key of the credential digests that partition the stored responses: the process's for a store in
    /// memory, the database's own for a persisted one.
    var digestKey: DigestKey { backing.withLock { $0.digestKey } }
    /// Writes the store to its directory in the background; `nil` in memory only.
    var writer: StoreWriter? { backing.withLock { $0.writer } }
    /// The digest of the account the store holds the data of, when its session names one: the partition of every
    /// stored response in place of the credentials' digest.
    var accountDigest: CredentialDigest? { backing.withLock { $0.accountDigest } }
    /// Which credentials are one user's, when the session names no account (``CredentialLineage``): the stored
    /// responses are partitioned by their roots.
    var lineage: CredentialLineage { backing.withLock { $0.lineage } }

    /// Creates a store that reads models with `decoder`: empty, or with what its ``Configuration/persistence``
    /// directory holds.
    ///
    /// With persistence, opening reads no record: a read, a merge or a write reads the rows it needs, when it needs
    /// them, and keeps them (on the caller's thread, through a connection of their own, never under the store's
    /// lock). The stored responses are read when the store opens. A database that is damaged or another program's is
    /// set aside whole, the reason told to ``Persistence/log`` (never a credential or a body), and the store starts
    /// empty; a row that does not read is left out (a response's is deleted), logged; a database that cannot be
    /// opened at all leaves the store in memory.
    ///
    /// - Parameters:
    ///   - configuration: The limits, clock and persistence.
    ///   - decoder: Decodes models from records.
    public convenience init(configuration: Configuration = Configuration(), decoder: JSONAPIDecoder = JSONAPIDecoder()) {
        self.init(configuration: configuration, decoder: decoder, account: nil, ofSession: false)
    }

    /// Creates the store of a session that names its account (``Session/Configuration/account``): its rows in that
    /// account's database, its stored responses partitioned by the account rather than by credentials. The store of
    /// a session (`ofSession`) that names none reads the records on disk only once a request shows whose they are
    /// (``admit(_:)``); a store made alone reads them as asked.
    init(configuration: Configuration, decoder: JSONAPIDecoder, account: String?, ofSession: Bool = true) {
        self.configuration = configuration
        self.decoder = decoder
        let (backing, contents, owner) = Self.open(account: account, configuration: configuration)
        self.backing = LockedValue(backing)
        state.withLock { state in
            state = Self.opened(
                contents, owner: owner, waitsForOwner: ofSession && account == nil, limit: configuration.maxResponseBytes)
        }
        saveLeftOut()
    }

    /// With persistence, hands what changed since the last save to the writer, which writes it on its own queue:
    /// a save scheduled but not run holds the store only weakly (`StoreWriter.schedule`).
    deinit {
        writer?.saveRemaining(takeUnsaved())
    }

    // MARK: Reading

    /// The number of records.
    public var count: Int { withMergedState { $0.records.count } }

    /// The record of resource `type` `id` as the server last sent it (merged), with the optimistic writes not settled
    /// yet applied (see ``pendingChanges(type:id:)``), or `nil`.
    ///
    /// - Parameters:
    ///   - type: The resource type.
    ///   - id: The resource's id.
    /// - Returns: The record, or `nil` when the store holds none.
    public func record(type: String, id: String) -> ResourceObject? {
        let key = Key(type: type, id: id)
        return call {
            faultIn([key])
            return withMergedState { state in
                guard let object = state.visibleObject(key) else { return nil }
                state.records.touch(key, at: state.tick())
                return object
            }
        }
    }

    /// The resource `id` of `Model`'s type, decoded from its record with its relationships resolved from the store
    /// (whether or not the response that brought them included them), or `nil` when the store has no record of it.
    ///
    /// - Parameters:
    ///   - type: The model to decode.
    ///   - id: The resource's id.
    /// - Returns: The model, or `nil` when the store holds no record of it.
    /// - Throws: `JSONAPIDecodingError` when the record does not make a `Model` (a sparse fieldset left out a
    ///   member it requires); its pointer locates the member in the response the records came in (or,
    ///   for records of several responses, as if they were one document's `data` and `included`).
    ///   ``JSONAPIClientError`` with code ``JSONAPIClientError/Code/storeNotRead`` when a persisted store could not
    ///   read the rows of the record or of those it reaches (the next read reads them again).
    public func resource<Model: Resource>(_ type: Model.Type, id: String) throws -> Model? {
        register(Model.self)
        let (graph, failure) = call { graphReading(from: [Key(type: Model.resourceType, id: id)]) }
        if let failure { throw Self.notRead(failure) }
        guard let (primary, included) = graph else { return nil }
        return try decoder.decode(Model.self, records: primary, included: included).first
    }

    /// Every resource of `Model`'s type in the store, ordered by id, with relationships resolved from the store.
    ///
    /// - Parameter type: The model to decode.
    /// - Returns: The models, ordered by id; `[]` when the store holds none.
    /// - Throws: `JSONAPIDecodingError` when a record does not make a `Model`; its pointer locates the member in the
    ///   response the records came in (or, for records of several responses, as if they were one document's `data`
    ///   and `included`). ``JSONAPIClientError`` with code ``JSONAPIClientError/Code/storeNotRead`` when a
    ///   persisted store could not read the type's rows, or those its records reach (the next read reads them again).
    public func resources<Model: Resource>(_ type: Model.Type) throws -> [Model] {
        register(Model.self)
        let (graph, failure) = call { () -> (([ResourceRecord], [ResourceRecord])?, SQLiteError?) in
            let listed = faultIn(type: Model.resourceType)
            let keys = withMergedState { state in
                state.overlay.visibleKeys(of: Model.resourceType, in: state.records).sorted { $0.id < $1.id }
            }
            let read = graphReading(from: keys)
            if case .failure(let error) = listed { return (read.graph, error) }
            return (read.graph, read.failure)
        }
        if let failure { throw Self.notRead(failure) }
        guard let (primary, included) = graph else { return [] }
        return try decoder.decode(Model.self, records: primary, included: included)
    }

    /// Removes every record and response — what ``Session/signOut(removingData:)`` does for a session that names no
    /// account (one that names it parks the account's data instead) — and, with persistence, their
    /// rows: deleted in the background, after a write in progress, without waiting for it; the store reads none of
    /// them meanwhile, and a ``flush()`` after `clear()` returns once they are gone (then a restart finds nothing). The optimistic changes not settled yet go too; empty the session's ``WriteQueue`` as well
    /// (``WriteQueue/removeAll()``), so that no write is sent for the next account. Observers stay, and each is told
    /// of the records it observed as ``StoreChange/Kind/evicted``.
    public func clear() {
        let named = accountDigest != nil
        call {
            // The writer of the partition cleared, read in the clear's lock section: a switch of account
            // meanwhile leaves the next account's rows alone.
            let cleared = commit(merging: false) { state, effects -> StoreWriter? in
                effects.changes += state.dropRecords()
                effects.cleared = true
                if !named { state.owner = nil }
                state.responses.removeAll()
                return writer
            }
            cleared?.removeAll()
        }
        applyLiveNow()
    }

    // MARK: Merging

    /// Merges the resources of a document — primary data and `included`; identifiers add nothing — into the
    /// store, and tells the observers what changed.
    ///
    /// - Parameter document: The document whose resources to merge.
    public func merge(_ document: RawDocument) {
        merge(Self.resourceObjects(of: document))
    }

    /// Merges resource objects (those without an `id` are skipped): each member of a newer object replaces the
    /// record's; attributes and relationships merge by name, and a relationship without `data` keeps the
    /// record's linkage.
    ///
    /// - Parameter objects: The resource objects to merge.
    public func merge(_ objects: [ResourceObject]) {
        guard !objects.isEmpty else { return }
        // The keys only for a store that reads rows: a key hashes its strings when made.
        call {
            if writer != nil {
                faultIn(objects.compactMap { object in object.id.map { Key(type: object.type, id: $0) } })
            }
            commit { state, effects in
                effects.changes += merge(objects, into: &state)
                effects.saves = true
            }
        }
    }

    /// Merges records a decode kept from its parse (``JSONAPIDecoder/decodeKeepingRecords(_:from:resourceMeta:)``),
    /// after the bodies waiting, and tells the observers. `package`: the session merges through ``merge(_:from:)``.
    package func merge(_ records: ResourceRecords) {
        merge(records, epoch: nil)
    }

    /// Merges `records` unless the store was cleared, or its records' owner changed, since `epoch` (its ``clears``
    /// when the response that brought them was sent): another account's answer never lands in this one's records.
    func merge(_ records: ResourceRecords, epoch: UInt64?) {
        // The keys only for a store that reads rows: a key hashes its strings when made.
        call {
            if writer != nil { faultIn(Self.keys(of: records)) }
            commit { state, effects in
                guard epoch == nil || epoch == state.clears else { return }
                effects.changes += merge(records, into: &state)
                effects.saves = true
            }
        }
    }

    /// Merges a response body's resources: at once when someone observes the store, else when it is next read or
    /// saved — or, when `awaitsDecode`, when the typed decode of the same body hands over its records
    /// (``merge(_:from:)``), so that the body is parsed once; the decoding caller then owes the store that call or
    /// ``settle()``. At most ``maxWaiting`` bodies and the response byte limit's worth wait: a body that would pass
    /// either has those waiting merged first (nothing is dropped). A body already waiting (the same storage or
    /// bytes: the response of requests that shared one exchange) is not added again. A body that is not a document
    /// adds nothing, nor one whose request was sent before a clear or a change of the records' owner (`epoch`: the
    /// store's ``clears`` then).
    func merge(from body: Data, awaitsDecode: Bool = false, epoch: UInt64? = nil) {
        merge(from: body, awaitsDecode: awaitsDecode, epoch: epoch) { state, effects in
            guard epoch == nil || epoch == state.clears else { return false }  // sent for another account
            return keep(body, awaitsDecode: awaitsDecode, in: &state, effects: &effects)
        }
    }

    /// Runs `event` — which keeps `body` (``keep(_:awaitsDecode:in:effects:)``) when it returns `true` — as one
    /// store call: the rows of the bodies about to be merged at once read first, and the body parsed and merged
    /// now, after the event, when it is to be merged at once (someone observes the store and no decode hands it
    /// over).
    func merge(
        from body: Data, awaitsDecode: Bool, epoch: UInt64?, _ event: (inout State, inout Effects) -> Bool
    ) {
        let limit = configuration.maxResponseBytes
        call {
            // Bodies about to be merged at once (the waiting ones are full) read their rows first.
            if writer != nil, state.withLock({ state in
                state.records.readsDisk
                    && state.waiting.isFull(adding: body.count, limit: limit, maximum: Self.maxWaiting)
            }) {
                faultInWaiting()
            }
            let observed = commit(merging: false) { state, effects in
                event(&state, &effects) && !state.observers.isEmpty && !awaitsDecode
            }
            guard observed, let records = try? decoder.records(from: body) else { return }
            merge(records, epoch: epoch)
        }
    }

    /// Keeps `body` among the bodies waiting (see ``merge(from:awaitsDecode:epoch:)``), or notes that it is to be
    /// parsed and merged at once (someone observes the store, and no decode hands its records over).
    ///
    /// - Returns: Whether the body is kept or to be merged (`false`: it waits already).
    func keep(_ body: Data, awaitsDecode: Bool, in state: inout State, effects: inout Effects) -> Bool {
        guard state.observers.isEmpty || awaitsDecode else {
            state.waiting.noteParsed()
            return true
        }
        guard !state.waiting.contains(body) else { return false }
        let limit = configuration.maxResponseBytes
        if state.waiting.isFull(adding: body.count, limit: limit, maximum: Self.maxWaiting) {
            effects.changes += mergeWaiting(&state)
        }
        state.waiting.append(body)
        effects.saves = true
        return true
    }

    /// Merges the bodies waiting now when someone observes the store (so that they are told), else leaves them
    /// for the next read: what a caller of ``merge(from:awaitsDecode:)`` does when its decode kept no records.
    func settle() {
        guard state.withLock({ !$0.observers.isEmpty && !$0.waiting.isEmpty }) else { return }
        withMergedState { _ in }
    }

    /// Whether the store takes `body`'s records from its decode (``merge(_:from:)``): the body waits to be merged,
    /// and the store's records have been used or are persisted (a save merges every body: parsed once either way).
    /// A store in memory never used keeps its bodies as they came, parsed only if it is ever read: the `pipeline`
    /// benchmark's session (a store nobody reads) decodes each page as if it had none.
    func takesRecords(of body: Data) -> Bool {
        let persisted = writer != nil
        return state.withLock { state in (state.recordsUsed || persisted) && state.waiting.contains(body) }
    }

    /// Takes `records`, parsed from `body` by its typed decode, in `body`'s place among the bodies waiting to be
    /// merged, so that merging them parses nothing. While someone observes the store they are merged at once, after
    /// the bodies before them (the observers are told); otherwise they wait, as the body did. Nothing when `body`
    /// does not wait (a read merged it meanwhile, or the store did not keep it).
    ///
    /// - Parameter decoded: The primary data the decode gave, handed to the observers with the changes (a live list
    ///   of the same model type shows those models rather than decoding the records again: ``FetchedModels``).
    func merge(_ records: ResourceRecords, from body: Data, decoded: (any Sendable)? = nil) {
        call {
            if writer != nil, state.withLock({ $0.records.readsDisk && !$0.observers.isEmpty }) {
                faultInWaiting()
                faultIn(Self.keys(of: records))
            }
            commit(merging: false) { state, effects in
                guard !state.observers.isEmpty else {
                    _ = state.waiting.hand(records, for: body)
                    return
                }
                guard let earlier = state.waiting.take(through: body) else { return }
                for waiting in earlier { effects.changes += merge(waiting, into: &state) }
                effects.changes += merge(records, into: &state)
                effects.fetched = decoded.map { FetchedModels(records: records, data: $0) }
            }
        }
    }

    /// Merges a waiting body: its records when its decode handed them over, else the body parsed now.
    private func merge(_ waiting: WaitingBody, into state: inout State) -> [StoreChange] {
        if let records = waiting.records { return merge(records, into: &state) }
        state.waiting.noteParsed()
        guard let records = try? decoder.records(from: waiting.body) else { return [] }
        return merge(records, into: &state)
    }

    /// Whether `a` and `b` are the same body: the same storage, or else the same bytes.
    ///
    /// The addresses of the bytes are compared and never read through: copies of one `Data` share its storage, so
    /// the body the store step kept and the one the decode got are found equal without a `memcmp` of the body (up
    /// to 12.6 MB twice per typed fetch in the benchmark).
    static func same(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        let shared = a.withUnsafeBytes { a in b.withUnsafeBytes { a.baseAddress == $0.baseAddress } }
        return shared || a == b
    }

    /// Runs `body` on the state once the bodies waiting are merged: a read, through ``commit(merging:_:)`` (the
    /// merge's changes are told once the outermost store call returns).
    func withMergedState<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try commit { state, _ in try body(&state) }
    }

    /// Merges the bodies waiting, oldest first.
    ///
    /// - Returns: The changes, when someone observes the store (a body awaiting its decode waits while observed).
    func mergeWaiting(_ state: inout State) -> [StoreChange] {
        guard !state.waiting.isEmpty else { return [] }
        let bodies = state.waiting.takeAll()
        var changes: [StoreChange] = []
        for waiting in bodies { changes += merge(waiting, into: &state) }
        return changes
    }

    /// Merges `objects` (each in a tape of its own; one without an `id`, or that does not write as JSON, is
    /// skipped).
    ///
    /// - Returns: The changes, when someone observes the store (none are made otherwise).
    func merge(_ objects: [ResourceObject], into state: inout State) -> [StoreChange] {
        var changes: [StoreChange] = []
        let now = state.tick()
        var released: Set<ObjectIdentifier> = []
        for object in objects {
            guard let id = object.id, let stored = try? ResourceRecord(object) else { continue }
            merge(
                stored, for: Key(type: object.type, id: id), at: now, into: &state, changes: &changes,
                released: &released)
        }
        for tape in released { state.records.compactIfSparse(tape) }
        changes += evictRecords(&state)
        return changes
    }

    /// Merges the resources of `records` (a response's, sharing its tape).
    ///
    /// - Returns: The changes, when someone observes the store (none are made otherwise).
    func merge(_ records: ResourceRecords, into state: inout State) -> [StoreChange] {
        let now = state.tick()
        var changes: [StoreChange] = []
        state.records.reserve(adding: records.resources.count)
        var held = Array(repeating: false, count: records.resources.count)
        var live = 0
        // The tapes of the records replaced, compacted once all are (a refresh replaces most of a page's).
        var released: Set<ObjectIdentifier> = []
        if !state.observers.isEmpty { changes.reserveCapacity(records.resources.count) }
        for (position, entry) in records.resources.enumerated() {
            let kept = merge(
                entry.record(in: records), for: Key(type: entry.type, id: entry.id), at: now, into: &state,
                changes: &changes, released: &released)
            if kept {
                held[position] = true
                live += 1
            }
        }
        for tape in released { state.records.compactIfSparse(tape) }
        state.records.share(records, held: held, live: live)
        changes += evictRecords(&state)
        return changes
    }

    /// Merges one record into the store's record of `key` (not counting it in its shared tape: the caller does):
    /// one lookup for a new record (inserted as it is); for one the store had, the older kept when the newer is
    /// written the same, the newer taken whole when it has every member the older has, else the two read and merged
    /// member by member into a tape of their own.
    ///
    /// - Parameters:
    ///   - changes: Where the changes go, when someone observes the store.
    ///   - released: Where the shared tapes of the records replaced go: the caller compacts them.
    /// - Returns: Whether the store holds `new` itself now.
    @discardableResult
    private func merge(
        _ new: ResourceRecord, for key: Key, at now: UInt64, into state: inout State, changes: inout [StoreChange],
        released: inout Set<ObjectIdentifier>
    ) -> Bool {
        let observed = !state.observers.isEmpty
        func noteChange(_ related: [Key] = []) {
            guard observed else { return }
            changes.append(StoreChange(type: key.type, id: key.id, kind: .updated))
            for other in related { changes.append(StoreChange(type: other.type, id: other.id, kind: .updated)) }
        }
        guard let old = state.records.placeUncounted(Record(new, lastUse: now), for: key) else {
            state.records.unsaved.insert(key)
            if state.records.indexesSelfLinks { state.records.reindex(key, from: nil, to: new.selfLink) }
            guard state.overlay.inverses.involves(key.type) else {
                noteChange()
                return true
            }
            noteChange(state.followInverses(of: key, from: nil, to: new.resourceObject(), at: now))
            return true
        }
        var record = old
        record.lastUse = now
        if new.isWrittenAs(old.stored) {
            _ = state.records.placeUncounted(record, for: key)
            return false
        }
        let kept = new.replaces(old.stored)
        if kept {
            record = Record(new, lastUse: now)
        } else {
            let merged = Self.merged(old.object, with: new.resourceObject())
            guard merged != old.object, let own = Record(object: merged, lastUse: now) else {
                _ = state.records.placeUncounted(record, for: key)
                return false
            }
            record = own
            _ = state.records.placeUncounted(record, for: key)
        }
        state.records.unsaved.insert(key)
        if let tape = state.records.releasedUncompacted(old.stored) { released.insert(tape) }
        if state.records.indexesSelfLinks {
            state.records.reindex(key, from: old.stored.selfLink, to: record.stored.selfLink)
        }
        guard state.overlay.inverses.involves(key.type) else {
            noteChange()
            return kept
        }
        noteChange(state.followInverses(of: key, from: old.object, to: record.object, at: now))
        return kept
    }

    /// The resource objects of a document: its primary resources and `included` (identifiers are not resources).
    static func resourceObjects(of document: RawDocument) -> [ResourceObject] {
        var objects: [ResourceObject] =
            switch document.data {
            case .resource(let resource): [resource]
            case .resources(let resources): resources
            case .identifier, .identifiers, .null, nil: []
            }
        objects += document.included ?? []
        return objects
    }

    /// Sets the linkage of relationship `name` of the record of `type` `id` (when the store has the record) to what
    /// `change` makes of the current one, and tells the observers.
    func changeLinkage(of name: String, type: String, id: String, _ change: (Linkage?) -> Linkage) {
        let key = Key(type: type, id: id)
        faultIn([key])
        commit { state, effects in
            guard let record = state.records[key] else { return }
            let changes = state.setLinkage(of: name, on: key, to: change(record.object.relationships?[name]?.data))
            guard !changes.isEmpty else { return }
            effects.changes += changes
            effects.saves = true
        }
    }

    /// The key of the record whose `links.self` is `url` (relative links resolved against it), if any: only the
    /// records whose link ends in the same path segment as `url` (or in none) are compared, through the self-link
    /// index.
    func key(selfLink url: URL) -> Key? {
        withMergedState { state -> Key? in
            let index = state.records.selfLinkIndex()
            let candidates = index[SelfLinks.segment(of: url.absoluteString), default: []]
                .union(index[SelfLinks.unsegmented, default: []])
            return candidates.sorted { ($0.type, $0.id) < ($1.type, $1.id) }.first { key in
                guard let href = state.records[key]?.stored.selfLink else { return false }
                return URL(percentEncoding: href, relativeTo: url)?.absoluteURL == url.absoluteURL
            }
        }
    }

    /// Removes the record of resource `type` `id` and tells the observers; declared inverse relationships of the
    /// records it named lose it.
    ///
    /// - Parameters:
    ///   - type: The resource type.
    ///   - id: The resource's id.
    public func remove(type: String, id: String) {
        let key = Key(type: type, id: id)
        faultIn([key])
        commit { state, effects in
            let changes = state.removeRecord(key)
            guard !changes.isEmpty else { return }
            effects.changes += changes
            effects.saves = true
        }
    }

    /// `record` with the members `newer` has.
    static func merged(_ record: ResourceObject, with newer: ResourceObject) -> ResourceObject {
        var result = record
        if let attributes = newer.attributes {
            result.attributes = (record.attributes ?? [:]).merging(attributes) { $1 }
        }
        if let relationships = newer.relationships {
            var merged = record.relationships ?? [:]
            for (name, relationship) in relationships {
                if relationship.data == nil, var kept = merged[name] {
                    kept.links = relationship.links ?? kept.links
                    kept.meta = relationship.meta ?? kept.meta
                    merged[name] = kept
                } else {
                    merged[name] = relationship
                }
            }
            result.relationships = merged
        }
        if let links = newer.links { result.links = links }
        if let meta = newer.meta { result.meta = meta }
        return result
    }

    /// Evicts the least recently used records down to nine tenths of the limit once it is passed, so that eviction
    /// (a sort) runs once per tenth of the limit's insertions, not on each.
    ///
    /// - Returns: An ``StoreChange/Kind/evicted`` change for each record evicted, when someone observes the store.
    func evictRecords(_ state: inout State) -> [StoreChange] {
        let evicted = state.records.evict(limit: configuration.maxResources)
        guard !state.observers.isEmpty else { return [] }
        return evicted.map { StoreChange(type: $0.type, id: $0.id, kind: .evicted) }
    }

    // MARK: Observing

    /// The changes to records of `Model`'s type, as they happen, from now until the stream is dropped.
    ///
    /// - Parameter type: The model whose records to observe.
    /// - Returns: A stream of the changes, one element per changed record.
    public func changes<Model: Resource>(of type: Model.Type) -> AsyncStream<StoreChange> {
        register(Model.self)
        // A batch of changes is added to the stream's feed at once, not yielded one by one (``ChangeFeed``).
        return ChangeFeed.stream { feed in
            let number = addObserver(type: Model.resourceType) { changes, _ in feed.add(changes) }
            return { [weak self] in self?.removeObserver(number) }
        }
    }

    /// The resource `id` of `Model`'s type now (`nil` when the store has no record of it, or the record does not
    /// make a `Model`), then again after each change to its record (`nil` once removed). A read a persisted store
    /// could not make (``JSONAPIClientError/Code/storeNotRead``) yields nothing: the record is not gone.
    ///
    /// - Parameters:
    ///   - type: The model to decode.
    ///   - id: The resource's id.
    /// - Returns: A stream of the resource as it is now and after each change.
    public func updates<Model: Resource>(of type: Model.Type, id: String) -> AsyncStream<Model?> {
        register(Model.self)
        let stream = observe(type: Model.resourceType, id: id) { [weak self] _, continuation in
            do {
                continuation.yield(try self?.resource(Model.self, id: id))
            } catch let error as JSONAPIClientError where error.code == .storeNotRead {
                // Not read: nothing is told (it is not gone); the next change reads it again.
            } catch {
                continuation.yield(nil)
            }
        }
        return stream
    }

    /// A stream fed by `deliver`: once now, then with each batch of changes to the record `id` of `type`.
    private func observe<Element: Sendable>(
        type: String, id: String,
        _ deliver: @escaping @Sendable ([StoreChange], AsyncStream<Element>.Continuation) -> Void
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        let number = addObserver(type: type, id: id) { changes, _ in deliver(changes, continuation) }
        continuation.onTermination = { [weak self] _ in self?.removeObserver(number) }
        deliver([], continuation)
        return stream
    }
}

/// The self-link index's keys: the last path segment of a link, percent-decoded, as resolving a relative link against
/// a URL keeps it (RFC 3986 §5.2). A link without one — empty, a query or fragment only, a dot segment, a trailing
/// slash — is under ``unsegmented``, which every delete by URL looks at too.
enum SelfLinks {
    /// The key of links without a last segment of their own.
    static let unsegmented = ""

    /// The last path segment of `link` (query and fragment cut), percent-decoded; ``unsegmented`` when it has none.
    static func segment(of link: String) -> String {
        var text = Substring(link)
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<end] }
        let last = text.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let decoded = last.removingPercentEncoding ?? last
        return decoded == "." || decoded == ".." ? unsegmented : decoded
    }

    /// Removes `key` from the index entry of `link`.
    static func remove(_ key: ResourceStore.Key, link: String, from index: inout [String: Set<ResourceStore.Key>]) {
        let segment = segment(of: link)
        index[segment]?.remove(key)
        if index[segment]?.isEmpty == true { index[segment] = nil }
    }
}
