/// A model type that is a JSON:API resource: an ordinary `Codable` struct with its type name and its identity.
///
/// Stored properties are the resource's members: `id` (and `lid`) map to the resource's identification, every other
/// property is an attribute or a relationship, whichever the document has by that name. A property whose type is
/// another `Resource` (optional for to-one, an array for to-many), a ``ToOne``/``ToMany``, or a
/// ``ResourceIdentifier`` is a relationship; it resolves from the document's `included`.
///
/// ```swift
/// struct Article: Resource {
///     static let resourceType = "articles"
///     var id: String
///     var title: String
///     var created: Date
///     var author: Person?
///     var comments: [Comment]
/// }
/// ```
///
/// **Identity.** A resource is `Identifiable` by its `id`: a `String` (or an `Int`), or an optional one for a model
/// that is also used to create resources the server names — `var id: String?` lets you write
/// `Article(title: "Hello")` and send it without an id. A model of a resource created with a local id declares
/// `var lid: String?` too. The library reads identity from these properties; it never encodes a model to find it.
///
/// A related resource that is not in `included` decodes from its identifier alone: properties that are optional
/// are `nil`. When a model needs members that the identifier cannot give, a to-one relationship typed `Person?` is
/// `nil`; use ``ToOne`` or ``ResourceIdentifier`` to keep the linkage in every case.
///
/// Two members have fixed meanings besides `id` and `lid`: `links` (which the specification forbids as a field
/// name) reads the resource's links, and `meta`, when the resource has no attribute of that name, reads its meta.
public protocol Resource: Codable, Sendable, Identifiable where ID: ResourceIDConvertible {
    /// The JSON:API type name, e.g. `"articles"`. The model is decoded only from resource objects of this type
    /// (another is a `typeMismatch` error); several types call for a ``PolymorphicResource`` enum.
    static var resourceType: String { get }
    /// The local id of a resource not yet created (`lid`); `nil` unless the model declares the property.
    var lid: String? { get }
    /// The relationships of this model whose other end points back (`author` ↔ `Person.articles`): a session's
    /// store keeps both ends in step. None by default.
    static var inverseRelationships: [InverseRelationship] { get }
}

extension Resource {
    /// No local id: models that use one declare `var lid: String?`.
    public var lid: String? { nil }
    /// No inverse relationships: models that have them declare them.
    public static var inverseRelationships: [InverseRelationship] { [] }
}

/// A type that a ``Resource``'s `id` may have: `String`, `Int`, or an optional of either (`nil`: not created yet).
public protocol ResourceIDConvertible: Hashable, Sendable {
    /// The id as the document writes it; `nil` when there is none.
    var resourceID: String? { get }
}

extension String: ResourceIDConvertible {
    /// The string itself.
    public var resourceID: String? { self }
}

extension Int: ResourceIDConvertible {
    /// The decimal digits.
    public var resourceID: String? { String(self) }
}

extension Optional: ResourceIDConvertible where Wrapped: ResourceIDConvertible {
    /// The wrapped id; `nil` for `nil`.
    public var resourceID: String? { self?.resourceID }
}

extension ResourceIdentifier {
    /// The identifier of a model: its ``Resource/resourceType`` and its `id` (or, when it has none, its `lid`).
    public init<Model: Resource>(of model: Model) {
        self.init(type: Model.resourceType, id: model.id.resourceID, lid: model.lid)
    }
}
