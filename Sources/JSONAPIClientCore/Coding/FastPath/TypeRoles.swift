import Foundation

/// `value` as `T`, which the caller has established is `Value` itself: no cast, and no `Optional<T>` (whose generic
/// metadata costs a runtime lookup each time). Throws rather than traps should that ever not hold.
@inline(__always)
func reinterpret<Value, T>(_ value: Value, as type: T.Type) throws -> T {
    guard Value.self == T.self else {
        throw TypeIdentityError(description: "internal: \(Value.self) used as \(T.self)")
    }
    return assumingSameType(value, as: T.self)
}

/// `value` as `T`, which the caller has just established is `Value` itself (`Element.self == String.self`), without
/// checking again: the check asks the runtime for the metadata of both types (``reinterpret(_:as:)`` in the arrays
/// of strings and numbers cost 0.33 M instructions a typed decode).
@inline(__always)
func assumingSameType<Value, T>(_ value: Value, as type: T.Type) -> T {
    unsafeBitCast(value, to: T.self)
}

struct TypeIdentityError: Error, CustomStringConvertible {
    var description: String
}

/// Lets a type be recognised as some `Optional` without knowing its wrapped type.
protocol OptionalMarker {}
extension Optional: OptionalMarker {}

/// How the encoder treats a value of a given static type, found once per type and encode.
///
/// Dynamic casts (`value as? any Resource`, `as? Date`, …) on every value were a large part of encoding. For a
/// struct or enum they depend only on the static type, so they are made once. Classes (a subclass may conform
/// where its superclass does not) and optionals (a cast looks through them) keep the casts: `isDynamic`.
struct EncodingRole {
    enum Relation {
        case none
        case resource(any Resource.Type)
        case polymorphic(any PolymorphicResource.Type)
        /// ``RelationshipEncodable`` and written as a relationship (not an array of plain values).
        case relationship(any RelationshipEncodable.Type)
    }

    enum Special {
        case jsonValue, date, url, decimal, links, link, identifier, resourceObject
    }

    var isDynamic = false
    var relation = Relation.none
    /// Written directly rather than through `encode(to:)`.
    var special: Special?
    var isMeta = false
    var isStringArray = false

    static func of<T>(_ type: T.Type) -> EncodingRole {
        var role = EncodingRole()
        if T.self is AnyClass || T.self is any OptionalMarker.Type {
            role.isDynamic = true
            return role
        }
        let specials: [(Any.Type, Special)] = [
            (JSONValue.self, .jsonValue), (Date.self, .date), (URL.self, .url), (Decimal.self, .decimal),
            (Links.self, .links), (Link.self, .link), (ResourceIdentifier.self, .identifier),
            (ResourceObject.self, .resourceObject),
        ]
        for (special, value) in specials where special == T.self { role.special = value }
        role.isMeta = T.self == Meta.self
        role.isStringArray = T.self == [String].self
        if let resource = T.self as? any Resource.Type {
            role.relation = .resource(resource)
        } else if let polymorphic = T.self as? any PolymorphicResource.Type {
            role.relation = .polymorphic(polymorphic)
        } else if let relationship = T.self as? any RelationshipEncodable.Type, isRelationship(T.self) {
            role.relation = .relationship(relationship)
        }
        return role
    }

    /// Arrays are relationships only when they hold resources or identifiers.
    private static func isRelationship<T>(_ type: T.Type) -> Bool {
        guard let collection = T.self as? any Collection.Type else { return true }
        return collection.isRelationshipArray
    }
}
