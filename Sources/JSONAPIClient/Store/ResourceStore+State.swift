import Foundation

/// The store's state and what it is made of: the value every event changes, under the store's one lock.
extension ResourceStore {
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
        /// The account partition the state is of: its database's writer and key, the account, the credentials'
        /// lineage (``Backing``); another after ``switchAccount(to:)``, which swaps it with the rest.
        var backing: Backing
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
}
