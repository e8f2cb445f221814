import Foundation
import Testing

@testable import JSONAPIClientCore

/// The direct writer must give exactly the bytes of the JSON-value path (values with sorted keys).
@Suite("Document writer")
struct DocumentWriterTests {
    private func viaValues(_ document: RawDocument) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(DocumentWriter.value(of: document), sortedKeys: true)
        return writer.bytes
    }

    private func direct(_ document: RawDocument) -> [UInt8] {
        var writer = JSONWriter()
        DocumentWriter.write(document, into: &writer)
        return writer.bytes
    }

    @Test("Every valid fixture writes the same bytes both ways", arguments: Fixture.valid)
    func fixtures(_ name: String) throws {
        let document = try Fixture.raw(name)
        #expect(direct(document) == viaValues(document))
    }

    @Test("Every member of every object, written both ways")
    func everyMember() throws {
        let meta: Meta = ["z": 1, "a": ["nested": [true, nil, 1.5, "x\"y"]], "é": "ü"]
        var link = Link(href: "https://example.com/a?b=c")
        link.rel = "next"
        link.title = "Next"
        link.type = "application/vnd.api+json"
        link.hreflang = ["en", "fr"]
        link.meta = meta
        link.describedBy = Link(href: "https://example.com/schema")
        var single = Link(href: "https://example.com/single")
        single.hreflang = ["de"]
        let links = Links(["self": Link(href: "https://example.com/1"), "related": link, "about": nil, "z": single])
        let identifier = ResourceIdentifier(type: "people", id: "9", lid: "l1", meta: meta)
        let resource = ResourceObject(
            type: "articles", id: "1", lid: "local", attributes: ["title": "T", "count": 3, "empty": [:], "ß": 1],
            relationships: [
                "author": Relationship(data: .toOne(identifier), links: links, meta: meta),
                "editor": Relationship(data: .toOne(nil)),
                "comments": Relationship(data: .toMany([identifier, ResourceIdentifier(type: "c", id: "2")])),
                "tags": Relationship(data: .toMany([])),
                "linksOnly": Relationship(links: links),
            ], links: links, meta: meta)
        var error = ErrorObject()
        error.id = "e"
        error.links = links
        error.status = "422"
        error.code = "invalid"
        error.title = "Invalid"
        error.detail = "Bad"
        var source = ErrorObject.Source()
        source.pointer = "/data"
        source.parameter = "p"
        source.header = "h"
        error.source = source
        error.meta = meta
        var jsonapi = JSONAPIObject()
        jsonapi.version = "1.1"
        jsonapi.ext = ["https://jsonapi.org/ext/atomic"]
        jsonapi.profile = []
        jsonapi.meta = meta
        let documents = [
            RawDocument(
                data: .resources([resource, ResourceObject(type: "bare")]), included: [resource], meta: meta,
                links: links, jsonapi: jsonapi),
            RawDocument(data: .resource(resource)),
            RawDocument(data: .identifier(identifier)),
            RawDocument(data: .identifiers([identifier])),
            RawDocument(data: .null),
            RawDocument(errors: [error, ErrorObject()]),
            RawDocument(meta: [:]),
        ]
        for document in documents { #expect(direct(document) == viaValues(document)) }
    }
}

/// Compound documents of models are written straight from the models: the bytes must be those of writing the
/// document's schema-less form.
@Suite("Models written directly")
struct DirectEncodingTests {
    private func check<Primary: Encodable & Sendable>(
        _ document: Document<Primary>, _ encoder: JSONAPIEncoder = JSONAPIEncoder(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let direct = try encoder.encode(document)
        var writer = JSONWriter()
        DocumentWriter.write(try encoder.rawDocument(document), into: &writer)
        #expect([UInt8](direct) == writer.bytes, sourceLocation: sourceLocation)
    }

    @Test("Articles, polymorphic posts, lids, optionals, classes and every special value")
    func documents() throws {
        let articles = EncodingTests.articles
        try check(Document(data: articles))
        try check(Document(data: articles[0]))
        try check(Document(data: Optional(articles[1])))
        try check(Document(data: [Article]()))
        let posts = try JSONAPIDecoder().decode(Document<[Post]>.self, from: Fixture.data("polymorphic"))
        try check(Document(data: posts.data))
        try check(Document(data: posts.data?.first?.attachments))
        let draft = TypedDecodingTests.Draft(
            lid: "a-1", title: "Draft", author: TypedDecodingTests.NewAuthor(lid: "p-1", name: "New author"))
        try check(Document(data: draft))
        try check(Document(data: [EncodingRoleTests.Entry(), EncodingRoleTests.Entry()]))
        let shared = IncludedOnceTests.Member(id: "7", name: "n", buddy: IncludedOnceTests.Buddy(id: "b", nickname: "x"))
        try check(Document(data: [IncludedOnceTests.Post(id: "1", author: shared), IncludedOnceTests.Post(id: "2", author: nil)]))
        // Primary resources also linked from one another: written once, as primary data.
        let ann = Writer(id: "2", name: "Ann")
        let bob = Writer(id: "3", name: "Bob", bestFriend: ToOne(identifier: nil, resource: ann))
        let cid = Writer(id: "4", name: "Cid", bestFriend: ToOne(identifier: nil, resource: Writer(id: "5", name: "Dee")))
        try check(Document(data: [bob, ann, cid]))
        let raw = try JSONAPIDecoder().decode(RawDocument.self, from: JSONAPIEncoder().encode(Document(data: [bob, ann, cid])))
        #expect(raw.included?.map(\.identifier.description) == ["people/5"])
    }

    @Test("Included resources given with the document, meta, links, jsonapi, errors and strategies")
    func everythingElse() throws {
        var jsonapi = JSONAPIObject()
        jsonapi.version = "1.1"
        var document = Document(
            data: EncodingTests.articles, included: [ResourceObject(type: "extra", id: "x", meta: ["a": 1])],
            meta: ["total": 2], links: Links(["self": Link(href: "/articles")]), jsonapi: jsonapi)
        try check(document)
        try check(document, JSONAPIEncoder(keyStrategy: .snakeCase, dateStrategy: .secondsSince1970))
        document.errors = [ErrorObject()]
        try check(document)
        try check(Document(data: [EncodingRoleTests.Entry()]), JSONAPIEncoder(keyStrategy: .kebabCase))
    }
}
