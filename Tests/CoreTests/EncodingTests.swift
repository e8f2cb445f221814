import Foundation
import Testing

@testable import JSONAPIClientCore

@Suite("Encoding")
struct EncodingTests {
    static let dan = Person(id: "9", firstName: "Dan", lastName: "Gebhardt", twitter: "dgeb")
    static let ann = Person(id: "2", firstName: "Ann", lastName: "Other")
    static let articles = [
        Article(
            id: "1", title: "One", author: dan,
            comments: [Comment(id: "5", body: "First!", author: ann), Comment(id: "12", body: "Me too", author: dan)]),
        Article(id: "2", title: "Two", author: dan, comments: []),
    ]

    func json(_ data: Data) throws -> JSONValue { try JSONValue(parsing: [UInt8](data)) }

    @Test("A compound document from models: linkage, included once each, primary data not repeated")
    func compoundDocument() throws {
        let document = Document(data: Self.articles, meta: ["total": 2], links: Links(["self": "/articles"]))
        let data = try JSONAPIEncoder().encode(document)
        let raw = try JSONAPIDecoder().decode(RawDocument.self, from: data)
        // Each related model follows the models it links to.
        #expect(raw.included?.map(\.identifier.description) == ["people/9", "people/2", "comments/5", "comments/12"])
        #expect(raw.data?.resources.map(\.id) == ["1", "2"])
        let first = try #require(raw.data?.resources.first)
        #expect(first.attributes == ["title": "One"])
        #expect(first.relationships?["author"]?.data == .toOne(ResourceIdentifier(type: "people", id: "9")))
        // An empty to-many is [], never null.
        #expect(raw.data?.resources.last?.relationships?["comments"]?.data == .toMany([]))
        #expect(try json(data)["data"]?[1]?["relationships"]?["comments"]?["data"] == [])
        #expect(raw.meta == ["total": 2])

        // And it reads back into the same models.
        let typed = try JSONAPIDecoder().decode(Document<[Article]>.self, from: data)
        #expect(typed.data == Self.articles)
    }

    @Test("Polymorphic relationships encode the wrapped model's type")
    func polymorphic() throws {
        let posts = try JSONAPIDecoder().decode(Document<[Post]>.self, from: Fixture.data("polymorphic"))
        let data = try JSONAPIEncoder().encode(Document(data: posts.data))
        let again = try JSONAPIDecoder().decode(Document<[Post]>.self, from: data)
        #expect(again.data == posts.data)
        let raw = try JSONAPIDecoder().decode(RawDocument.self, from: data)
        #expect(raw.data?.resources.first?.relationships?["attachments"]?.data?.identifiers.map(\.type) == ["images", "videos", "images"])
    }

    @Test("Output is deterministic and sorted")
    func deterministic() throws {
        let document = Document(data: Self.articles)
        let first = try JSONAPIEncoder().encode(document)
        let second = try JSONAPIEncoder().encode(document)
        #expect(first == second)
        let text = String(decoding: try JSONAPIEncoder().encode(RawDocument(data: .identifier(ResourceIdentifier(type: "a", id: "1")), meta: ["z": 1, "a": 2])), as: UTF8.self)
        #expect(text == #"{"data":{"id":"1","type":"a"},"meta":{"a":2,"z":1}}"#)
    }

    struct NewArticle: Resource {
        static let resourceType = "articles"
        var id: String?
        var lid: String?
        var title: String
        var tags: [String]
        var author: ResourceIdentifier?
        var reviewers: [ResourceIdentifier]
    }

    @Test("Create bodies: no id, a client-generated id, or a lid")
    func createBodies() throws {
        let encoder = JSONAPIEncoder()
        let plain = try json(
            encoder.encodeCreateBody(
                for: NewArticle(title: "Hi", tags: ["a"], author: ResourceIdentifier(type: "people", id: "9"), reviewers: [])))
        #expect(
            plain
                == [
                    "data": [
                        "type": "articles", "attributes": ["title": "Hi", "tags": ["a"]],
                        "relationships": [
                            "author": ["data": ["type": "people", "id": "9"]], "reviewers": ["data": []],
                        ],
                    ]
                ])
        let clientID = try json(encoder.encodeCreateBody(for: NewArticle(id: "abc", title: "Hi", tags: [], reviewers: [])))
        #expect(clientID["data"]?["id"] == "abc")
        let local = try json(encoder.encodeCreateBody(for: NewArticle(lid: "tmp-1", title: "Hi", tags: [], reviewers: [])))
        #expect(local["data"]?["lid"] == "tmp-1")
        #expect(local["data"]?["id"] == nil)
    }

    struct Entry: Resource, Equatable {
        static let resourceType = "entries"
        var id: String
        var title: String
        var subtitle: String?
        var viewCount: Int
        var author: Person?
        var tags: [ResourceIdentifier]
    }

    @Test("Updates send only what was set: absent, null and a value are different")
    func updateBodies() throws {
        var update = ResourceUpdate<Entry>(id: "7")
        update.set("title", to: "New")
        update.setNull("subtitle")
        update.set("viewCount", to: 3)
        update.unset("viewCount")
        update.setRelationship("author", to: nil as ResourceIdentifier?)
        update.setRelationship("tags", to: [])
        let body = try json(JSONAPIEncoder(keyStrategy: .kebabCase).encodeUpdateBody(for: update))
        #expect(
            body
                == [
                    "data": [
                        "type": "entries", "id": "7", "attributes": ["title": "New", "subtitle": nil],
                        "relationships": ["author": ["data": nil], "tags": ["data": []]],
                    ]
                ])
    }

    @Test("An update made by editing a model carries exactly the differences")
    func updateFromDiff() throws {
        let entry = Entry(
            id: "7", title: "Old", subtitle: "Sub", viewCount: 1, author: EncodingTests.dan,
            tags: [ResourceIdentifier(type: "tags", id: "1")])
        let update = try ResourceUpdate(from: entry) { entry in
            entry.title = "New"
            entry.subtitle = nil
            entry.author = nil
        }
        let body = try json(JSONAPIEncoder().encodeUpdateBody(for: update))
        #expect(
            body
                == [
                    "data": [
                        "type": "entries", "id": "7", "attributes": ["title": "New", "subtitle": nil],
                        "relationships": ["author": ["data": nil]],
                    ]
                ])
        let nothing = try ResourceUpdate(from: entry) { _ in }
        #expect(nothing.isEmpty)
    }

    @Test("Relationship bodies: identifier, null, [] and identifiers")
    func relationshipBodies() throws {
        let encoder = JSONAPIEncoder()
        #expect(try json(encoder.encodeRelationshipBody(nil as ResourceIdentifier?)) == ["data": nil])
        #expect(
            try json(encoder.encodeRelationshipBody(ResourceIdentifier(type: "people", id: "1")))
                == ["data": ["type": "people", "id": "1"]])
        #expect(try json(encoder.encodeRelationshipBody([])) == ["data": []])
        #expect(
            try json(encoder.encodeRelationshipBody([ResourceIdentifier(type: "tags", id: "1"), ResourceIdentifier(type: "tags", id: "2")]))
                == ["data": [["type": "tags", "id": "1"], ["type": "tags", "id": "2"]]])
    }

    struct Stamp: Resource, Equatable {
        static let resourceType = "stamps"
        var id: String
        var at: Date
        var publishedAt: Date?
    }

    @Test("Date and key strategies round-trip", arguments: [
        DateStrategy.iso8601, .iso8601WithFractionalSeconds, .secondsSince1970, .millisecondsSince1970,
    ])
    func strategiesRoundTrip(dates: DateStrategy) throws {
        let stamp = Stamp(id: "1", at: Date(timeIntervalSince1970: 1_700_000_123), publishedAt: Date(timeIntervalSince1970: -86_400))
        let encoder = JSONAPIEncoder(keyStrategy: .snakeCase, dateStrategy: dates)
        let data = try encoder.encode(Document(data: stamp))
        #expect(try json(data)["data"]?["attributes"]?["published_at"] != nil)
        let decoded = try JSONAPIDecoder(keyStrategy: .snakeCase, dateStrategy: dates).decode(Document<Stamp>.self, from: data)
        #expect(decoded.data == stamp)
    }

    @Test("ISO 8601 text: fractional seconds written when asked, dates before 1970")
    func iso8601Text() {
        #expect(ISO8601.format(Date(timeIntervalSince1970: 1_714_564_800.25), fractionalSeconds: true) == "2024-05-01T12:00:00.250Z")
        #expect(ISO8601.format(Date(timeIntervalSince1970: 1_714_564_800.25), fractionalSeconds: false) == "2024-05-01T12:00:00Z")
        #expect(ISO8601.format(Date(timeIntervalSince1970: -1), fractionalSeconds: false) == "1969-12-31T23:59:59Z")
        #expect(ISO8601.parse("2024-05-01T12:00:00.25Z") == Date(timeIntervalSince1970: 1_714_564_800.25))
        #expect(ISO8601.parse("2024-05-01T14:00:00+02:00") == Date(timeIntervalSince1970: 1_714_564_800))
        #expect(ISO8601.parse("2024-05-01") == nil)
        #expect(ISO8601.parse("2024-13-01T00:00:00Z") == nil)
        #expect(ISO8601.parse("2024-05-01T12:00:00") == Date(timeIntervalSince1970: 1_714_564_800))
        #expect(ISO8601.parse("2024-05-01T12:00:00", localTimes: .rejected) == nil)
        #expect(ISO8601.parse("2024-05-01T12:00:0") == nil)
    }

    @Test("A compound document of new resources links them by lid")
    func localIdentifiers() throws {
        let draft = TypedDecodingTests.Draft(
            lid: "a-1", title: "Draft", author: TypedDecodingTests.NewAuthor(lid: "p-1", name: "New author"))
        let data = try JSONAPIEncoder().encode(Document(data: draft))
        let raw = try JSONAPIDecoder().decode(RawDocument.self, from: data)
        let primary = try #require(raw.data?.resources.first)
        #expect(primary.id == nil)
        #expect(primary.lid == "a-1")
        #expect(primary.relationships?["author"]?.data == .toOne(ResourceIdentifier(type: "people", lid: "p-1")))
        #expect(raw.included == [ResourceObject(type: "people", lid: "p-1", attributes: ["name": "New author"])])
        let again = try JSONAPIDecoder().decode(Document<TypedDecodingTests.Draft>.self, from: data)
        #expect(again.data?.author?.name == "New author")
    }
}
