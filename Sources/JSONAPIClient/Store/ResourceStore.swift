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
/// - **Kept across launches, when asked.** With ``Configuration/persistence`` the records and responses are written
///   to a directory in the background and read back when a store opens it, so a cold start under
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

        /// Creates limits: 10,000 records and 32 MiB of responses by default, in memory only.
        ///
        /// - Parameters:
        ///   - maxResources: The most records kept.
        ///   - maxResponseBytes: The most bytes of response bodies kept.
        ///   - persistence: Where to keep the store across launches; `nil` for memory only.
        ///   - now: The current time; `Date()` by default.
        public init(
            maxResources: Int = 10_000, maxResponseBytes: Int = 32 << 20, persistence: Persistence? = nil,
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.maxResources = maxResources
            self.maxResponseBytes = maxResponseBytes
            self.persistence = persistence
            self.now = now
        }

        /// Whether two configurations have the same limits and persistence (their clocks are not compared).
        ///
        /// - Parameters:
        ///   - lhs: A configuration.
        ///   - rhs: Another configuration.
        /// - Returns: `true` when both limits and the persistence are equal.
        public static func == (lhs: Configuration, rhs: Configuration) -> Bool {
            lhs.maxResources == rhs.maxResources && lhs.maxResponseBytes == rhs.maxResponseBytes
                && lhs.persistence == rhs.persistence
        }

        /// Hashes the limits and persistence (not the clock).
        ///
        /// - Parameter hasher: The hasher to feed.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(maxResources)
            hasher.combine(maxResponseBytes)
            hasher.combine(persistence)
        }
    }

    /// A record's key.
    struct Key: Hashable, Sendable {
        var type: String
        var id: String
    }

    /// A record: its resource object, when it was last used and when it last changed.
    ///
    /// The object is kept in a box (an immutable class instance, replaced on change), so that copying a record —
    /// as sorting them by use for eviction or for a save does, 41,000 of them for the `store-save` benchmark —
    /// retains one reference instead of each member of the object (type, id, attributes, relationships, links,
    /// meta). The retains and releases of those copies were most of a save's time.
    struct Record {
        private var box: ObjectBox
        var lastUse: UInt64
        /// When `object` last changed (a tick): a persisted store re-encodes only the records changed since it last
        /// wrote them (`StoreWriter`).
        var changed: UInt64

        /// The resource object (setting it replaces the box).
        var object: ResourceObject {
            get { box.object }
            set { box = ObjectBox(newValue) }
        }

        init(object: ResourceObject, lastUse: UInt64, changed: UInt64? = nil) {
            self.box = ObjectBox(object)
            self.lastUse = lastUse
            self.changed = changed ?? lastUse
        }
    }

    /// An immutable resource object behind one reference; see ``Record``.
    final class ObjectBox: Sendable {
        let object: ResourceObject
        init(_ object: ResourceObject) { self.object = object }
    }

    struct Observer {
        var type: String
        var id: String?
        var deliver: @Sendable ([StoreChange]) -> Void
    }

    struct State {
        var records: [Key: Record] = [:]
        var responses: [ResponseKey: StoredResponse] = [:]
        /// The responses' keys by last use, for eviction without a sort.
        var responseOrder = UseOrder<ResponseKey>()
        var responseBytes = 0
        /// The records by the last path segment of their `links.self` (`SelfLinks.segment`), so that a delete by
        /// URL looks at the few records that may have that link instead of all of them.
        var selfLinks: [String: Set<Key>] = [:]
        var clock: UInt64 = 0
        var observers: [UInt64: Observer] = [:]
        var nextObserver: UInt64 = 0
        /// Response bodies not merged yet, oldest first: merging waits for the first read (or observer), so that a
        /// session nobody reads the store of pays only for keeping the bytes. At most ``ResourceStore/maxPending``
        /// bodies and the response byte limit wait: past either, those waiting are merged (none is dropped).
        var pending: [Data] = []
        var pendingBytes = 0
        /// How many times ``clear()`` ran: a live object tells a clear (the account changed) from an eviction to
        /// make room.
        var clears: UInt64 = 0
        /// The optimistic writes not settled yet, per record, in the order they were made
        /// (`ResourceStore+Pending.swift`): what the store shows is the record with these applied.
        var layers: [Key: [PendingLayer]] = [:]
        var nextLayer: UInt64 = 0
        /// The inverse relationships the store keeps in step (``ResourceStore/register(_:)``).
        var inverses = InverseTable()

        mutating func tick() -> UInt64 {
            clock += 1
            return clock
        }

        /// Sets the record of `key`, keeping the self-link index in step.
        ///
        /// - Returns: The record it replaced.
        @discardableResult
        mutating func setRecord(_ record: Record, for key: Key) -> Record? {
            let old = records.updateValue(record, forKey: key)
            reindex(key, from: old?.object.links?.`self`?.href, to: record.object.links?.`self`?.href)
            return old
        }

        /// Moves `key` in the self-link index from `oldLink` to `newLink`.
        mutating func reindex(_ key: Key, from oldLink: String?, to newLink: String?) {
            guard oldLink != newLink else { return }
            if let oldLink { SelfLinks.remove(key, link: oldLink, from: &selfLinks) }
            if let newLink { selfLinks[SelfLinks.segment(of: newLink), default: []].insert(key) }
        }

        /// Removes the record of `key`, keeping the self-link index in step.
        @discardableResult
        mutating func removeRecord(_ key: Key) -> Record? {
            guard let old = records.removeValue(forKey: key) else { return nil }
            if let link = old.object.links?.`self`?.href { SelfLinks.remove(key, link: link, from: &selfLinks) }
            return old
        }

        /// Notes a use of the response of `key` at `tick` (its `lastUse` is set by the caller).
        mutating func noteResponseUse(_ key: ResponseKey, at tick: UInt64) {
            responseOrder.use(key, at: tick)
            let responses = self.responses
            responseOrder.compact(live: responses.count) { responses[$0]?.lastUse == $1 }
        }
    }

    /// The most response bodies that wait to be merged; past it they are merged at once.
    static let maxPending = 256

    /// The limits.
    public let configuration: Configuration
    let state = LockedValue(State())
    let decoder: JSONAPIDecoder
    let encoder: JSONAPIEncoder
    /// The key of the credential digests that partition the stored responses: the process's for a store in
    /// memory, the directory's own for a persisted one.
    let digestKey: DigestKey
    /// Writes the store to its directory in the background; `nil` in memory only.
    let writer: StoreWriter?

    /// Creates a store that reads models with `decoder` (and writes records for it with `encoder`): empty, or with
    /// what its ``Configuration/persistence`` directory holds.
    ///
    /// With persistence, opening reads the directory's file at once (on this thread: about as long as decoding
    /// the same documents again). A file this version cannot read — from another format version, written under
    /// another key, damaged, or cut short — is discarded whole, the reason told to ``Persistence/log`` (never a
    /// credential or a body), and the store starts empty; so does one whose directory cannot be made, and then
    /// it stays in memory.
    ///
    /// - Parameters:
    ///   - configuration: The limits, clock and persistence.
    ///   - decoder: Decodes models from records.
    ///   - encoder: Encodes records for the decoder.
    public init(
        configuration: Configuration = Configuration(), decoder: JSONAPIDecoder = JSONAPIDecoder(),
        encoder: JSONAPIEncoder = JSONAPIEncoder()
    ) {
        self.configuration = configuration
        self.decoder = decoder
        self.encoder = encoder
        if let persistence = configuration.persistence, let opened = StoreWriter.open(persistence) {
            digestKey = opened.key
            writer = opened.writer
            if let contents = opened.contents { load(contents) }
        } else {
            digestKey = .process
            writer = nil
        }
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
        withMergedState { state in
            let key = Key(type: type, id: id)
            guard let object = state.visibleObject(key) else { return nil }
            let now = state.tick()
            state.records[key]?.lastUse = now
            return object
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
    ///   member it requires).
    public func resource<Model: Resource>(_ type: Model.Type, id: String) throws -> Model? {
        register(Model.self)
        guard let document = graph(from: [Key(type: Model.resourceType, id: id)], collection: false) else { return nil }
        return try decode(Model.self, from: document)
    }

    /// Every resource of `Model`'s type in the store, ordered by id, with relationships resolved from the store.
    ///
    /// - Parameter type: The model to decode.
    /// - Returns: The models, ordered by id; `[]` when the store holds none.
    /// - Throws: `JSONAPIDecodingError` when a record does not make a `Model`.
    public func resources<Model: Resource>(_ type: Model.Type) throws -> [Model] {
        register(Model.self)
        let keys = withMergedState { state in
            state.visibleKeys(of: Model.resourceType).sorted { $0.id < $1.id }
        }
        guard let document = graph(from: keys, collection: true) else { return [] }
        return try decode([Model].self, from: document) ?? []
    }

    /// Removes every record and response — what to do when the account signs out — and, with persistence, the
    /// store's file: when `clear()` returns, a restart finds nothing (it waits for a write in progress to end, then
    /// removes the file). The optimistic changes not settled yet go too; empty the session's ``WriteQueue`` as well
    /// (``WriteQueue/removeAll()``), so that no write is sent for the next account. Observers stay, and each is told
    /// of the records it observed as ``StoreChange/Kind/evicted``.
    public func clear() {
        let (changes, observers) = state.withLock { state -> ([StoreChange], [Observer]) in
            state.clears += 1
            let changes = state.observers.isEmpty
                ? [] : Set(state.records.keys).union(state.layers.keys).map {
                    StoreChange(type: $0.type, id: $0.id, kind: .evicted)
                }
            state.records.removeAll()
            state.layers.removeAll()
            state.selfLinks.removeAll()
            state.responses.removeAll()
            state.responseOrder.removeAll()
            state.responseBytes = 0
            state.pending.removeAll()
            state.pendingBytes = 0
            return (changes, Array(state.observers.values))
        }
        writer?.removeFile()
        notify(observers, of: changes)
    }

    /// The records `keys` name as primary data, and every record they reach through relationship linkage as
    /// `included`; `nil` when no key has a record.
    private func graph(from keys: [Key], collection: Bool) -> RawDocument? {
        withMergedState { state -> RawDocument? in
            let now = state.tick()
            var primary: [ResourceObject] = []
            var included: [ResourceObject] = []
            var seen = Set(keys)
            var queue: [ResourceObject] = []
            for key in keys {
                guard let object = state.visibleObject(key) else { continue }
                state.records[key]?.lastUse = now
                primary.append(object)
                queue.append(object)
            }
            guard !primary.isEmpty else { return nil }
            while let object = queue.popLast() {
                for relationship in (object.relationships ?? [:]).values {
                    for identifier in relationship.data?.identifiers ?? [] {
                        guard let id = identifier.id else { continue }
                        let key = Key(type: identifier.type, id: id)
                        guard !seen.contains(key), let object = state.visibleObject(key) else { continue }
                        seen.insert(key)
                        included.append(object)
                        queue.append(object)
                    }
                }
            }
            let data: PrimaryData = collection ? .resources(primary) : .resource(primary[0])
            return RawDocument(data: data, included: included.isEmpty ? nil : included)
        }
    }

    private func decode<Primary: Decodable & Sendable>(_ type: Primary.Type, from document: RawDocument) throws
        -> Primary?
    {
        let bytes = try encoder.encode(document)
        return try decoder.decode(Document<Primary>.self, from: bytes).data
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
        let (changes, observers) = withMergedState { state -> ([StoreChange], [Observer]) in
            let changes = merge(objects, into: &state)
            return (changes, changes.isEmpty ? [] : Array(state.observers.values))
        }
        changed()
        notify(observers, of: changes)
    }

    /// Merges a response body's resources: at once when someone observes the store, else when it is next read or
    /// saved. At most ``maxPending`` bodies and the response byte limit's worth wait: a body that would pass
    /// either has those waiting merged first (nothing is dropped). A body that is not a document adds nothing.
    func merge(from body: Data) {
        let limit = max(configuration.maxResponseBytes, 0)
        let observed = state.withLock { state -> Bool in
            guard state.observers.isEmpty else { return true }
            if !state.pending.isEmpty,
                state.pending.count >= Self.maxPending || body.count > limit - min(state.pendingBytes, limit)
            {
                mergePending(&state)
            }
            state.pending.append(body)
            state.pendingBytes += body.count
            return false
        }
        changed()
        guard observed, let document = try? decoder.decode(RawDocument.self, from: body) else { return }
        merge(document)
    }

    /// Runs `body` on the state once the pending bodies are merged (no observer is told: there is none while bodies
    /// wait).
    func withMergedState<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try state.withLock { state in
            mergePending(&state)
            return try body(&state)
        }
    }

    /// Merges the bodies waiting, oldest first.
    private func mergePending(_ state: inout State) {
        guard !state.pending.isEmpty else { return }
        let bodies = state.pending
        state.pending = []
        state.pendingBytes = 0
        for pending in bodies {
            guard let document = try? decoder.decode(RawDocument.self, from: pending) else { continue }
            _ = merge(Self.resourceObjects(of: document), into: &state)
        }
    }

    /// Tells the writer, when the store has one, that there is something new to save.
    func changed() {
        writer?.schedule(self)
    }

    /// Merges `objects` into the records: one lookup for a new record (it is inserted as it is), a second and a
    /// comparison only for a record that was there.
    ///
    /// - Returns: The changes, when someone observes the store (none are made otherwise).
    private func merge(_ objects: [ResourceObject], into state: inout State) -> [StoreChange] {
        let now = state.tick()
        let observed = !state.observers.isEmpty
        var changes: [StoreChange] = []
        for object in objects {
            guard let id = object.id else { continue }
            let key = Key(type: object.type, id: id)
            var related: [Key] = []
            if let old = state.setRecord(Record(object: object, lastUse: now), for: key) {
                let merged = Self.merged(old.object, with: object)
                let same = merged == old.object
                if observed, !same { changes.append(StoreChange(type: key.type, id: id, kind: .updated)) }
                state.setRecord(Record(object: merged, lastUse: now, changed: same ? old.changed : now), for: key)
                if !same { related = state.followInverses(of: key, from: old.object, to: merged, at: now) }
            } else {
                if observed { changes.append(StoreChange(type: key.type, id: id, kind: .updated)) }
                related = state.followInverses(of: key, from: nil, to: object, at: now)
            }
            if observed { changes += related.map { StoreChange(type: $0.type, id: $0.id, kind: .updated) } }
        }
        changes += evictRecords(&state)
        return changes
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
        let (changes, observers) = withMergedState { state -> ([StoreChange], [Observer]) in
            let key = Key(type: type, id: id)
            guard var record = state.records[key] else { return ([], []) }
            let old = record.object
            var relationships = record.object.relationships ?? [:]
            var relationship = relationships[name] ?? Relationship()
            let linkage = change(relationship.data)
            guard linkage != relationship.data else { return ([], []) }
            relationship.data = linkage
            relationships[name] = relationship
            record.object.relationships = relationships
            record.lastUse = state.tick()
            record.changed = record.lastUse
            state.setRecord(record, for: key)
            let related = state.followInverses(of: key, from: old, to: record.object, at: record.lastUse)
            let changes = ([key] + related).map { StoreChange(type: $0.type, id: $0.id, kind: .updated) }
            return (changes, Array(state.observers.values))
        }
        guard !changes.isEmpty else { return }
        self.changed()
        notify(observers, of: changes)
    }

    /// Removes the record whose `links.self` is `url` (relative links resolved against it), if any, and tells the
    /// observers: what a delete by URL knows of the resource. Only the records whose link ends in the same path
    /// segment as `url` (or in none) are compared, through the self-link index.
    ///
    /// - Returns: The removed record's type, or `nil` when no record has that link.
    @discardableResult
    func remove(selfLink url: URL) -> String? {
        let key = withMergedState { state -> Key? in
            let candidates = state.selfLinks[SelfLinks.segment(of: url.absoluteString), default: []]
                .union(state.selfLinks[SelfLinks.unsegmented, default: []])
            return candidates.sorted { ($0.type, $0.id) < ($1.type, $1.id) }.first { key in
                guard let href = state.records[key]?.object.links?.`self`?.href else { return false }
                return URL(percentEncoding: href, relativeTo: url)?.absoluteURL == url.absoluteURL
            }
        }
        guard let key else { return nil }
        remove(type: key.type, id: key.id)
        return key.type
    }

    /// Removes the record of resource `type` `id` and tells the observers; declared inverse relationships of the
    /// records it named lose it.
    ///
    /// - Parameters:
    ///   - type: The resource type.
    ///   - id: The resource's id.
    public func remove(type: String, id: String) {
        let result = withMergedState { state -> ([StoreChange], [Observer])? in
            let key = Key(type: type, id: id)
            guard let old = state.removeRecord(key) else { return nil }
            let related = state.followInverses(of: key, from: old.object, to: nil, at: state.tick())
            let changes = [StoreChange(type: type, id: id, kind: .removed)]
                + related.map { StoreChange(type: $0.type, id: $0.id, kind: .updated) }
            return (changes, Array(state.observers.values))
        }
        guard let (changes, observers) = result else { return }
        changed()
        notify(observers, of: changes)
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
        let limit = max(configuration.maxResources, 0)
        guard state.records.count > limit else { return [] }
        let keep = limit - limit / 10
        let oldest = state.records.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(state.records.count - keep)
        let observed = !state.observers.isEmpty
        var changes: [StoreChange] = []
        for (key, _) in oldest {
            state.removeRecord(key)
            if observed { changes.append(StoreChange(type: key.type, id: key.id, kind: .evicted)) }
        }
        return changes
    }

    // MARK: Observing

    /// The changes to records of `Model`'s type, as they happen, from now until the stream is dropped.
    ///
    /// - Parameter type: The model whose records to observe.
    /// - Returns: A stream of the changes, one element per changed record.
    public func changes<Model: Resource>(of type: Model.Type) -> AsyncStream<StoreChange> {
        register(Model.self)
        return observe(type: Model.resourceType, id: nil) { changes, continuation in
            for change in changes { continuation.yield(change) }
        }
    }

    /// The resource `id` of `Model`'s type now (`nil` when the store has no record of it, or the record does not
    /// make a `Model`), then again after each change to its record (`nil` once removed).
    ///
    /// - Parameters:
    ///   - type: The model to decode.
    ///   - id: The resource's id.
    /// - Returns: A stream of the resource as it is now and after each change.
    public func updates<Model: Resource>(of type: Model.Type, id: String) -> AsyncStream<Model?> {
        register(Model.self)
        let stream = observe(type: Model.resourceType, id: id) { [weak self] _, continuation in
            continuation.yield(try? self?.resource(Model.self, id: id))
        }
        return stream
    }

    private func observe<Element: Sendable>(
        type: String, id: String?,
        _ deliver: @escaping @Sendable ([StoreChange], AsyncStream<Element>.Continuation) -> Void
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        let number = withMergedState { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = Observer(type: type, id: id) { deliver($0, continuation) }
            return state.nextObserver
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: number) }
        }
        if id != nil { deliver([], continuation) }
        return stream
    }

    func notify(_ observers: [Observer], of changes: [StoreChange]) {
        guard !changes.isEmpty else { return }
        for observer in observers {
            let relevant = changes.filter { $0.type == observer.type && (observer.id == nil || $0.id == observer.id) }
            if !relevant.isEmpty { observer.deliver(relevant) }
        }
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
