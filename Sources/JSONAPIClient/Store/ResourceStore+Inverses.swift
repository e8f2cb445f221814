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
        state.withLock { $0.overlay.inverses.add(pairs, of: Model.resourceType) }
    }
}

