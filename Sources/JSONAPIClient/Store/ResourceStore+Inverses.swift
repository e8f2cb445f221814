import Foundation

/// Inverse relationships: the store keeps both ends of a declared pair (`InverseRelationship`) in step.
///
/// Only records the store holds change, and only a relationship whose linkage the record knows (`data` present): a
/// person whose `articles` came with links alone says nothing of its members, so nothing is added to it. One level
/// only: the change on the other end is not itself followed further (a pair is declared both ways, so it needs not).
extension ResourceStore {
    /// One end of a pair: the relationship `name` of records of `type`.
    struct RelationshipEnd: Hashable, Sendable {
        var type: String
        var name: String
    }

    /// The declared pairs, read both ways: each end's other ends (more than one for a polymorphic relationship).
    struct InverseTable: Sendable {
        private var ends: [RelationshipEnd: Set<RelationshipEnd>] = [:]

        /// The types with an end of a pair.
        private var types: Set<String> = []

        var isEmpty: Bool { ends.isEmpty }

        /// Whether records of `type` are an end of a declared pair: only their changes move other records.
        func involves(_ type: String) -> Bool { !types.isEmpty && types.contains(type) }

        /// Adds `pairs` of records of `type`, both ways.
        mutating func add(_ pairs: [InverseRelationship], of type: String) {
            for pair in pairs {
                let near = RelationshipEnd(type: type, name: pair.name)
                let far = RelationshipEnd(type: pair.relatedType, name: pair.inverseName)
                ends[near, default: []].insert(far)
                ends[far, default: []].insert(near)
                types.insert(type)
                types.insert(pair.relatedType)
            }
        }

        /// The other ends of relationship `name` of records of `type`.
        func inverses(of type: String, _ name: String) -> Set<RelationshipEnd>? {
            ends[RelationshipEnd(type: type, name: name)]
        }
    }

    /// Tells the store the inverse relationships `Model` declares, so that it keeps their ends in step. Data sources
    /// do it for their model, and typed reads from the store for theirs; call it for a model the store may hold
    /// before either happens.
    ///
    /// - Parameter type: The model whose `Resource.inverseRelationships` the store learns.
    public func register<Model: Resource>(_ type: Model.Type) {
        let pairs = Model.inverseRelationships
        guard !pairs.isEmpty else { return }
        state.withLock { $0.inverses.add(pairs, of: Model.resourceType) }
    }
}

extension ResourceStore.State {
    /// One change to the other end of a pair: relationship `name` of the record of `target` gains (or loses)
    /// `member`.
    struct InverseMove {
        var target: ResourceStore.Key
        var name: String
        var member: ResourceIdentifier
        var adding: Bool
    }

    /// Changes the other end of every declared pair that the change of record `key` from `old` to `new` (`nil`:
    /// created, or removed) moves: the records it no longer points at lose it, those it now points at gain it.
    ///
    /// - Returns: The keys of the records changed.
    mutating func followInverses(
        of key: ResourceStore.Key, from old: ResourceObject?, to new: ResourceObject?, at tick: UInt64
    ) -> [ResourceStore.Key] {
        var changed: [ResourceStore.Key] = []
        for move in inverseMoves(of: key, from: old, to: new) {
            guard let record = records[move.target], let relinked = Self.relinked(record.object, move),
                let updated = ResourceStore.Record(object: relinked, lastUse: record.lastUse, changed: tick)
            else { continue }
            setRecord(updated, for: move.target)
            changed.append(move.target)
        }
        return changed
    }

    /// What the change of record `key` from `old` to `new` does to the other ends of its declared pairs, in a
    /// stable order (removals first).
    func inverseMoves(of key: ResourceStore.Key, from old: ResourceObject?, to new: ResourceObject?) -> [InverseMove] {
        guard !inverses.isEmpty else { return [] }
        var moves: [InverseMove] = []
        let names = Set((old?.relationships ?? [:]).keys).union((new?.relationships ?? [:]).keys)
        for name in names.sorted() {
            guard let ends = inverses.inverses(of: key.type, name) else { continue }
            let before = Self.targets(old?.relationships?[name])
            let after: Set<ResourceStore.Key>
            if let new {
                // A relationship sent without linkage leaves the record's as it was.
                guard let relationship = new.relationships?[name], relationship.data != nil else { continue }
                after = Self.targets(relationship)
            } else {
                after = []
            }
            let me = ResourceIdentifier(type: key.type, id: key.id)
            for (targets, adding) in [(before.subtracting(after), false), (after.subtracting(before), true)] {
                for target in targets.sorted(by: { ($0.type, $0.id) < ($1.type, $1.id) }) {
                    for end in ends.sorted(by: { $0.name < $1.name }) where end.type == target.type {
                        moves.append(InverseMove(target: target, name: end.name, member: me, adding: adding))
                    }
                }
            }
        }
        return moves
    }

    /// The records a relationship's linkage names (identifiers without an `id` name none the store holds).
    private static func targets(_ relationship: Relationship?) -> Set<ResourceStore.Key> {
        var keys = Set<ResourceStore.Key>()
        for identifier in relationship?.data?.identifiers ?? [] {
            if let id = identifier.id { keys.insert(ResourceStore.Key(type: identifier.type, id: id)) }
        }
        return keys
    }

    /// `object` with `move` applied: its relationship `move.name` gains (or loses) `move.member`; `nil` when that
    /// changes nothing, or the object does not know that relationship's linkage.
    static func relinked(_ object: ResourceObject, _ move: InverseMove) -> ResourceObject? {
        guard var relationship = object.relationships?[move.name], let linkage = relationship.data else { return nil }
        let member = move.member
        let isMember = { (identifier: ResourceIdentifier) in
            identifier.type == member.type && identifier.id == member.id
        }
        let relinked: Linkage
        switch linkage {
        case .toMany(let identifiers):
            if move.adding {
                guard !identifiers.contains(where: isMember) else { return nil }
                relinked = .toMany(identifiers + [member])
            } else {
                guard identifiers.contains(where: isMember) else { return nil }
                relinked = .toMany(identifiers.filter { !isMember($0) })
            }
        case .toOne(let identifier):
            if move.adding {
                guard identifier.map(isMember) != true else { return nil }
                relinked = .toOne(member)
            } else {
                guard let identifier, isMember(identifier) else { return nil }
                relinked = .toOne(nil)
            }
        }
        relationship.data = relinked
        var result = object
        result.relationships?[move.name] = relationship
        return result
    }
}
