import Foundation
import JSONAPIClient
import Testing
import TestSupport

@Suite("Atomic Operations through a DataSource")
struct AtomicOperationsTests {
    func source(_ client: ScriptedClient) -> DataSource<Article> {
        DataSource<Article>(baseURL: exampleBase, router: .path("articles/<id>"), client: client)
    }

    static let operations: [AtomicOperation] = [
        .add(ResourceObject(type: "people", lid: "p1", attributes: ["name": "Ann"])),
        .add(
            ResourceObject(
                type: "articles", attributes: ["title": "Hello"],
                relationships: ["author": Relationship(data: .toOne(ResourceIdentifier(type: "people", lid: "p1")))])),
    ]

    @Test("POST to the operations endpoint with the extension in both media types; results in request order")
    func results() async throws {
        let client = ScriptedClient { _ in
            .document(#"{"atomic:results": [{"data": {"type": "people", "id": "7", "lid": "p1", "attributes": {"name": "Ann"}}}, {"data": {"type": "articles", "id": "8", "attributes": {"title": "Hello"}}}]}"#)
        }
        let results = try await source(client).session.atomic(Self.operations)
        #expect(results.map { $0.data?.resources.first?.id } == ["7", "8"])
        let request = try #require(client.requests.first)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://api.example.com/v1/operations")
        let mediaType = #"application/vnd.api+json; ext="https://jsonapi.org/ext/atomic""#
        #expect(request.headerFields[.contentType] == mediaType)
        #expect(request.headerFields[.accept] == mediaType)
        let body = try #require(request.body)
        #expect(String(decoding: body, as: UTF8.self).hasPrefix(#"{"atomic:operations":[{"data":{"attributes":{"name":"Ann"},"lid":"p1","type":"people"},"op":"add"}"#))
    }

    @Test("204 gives no results; a failed batch points at the failing operation")
    func noContentAndFailure() async throws {
        #expect(try await source(ScriptedClient(status: 204, body: "")).session.atomic(Self.operations).isEmpty)
        let failing = ScriptedClient(
            status: 422,
            body: #"{"errors": [{"status": "422", "title": "Invalid", "source": {"pointer": "/atomic:operations/1/data/attributes/title"}}]}"#)
        let error = await expectThrows(JSONAPIClientError.self) { try await source(failing).session.atomic(Self.operations) }
        #expect(error?.status?.code == 422)
        #expect(error?.errors.first?.source?.pointer == "/atomic:operations/1/data/attributes/title")
    }

    @Test("A 200 must carry one result per operation: none, fewer or more is an error; exactly n and 204 succeed")
    func resultCount() async throws {
        let result = #"{"data": {"type": "people", "id": "7"}}"#
        func answer(_ body: String, status: Int = 200) async throws -> [AtomicResult] {
            try await source(ScriptedClient(status: status, body: body)).session.atomic(Self.operations)
        }
        let missing = await expectThrows(JSONAPIClientError.self) { try await answer(#"{"meta": {"ok": true}}"#) }
        #expect(missing?.code == .decodingFailed)
        #expect(missing?.pointer == "/atomic:results")
        #expect(missing?.detail.contains("atomic:results") == true)
        let empty = await expectThrows(JSONAPIClientError.self) { try await answer("") }
        #expect(empty?.code == .decodingFailed)
        let fewer = await expectThrows(JSONAPIClientError.self) {
            try await answer(#"{"atomic:results": [\#(result)]}"#)
        }
        #expect(fewer?.code == .decodingFailed)
        #expect(fewer?.detail == "HTTP 200 with 1 atomic:results for 2 operations; the extension requires one result per operation")
        let none = await expectThrows(JSONAPIClientError.self) { try await answer(#"{"atomic:results": []}"#) }
        #expect(none?.detail.contains("with 0 atomic:results for 2 operations") == true)
        let more = await expectThrows(JSONAPIClientError.self) {
            try await answer(#"{"atomic:results": [\#(result), {}, {}]}"#)
        }
        #expect(more?.detail.contains("with 3 atomic:results for 2 operations") == true)
        let exact = try await answer(#"{"atomic:results": [\#(result), {}]}"#)
        #expect(exact.count == 2)
        #expect(exact[0].data?.resources.first?.id == "7")
        #expect(exact[1] == AtomicResult())
        #expect(try await answer("", status: 204).isEmpty)
    }
}
