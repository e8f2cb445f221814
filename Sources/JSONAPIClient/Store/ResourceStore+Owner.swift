import Foundation

/// Whose records the store holds. A session that names its account (``Session/Configuration/account``) keeps one
/// account's data in its store and its own database. A session that names none cannot know who is signed in but by
/// the credentials it sends: the store's records belong to the credentials of the requests that brought them (their
/// ``CredentialLineage`` root, so a refresh made by the library keeps them), and the first request sent with other
/// credentials — another user, a sign-out, a token the app changed by itself — takes them away, as ``clear()`` does
/// (the stored responses stay, each kept for its own credentials already, and the write queue keeps each write for
/// the credentials that made it). A persisted store keeps the owner in its database, so a relaunch compares too.
extension ResourceStore {
    /// The `meta` row of a persisted store's records owner.
    static let ownerRow = "records owner"

    /// Notes that a request with credentials whose root is `owner` is being sent (a session that names no account
    /// calls it for every request to its origin): the first makes it the owner of the records; one of another owner
    /// empties the records, the optimistic layers and the bodies waiting, and tells the observers, as ``clear()``
    /// does. The stored responses stay: each answers its own credentials only.
    ///
    /// - Parameter owner: The root of the request's credentials (``CredentialLineage/root(of:)``).
    ///
    /// - Returns: The clear count once the owner is noted.
    @discardableResult
    func admit(_ owner: CredentialDigest) -> UInt64 {
        // The writer read in the same lock section as the owner it notes: a switch of account meanwhile leaves the
        // next account's rows alone.
        let (noted, clears) = commit(merging: false) { state, effects in
            (admit(owner, in: &state, effects: &effects), state.clears &+ (effects.cleared ? 1 : 0))
        }
        noted.save()
        return clears
    }

    /// What ``admit(_:)`` does to the state, for the events that note a request's credentials
    /// (``lookUp(_:made:owner:)`` too): the owner noted, the records emptied when another's.
    ///
    /// - Returns: The owner row to write outside the lock (``OwnerNoted/save()``).
    func admit(_ owner: CredentialDigest, in state: inout State, effects: inout Effects) -> OwnerNoted {
        if state.ownerUnconfirmed {
            state.ownerUnconfirmed = false
            if state.owner == owner { state.records.readDisk() }  // theirs: the rows may be read now
        }
        guard state.owner != owner else { return OwnerNoted() }
        let previous = state.owner
        state.owner = owner
        guard previous != nil else { return OwnerNoted(owner: owner, writer: state.backing.writer) }
        effects.changes += state.dropRecords()
        effects.cleared = true
        return OwnerNoted(owner: owner, writer: state.backing.writer, switched: true)
    }

    /// A new owner of the records, to write to the database of the partition it was noted in.
    struct OwnerNoted {
        var owner: CredentialDigest?
        var writer: StoreWriter?
        /// Whether it took another owner's place: the rows go too.
        var switched = false

        /// Writes the owner's row (in the background): nothing in memory, or when the owner did not change.
        func save() {
            guard let owner, let writer else { return }
            writer.setMeta(ResourceStore.ownerRow, .text(owner.description), removingRecords: switched)
        }
    }
}

extension ResourceStore.State {
    /// Takes what changed since the last save: the records and responses of the keys noted, each with its value
    /// now (`nil`: gone).
    mutating func takeUnsaved() -> ResourceStore.Unsaved {
        let changedRecords = records.unsaved.take().map { (key: $0, record: records[$0]) }
        let changedResponses = responses.unsaved.take().map { (key: $0, response: responses[$0]) }
        let unread = records.unreadBeneath
        let beneath = unread.isEmpty ? [] : Set(changedRecords.map(\.key).filter { unread.contains($0) })
        return ResourceStore.Unsaved(records: changedRecords, responses: changedResponses, beneath: beneath)
    }

    /// Empties the records, the optimistic layers and the bodies waiting: a clear's part of the state (the event
    /// notes ``ResourceStore/Effects/cleared``, which counts it).
    ///
    /// - Returns: The changes to tell the observers: each record and layer observed, evicted.
    mutating func dropRecords() -> [StoreChange] {
        let changes = observers.isEmpty
            ? [] : Set(records.keys).union(overlay.layers.keys).map {
                StoreChange(type: $0.type, id: $0.id, kind: .evicted)
            }
        records.removeAll()
        overlay.removeAll()
        waiting.removeAll()
        removed.removeAll()
        return changes
    }
}
