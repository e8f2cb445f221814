import Foundation
import Testing

@testable import JSONAPIClientCore

/// `null` where the specification expects an optional object (`meta`, `links`, `jsonapi`, `attributes`,
/// `relationships`, `included`, an error's `source`) means the member is absent — schema-less and typed alike.
/// fastapi-jsonapi writes `"meta": null` in every single-resource, create and Atomic result document.
@Suite("Lenient where the meaning is plain: null optional objects are absent")
struct NullMemberTests {
    /// Every optional object member, `null`, at every level.
    static let document = #"""
        {
          "data": {
            "type": "articles", "id": "1",
            "attributes": {"title": "Hello"},
            "relationships": {
              "author": {"data": {"type": "people", "id": "9", "meta": null}, "links": null, "meta": null},
              "comments": {"data": [], "links": {"related": {"href": "/articles/1/comments", "meta": null}}, "meta": null}
            },
            "links": null,
            "meta": null
          },
          "included": null,
          "meta": null,
          "links": null,
          "jsonapi": null
        }
        """#

    @Test("Schema-less: every null optional object reads as absent")
    func schemaLess() throws {
        let document = try JSONAPIDecoder().decode(RawDocument.self, from: Data(Self.document.utf8))
        #expect(document.meta == nil)
        #expect(document.links == nil)
        #expect(document.jsonapi == nil)
        #expect(document.included == nil)
        guard case .resource(let article)? = document.data else {
            Issue.record("expected a resource, got \(String(describing: document.data))")
            return
        }
        #expect(article.links == nil)
        #expect(article.meta == nil)
        #expect(article.relationships?["author"] == Relationship(data: .toOne(ResourceIdentifier(type: "people", id: "9"))))
        #expect(article.relationships?["comments"]?.links?.related == Link(href: "/articles/1/comments"))
        #expect(article.relationships?["comments"]?.meta == nil)

        let bare = try JSONAPIDecoder().decode(
            RawDocument.self,
            from: Data(#"{"data": {"type": "articles", "id": "1", "attributes": null, "relationships": null}}"#.utf8))
        // With its null members absent it is {type, id}: an identifier, as what it writes reads back.
        #expect(bare.data == .identifier(ResourceIdentifier(type: "articles", id: "1")))
    }

    @Test("Error objects and the jsonapi object: null links, meta and source are absent")
    func errorsAndJSONAPI() throws {
        let text = #"""
            {"errors": [{"status": "422", "links": null, "meta": null, "source": null, "title": "Invalid"}],
             "jsonapi": {"version": "1.1", "meta": null}, "meta": null}
            """#
        let document = try JSONAPIDecoder().decode(RawDocument.self, from: Data(text.utf8))
        #expect(document.errors == [ErrorObject(status: "422", title: "Invalid")])
        #expect(document.jsonapi == JSONAPIObject(version: "1.1"))
        #expect(document.meta == nil)
    }

    @Test("null included without data, and a document whose only meta is null")
    func includedAndMeta() throws {
        let metaAndNullIncluded = try JSONAPIDecoder().decode(RawDocument.self, from: Data(#"{"meta": {}, "included": null}"#.utf8))
        #expect(metaAndNullIncluded.meta == [:])
        #expect(metaAndNullIncluded.included == nil)
        // A null meta is no meta: the document then has none of data, errors and meta.
        #expect(throws: JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode(RawDocument.self, from: Data(#"{"meta": null}"#.utf8))
        }
        // null where the value is not an optional object stays an error.
        #expect(throws: JSONAPIDecodingError.self) {
            try JSONAPIDecoder().decode(RawDocument.self, from: Data(#"{"data": {"type": null, "id": "1"}}"#.utf8))
        }
    }

    struct Note: Resource {
        static let resourceType = "notes"
        var id: String
        var title: String?
        var pinned: Bool?
        var links: Links?
        var meta: Meta?
    }

    @Test("Typed: a model reads null attributes, relationships, links and meta as absent")
    func typed() throws {
        let document = try JSONAPIDecoder().decode(Document<LinkedArticle>.self, from: Data(Self.document.utf8))
        let article = try #require(document.data)
        #expect(article.title == "Hello")
        #expect(article.author.identifier == ResourceIdentifier(type: "people", id: "9"))
        #expect(article.author.links == nil)
        #expect(article.author.meta == nil)
        #expect(article.comments.links?.related?.href == "/articles/1/comments")
        #expect(document.meta == nil)

        let text = #"""
            {"data": {"type": "notes", "id": "1", "attributes": null, "relationships": null, "links": null, "meta": null},
             "meta": null}
            """#
        let note = try #require(try JSONAPIDecoder().decode(Document<Note>.self, from: Data(text.utf8)).data)
        #expect(note.id == "1")
        #expect(note.title == nil)
        #expect(note.pinned == nil)
        #expect(note.links == nil)
        #expect(note.meta == nil)
        // A required attribute is missing, not "null": the error names it.
        do {
            _ = try JSONAPIDecoder().decode(Document<Article>.self, from: Data(text.replacingOccurrences(of: "notes", with: "articles").utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .missingMember)
            #expect(error.pointer == "/data/title")
        }
    }

    @Test("Atomic results with \"meta\": null")
    func atomicResults() throws {
        let text = #"{"atomic:results": [{"data": {"type": "people", "id": "7", "attributes": {"name": "Ann"}, "meta": null}, "meta": null}], "meta": null}"#
        let results = try JSONAPIDecoder().decodeAtomicResults(from: Data(text.utf8))
        #expect(results == [AtomicResult(data: .resource(ResourceObject(type: "people", id: "7", attributes: ["name": "Ann"])))])
    }
}
