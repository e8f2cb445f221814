import Foundation
import JSONAPIClientCore
import Testing

/// A decoding error points at the member it is about, wherever it was raised: a relationship object, linkage or
/// identifier read through `init(from:)` (re-read from its own value) included. safrs writes an attribute
/// `"author": ""` beside the relationship `author` under a sparse fieldset.
@Suite("Decoding errors point into the document from every nested path")
struct NestedPointerTests {
    struct Clashing: Resource {
        static let resourceType = "articles"
        var id: String
        var title: String
        var author: ToOne<Person>
    }

    struct ClashingMany: Resource {
        static let resourceType = "articles"
        var id: String
        var comments: ToMany<Comment>
    }

    struct Review: Resource {
        static let resourceType = "reviews"
        var id: String
        var article: Clashing
    }

    struct Shelf: Resource {
        static let resourceType = "shelves"
        var id: String
        var articles: [Clashing]
    }

    struct Details: Codable, Sendable {
        var relation: Relationship
    }

    struct Nested: Resource {
        static let resourceType = "things"
        var id: String
        var details: Details
    }

    struct Listed: Resource {
        static let resourceType = "things"
        var id: String
        var relations: [Relationship]
    }

    struct Identified: Resource {
        static let resourceType = "things"
        var id: String
        var owner: ResourceIdentifier
    }

    private static let clash =
        #"{"type": "articles", "id": "1", "attributes": {"title": "t", "author": ""}, "relationships": {"author": {"data": null}}}"#

    @Test("A to-one where the attribute is: the pointer is the attribute's, in the primary resource")
    func primaryToOne() {
        let error = decodingError(Clashing.self, #"{"data": \#(Self.clash)}"#)
        #expect(error?.pointer == "/data/attributes/author")
        #expect(error?.code == .typeMismatch || error?.code == .invalidValue)
    }

    @Test("A to-many where the attribute is, in the second resource of primary data")
    func primaryToMany() {
        let error = decodingError(
            [ClashingMany].self,
            #"{"data": [{"type": "articles", "id": "1", "relationships": {"comments": {"data": []}}}, {"type": "articles", "id": "2", "attributes": {"comments": 5}, "relationships": {"comments": {"data": []}}}]}"#)
        #expect(error?.pointer == "/data/1/attributes/comments")
    }

    @Test("In an included resource reached by a to-one, and by a to-many")
    func included() {
        let toOne = decodingError(
            Review.self,
            #"{"data": {"type": "reviews", "id": "9", "relationships": {"article": {"data": {"type": "articles", "id": "1"}}}}, "included": [\#(Self.clash)]}"#)
        #expect(toOne?.pointer == "/included/0/attributes/author")
        let toMany = decodingError(
            Shelf.self,
            #"{"data": {"type": "shelves", "id": "9", "relationships": {"articles": {"data": [{"type": "articles", "id": "1"}]}}}, "included": [{"type": "people", "id": "3", "attributes": {"firstName": "A", "lastName": "B"}}, \#(Self.clash)]}"#)
        #expect(toMany?.pointer == "/included/1/attributes/author")
    }

    @Test("In a nested attribute object, with the inner pointer of the value kept after the member's")
    func nestedObject() {
        let whole = decodingError(
            Nested.self, #"{"data": {"type": "things", "id": "1", "attributes": {"details": {"relation": []}}}}"#)
        #expect(whole?.pointer == "/data/attributes/details/relation")
        let inner = decodingError(
            Nested.self, #"{"data": {"type": "things", "id": "1", "attributes": {"details": {"relation": {"data": 5}}}}}"#)
        #expect(inner?.pointer == "/data/attributes/details/relation/data")
    }

    @Test("In an array attribute: the element's index")
    func arrays() {
        let error = decodingError(
            Listed.self,
            #"{"data": {"type": "things", "id": "1", "attributes": {"relations": [{"data": null}, ""]}}}"#)
        #expect(error?.pointer == "/data/attributes/relations/1")
    }

    @Test("A model's member names that need escaping stay escaped in the pointer")
    func escaped() {
        struct Odd: Resource {
            static let resourceType = "things"
            var id: String
            var odd: Details
            enum CodingKeys: String, CodingKey {
                case id
                case odd = "a/b~c"
            }
        }
        let error = decodingError(
            Odd.self, #"{"data": {"type": "things", "id": "1", "attributes": {"a/b~c": {"relation": 1}}}}"#)
        #expect(error?.pointer == "/data/attributes/a~1b~0c/relation")
    }

    @Test("Values the decoder reads in place point right as before: an identifier, an optional model")
    func inPlace() {
        let identifier = decodingError(
            Identified.self, #"{"data": {"type": "things", "id": "1", "attributes": {"owner": ""}}}"#)
        #expect(identifier?.pointer == "/data/attributes/owner")
        struct Plain: Resource {
            static let resourceType = "articles"
            var id: String
            var title: String
            var author: Person?
        }
        let person = decodingError(Plain.self, #"{"data": \#(Self.clash)}"#)
        #expect(person?.pointer == "/data/attributes/author")
    }

    @Test("Through a foreign decoder, the pointer starts at its coding path")
    func foreignDecoder() throws {
        do {
            _ = try JSONDecoder().decode(Details.self, from: Data(#"{"relation": {"data": 5}}"#.utf8))
            Issue.record("decoding succeeded; expected an error")
        } catch let DecodingError.dataCorrupted(context) {
            let inner = try #require(context.underlyingError as? JSONAPIDecodingError)
            #expect(inner.pointer == "/relation/data")
        }
    }
}
