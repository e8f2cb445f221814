import Foundation
import JSONAPIClientCore

/// What a write the server accepted does to the store, as one event (``ResourceStore/apply(_:)``): every write path
/// — a data source's writes, untyped writes, relationship endpoints, the queue's replay, a graph's creates, an
/// Atomic Operations batch — hands the store its answer as a ``ResourceStore/WriteAnswer`` and nothing else.
extension ResourceStore {
    /// A write's answer, as the store applies it: built by the session from the write and the server's answer,
    /// whose body was parsed once (the records its typed decode kept).
    struct WriteAnswer: Sendable {
        /// The resources the answer returned, as its decode kept them; for a `204` to a write that was not
        /// optimistic, those of the body sent (the server applied exactly what was sent).
        var records: ResourceRecords?
        /// Resources the answer returned as objects (the results of an Atomic Operations batch).
        var objects: [ResourceObject] = []
        /// The optimistic write's layer: confirmed with the answer's resource of its key (the members sent, when the
        /// answer has none), or dropped for a create the server gave an id of its own (its record takes the place).
        var layer: PendingWrite?
        /// A write to a relationship endpoint: the record's relationship is set, not its resource merged.
        var relationship: Relinked?
        /// The records the write removed.
        var removed: [Key] = []
        /// The URLs written to, with the method: their stored responses are stale (RFC 9111 §4.4).
        var written: [Written] = []
        /// The types whose stored lists are stale: a create or a delete changed them.
        var listed: Set<String> = []
        /// The store's ``ResourceStore/clears`` when the write was sent: after a clear or a change of the records'
        /// owner since, the answer is another account's and nothing of it is applied.
        var epoch: UInt64?
    }

    /// A URL written to, and how.
    struct Written: Sendable {
        var method: HTTPMethod
        var url: URL
    }

    /// A write to a relationship endpoint, as it changes the record.
    struct Relinked: Sendable {
        /// The relationship's name.
        var name: String
        /// The record whose relationship it is.
        var key: Key
        /// The linkage the answer says the relationship has (a `200` with linkage); `nil` for none.
        var answered: Linkage?
        /// The linkage the write worked out when it was made, for a write that was not optimistic and an answer
        /// that says none.
        var shown: Linkage?
    }

    /// Applies a write's answer in one lock section, after reading the rows it touches (a persisted store): the
    /// optimistic layer settled, the returned resources merged, the removed ones gone, the stored responses and
    /// lists it made stale marked; the observers are told once, the save scheduled once.
    func apply(_ answer: WriteAnswer) {
        var paths: Set<String> = []
        for written in answer.written { paths.formUnion(Self.stalePaths(after: written.method, to: written.url)) }
        call {
            if isPersisted { faultIn(answer.keys) }
            commit { state, effects in
                guard answer.epoch == nil || answer.epoch == state.clears else { return }
                if let relinked = answer.relationship {
                    effects.changes += relink(relinked, layer: answer.layer, in: &state)
                } else if let layer = answer.layer {
                    effects.changes += settle(layer, with: answer, in: &state)
                } else {
                    if let records = answer.records { effects.changes += merge(records, into: &state) }
                    if !answer.objects.isEmpty { effects.changes += merge(answer.objects, into: &state) }
                }
                for key in answer.removed { effects.changes += state.removeRecord(key) }
                if !paths.isEmpty { Self.requireValidation(ofPaths: paths, in: &state.responses) }
                for type in answer.listed.sorted() {
                    state.responses.requireValidation { _, stored in stored.collectionTypes.contains(type) }
                }
                effects.saves = true
            }
        }
    }

    /// Settles an optimistic write's layer with the answer: the answer's version of the record replaces the
    /// layer's (none — a `204`, a `202` — confirms the members sent), and the answer's other resources are merged.
    ///
    /// - Returns: The changes, for the observers.
    private func settle(_ layer: PendingWrite, with answer: WriteAnswer, in state: inout State) -> [StoreChange] {
        var objects = answer.objects
        if let records = answer.records {
            objects += records.resources.map { $0.record(in: records).resourceObject() }
        }
        let own = objects.firstIndex { $0.type == layer.key.type && $0.id == layer.key.id }.map {
            objects.remove(at: $0)
        }
        var changes = objects.isEmpty ? [] : merge(objects, into: &state)
        if layer.kind == .create, own == nil, objects.contains(where: { $0.type == layer.key.type }) {
            // The server named it: its record (merged above) takes the local one's place.
            changes += state.dropPending(layer)?.changes ?? []
        } else {
            changes += state.confirmPending(layer, answer: own) ?? []
        }
        return changes
    }

    /// Sets the relationship a relationship endpoint's write changed: the layer confirmed with the answer's linkage
    /// (the members sent, without one), or, not optimistic, the linkage set to the answer's, else to what the write
    /// worked out.
    ///
    /// - Returns: The changes, for the observers.
    private func relink(_ relinked: Relinked, layer: PendingWrite?, in state: inout State) -> [StoreChange] {
        if let layer {
            let answer = relinked.answered.map {
                ResourceObject(
                    type: relinked.key.type, id: relinked.key.id,
                    relationships: [relinked.name: Relationship(data: $0)])
            }
            return state.confirmPending(layer, answer: answer) ?? []
        }
        guard let linkage = relinked.answered ?? relinked.shown else { return [] }
        return state.setLinkage(of: relinked.name, on: relinked.key, to: linkage)
    }
}

extension ResourceStore.WriteAnswer {
    /// The keys of the records the answer touches: the rows a persisted store reads first.
    var keys: [ResourceStore.Key] {
        var keys = records.map(ResourceStore.keys(of:)) ?? []
        keys += objects.compactMap { object in object.id.map { ResourceStore.Key(type: object.type, id: $0) } }
        keys += removed
        if let layer { keys.append(layer.key) }
        if let relationship { keys.append(relationship.key) }
        return keys
    }
}

extension ResourceStore.State {
    /// Removes the record of `key`; declared inverse relationships of the records it named lose it.
    ///
    /// - Returns: The changes, for the observers (none when the store had no record of it).
    mutating func removeRecord(_ key: ResourceStore.Key) -> [StoreChange] {
        guard let old = records.removeRecord(key) else { return [] }
        removed.insert(key)
        let related = followInverses(of: key, from: old.object, to: nil, at: tick())
        return [StoreChange(type: key.type, id: key.id, kind: .removed)]
            + related.map { StoreChange(type: $0.type, id: $0.id, kind: .updated) }
    }

    /// Sets the linkage of relationship `name` of the record of `key` (when the store has the record) to `linkage`.
    ///
    /// - Returns: The changes, for the observers (none when nothing changed).
    mutating func setLinkage(of name: String, on key: ResourceStore.Key, to linkage: Linkage) -> [StoreChange] {
        guard let record = records[key] else { return [] }
        let old = record.object
        var object = old
        var relationships = object.relationships ?? [:]
        var relationship = relationships[name] ?? Relationship()
        guard linkage != relationship.data else { return [] }
        relationship.data = linkage
        relationships[name] = relationship
        object.relationships = relationships
        let now = tick()
        guard let updated = ResourceStore.Record(object: object, lastUse: now) else { return [] }
        records.setRecord(updated, for: key)
        let related = followInverses(of: key, from: old, to: object, at: now)
        return ([key] + related).map { StoreChange(type: $0.type, id: $0.id, kind: .updated) }
    }
}
