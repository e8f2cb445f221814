import Foundation
import JSONAPIClient
import Testing
import TestSupport

@Suite("Relationship endpoints on the test server")
struct RelationshipIntegrationTests {
    @Test("To-one: fetch linkage, replace with an identifier, empty with null")
    func toOne() async throws {
        let source = try Sources.articles()
        let article = try await Sources.createArticle(source)
        let author = source.relationship("author", of: article.id)
        #expect(try await author.fetchToOne().result().data == .some(nil))

        try await author.replace(with: ResourceIdentifier(type: "people", id: "2"))
        #expect(try await author.fetchToOne().result().data == ResourceIdentifier(type: "people", id: "2"))
        #expect(try await source.fetch(id: article.id).include("author").result().data?.author?.name == "Person 2")

        try await author.replace(with: nil)
        let emptied = try await author.fetchToOne().result()
        #expect(emptied.data == .some(nil))
        #expect(emptied.links?.`self` != nil)
        try await source.delete(id: article.id)
    }

    @Test("To-many: replace, add to, remove from")
    func toMany() async throws {
        let source = try Sources.articles()
        let article = try await Sources.createArticle(source)
        let tags = source.relationship("tags", of: article.id)
        func ids() async throws -> [String] {
            try await tags.fetchToMany().result().data?.compactMap(\.id).sorted() ?? []
        }
        #expect(try await ids() == [])
        try await tags.replace(with: [ResourceIdentifier(type: "tags", id: "1"), ResourceIdentifier(type: "tags", id: "2")])
        #expect(try await ids() == ["1", "2"])
        try await tags.add([ResourceIdentifier(type: "tags", id: "3")])
        #expect(try await ids() == ["1", "2", "3"])
        try await tags.remove([ResourceIdentifier(type: "tags", id: "1")])
        #expect(try await ids() == ["2", "3"])
        try await tags.replace(with: [])
        #expect(try await ids() == [])
        try await source.delete(id: article.id)
    }

    @Test("A forbidden full replacement is a 403 error document")
    func forbidden() async throws {
        let source = try Sources.articles()
        let article = try await Sources.createArticle(source)
        let error = await expectThrows(JSONAPIClientError.self) {
            try await source.relationship("comments", of: article.id).replace(with: [])
        }
        #expect(error?.status == .forbidden)
        #expect(error?.method == .patch)
        #expect(error?.errors.isEmpty == false)
        try await source.delete(id: article.id)
    }

    @Test("Seeded linkage reads without changing anything")
    func seeded() async throws {
        let comments = try await Sources.articles().relationship("comments", of: "10").fetchToMany().result()
        #expect(comments.data?.map(\.id) == ["19", "20"])
        #expect(comments.data?.allSatisfy { $0.type == "comments" } == true)
    }
}
