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

    /// The most response bodies that wait to be merged; past it they are merged at once.
    static let maxWaiting = 256

    /// The limits.
    public let configuration: Configuration
    /// Everything the store holds and the partition it holds it for (``State/backing``), behind one lock.
    let state: LockedValue<State>
    let decoder: JSONAPIDecoder
    /// The accounts signed out of on this store's session, each with its state as it was (``switchAccount(to:)``).
    let parked = LockedValue<[String: State]>([:])
    /// Whether the store is a session's, which reads the records on disk of a partition of no account only once a
    /// request shows whose they are (``opened(_:backing:owner:waitsForOwner:limit:)``).
    let ofSession: Bool
    /// Whether a late opening of the database runs (``openLate()``), and the observer of the device's protected data
    /// that starts one (Apple platforms).
    let lateOpening = LockedValue(LateOpening())

    /// The key of the credential digests that partition the stored responses: the process's for a store in
    /// memory, the database's own for a persisted one.
    var digestKey: DigestKey { state.withLock { $0.backing.digestKey } }
    /// Writes the store to its directory in the background; `nil` in memory only.
    var writer: StoreWriter? { state.withLock { $0.backing.writer } }
    /// Whether the store reads and writes a database now: never without ``Configuration/persistence``, which is
    /// told without taking the lock (a store in memory pays nothing on its paths for the database).
    var isPersisted: Bool { configuration.persistence != nil && writer != nil }
    /// The digest of the account the store holds the data of, when its session names one: the partition of every
    /// stored response in place of the credentials' digest.
    var accountDigest: CredentialDigest? { state.withLock { $0.backing.accountDigest } }
    /// Which credentials are one user's, when the session names no account (``CredentialLineage``): the stored
    /// responses are partitioned by their roots.
    var lineage: CredentialLineage { state.withLock { $0.backing.lineage } }

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
        self.ofSession = ofSession
        // On the caller's thread (an app's main thread, at launch): another process's lock is waited for up to the
        // busy timeout; past it the database is opened late, off this thread (``openLate()``).
        var busy = false
        let (backing, contents, owner) = Self.open(
            account: account, configuration: configuration, failed: { busy = $0.primaryCode == SQLiteError.busy })
        state = LockedValue(
            Self.opened(
                contents, backing: backing, owner: owner, waitsForOwner: ofSession && account == nil,
                limit: configuration.maxResponseBytes))
        saveLeftOut()
        backing.writer?.follow(self)
        if configuration.persistence != nil, backing.writer == nil {
            openWhenProtectedDataIsAvailable()
            // Another process's lock, not waited for here: tried again at once, off this thread, waiting for it.
            if busy {
                claimLateOpening()  // a request made meanwhile waits for it
                Task.detached { [weak self] in await self?.openLate(claimed: true) }
            }
        }
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
        call {
            // The writer of the partition cleared, read in the clear's lock section: a switch of account
            // meanwhile leaves the next account's rows alone.
            let cleared = commit(merging: false) { state, effects -> StoreWriter? in
                effects.changes += state.dropRecords()
                effects.cleared = true
                if state.backing.accountDigest == nil { state.owner = nil }
                state.responses.removeAll()
                return state.backing.writer
            }
            cleared?.removeAll()
        }
        applyLiveNow()
    }

}
