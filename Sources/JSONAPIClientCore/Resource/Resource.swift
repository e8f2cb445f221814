/// A model type that is a JSON:API resource: an ordinary `Codable` struct with its type name.
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
/// A related resource that is not in `included` decodes from its identifier alone: properties that are optional
/// are `nil`. When a model needs members that the identifier cannot give, a to-one relationship typed `Person?` is
/// `nil`; use ``ToOne`` or ``ResourceIdentifier`` to keep the linkage in every case.
///
/// Two members have fixed meanings besides `id` and `lid`: `links` (which the specification forbids as a field
/// name) reads the resource's links, and `meta`, when the resource has no attribute of that name, reads its meta.
public protocol Resource: Codable, Sendable {
    /// The JSON:API type name, e.g. `"articles"`.
    static var resourceType: String { get }
}
