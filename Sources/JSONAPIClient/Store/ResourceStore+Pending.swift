import Foundation

/// Optimistic writes in the store: each write not yet settled is a layer over the server's record, and what the store
/// shows (``ResourceStore/record(type:id:)``, ``ResourceStore/resource(_:id:)``, observers, live objects) is the
/// server's record with the layers applied in the order the writes were made.
///
/// A layer is confirmed when the server accepts its write (it then holds the server's answer) and folded into the
/// server's record once every layer made before it is settled; a refused write drops only its own layer. So the
/// server's record is always its state before the oldest unsettled write, and two overlapping writes settle in
/// the order they were made, whatever the order of their answers: a failed first write does not erase a confirmed
/// second one, and a late answer to a first write does not hide the second.
extension ResourceStore {
    /// What a pending write does to its record.
    enum PendingKind: String, Sendable, Hashable, Codable {
        /// Adds the record (the whole object).
        case create
        /// Changes the members its object has.
        case update
        /// Removes the record.
        case delete
    }

    /// One write's layer: what it does, and whether the server confirmed it.
    struct PendingLayer: Sendable {
        var number: UInt64
        var kind: PendingKind
        /// The members the write sets; once confirmed, the server's answer (or the members, without one).
        var object: ResourceObject
        var confirmed = false
    }

    /// The handle of a layer, for the write that made it.
    struct PendingWrite: Sendable, Hashable {
        var key: Key
        var number: UInt64
        var kind: PendingKind
    }

    /// Adds a layer for a write of `kind` with `object` (its `type` and `id` name the record), and tells the
    /// observers.
    ///
    /// - Returns: The layer's handle, to confirm or drop it.
    func addPending(_ kind: PendingKind, object: ResourceObject, id: String) -> PendingWrite {
        let key = Key(type: object.type, id: id)
        var stored = object
        stored.id = id
        faultIn([key])
        return commit { state, effects in
            let write = state.overlay.add(kind, object: stored, for: key)
            effects.changes += state.shownChanges(of: key, related: state.pendingInverseTargets(of: key))
            return write
        }
    }

    /// Confirms `write`: its layer now holds `answer` (the server's version of the record; `nil` keeps the members
    /// sent, as a 204 means), and is folded into the server's record with every confirmed layer before which no
    /// write is unsettled.
    func confirmPending(_ write: PendingWrite, answer: ResourceObject?) {
        commit { state, effects in
            guard let changes = state.confirmPending(write, answer: answer) else { return }
            effects.changes += changes
            effects.saves = true
        }
    }

    /// Drops `write`'s layer (the server refused it, or it was discarded), folding any confirmed layers it held
    /// back, and tells the observers.
    ///
    /// - Returns: The members the write had set (what was undone), or `nil` when the layer was gone already.
    @discardableResult
    func dropPending(_ write: PendingWrite) -> ResourceObject? {
        commit { state, effects in
            guard let (undone, changes) = state.dropPending(write) else { return nil }
            effects.changes += changes
            effects.saves = true
            return undone
        }
    }

    /// The local changes to resource `type` `id` that the server has not confirmed yet, against the server's record;
    /// `nil` when there are none.
    ///
    /// - Parameters:
    ///   - type: The resource's type.
    ///   - id: The resource's id (for a resource created without one, the local id its write returned).
    /// - Returns: The server's record, the record as shown, and the members that differ.
    public func pendingChanges(type: String, id: String) -> PendingChanges? {
        faultIn([Key(type: type, id: id)])
        return withMergedState { state in state.overlay.pendingChanges(Key(type: type, id: id), in: state.records) }
    }

    /// Every record with local changes the server has not confirmed yet, ordered by type and id.
    ///
    /// - Returns: One ``PendingChanges`` per record.
    public func pendingChanges() -> [PendingChanges] {
        withMergedState { state in
            state.overlay.layers.keys.sorted { ($0.type, $0.id) < ($1.type, $1.id) }.compactMap {
                state.overlay.pendingChanges($0, in: state.records)
            }
        }
    }

}

extension ResourceStore.State {
    /// Confirms `write`'s layer with `answer` and folds the confirmed layers before which no write is unsettled
    /// (``ResourceStore/confirmPending(_:answer:)``).
    ///
    /// - Returns: The changes, for the observers; `nil` when the layer was gone.
    mutating func confirmPending(_ write: ResourceStore.PendingWrite, answer: ResourceObject?) -> [StoreChange]? {
        let shownBefore = pendingInverseTargets(of: write.key)
        guard overlay.confirm(write, answer: answer) else { return nil }
        let related = foldConfirmed(write.key) + shownBefore + pendingInverseTargets(of: write.key)
        return shownChanges(of: write.key, related: related)
    }

    /// Drops `write`'s layer, folding any confirmed layers it held back (``ResourceStore/dropPending(_:)``).
    ///
    /// - Returns: The members the write had set and the changes, for the observers; `nil` when the layer was gone.
    mutating func dropPending(_ write: ResourceStore.PendingWrite) -> (undone: ResourceObject, changes: [StoreChange])? {
        let shownBefore = pendingInverseTargets(of: write.key)
        guard let undone = overlay.drop(write) else { return nil }
        let related = foldConfirmed(write.key) + shownBefore + pendingInverseTargets(of: write.key)
        return (undone, shownChanges(of: write.key, related: related))
    }

    /// What the observers are told when an optimistic write's layer comes, is confirmed or goes: what the store
    /// shows of `key`'s record may have changed (removed when it shows none), and the `related` records' inverse
    /// relationships did. None while nobody observes.
    func shownChanges(of key: ResourceStore.Key, related: [ResourceStore.Key]) -> [StoreChange] {
        guard !observers.isEmpty else { return [] }
        let shown = visibleObject(key) != nil
        var seen: Set<ResourceStore.Key> = [key]
        let others = related.filter { seen.insert($0).inserted }
        return [StoreChange(type: key.type, id: key.id, kind: shown ? .updated : .removed)]
            + others.map { StoreChange(type: $0.type, id: $0.id, kind: .updated) }
    }
}

/// A record's local changes that the server has not confirmed yet: what the server last sent, what the store shows,
/// and the attributes and relationships that differ (see ``ResourceStore/pendingChanges(type:id:)``).
///
/// ```swift
/// if let diff = store.pendingChanges(type: "articles", id: "1") {
///     print("unsent:", diff.changedMembers)         // ["title"]
///     api.writeQueue.discard(type: "articles", id: "1")  // back to diff.server
/// }
/// ```
public struct PendingChanges: Sendable, Hashable {
    /// The resource's type.
    public var type: String
    /// The resource's id.
    public var id: String
    /// The record as the server last sent it; `nil` for a resource created locally.
    public var server: ResourceObject?
    /// The record as the store shows it; `nil` while a delete is pending.
    public var local: ResourceObject?
    /// The names of the attributes and relationships whose local value differs from the server's, sorted.
    public var changedMembers: [String]
    /// How many writes to the record wait for the server's answer (in flight or queued).
    public var writes: Int

    /// Creates pending changes.
    ///
    /// - Parameters:
    ///   - type: The resource's type.
    ///   - id: The resource's id.
    ///   - server: The server's record.
    ///   - local: The record as shown.
    ///   - changedMembers: The members that differ.
    ///   - writes: How many writes wait for an answer.
    public init(
        type: String, id: String, server: ResourceObject?, local: ResourceObject?, changedMembers: [String], writes: Int
    ) {
        self.type = type
        self.id = id
        self.server = server
        self.local = local
        self.changedMembers = changedMembers
        self.writes = writes
    }
}
