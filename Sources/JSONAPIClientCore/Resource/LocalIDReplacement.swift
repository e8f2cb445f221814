import Foundation

/// Puts the server's id in place of a local id (`lid`) in a request body that names a resource the server has
/// created since: what lets a write made after a graph's creation (``ResourceIdentifier/lid``) reach the server
/// with ids only.
///
/// Only the places where JSON:API names resources are looked at — primary `data`, `included`, each resource's
/// `relationships.*.data`, and the `ref` and `data` of each of `atomic:operations` — never attributes or meta, where
/// an object with `type` and `lid` members is the user's own data.
package enum LocalIDReplacement {
    /// `body` with every resource object or identifier that has a `type` and a `lid`, no `id`, and an id by `id`
    /// given that id in place of its `lid`.
    ///
    /// - Parameters:
    ///   - body: A request body: a document, or an Atomic Operations request.
    ///   - decoder: Reads the body (its nesting limit).
    ///   - id: The server's id of the resource of type `$0` with local id `$1`, or `nil`.
    /// - Returns: The body written again (members sorted, as the encoder writes them), or `nil` when it names no
    ///   such resource or is not a JSON object.
    package static func replacing(in body: Data, decoder: JSONAPIDecoder, id: (String, String) -> String?) -> Data? {
        guard case .object(var members)? = try? decoder.decodeValue(from: body) else { return nil }
        var changed = false
        for name in ["data", "included"] {
            if let value = members[name] { members[name] = resources(in: value, id, &changed) }
        }
        if case .array(var operations)? = members["atomic:operations"] {
            for index in operations.indices {
                guard case .object(var operation) = operations[index] else { continue }
                if let ref = operation["ref"] { operation["ref"] = resources(in: ref, id, &changed) }
                if let data = operation["data"] { operation["data"] = resources(in: data, id, &changed) }
                operations[index] = .object(operation)
            }
            members["atomic:operations"] = .array(operations)
        }
        guard changed else { return nil }
        var writer = JSONWriter()
        writer.write(.object(members), sortedKeys: true)
        return Data(writer.bytes)
    }

    /// `value` — a resource object, an identifier, an array of them, or `null` — with its local ids replaced, and
    /// those of its relationships' linkage. The depth is fixed (a resource, its relationships, their identifiers):
    /// a relationship's identifiers have no relationships of their own to follow.
    private static func resources(in value: JSONValue, _ id: (String, String) -> String?, _ changed: inout Bool)
        -> JSONValue
    {
        switch value {
        case .array(let elements): .array(elements.map { resource(in: $0, id, &changed) })
        default: resource(in: value, id, &changed)
        }
    }

    private static func resource(in value: JSONValue, _ id: (String, String) -> String?, _ changed: inout Bool)
        -> JSONValue
    {
        guard case .object(var object) = identified(value, id, &changed) else { return value }
        guard case .object(var relationships)? = object["relationships"] else { return .object(object) }
        for (name, relationship) in relationships {
            guard case .object(var members) = relationship, let data = members["data"] else { continue }
            members["data"] =
                switch data {
                case .array(let identifiers): .array(identifiers.map { identified($0, id, &changed) })
                default: identified(data, id, &changed)
                }
            relationships[name] = .object(members)
        }
        object["relationships"] = .object(relationships)
        return .object(object)
    }

    /// `value` with `id` in place of `lid` when it is an object naming a created resource by its local id alone.
    private static func identified(_ value: JSONValue, _ id: (String, String) -> String?, _ changed: inout Bool)
        -> JSONValue
    {
        guard case .object(var object) = value, object["id"] == nil, case .string(let type)? = object["type"],
            case .string(let lid)? = object["lid"], let known = id(type, lid)
        else { return value }
        object["id"] = .string(known)
        // An identifier carries an id or a lid: servers reject both (the Atomic Operations extension's
        // reference implementation answers 400 "multiple-id-fields").
        object["lid"] = nil
        changed = true
        return .object(object)
    }
}
