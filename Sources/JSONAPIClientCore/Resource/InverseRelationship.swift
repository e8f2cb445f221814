/// A relationship whose other side is a relationship of the related resources: `Article.author` and
/// `Person.articles` say the same thing from both ends.
///
/// A model declares its inverses in ``Resource/inverseRelationships``, by member name as the document writes it:
///
/// ```swift
/// extension Article {
///     static let inverseRelationships = [InverseRelationship("author", of: Person.self, "articles")]
/// }
/// ```
///
/// A session's store keeps both ends in step: when a write or a response changes one side (an article created with
/// an author, moved to another, deleted), the related records it holds change on the other side too (the person's
/// `articles` gains or loses the article), and their observers are told. Declaring the pair on one model is enough;
/// the store reads it both ways.
public struct InverseRelationship: Sendable, Hashable {
    /// This model's relationship, as the document names it (`"author"`).
    public var name: String
    /// The resource type at its other end (`"people"`).
    public var relatedType: String
    /// The relationship of the related resource that points back (`"articles"`).
    public var inverseName: String

    /// An inverse pair: relationship `name` of this model points at resources of `related`'s type, whose
    /// relationship `inverseName` points back.
    ///
    /// - Parameters:
    ///   - name: This model's relationship (its member name in the document).
    ///   - related: The model at the other end.
    ///   - inverseName: The related model's relationship that points back (its member name in the document).
    public init<Related: Resource>(_ name: String, of related: Related.Type, _ inverseName: String) {
        self.init(name, relatedType: Related.resourceType, inverseName)
    }

    /// An inverse pair by type name, for a related type with no model in this program.
    ///
    /// - Parameters:
    ///   - name: This model's relationship (its member name in the document).
    ///   - relatedType: The resource type at the other end.
    ///   - inverseName: The related type's relationship that points back.
    public init(_ name: String, relatedType: String, _ inverseName: String) {
        self.name = name
        self.relatedType = relatedType
        self.inverseName = inverseName
    }
}
