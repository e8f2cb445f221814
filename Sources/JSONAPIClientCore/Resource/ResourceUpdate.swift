import Foundation

/// A partial update of a resource: only the members you set are sent.
///
/// JSON:API's `PATCH` leaves out what does not change; `null` empties a member. An update keeps the three apart —
/// a member not set is absent, ``setNull(_:)`` sends `null`, ``set(_:to:)`` sends a value — for attributes and
/// relationships alike.
///
/// ```swift
/// var update = ResourceUpdate<Article>(id: "1")
/// update.set("title", to: "New title")
/// update.setNull("subtitle")
/// update.setRelationship("author", to: ResourceIdentifier(type: "people", id: "9"))
/// ```
///
/// Or describe the change by editing a copy of a model: `ResourceUpdate(from: article) { $0.title = "New" }` sends
/// exactly the members that differ.
public struct ResourceUpdate<Model: Resource>: Sendable {
    /// The id of the resource to update.
    public var id: String
    /// Resource-level meta to send.
    public var meta: Meta?
    private var attributes: [(name: String, value: Change)] = []
    private var relationships: [String: Relationship] = [:]

    private enum Change: Sendable {
        case null
        case value(any Encodable & Sendable)
        case json(JSONValue)
    }

    /// An update that changes nothing yet.
    ///
    /// - Parameter id: The id of the resource to update.
    public init(id: String) { self.id = id }

    /// Sets attribute `name` (a property name; the encoder's key strategy maps it) to `value`.
    ///
    /// - Parameters:
    ///   - name: The attribute's property name.
    ///   - value: Its new value.
    public mutating func set<Value: Encodable & Sendable>(_ name: String, to value: Value) {
        replace(name, .value(value))
    }

    /// Sets attribute `name` to `null`.
    ///
    /// - Parameter name: The attribute's property name.
    public mutating func setNull(_ name: String) { replace(name, .null) }

    /// Replaces a to-one relationship: an identifier, or `nil` to empty it (sent as `null`).
    ///
    /// - Parameters:
    ///   - name: The relationship's name.
    ///   - identifier: The new target, or `nil`.
    public mutating func setRelationship(_ name: String, to identifier: ResourceIdentifier?) {
        relationships[name] = Relationship(data: .toOne(identifier))
    }

    /// Replaces a to-one relationship with a model (or empties it with `nil`).
    ///
    /// - Parameters:
    ///   - name: The relationship's name.
    ///   - model: The new target (sent as its identifier), or `nil`.
    public mutating func setRelationship<Related: Resource>(_ name: String, to model: Related?) {
        relationships[name] = Relationship(data: .toOne(model.map(ResourceIdentifier.init(of:))))
    }

    /// Replaces a to-many relationship (`[]` empties it).
    ///
    /// - Parameters:
    ///   - name: The relationship's name.
    ///   - identifiers: The new targets.
    public mutating func setRelationship(_ name: String, to identifiers: [ResourceIdentifier]) {
        relationships[name] = Relationship(data: .toMany(identifiers))
    }

    /// Forgets what was set for `name`, so it is absent again.
    ///
    /// - Parameter name: The attribute's or relationship's name.
    public mutating func unset(_ name: String) {
        attributes.removeAll { $0.name == name }
        relationships[name] = nil
    }

    /// Whether nothing is set.
    public var isEmpty: Bool { attributes.isEmpty && relationships.isEmpty && meta == nil }

    private mutating func replace(_ name: String, _ change: Change) {
        attributes.removeAll { $0.name == name }
        attributes.append((name, change))
    }

    /// The update that turns `old` into `new`: every attribute or relationship that differs, `null` for one
    /// `new` no longer has (a to-many becomes `[]`). A relationship `new` has without linkage (a ``ToOne`` or
    /// ``ToMany`` decoded from a relationship that had only links or meta) says nothing about its value and is not
    /// sent.
    ///
    /// Each model is encoded alone (``JSONAPIEncoder/resourceObject(for:)``): a related model counts by its
    /// identifier, so a change inside a related model is not part of this update, and the work does not grow with
    /// what the models link.
    ///
    /// - Parameters:
    ///   - old: The model as the server has it.
    ///   - new: The model as it should be.
    ///   - encoder: The encoder whose strategies name and write the members.
    /// - Throws: `EncodingError` when a model cannot be written or neither has an id.
    public init(from old: Model, to new: Model, encoder: JSONAPIEncoder = JSONAPIEncoder()) throws {
        let before = try encoder.resourceObject(for: old)
        let after = try encoder.resourceObject(for: new)
        guard let id = after.id ?? before.id else {
            throw EncodingError.invalidValue(
                new, EncodingError.Context(codingPath: [], debugDescription: "an update needs the resource's id"))
        }
        self.init(id: id)
        let oldAttributes = before.attributes ?? [:], newAttributes = after.attributes ?? [:]
        for name in Set(oldAttributes.keys).union(newAttributes.keys).sorted() where oldAttributes[name] != newAttributes[name] {
            attributes.append((name, .json(newAttributes[name] ?? .null)))
        }
        let oldRelationships = before.relationships ?? [:], newRelationships = after.relationships ?? [:]
        for name in Set(oldRelationships.keys).union(newRelationships.keys) {
            if let relationship = newRelationships[name], relationship.data == nil { continue }
            let oldData = oldRelationships[name]?.data, newData = newRelationships[name]?.data
            guard oldData != newData else { continue }
            if let newData {
                relationships[name] = Relationship(data: newData)
            } else if case .toMany = oldData {
                relationships[name] = Relationship(data: .toMany([]))
            } else {
                relationships[name] = Relationship(data: .toOne(nil))
            }
        }
        // Names from the encoded models are already member names.
        preMapped = true
    }

    /// The update made by editing a copy of `model`.
    ///
    /// - Parameters:
    ///   - model: The model as the server has it.
    ///   - encoder: The encoder whose strategies name and write the members.
    ///   - edit: Changes a copy of the model.
    /// - Throws: What `edit` throws, or `EncodingError` when a model cannot be written or has no id.
    public init(from model: Model, encoder: JSONAPIEncoder = JSONAPIEncoder(), _ edit: (inout Model) throws -> Void)
        throws
    {
        var copy = model
        try edit(&copy)
        try self.init(from: model, to: copy, encoder: encoder)
    }

    private var preMapped = false

    /// The resource object sent as the body.
    ///
    /// - Parameter encoder: The encoder whose strategies name and write the members set by name.
    /// - Returns: The resource object with only the members set.
    /// - Throws: `EncodingError` when a value set cannot be written.
    public func resourceObject(encoder: JSONAPIEncoder = JSONAPIEncoder()) throws -> ResourceObject {
        let strategy = preMapped ? KeyStrategy.useDefaultKeys : encoder.keyStrategy
        var encodedAttributes: [String: JSONValue] = [:]
        for (name, change) in attributes {
            let value: JSONValue =
                switch change {
                case .null: .null
                case .json(let json): json
                case .value(let value): try encoder.jsonValue(of: value)
                }
            encodedAttributes[strategy.wireName(for: name)] = value
        }
        var encodedRelationships: [String: Relationship] = [:]
        for (name, relationship) in relationships { encodedRelationships[strategy.wireName(for: name)] = relationship }
        return ResourceObject(
            type: Model.resourceType, id: id, attributes: encodedAttributes.isEmpty ? nil : encodedAttributes,
            relationships: encodedRelationships.isEmpty ? nil : encodedRelationships, meta: meta)
    }
}
