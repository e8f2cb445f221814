import Foundation
import JSONAPIClient
import Testing
import TestSupport

@Suite("Error documents from the test server")
struct ErrorIntegrationTests {
    @Test("404: the error document's objects, status and request")
    func notFound() async throws {
        let source = try Sources.articles()
        let error = await expectThrows(JSONAPIClientError.self) { try await source.fetch(id: "999999").result() }
        #expect(error?.code == .errorResponse)
        #expect(error?.status == .notFound)
        #expect(error?.errors.first?.status == "404")
        #expect(error?.url?.absoluteString == (try TestServer.url().absoluteString + "/articles/999999"))
        #expect(error?.method == .get)
    }

    @Test("400 validation errors point at the attribute (missing, too long)")
    func validation() async throws {
        let url = try TestServer.url()
        let untitled = DataSource<UntitledArticle>(baseURL: url, router: .path("articles/<id>"))
        let missing = await expectThrows(JSONAPIClientError.self) {
            try await untitled.create(UntitledArticle(id: "", body: "no title"))
        }
        #expect(missing?.status == .badRequest)
        #expect(missing?.errors.first?.source?.pointer == "/data/attributes/title")
        #expect(missing?.method == .post)
        let source = try Sources.articles()
        let tooLong = await expectThrows(JSONAPIClientError.self) {
            try await source.create(Article(id: "", title: String(repeating: "x", count: 201), body: "", created: Date()))
        }
        #expect(tooLong?.code == .errorResponse)
        #expect(tooLong?.errors.first?.source?.pointer == "/data/attributes/title")
    }

    @Test("406 when the Accept header admits no JSON:API")
    func notAcceptable() async throws {
        let error = await expectThrows(JSONAPIClientError.self) {
            try await Sources.articles().fetch(id: "1").header(.accept, "application/json").result()
        }
        #expect(error?.code == .notAcceptable)
        #expect(error?.status == .notAcceptable)
    }

    @Test("415 when the body is not JSON:API")
    func unsupportedMediaType() async throws {
        let error = await expectThrows(JSONAPIClientError.self) {
            try await Sources.articles().create(
                Article(id: "", title: "never created", body: "", created: Date()), headerFields: ["Content-Type": "text/plain"])
        }
        #expect(error?.code == .unsupportedMediaType)
        #expect(error?.status == .unsupportedMediaType)
        #expect(error?.errors.first?.status == "415")
    }
}
