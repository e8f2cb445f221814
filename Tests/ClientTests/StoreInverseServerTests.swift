import Foundation
import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

/// Inverse relationships through writes against the test server: a person's live object gains the article created
/// with them as author and loses it when it is deleted, with no request for the person after the first.
@Suite("Store: inverse relationships against the test server")
struct StoreInverseServerTests {
    struct Author: Resource, Equatable {
        static let resourceType = "people"
        var id: String?
        var name: String
        var email: String
        var articles: ToMany<ResourceIdentifier>?
    }

    struct AuthoredArticle: Resource, Equatable {
        static let resourceType = "articles"
        static let inverseRelationships = [InverseRelationship("author", of: Author.self, "articles")]
        var id: String?
        var title: String
        var body: String
        var author: ToOne<Author>?
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A person's live object gains the article created with them as author, and loses it when it is deleted")
    @MainActor
    func liveAuthor() async throws {
        let client = CountingClient(URLSessionClient())
        let api = Session(baseURL: try TestServer.url(), client: client)
        let people = api.source(Author.self, .path("people/<id>"))
        let articles = api.source(AuthoredArticle.self, .path("articles/<id>"))
        let name = "Inverse \(UUID().uuidString.prefix(8))"
        let person = try #require(try await people.create(Author(name: name, email: "inverse@example.com")).data)
        let personID = try #require(person.id)

        let live = people.live(id: personID)
        await live.load()
        #expect(live.resource?.articles?.identifiers == [])

        var article = AuthoredArticle(title: "By \(name)", body: "b")
        article.author = ToOne(identifier: ResourceIdentifier(type: "people", id: personID))
        let created = try #require(try await articles.create(article).data)
        let articleID = try #require(created.id)
        await Observed.until("the person's articles has the new article") {
            live.resource?.articles?.identifiers.map(\.id) == [articleID]
        }

        try await articles.delete(id: articleID)
        await Observed.until("the person's articles is empty again") {
            live.resource?.articles?.identifiers.map(\.id) == []
        }
        // Four requests: the person created and read once, the article created and deleted; none re-reads the person.
        #expect(client.count == 4)
        #expect(await TestServer.statuses(of: "DELETE /articles/\(articleID)", count: 1) == [204])
        #expect(await TestServer.statuses(of: "GET /people/\(personID)", count: 1) == [200])
        try await people.delete(id: personID)
    }
}
