import Foundation

/// The order a graph's resources are created in: each after the resources of the graph it names (Kahn's algorithm,
/// O(resources + relationships), no recursion), and the checks that fail a graph before anything is sent.
extension ResourceGraph {
    /// One resource to create: its resource object as the session's encoder writes it, and where its collection is.
    struct Step: Sendable {
        /// `{type, lid}`, or `{type, id}` for a client-generated id, or `{type}` for a resource with neither.
        var identifier: ResourceIdentifier
        var object: ResourceObject
        var endpoint: any Router

        /// The local id's key, when the resource has a local id.
        var key: LocalIDs.Key? { object.lid.map { LocalIDs.Key(type: object.type, lid: $0) } }

        /// The resource object as an ordered `POST` sends it: without its `lid`, which only the Atomic Operations
        /// extension gives a meaning to in a request (some servers without it refuse the member), unless the
        /// resource names itself by it — then only the local id can say so.
        var sent: ResourceObject {
            guard let lid = object.lid else { return object }
            let namesItself = object.relationships?.values.contains { relationship in
                relationship.data?.identifiers.contains { $0.type == object.type && $0.lid == lid && $0.id == nil } == true
            } ?? false
            guard !namesItself else { return object }
            var sent = object
            sent.lid = nil
            return sent
        }
    }

    /// The graph's resources in an order that creates each after the graph's resources it names; the graph's order
    /// where no relationship decides.
    ///
    /// - Parameters:
    ///   - encoder: Writes the models (the session's).
    ///   - isCreated: Whether the session has seen the resource of a local id created (by an earlier graph): a
    ///     relationship may name it, and is sent with its id.
    /// - Returns: The steps, in order.
    /// - Throws: ``ResourceGraphError`` with ``ResourceGraphError/Code/invalidResource``,
    ///   ``ResourceGraphError/Code/duplicateLocalID``, ``ResourceGraphError/Code/unknownLocalID`` or
    ///   ``ResourceGraphError/Code/cycle``.
    func ordered(encoder: JSONAPIEncoder, isCreated: (LocalIDs.Key) -> Bool) throws(ResourceGraphError) -> [Step] {
        let steps = try self.steps(encoder: encoder)
        // Every resource but the failed one (for a duplicate, neither of the two it names).
        func notCreated(except failed: ResourceIdentifier?) -> [ResourceIdentifier] {
            steps.map(\.identifier).filter { $0 != failed }
        }
        var byLocalID: [LocalIDs.Key: Int] = [:]
        var byID: [Key: Int] = [:]
        for (index, step) in steps.enumerated() {
            if let key = step.key, byLocalID.updateValue(index, forKey: key) != nil {
                throw ResourceGraphError(
                    code: .duplicateLocalID, detail: "two resources of the graph are \(step.identifier)",
                    failed: step.identifier, notCreated: notCreated(except: step.identifier))
            }
            if let id = step.object.id, byID.updateValue(index, forKey: Key(type: step.object.type, id: id)) != nil {
                throw ResourceGraphError(
                    code: .duplicateLocalID, detail: "two resources of the graph are \(step.object.type)/\(id)",
                    failed: step.identifier, notCreated: notCreated(except: step.identifier))
            }
        }
        // dependents[j]: the resources that name resource j, which must wait for it.
        var dependents = [[Int]](repeating: [], count: steps.count)
        var waitingFor = [Int](repeating: 0, count: steps.count)
        for (index, step) in steps.enumerated() {
            for (name, relationship) in step.object.relationships ?? [:] {
                for target in relationship.data?.identifiers ?? [] {
                    let dependency: Int?
                    if let id = target.id {
                        dependency = byID[Key(type: target.type, id: id)]
                    } else if let lid = target.lid {
                        let key = LocalIDs.Key(type: target.type, lid: lid)
                        dependency = byLocalID[key]
                        if dependency == nil, !isCreated(key) {
                            throw ResourceGraphError(
                                code: .unknownLocalID,
                                detail: "\"\(name)\" of \(step.identifier) names \(target), which is not in the graph "
                                    + "and which this session has not created",
                                failed: step.identifier, notCreated: notCreated(except: step.identifier))
                        }
                    } else {
                        dependency = nil
                    }
                    // A resource naming itself is one request either way: no order to keep.
                    guard let dependency, dependency != index else { continue }
                    dependents[dependency].append(index)
                    waitingFor[index] += 1
                }
            }
        }
        var order = steps.indices.filter { waitingFor[$0] == 0 }
        var next = 0
        while next < order.count {
            for dependent in dependents[order[next]] {
                waitingFor[dependent] -= 1
                if waitingFor[dependent] == 0 { order.append(dependent) }
            }
            next += 1
        }
        guard order.count == steps.count else {
            let circular = steps.indices.filter { waitingFor[$0] > 0 }.map { steps[$0].identifier }
            throw ResourceGraphError(
                code: .cycle,
                detail: "these resources name each other in a circle (or name one that does), so none can be created "
                    + "before the others: " + circular.map(\.description).joined(separator: ", "),
                failed: circular.first, notCreated: notCreated(except: circular.first))
        }
        return order.map { steps[$0] }
    }

    /// A resource named by its server id: a client-generated id in the graph.
    private struct Key: Hashable {
        var type: String
        var id: String
    }

    /// Each model's resource object as a create sends it: its identity from its `id` and `lid` properties (an empty
    /// id is none), and only the relationships that have linkage, as ``JSONAPIEncoder/encodeCreateBody(for:)``
    /// writes them.
    private func steps(encoder: JSONAPIEncoder) throws(ResourceGraphError) -> [Step] {
        var steps: [Step] = []
        steps.reserveCapacity(nodes.count)
        for node in nodes {
            var object: ResourceObject
            do {
                object = try encoder.resourceObject(for: node.model)
            } catch {
                let failed = Self.identifier(of: node.model)
                throw ResourceGraphError(
                    code: .invalidResource,
                    detail: "a resource of type \"\(failed.type)\" could not be encoded: \(error)", failed: failed,
                    notCreated: nodes.map { Self.identifier(of: $0.model) }.filter { $0 != failed },
                    underlyingError: error)
            }
            object.id = node.model.id.resourceID.flatMap { $0.isEmpty ? nil : $0 }
            object.lid = node.model.lid
            object.relationships = object.relationships?.filter { $0.value.data != nil }
            if object.relationships?.isEmpty == true { object.relationships = nil }
            steps.append(Step(identifier: Self.identifier(of: node.model), object: object, endpoint: node.endpoint))
        }
        return steps
    }

    /// How a graph's errors name a resource: `{type, lid}`, or `{type, id}` for a client-generated id (an empty id
    /// is none), or `{type}`.
    private static func identifier(of model: any Resource) -> ResourceIdentifier {
        let type = Swift.type(of: model).resourceType
        guard model.lid == nil else { return ResourceIdentifier(type: type, lid: model.lid) }
        return ResourceIdentifier(type: type, id: model.id.resourceID.flatMap { $0.isEmpty ? nil : $0 })
    }
}
