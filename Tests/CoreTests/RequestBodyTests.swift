import Foundation
import Testing

@testable import JSONAPIClientCore

/// A create or update body never sends a relationship without `data`: a ToOne or ToMany decoded from a relationship
/// that had only links or meta says nothing about the relationship's value.
@Suite("Writes obey the spec: no relationship without data in a request body")
struct RequestBodyTests {
    /// The article with linkage for its author and only links or meta for its comments…
    static let linkage = #"""
        {"data": {"type": "articles", "id": "1", "attributes": {"title": "Hello"},
          "relationships": {
            "author": {"data": {"type": "people", "id": "9"}, "links": {"related": "/articles/1/author"}},
            "comments": {"links": {"related": "/articles/1/comments"}, "meta": {"count": 3}}}}}
        """#
    /// …and as a server sends it without any linkage (only links).
    static let linksOnly = #"""
        {"data": {"type": "articles", "id": "1", "attributes": {"title": "Hello"},
          "relationships": {
            "author": {"links": {"related": "/articles/1/author"}},
            "comments": {"meta": {"count": 3}}}}}
        """#

    func article(_ text: String) throws -> LinkedArticle {
        try #require(try JSONAPIDecoder().decode(Document<LinkedArticle>.self, from: Data(text.utf8)).data)
    }

    func json(_ data: Data) throws -> JSONValue { try JSONValue(parsing: [UInt8](data)) }

    @Test("Create: relationships without linkage are left out, those with linkage are sent")
    func createBody() throws {
        let encoder = JSONAPIEncoder()
        let withAuthor = try json(encoder.encodeCreateBody(for: article(Self.linkage)))
        #expect(withAuthor["data"]?["relationships"] == ["author": ["data": ["type": "people", "id": "9"], "links": ["related": "/articles/1/author"]]])
        let none = try json(encoder.encodeCreateBody(for: article(Self.linksOnly)))
        #expect(none["data"]?["relationships"] == nil)
        #expect(none["data"]?["attributes"] == ["title": "Hello"])
    }

    @Test("Update from a diff: a relationship the new model has without linkage is not sent (not null)")
    func updateFromDiff() throws {
        let encoder = JSONAPIEncoder()
        // Fetched once with linkage, once without: nothing changed but the title.
        var new = try article(Self.linksOnly)
        new.title = "Renamed"
        let update = try ResourceUpdate(from: article(Self.linkage), to: new)
        #expect(try json(encoder.encodeUpdateBody(for: update)) == ["data": ["type": "articles", "id": "1", "attributes": ["title": "Renamed"]]])
        // A relationship emptied on purpose is still sent as null.
        var emptied = try article(Self.linkage)
        emptied.author = ToOne(identifier: nil)
        let clear = try ResourceUpdate(from: article(Self.linkage), to: emptied)
        #expect(try json(encoder.encodeUpdateBody(for: clear))["data"]?["relationships"] == ["author": ["data": nil]])
    }

    @Test("A compound document (a response) still writes a relationship with only links or meta")
    func responsesKeepLinksOnly() throws {
        let document = try json(JSONAPIEncoder().encode(Document(data: article(Self.linksOnly))))
        #expect(document["data"]?["relationships"]?["author"] == ["links": ["related": "/articles/1/author"]])
        #expect(document["data"]?["relationships"]?["comments"] == ["meta": ["count": 3]])
    }
}
