import Foundation
import Testing

@testable import JSONAPIClientCore

@Suite("Typed decoding")
struct TypedDecodingTests {
    @Test("Relationships resolve from included; a target missing from included gives nil for an optional model")
    func specCompound() throws {
        let document = try JSONAPIDecoder().decode(Document<[Article]>.self, from: Fixture.data("spec-compound"))
        let articles = try #require(document.data)
        #expect(articles.count == 1)
        let article = articles[0]
        #expect(article.title == "JSON:API paints my bikeshed!")
        #expect(article.author == Person(id: "9", firstName: "Dan", lastName: "Gebhardt", twitter: "dgeb"))
        #expect(article.comments.map(\.body) == ["First!", "I like XML better"])
        // people/2 is not included and Person needs names: the optional to-one is nil, not an error.
        #expect(article.comments[0].author == nil)
        #expect(article.comments[1].author?.firstName == "Dan")
        #expect(article.links?.`self`?.href == "http://example.com/articles/1")
        #expect(document.links?.next?.href == "http://example.com/articles?page%5Boffset%5D=2")
        #expect(document.included == nil)
    }

    @Test("ToOne and ToMany keep linkage, resolved resources, links and meta")
    func relationshipWrappers() throws {
        let document = try JSONAPIDecoder().decode(Document<[LinkedArticle]>.self, from: Fixture.data("spec-compound"))
        let article = try #require(document.data?.first)
        #expect(article.author.identifier == ResourceIdentifier(type: "people", id: "9"))
        #expect(article.author.resource?.lastName == "Gebhardt")
        #expect(article.author.links?.`self`?.href == "http://example.com/articles/1/relationships/author")
        #expect(article.comments.identifiers.map(\.id) == ["5", "12"])
        #expect(article.comments.resources.map(\.id) == ["5", "12"])
        #expect(article.comments.links?.related?.href == "http://example.com/articles/1/comments")
    }

    struct PartialArticle: Resource {
        static let resourceType = "articles"
        var id: String
        var title: String
        var author: ToOne<Person>
        var authorID: ResourceIdentifier?
        var comments: ToMany<Comment>

        enum CodingKeys: String, CodingKey {
            case id, title, author, comments
            case authorID = "author_id"
        }
    }

    struct AuthorRef: Resource, Equatable {
        static let resourceType = "people"
        var id: String
        var firstName: String?
    }

    struct ArticleWithRefs: Resource {
        static let resourceType = "articles"
        var id: String
        var author: AuthorRef?
        var comments: [ResourceIdentifier]
    }

    @Test("A relationship missing from included still gives its identifier")
    func missingIncludes() throws {
        let data = try Fixture.data("missing-includes")
        let wrapped = try JSONAPIDecoder().decode(Document<[PartialArticle]>.self, from: data)
        let first = try #require(wrapped.data?.first)
        #expect(first.author.identifier == ResourceIdentifier(type: "people", id: "9"))
        #expect(first.author.resource == nil)
        #expect(first.comments.identifiers.map(\.id) == ["5", "6"])
        #expect(first.comments.resources.map(\.body) == ["Included"])
        let second = try #require(wrapped.data?.last)
        #expect(second.author.identifier == nil)
        #expect(second.author.hasLinkage)
        #expect(second.comments.identifiers.isEmpty)

        // A model that needs only the identifier resolves to it.
        let refs = try JSONAPIDecoder().decode(Document<[ArticleWithRefs]>.self, from: data)
        #expect(refs.data?.first?.author == AuthorRef(id: "9", firstName: nil))
        #expect(refs.data?.first?.comments.map(\.id) == ["5", "6"])
        #expect(refs.data?.last?.author == nil)
    }

    @Test("A to-many of models that cannot be built from a missing include is an error with a pointer")
    func missingIncludeInToMany() throws {
        struct Strict: Resource {
            static let resourceType = "articles"
            var id: String
            var comments: [Comment]
        }
        let error = decodingError([Strict].self, String(decoding: try Fixture.data("missing-includes"), as: UTF8.self))
        #expect(error?.pointer == "/data/0/relationships/comments/data/1")
        #expect(error?.code == .missingMember)
        #expect(error?.detail?.contains("is not in included") == true)
    }

    struct OptionalComments: Resource {
        static let resourceType = "articles"
        var id: String
        var comments: [Comment]?
    }

    @Test("An optional to-many is nil when its targets are not included and cannot be built from identifiers")
    func optionalToMany() throws {
        let missing = try JSONAPIDecoder().decode(Document<[OptionalComments]>.self, from: Fixture.data("missing-includes"))
        #expect(missing.data?.map(\.comments?.count) == [nil, 0])
        let included = try JSONAPIDecoder().decode(Document<[OptionalComments]>.self, from: Fixture.data("spec-compound"))
        #expect(included.data?.first?.comments?.map(\.body) == ["First!", "I like XML better"])
        // A broken included resource is still an error, not a silent nil.
        let broken = decodingError(
            [OptionalComments].self,
            #"{"data": [{"type": "articles", "id": "1", "relationships": {"comments": {"data": [{"type": "comments", "id": "5"}]}}}], "included": [{"type": "comments", "id": "5", "attributes": {"body": 5}}]}"#)
        #expect(broken?.pointer == "/included/0/attributes/body")
    }

    @Test("Cycles (article → author → articles → …) end without recursion or crash")
    func cycles() throws {
        let document = try JSONAPIDecoder().decode(Document<Story>.self, from: Fixture.data("cycles"))
        let story = try #require(document.data)
        #expect(story.title == "First")
        let author = try #require(story.author)
        #expect(author.name == "Dan")
        let stories = try #require(author.articles)
        #expect(stories.map(\.id) == ["1", "2"])
        // Story 1 is being decoded further up: it appears by its identifier alone.
        #expect(stories[0].title == nil)
        #expect(stories[1].title == "Second")
        // Story 2's author is Dan again, already being decoded: a Writer needs a name, so the optional is nil.
        #expect(stories[1].author == nil)
        let friend = try #require(author.bestFriend?.resource)
        #expect(friend.name == "Ann")
        // Ann's best friend is Dan, already being decoded: the linkage stays, the resource cannot be built.
        #expect(friend.bestFriend?.identifier == ResourceIdentifier(type: "people", id: "9"))
        #expect(friend.bestFriend?.resource == nil)
        #expect(friend.articles?.isEmpty == true)
    }

    @Test("maxRelationshipDepth bounds resolution")
    func relationshipDepth() throws {
        let decoder = JSONAPIDecoder(maxRelationshipDepth: 1)
        let document = try decoder.decode(Document<Story>.self, from: Fixture.data("cycles"))
        #expect(document.data?.title == "First")
        // One level deep: the author is decoded from its identifier alone, which a Writer cannot be.
        #expect(document.data?.author == nil)
    }

    @Test("Polymorphic to-one and to-many relationships")
    func polymorphic() throws {
        let document = try JSONAPIDecoder().decode(Document<[Post]>.self, from: Fixture.data("polymorphic"))
        let posts = try #require(document.data)
        #expect(posts.count == 2)
        #expect(posts[0].owner == .person(Member(id: "9", name: "Dan")))
        #expect(posts[1].owner == .organization(Organization(id: "3", name: "Example Corp.", website: URL(string: "https://example.com"))))
        #expect(posts[0].attachments.count == 3)
        #expect(posts[0].attachments[0] == .image(Image(id: "1", url: URL(string: "https://example.com/1.png")!, width: 640)))
        #expect(posts[0].attachments[1] == .video(Video(id: "7", url: URL(string: "https://example.com/7.mp4")!, seconds: 92.5)))
        #expect(posts[1].attachments.isEmpty)
    }

    struct Draft: Resource {
        static let resourceType = "articles"
        var id: String?
        var lid: String?
        var title: String
        var author: NewAuthor?
    }

    struct NewAuthor: Resource {
        static let resourceType = "people"
        var id: String?
        var lid: String?
        var name: String
    }

    @Test("Linkage by lid resolves to the resource with that local id")
    func localIdentifiers() throws {
        let document = try JSONAPIDecoder().decode(Document<Draft>.self, from: Fixture.data("lid"))
        #expect(document.data?.lid == "a-1")
        #expect(document.data?.author?.name == "New author")
        #expect(document.data?.author?.lid == "p-1")
    }

    struct RichArticle: Resource {
        static let resourceType = "articles"
        var id: Int
        var title: String
        var created: Date
        var viewCount: Int
        var rating: Double
        var ratio: Float
        var tags: [String]
        var draft: Bool
        var subtitle: String?
        var missing: String?
        var extra: JSONValue
        var meta: Meta?
        var links: Links?
    }

    @Test("Attributes of every kind, dates, resource meta and links on the model")
    func attributeKinds() throws {
        let document = try JSONAPIDecoder().decode(Document<RichArticle>.self, from: Fixture.data("single-resource"))
        let article = try #require(document.data)
        #expect(article.id == 1)
        #expect(article.created == Date(timeIntervalSince1970: 1_714_564_800))
        #expect(article.viewCount == 1024)
        #expect(article.rating == 4.5)
        #expect(article.ratio == 1)
        #expect(article.tags == ["ruby", "rails"])
        #expect(article.draft == false)
        #expect(article.subtitle == nil)
        #expect(article.missing == nil)
        #expect(article.extra["nested"]?["deep"]?[1] == 2.5)
        #expect(article.meta == ["revision": 3])
        #expect(article.links?.`self`?.hreflang == ["en", "de"])
        #expect(document.jsonapi?.version == "1.1")
        #expect(document.meta?["copyright"] == "Copyright 2024 Example Corp.")
    }

    struct Entry: Resource, Equatable {
        static let resourceType = "entries"
        var id: String
        var viewCount: Int
        var publishedAt: Date
    }

    struct Uppercased: KeyMapping {
        func wireName(for propertyName: String) -> String { propertyName.uppercased() }
    }

    @Test("Key strategies map property names to member names", arguments: [
        (KeyStrategy.kebabCase, "view-count", "published-at"), (.snakeCase, "view_count", "published_at"),
        (.custom(Uppercased()), "VIEWCOUNT", "PUBLISHEDAT"),
    ])
    func keyStrategies(strategy: KeyStrategy, viewCount: String, publishedAt: String) throws {
        let text = """
            {"data": {"type": "entries", "id": "1", "attributes": {"\(viewCount)": 3, "\(publishedAt)": "2024-01-02T03:04:05.250+01:00"}}}
            """
        let document = try decode(Entry.self, text, decoder: JSONAPIDecoder(keyStrategy: strategy))
        #expect(document.data?.viewCount == 3)
        #expect(document.data?.publishedAt == Date(timeIntervalSince1970: 1_704_161_045.25))
    }

    @Test("Date strategies")
    func dateStrategies() throws {
        struct Event: Resource {
            static let resourceType = "events"
            var id: String
            var at: Date
        }
        let seconds = try decode(
            Event.self, #"{"data": {"type": "events", "id": "1", "attributes": {"at": 1700000000}}}"#,
            decoder: JSONAPIDecoder(dateStrategy: .secondsSince1970))
        #expect(seconds.data?.at == Date(timeIntervalSince1970: 1_700_000_000))
        let milliseconds = try decode(
            Event.self, #"{"data": {"type": "events", "id": "1", "attributes": {"at": 1700000000500}}}"#,
            decoder: JSONAPIDecoder(dateStrategy: .millisecondsSince1970))
        #expect(milliseconds.data?.at == Date(timeIntervalSince1970: 1_700_000_000.5))
        let plain = try decode(Event.self, #"{"data": {"type": "events", "id": "1", "attributes": {"at": "2024-02-29T23:59:59Z"}}}"#)
        #expect(plain.data?.at == Date(timeIntervalSince1970: 1_709_251_199))
        let error = decodingError(Event.self, #"{"data": {"type": "events", "id": "1", "attributes": {"at": "2024-02-30T00:00:00Z"}}}"#)
        #expect(error?.pointer == "/data/attributes/at")
        #expect(error?.code == .invalidValue)
        let days = try decode(
            Event.self, #"{"data": {"type": "events", "id": "1", "attributes": {"at": 2}}}"#,
            decoder: JSONAPIDecoder(dateStrategy: .custom(DayNumber())))
        #expect(days.data?.at == Date(timeIntervalSince1970: 172_800))
        let written = try JSONAPIEncoder(dateStrategy: .custom(DayNumber())).resourceObject(for: Event(id: "1", at: Date(timeIntervalSince1970: 259_200)))
        #expect(written.attributes?["at"] == 3)
    }

    /// A custom date strategy: days since 1970 as an integer.
    struct DayNumber: DateTranscoder {
        func decode(_ value: JSONValue) throws -> Date { Date(timeIntervalSince1970: Double(value.intValue ?? 0) * 86_400) }
        func encode(_ date: Date) throws -> JSONValue { .int(Int64(date.timeIntervalSince1970 / 86_400)) }
    }

    @Test("Identifiers, null and meta-only documents as typed primary data")
    func primaryShapes() throws {
        let identifiers = try JSONAPIDecoder().decode(Document<[ResourceIdentifier]>.self, from: Fixture.data("identifiers"))
        #expect(identifiers.data?.map(\.id) == ["2", "3"])
        #expect(identifiers.data?.last?.meta == ["weight": 0.5])
        let one = try JSONAPIDecoder().decode(Document<ResourceIdentifier>.self, from: Fixture.data("to-one-identifier"))
        #expect(one.data == ResourceIdentifier(type: "people", id: "12"))
        let null = try JSONAPIDecoder().decode(Document<Person?>.self, from: Fixture.data("null-data"))
        #expect(null.data == .some(nil))
        let empty = try JSONAPIDecoder().decode(Document<[Article]>.self, from: Fixture.data("empty-collection"))
        #expect(empty.data == [])
        let metaOnly = try JSONAPIDecoder().decode(Document<[Article]>.self, from: Fixture.data("meta-only"))
        #expect(metaOnly.data == nil)
        #expect(metaOnly.meta?["copyright"] != nil)
        let errors = try JSONAPIDecoder().decode(Document<[Article]>.self, from: Fixture.data("errors"))
        #expect(errors.errors?.count == 4)
    }

    @Test("Typed errors name the pointer, what was expected and what was found")
    func typedErrors() {
        let mismatch = decodingError(
            [Article].self,
            #"{"data": [{"type": "articles", "id": "1", "attributes": {"title": "ok"}, "relationships": {"comments": {"data": []}}}, {"type": "articles", "id": "2", "attributes": {"title": 5}}]}"#)
        #expect(mismatch?.pointer == "/data/1/attributes/title")
        #expect(mismatch?.expected == "a string")
        #expect(mismatch?.found == "a number")
        #expect(mismatch?.description == "/data/1/attributes/title: expected a string, found a number")

        let missing = decodingError(Person.self, #"{"data": {"type": "people", "id": "1", "attributes": {"firstName": "A"}}}"#)
        #expect(missing?.pointer == "/data/attributes/lastName")
        #expect(missing?.code == .missingMember)

        let wrongShape = decodingError(
            Article.self, #"{"data": [{"type": "articles", "id": "1", "attributes": {"title": "x"}}]}"#)
        #expect(wrongShape?.pointer == "/data")
        #expect(wrongShape?.found == "an array")

        let duplicate = decodingError(
            [Person].self,
            #"{"data": [{"type": "people", "id": "1", "attributes": {}}], "included": [{"type": "people", "id": "1"}]}"#)
        #expect(duplicate?.pointer == "/included/0")
        #expect(duplicate?.code == .invalidDocument)
    }

    struct Headline: Resource, Equatable {
        static let resourceType = "articles"
        var identifier: String
        var headline: String
        var writer: Person?
        var id: String { identifier }

        enum CodingKeys: String, CodingKey {
            case identifier = "id"
            case headline = "title"
            case writer = "author"
        }
    }

    @Test("Custom CodingKeys rename id, attributes and relationships")
    func customCodingKeys() throws {
        let document = try JSONAPIDecoder().decode(Document<[Headline]>.self, from: Fixture.data("spec-compound"))
        #expect(document.data?.first?.identifier == "1")
        #expect(document.data?.first?.headline == "JSON:API paints my bikeshed!")
        #expect(document.data?.first?.writer?.twitter == "dgeb")
        // And back: the renamed members are written under their member names.
        let raw = try JSONAPIDecoder().decode(RawDocument.self, from: JSONAPIEncoder().encode(Document(data: document.data)))
        #expect(raw.data?.resources.first?.attributes == ["title": "JSON:API paints my bikeshed!"])
        #expect(raw.data?.resources.first?.relationships?["author"]?.data?.identifiers.first?.id == "9")
    }
}
