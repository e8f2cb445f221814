import Foundation
import JSONAPIClient
import Testing
import TestSupport

@Suite("Writing to the test server")
struct WriteIntegrationTests {
    @Test("create → 201 + Location; update (only the set members) → 200; delete → 204; then 404")
    func lifecycle() async throws {
        let source = try Sources.articles()
        let title = "Client test \(UUID().uuidString)"
        let created = try await source.create(
            Article(id: "", title: title, body: "Original body.", created: Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(created.status == .created)
        let article = try #require(created.data)
        #expect(article.title == title)
        #expect(created.location?.absoluteString == (try TestServer.url().absoluteString + "/articles/" + article.id))

        var change = ResourceUpdate<Article>(id: article.id)
        change.set("title", to: title + " (edited)")
        let updated = try await source.update(change)
        #expect(updated.status == .ok)
        #expect(updated.data?.title == title + " (edited)")
        #expect(updated.data?.body == "Original body.")
        #expect(updated.data?.created == Date(timeIntervalSince1970: 1_700_000_000))

        let fetched = try await source.fetch(id: article.id).result()
        #expect(fetched.data?.title == title + " (edited)")

        let deleted = try await source.delete(id: article.id)
        #expect(deleted.status == .noContent)
        #expect(deleted.document == nil)
        let gone = await expectThrows(JSONAPIClientError.self) { try await source.fetch(id: article.id).result() }
        #expect(gone?.status == .notFound)
    }

    @Test("create with relationships; update from an edited copy")
    func relationships() async throws {
        let source = try Sources.articles()
        let author = Person(id: "4", name: "Person 4", email: "person4@example.com")
        var model = Article(id: "", title: "Client test \(UUID().uuidString)", body: "b", created: Date(timeIntervalSince1970: 1_700_000_000))
        model.author = author
        let created = try #require(try await source.create(model).data)
        let withAuthor = try await source.fetch(id: created.id).include("author").result()
        #expect(withAuthor.data?.author?.name == "Person 4")

        let current = try #require(withAuthor.data)
        let change = try ResourceUpdate(from: current) { $0.body = "changed" }
        let updated = try await source.update(change)
        #expect(updated.data?.body == "changed")
        #expect(updated.data?.title == created.title)
        try await source.delete(id: created.id)
    }

    @Test("delete → 200 with meta")
    func deleteWithMeta() async throws {
        let notes = DataSource<Note>(baseURL: try TestServer.url(), router: .path("notes/<id>"))
        let response = try await notes.delete(id: "7")
        #expect(response.status == .ok)
        #expect(response.meta?["deleted"] == "7")
    }
}
