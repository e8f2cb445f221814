import Foundation
import JSONAPIClient
import TestSupport

/// A resource type for endpoints the tests only delete (`/notes/<pk>`).
struct Note: Resource {
    static let resourceType = "notes"
    var id: String
}

/// An article without a title, to provoke the server's validation error.
struct UntitledArticle: Resource {
    static let resourceType = "articles"
    var id: String
    var body: String
}

enum Sources {
    static func articles(configuration: Session.Configuration = .init()) throws -> DataSource<Article> {
        DataSource<Article>(baseURL: try TestServer.url(), router: .path("articles/<id>"), configuration: configuration)
    }

    /// Creates an article for a test that changes it; delete it with `cleanUp`.
    static func createArticle(_ source: DataSource<Article>, title: String = "Client test \(UUID().uuidString)")
        async throws -> Article
    {
        let created = try await source.create(
            Article(id: "", title: title, body: "Created by ClientTests.", created: Date(timeIntervalSince1970: 1_700_000_000)))
        guard let article = created.data else { throw JSONAPIClientError(code: .decodingFailed, detail: "no article") }
        return article
    }
}
