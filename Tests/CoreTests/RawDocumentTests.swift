import Foundation
import Testing

@testable import JSONAPIClientCore

@Suite("Schema-less documents")
struct RawDocumentTests {
    @Test("The spec's compound document: primary data, linkage, included, links")
    func specCompoundDocument() throws {
        let document = try Fixture.raw("spec-compound")
        let articles = try #require(document.data?.resources)
        #expect(articles.count == 1)
        let article = articles[0]
        #expect(article.type == "articles")
        #expect(article.id == "1")
        #expect(article.attributes?["title"] == "JSON:API paints my bikeshed!")
        #expect(article.links?.`self`?.href == "http://example.com/articles/1")
        let author = try #require(article.relationships?["author"])
        #expect(author.data == .toOne(ResourceIdentifier(type: "people", id: "9")))
        #expect(author.links?.related?.href == "http://example.com/articles/1/author")
        #expect(article.relationships?["comments"]?.data?.identifiers.map(\.id) == ["5", "12"])
        #expect(document.included?.map(\.identifier.description) == ["people/9", "comments/5", "comments/12"])
        #expect(document.links?.next?.href == "http://example.com/articles?page%5Boffset%5D=2")
        #expect(document.links?.prev == nil)
        #expect(document.links?.contains("prev") == false)
    }

    @Test("Link objects, relationship links and meta, identifier meta, jsonapi object, numbers keep their form")
    func singleResourceWithEverything() throws {
        let document = try Fixture.raw("single-resource")
        guard case .resource(let article)? = document.data else {
            Issue.record("expected one resource, got \(String(describing: document.data))")
            return
        }
        let selfLink = try #require(article.links?.`self`)
        #expect(selfLink.href == "http://example.com/articles/1")
        #expect(selfLink.rel == "self")
        #expect(selfLink.title == "Rails is Omakase")
        #expect(selfLink.type == "application/vnd.api+json")
        #expect(selfLink.hreflang == ["en", "de"])
        #expect(selfLink.describedBy?.href == "http://example.com/schemas/article")
        #expect(selfLink.describedBy?.type == "application/schema+json")
        #expect(selfLink.meta == ["etag": "abc"])
        #expect(article.links?["alternate"]?.hreflang == ["en"])
        #expect(article.meta == ["revision": 3])

        let author = try #require(article.relationships?["author"])
        #expect(author.data == .toOne(ResourceIdentifier(type: "people", id: "9", meta: ["role": "lead"])))
        #expect(author.links?.related?.title == "Author")
        #expect(author.links?.related?.meta == ["count": 1])
        #expect(author.meta == ["editable": true])
        let reviewers = try #require(article.relationships?["reviewers"])
        #expect(reviewers.data == nil)
        #expect(reviewers.links?.related?.href == "/articles/1/reviewers")
        #expect(article.relationships?["stats"] == Relationship(meta: ["views": 3]))

        #expect(article.attributes?["viewCount"] == .int(1024))
        #expect(article.attributes?["rating"] == .double(4.5))
        #expect(article.attributes?["ratio"] == .double(1.0))
        #expect(article.attributes?["subtitle"] == .null)
        #expect(article.attributes?["extra"]?["nested"]?["deep"] == [1, 2.5, "x", nil, true])

        #expect(document.jsonapi?.version == "1.1")
        #expect(document.jsonapi?.ext == ["https://jsonapi.org/ext/atomic"])
        #expect(document.jsonapi?.profile == ["http://example.com/profiles/flexible-pagination"])
        #expect(document.jsonapi?.meta == ["build": 42])
        #expect(document.links?.isNull("related") == true)
        #expect(document.links?.related == nil)
        #expect(document.links?.describedBy?.href == "http://example.com/schemas/article-document")
        #expect(document.meta?["authors"] == ["Yehuda Katz", "Steve Klabnik"])
    }

    @Test("data: null, data: [], meta-only")
    func emptyShapes() throws {
        #expect(try Fixture.raw("null-data").data == .null)
        let empty = try Fixture.raw("empty-collection")
        #expect(empty.data == .resources([]))
        #expect(empty.links?.isNull("next") == true)
        let metaOnly = try Fixture.raw("meta-only")
        #expect(metaOnly.data == nil)
        #expect(metaOnly.errors == nil)
        #expect(metaOnly.meta?["copyright"] == "Copyright 2024 Example Corp.")
    }

    @Test("Error objects with every member")
    func errorDocument() throws {
        let document = try Fixture.raw("errors")
        let errors = try #require(document.errors)
        #expect(errors.count == 4)
        let first = errors[0]
        #expect(first.id == "e-1")
        #expect(first.links?.about?.href == "http://example.com/errors/e-1")
        #expect(first.links?["type"]?.href == "http://example.com/errors/types/invalid")
        #expect(first.status == "422")
        #expect(first.code == "too-long")
        #expect(first.title == "Invalid Attribute")
        #expect(first.detail == "Title must contain at most 200 characters.")
        #expect(first.source?.pointer == "/data/attributes/title")
        #expect(first.meta == ["max": 200])
        #expect(errors[1].source?.parameter == "filter[created]")
        #expect(errors[2].source?.header == "Accept-Language")
        #expect(errors[3].description == "Only a title")
        #expect(first.description == "422 too-long: Invalid Attribute — Title must contain at most 200 characters. (at /data/attributes/title)")
        #expect(document.data == nil)
    }

    @Test("Resource identifiers as primary data, with meta")
    func identifiers() throws {
        #expect(
            try Fixture.raw("identifiers").data
                == .identifiers([
                    ResourceIdentifier(type: "tags", id: "2"), ResourceIdentifier(type: "tags", id: "3", meta: ["weight": 0.5]),
                ]))
        #expect(try Fixture.raw("to-one-identifier").data == .identifier(ResourceIdentifier(type: "people", id: "12")))
    }

    @Test("Lenient: numeric id, unknown, extension and @-members ignored; full Int64 range; escapes")
    func lenient() throws {
        let document = try Fixture.raw("lenient")
        let counter = try #require(document.data?.resources.first)
        #expect(counter.id == "42")
        let attributes = try #require(counter.attributes)
        #expect(attributes["small"] == .int(Int64.min))
        #expect(attributes["large"] == .int(Int64.max))
        #expect(attributes["huge"] == .double(1e300))
        #expect(attributes["fraction"] == .double(0.1))
        #expect(attributes["exponent"] == .double(0.002))
        #expect(attributes["one"] == .double(1))
        #expect(attributes["zero"] == .int(0))
        #expect(attributes["unicode"] == "café ☃ 😀")
        #expect(attributes["escaped"] == "tab\tquote\"slash\\/")
    }

    @Test("lid: client-created resources and linkage by local id")
    func localIdentifiers() throws {
        let document = try Fixture.raw("lid")
        let article = try #require(document.data?.resources.first)
        #expect(article.id == nil)
        #expect(article.lid == "a-1")
        #expect(article.relationships?["author"]?.data == .toOne(ResourceIdentifier(type: "people", lid: "p-1")))
        #expect(document.included?.first?.lid == "p-1")
    }

    @Test("A to-many relationship's linkage carries pagination links")
    func paginatedLinkage() throws {
        let document = try Fixture.raw("paginated-linkage")
        let comments = try #require(document.data?.resources.first?.relationships?["comments"])
        #expect(comments.links?.next?.href == "/articles/1/relationships/comments?page%5Bnumber%5D=2")
        #expect(comments.links?.isNull("prev") == true)
        #expect(comments.meta == ["total": 90])
    }

    @Test("Decode → encode → decode gives an equal document", arguments: Fixture.valid)
    func roundTrip(name: String) throws {
        let document = try Fixture.raw(name)
        let encoded = try JSONAPIEncoder().encode(document)
        let again = try JSONAPIDecoder().decode(RawDocument.self, from: encoded)
        #expect(again == document)
        // Pretty output means the same.
        let pretty = try JSONAPIEncoder(outputFormatting: .prettyPrinted).encode(document)
        #expect(try JSONAPIDecoder().decode(RawDocument.self, from: pretty) == document)
    }

    @Test("The model is Codable with Foundation's coders too")
    func foundationCoders() throws {
        // (Foundation's coders do not keep 1.0 apart from 1, so this fixture has no floating-point numbers.)
        let resource = try #require(try Fixture.raw("spec-compound").data?.resources.first)
        let data = try JSONEncoder().encode(resource)
        #expect(try JSONDecoder().decode(ResourceObject.self, from: data) == resource)
        let links = try #require(try Fixture.raw("single-resource").data?.resources.first?.links)
        #expect(try JSONDecoder().decode(Links.self, from: JSONEncoder().encode(links)) == links)
        // Whole documents too, schema-less and typed (related models back in place from `included`).
        let raw = try Fixture.raw("spec-compound")
        #expect(try JSONDecoder().decode(RawDocument.self, from: JSONEncoder().encode(raw)) == raw)
        let typed = try JSONAPIDecoder().decode(Document<[Article]>.self, from: Fixture.data("spec-compound"))
        #expect(try JSONDecoder().decode(Document<[Article]>.self, from: JSONEncoder().encode(typed)) == typed)
    }
}
