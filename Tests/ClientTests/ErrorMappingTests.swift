import Foundation
import JSONAPIClient
import Testing
import TestSupport

@Suite("Error mapping (scripted transport)")
struct ErrorMappingTests {
    private func source(_ client: ScriptedClient) -> DataSource<Article> {
        DataSource<Article>(baseURL: exampleBase, router: .path("articles/<id>"), client: client)
    }

    @Test("406 and 415 are distinct errors, with the request, status and error objects")
    func notAcceptableAndUnsupported() async throws {
        let body = #"{"errors":[{"status":"406","title":"Not Acceptable"}]}"#
        let e406 = await expectThrows(JSONAPIClientError.self) {
            try await source(ScriptedClient(status: 406, body: body)).fetch(id: "1").result()
        }
        #expect(e406?.code == .notAcceptable)
        #expect(e406?.status == .notAcceptable)
        #expect(e406?.method == .get)
        #expect(e406?.url?.absoluteString == "https://api.example.com/v1/articles/1")
        #expect(e406?.errors.first?.title == "Not Acceptable")
        let e415 = await expectThrows(JSONAPIClientError.self) {
            try await source(ScriptedClient(status: 415, body: #"{"errors":[{"status":"415"}]}"#)).delete(id: "1")
        }
        #expect(e415?.code == .unsupportedMediaType)
        #expect(e415?.method == .delete)
        #expect(e415?.code != e406?.code)
    }

    @Test("An error body with odd members keeps every error object and what each member could be read as")
    func lenientErrorBody() async throws {
        let body = #"""
            {"errors":[{"status":"400","title":"Page size requested is too large.",
            "detail":"You requested a size of 200, but 100 is the maximum.","source":{"parameter":"page[size]"},
            "links":{"type":["https://jsonapi.org/profiles/ethanresnick/cursor-pagination/max-size-exceeded"]},
            "meta":{"page":{"maxSize":100}}},
            {"status":"400","title":"Bad pointer","source":{"pointer":3}}]}
            """#
        let error = await expectThrows(JSONAPIClientError.self) {
            try await source(ScriptedClient(status: 400, body: body)).fetch().result()
        }
        #expect(error?.code == .errorResponse)
        #expect(error?.errors.count == 2)
        #expect(error?.errors.first?.title == "Page size requested is too large.")
        #expect(error?.errors.first?.meta?["page"] == .object(["maxSize": 100]))
        #expect(error?.errors.first?.unreadMembers["/links/type"] != nil)
        #expect(error?.errors.last?.unreadMembers == ["/source/pointer": 3])
        #expect(error?.detail.contains("Page size requested is too large.") == true)
        #expect(error?.responseText == body)
    }

    @Test("An HTML 502 from a proxy keeps its raw body")
    func htmlBadGateway() async throws {
        let html = "<html><body><h1>502 Bad Gateway</h1></body></html>"
        let client = ScriptedClient(status: 502, body: html, headers: ["Content-Type": "text/html"])
        let error = await expectThrows(JSONAPIClientError.self) { try await source(client).fetch().result() }
        #expect(error?.code == .errorResponse)
        #expect(error?.status == .badGateway)
        #expect(error?.errors.isEmpty == true)
        #expect(error?.responseText == html)
        #expect(error?.responseHeaders?[.contentType] == "text/html")
        #expect(error?.description.contains("502 Bad Gateway") == true)
    }

    @Test("A successful response that is not the expected document is a decoding error with its pointer")
    func decodingFailure() async throws {
        let body = #"{"data":{"type":"articles","id":"1","attributes":{"title":5,"body":"b","created":"2024-01-01T00:00:00Z"}}}"#
        let error = await expectThrows(JSONAPIClientError.self) {
            try await source(ScriptedClient(body: body)).fetch(id: "1").result()
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.status == .ok)
        #expect(error?.pointer == "/data/attributes/title")
        #expect(error?.responseText == body)
    }

    @Test("Malformed JSON is a decoding error that keeps the body")
    func malformed() async throws {
        let error = await expectThrows(JSONAPIClientError.self) {
            try await source(ScriptedClient(body: "{\"data\": [")).fetch().result()
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.decodingError != nil)
        #expect(error?.responseText == "{\"data\": [")
    }

    @Test("A 204 where a document is expected is a decoding error, not a crash")
    func emptyBody() async throws {
        let error = await expectThrows(JSONAPIClientError.self) {
            try await source(ScriptedClient(status: 204, body: "")).fetch().result()
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.status == .noContent)
    }

    @Test("A transport failure keeps the underlying error and the request")
    func transportFailure() async throws {
        let client = ScriptedClient { _ in throw URLError(.cannotConnectToHost) }
        let error = await expectThrows(JSONAPIClientError.self) { try await source(client).fetch(id: "2").result() }
        #expect(error?.code == .transportFailed)
        #expect((error?.underlyingError as? URLError)?.code == .cannotConnectToHost)
        #expect(error?.url?.absoluteString == "https://api.example.com/v1/articles/2")
    }

    @Test("Cancellation surfaces as CancellationError")
    func cancellation() async throws {
        let client = ScriptedClient { _ in
            try await Task.sleep(for: .seconds(30))
            return .document("{}")
        }
        let source = source(client)
        let task = Task { try await source.fetch().result() }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let thrown = ScriptedClient { _ in throw CancellationError() }
        await #expect(throws: CancellationError.self) { try await self.source(thrown).fetch().result() }
    }

    @Test("Create: 201 with Location and document, 202 with a job document, 204 without body")
    func writeStatuses() async throws {
        let created = ScriptedClient { request in
            HTTPResponse(
                status: .created,
                headerFields: ["Content-Type": "application/vnd.api+json", "Location": "/v1/articles/9"],
                body: Data(#"{"data":{"type":"articles","id":"9","attributes":{"title":"T","body":"B","created":"2024-01-01T00:00:00Z"}}}"#.utf8))
        }
        let article = Article(id: "", title: "T", body: "B", created: Date(timeIntervalSince1970: 0))
        let response = try await source(created).create(article)
        #expect(response.status == .created)
        #expect(response.location?.absoluteString == "https://api.example.com/v1/articles/9")
        #expect(response.data?.id == "9")
        let sent = try #require(created.requests.first)
        #expect(sent.method == .post)
        #expect(sent.url.absoluteString == "https://api.example.com/v1/articles")
        #expect(sent.headerFields[.contentType] == "application/vnd.api+json")
        #expect(sent.headerFields[.accept] == "application/vnd.api+json")
        let sentBody = String(decoding: sent.body ?? Data(), as: UTF8.self)
        #expect(sentBody.contains(#""title":"T""#))
        #expect(!sentBody.contains(#""id""#))

        let accepted = try await source(ScriptedClient(status: 202, body: #"{"data":{"type":"jobs","id":"j1"},"meta":{"queued":true}}"#)).create(article)
        #expect(accepted.status == .accepted)
        #expect(accepted.document == nil)
        #expect(accepted.rawDocument?.data?.identifiers.first?.type == "jobs")
        #expect(accepted.meta?["queued"] == true)

        let noContent = try await source(ScriptedClient(status: 204, body: "")).create(article)
        #expect(noContent.status == .noContent)
        #expect(noContent.document == nil && noContent.rawDocument == nil)
    }

    @Test("Delete: 200 with meta, 202 with a job document, 204 without body; DELETE to the resource's URL")
    func deleteStatuses() async throws {
        let withMeta = ScriptedClient(status: 200, body: #"{"meta":{"deleted":"4"}}"#)
        let deleted = try await source(withMeta).delete(id: "4")
        #expect(deleted.status == .ok)
        #expect(deleted.meta?["deleted"] == "4")
        #expect(withMeta.requests.first?.method == .delete)
        #expect(withMeta.requests.first?.url.absoluteString == "https://api.example.com/v1/articles/4")
        #expect(withMeta.requests.first?.body == nil)

        let queued = try await source(ScriptedClient(status: 202, body: #"{"data":{"type":"jobs","id":"j2"},"meta":{"eta":5}}"#)).delete(id: "4")
        #expect(queued.status == .accepted)
        #expect(queued.rawDocument?.data?.identifiers.first?.id == "j2")
        #expect(queued.meta?["eta"] == 5)

        let gone = try await source(ScriptedClient(status: 204, body: "")).delete(id: "4")
        #expect(gone.status == .noContent)
        #expect(gone.document == nil && gone.rawDocument == nil)

        let missing = await expectThrows(JSONAPIClientError.self) {
            try await self.source(ScriptedClient(status: 404, body: #"{"errors":[{"status":"404","title":"Not found"}]}"#)).delete(id: "4")
        }
        #expect(missing?.status == .notFound)
        #expect(missing?.errors.first?.title == "Not found")
    }

    @Test("update(model) { edit } sends exactly what the edit changed")
    func updateByEditing() async throws {
        let client = ScriptedClient(status: 204, body: "")
        let article = Article(id: "4", title: "Old", body: "Body", created: Date(timeIntervalSince1970: 0))
        try await source(client).update(article) { $0.title = "New" }
        let sent = try #require(client.requests.first)
        #expect(sent.method == .patch)
        #expect(sent.url.absoluteString == "https://api.example.com/v1/articles/4")
        #expect(String(decoding: sent.body ?? Data(), as: UTF8.self) == #"{"data":{"attributes":{"title":"New"},"id":"4","type":"articles"}}"#)
    }

    @Test("Update sends only the members that were set; null is sent as null")
    func partialUpdate() async throws {
        let client = ScriptedClient(status: 204, body: "")
        var update = ResourceUpdate<Article>(id: "4")
        update.set("title", to: "New")
        update.setRelationship("author", to: nil)
        try await source(client).update(update)
        let sent = try #require(client.requests.first)
        #expect(sent.method == .patch)
        #expect(sent.url.absoluteString == "https://api.example.com/v1/articles/4")
        let body = String(decoding: sent.body ?? Data(), as: UTF8.self)
        #expect(body == #"{"data":{"attributes":{"title":"New"},"id":"4","relationships":{"author":{"data":null}},"type":"articles"}}"#)
    }

    @Test("Media type parameters ext and profile go in Accept and Content-Type")
    func mediaTypeParameters() async throws {
        let client = ScriptedClient(status: 204, body: "")
        let source = DataSource<Article>(
            baseURL: exampleBase, router: .path("articles/<id>"), client: client,
            configuration: .init(mediaType: JSONAPIMediaType(ext: ["https://jsonapi.org/ext/atomic"], profile: ["https://example.com/p1", "https://example.com/p2"])))
        try await source.delete(id: "1")
        _ = try? await source.fetch().mediaType(JSONAPIMediaType(profile: ["urn:other"])).result()
        let first = try #require(client.requests.first)
        #expect(first.headerFields[.accept] == #"application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"; profile="https://example.com/p1 https://example.com/p2""#)
        #expect(client.requests.last?.headerFields[.accept] == #"application/vnd.api+json; profile="urn:other""#)
        #expect(first.headerFields[.contentType] == nil)
    }
}

@Suite("Error documents are read with the session's decoder")
struct ConfiguredErrorDecoderTests {
    /// An error document whose `meta` nests 600 levels deep: past the default decoder's 512, within 1,000.
    static let deepError: String = {
        let depth = 600
        let nested = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        return #"{"errors": [{"status": "422", "title": "Too deep", "meta": \#(nested)}]}"#
    }()

    func error(decoder: JSONAPIDecoder) async -> JSONAPIClientError? {
        let client = ScriptedClient { _ in .document(Self.deepError, status: 422) }
        let session = Session(baseURL: exampleBase, client: client, configuration: .init(decoder: decoder))
        return await expectThrows(JSONAPIClientError.self) {
            try await session.source(ArticleTag.self, .path("tags/<id>")).fetch().result()
        }
    }

    @Test("A session whose decoder reads deeper documents reads a deep error document; the default decoder does not")
    func configuredDepth() async throws {
        let configured = await error(decoder: JSONAPIDecoder(maxNestingDepth: 1_000))
        #expect(configured?.errors.first?.title == "Too deep")
        let plain = await error(decoder: JSONAPIDecoder())
        #expect(plain?.errors.isEmpty == true)
        #expect(plain?.status?.code == 422)
    }
}

/// A screen's view model calls the edit-a-copy update from the main actor, as SwiftUI code does; it must compile in
/// Swift 6 mode (the edit closure is `sending`).
@MainActor
final class MainActorEditor {
    let articles: DataSource<Article>
    var article: Article
    init(articles: DataSource<Article>, article: Article) {
        self.articles = articles
        self.article = article
    }

    func rename(to title: String) async throws {
        try await articles.update(article) { $0.title = title }
    }
}

@Suite("Writes from the main actor")
struct MainActorWriteTests {
    @Test("update(_:_:) with an edit closure, called from the main actor, sends only the change")
    @MainActor
    func editFromMainActor() async throws {
        let client = ScriptedClient { request in
            .document(#"{"data": {"type": "articles", "id": "4", "attributes": {"title": "New", "body": "B", "created": "2023-11-14T22:13:20Z"}}}"#)
        }
        let articles = DataSource<Article>(baseURL: exampleBase, router: .path("articles/<id>"), client: client)
        let editor = MainActorEditor(
            articles: articles, article: Article(id: "4", title: "Old", body: "B", created: Date(timeIntervalSince1970: 0)))
        try await editor.rename(to: "New")
        let body = String(decoding: client.requests.first?.body ?? Data(), as: UTF8.self)
        #expect(body.contains(#""title":"New""#))
        #expect(!body.contains("body"))
    }
}
