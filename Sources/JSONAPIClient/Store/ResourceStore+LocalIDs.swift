import Foundation

/// Linkage by local id (`lid`) in the store's records, rewritten once the resource it names is created.
extension ResourceStore {
    /// Puts the server's id in place of a local id in every record's relationship linkage that names a resource
    /// by its local id alone and that `id` knows, and tells the observers of the records that changed.
    ///
    /// - Parameter id: The server's id of the resource of type `$0` created with local id `$1`, or `nil`.
    func replaceLocalIDs(_ id: (String, String) -> String?) {
        commit { state, effects in
            let now = state.tick()
            for (key, record) in zip(state.records.byKey.keys, state.records.byKey.records) where record.stored.linksByLocalID {
                var object = record.object
                guard let relationships = object.relationships,
                    let replaced = Self.replacingLocalIDs(in: relationships, id)
                else { continue }
                object.relationships = replaced
                guard let updated = Record(object: object, lastUse: record.lastUse, changed: now) else { continue }
                state.records.setRecord(updated, for: key)
                effects.changes.append(StoreChange(type: key.type, id: key.id, kind: .updated))
            }
            effects.saves = !effects.changes.isEmpty
        }
    }

    /// `relationships` with ids in place of the local ids `id` knows; `nil` when none changes.
    static func replacingLocalIDs(in relationships: [String: Relationship], _ id: (String, String) -> String?)
        -> [String: Relationship]?
    {
        func replaced(_ identifier: ResourceIdentifier) -> ResourceIdentifier? {
            guard identifier.id == nil, let lid = identifier.lid, let known = id(identifier.type, lid) else { return nil }
            return ResourceIdentifier(type: identifier.type, id: known, meta: identifier.meta)
        }
        var result = relationships
        var changed = false
        for (name, relationship) in relationships {
            switch relationship.data {
            case .toOne(let identifier?):
                guard let new = replaced(identifier) else { continue }
                result[name]?.data = .toOne(new)
                changed = true
            case .toMany(let identifiers):
                let new = identifiers.map { replaced($0) ?? $0 }
                guard new != identifiers else { continue }
                result[name]?.data = .toMany(new)
                changed = true
            case .toOne(nil), nil:
                continue
            }
        }
        return changed ? result : nil
    }
}
