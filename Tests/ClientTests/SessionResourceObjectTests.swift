import Foundation
import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

/// Writes without a model: `Session.create/update/delete(…at:)` and `relationship(at:)`, and reading any JSON text
/// as a `JSONValue`.
@Suite("Session: resource objects at URLs")
struct SessionResourceObjectTests {
    static let created = #"{"data": {"type": "tags", "id": "9", "attributes": {"name": "swift"}}}"#

    /// The primary data of a request's body.
    static func data(_ request: HTTPRequest?) throws -> PrimaryData? {
        try JSONAPIDecoder().decode(RawDocument.self, from: try #require(request?.body)).data
    }

    @Test("create POSTs the resource object to the URL; relative URLs resolve under the base URL; headers go along")
    func create() async throws {
        let client = ScriptedClient { _ in .document(Self.created, status: 201) }
        let session = Session(baseURL: exampleBase, client: client)
        let response = try await session.create(
            ResourceObject(type: "tags", attributes: ["name": "swift"]), at: try #require(URL(string: "tags")),
            headerFields: ["X-Trace": "1"])
        #expect(response.status.code == 201)
        #expect(response.document?.data?.identifiers.first?.id == "9")
        let request = try #require(client.requests.first)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://api.example.com/v1/tags")
        #expect(request.headerFields["x-trace"] == "1")
        #expect(request.headerFields[.contentType] == "application/vnd.api+json")
        #expect(try Self.data(request) == .resource(ResourceObject(type: "tags", attributes: ["name": "swift"])))
    }

    @Test("update PATCHes only the members the resource object has; delete sends DELETE without a body")
    func updateAndDelete() async throws {
        let client = ScriptedClient { request in
            request.method == .delete ? HTTPResponse(status: 204) : .document(Self.created)
        }
        let session = Session(baseURL: exampleBase, client: client)
        let url = try #require(URL(string: "https://api.example.com/v1/tags/9"))
        try await session.update(ResourceObject(type: "tags", id: "9", attributes: ["name": nil]), at: url)
        let deleted = try await session.delete(url)
        #expect(deleted.status.code == 204)
        #expect(deleted.document == nil)
        #expect(client.requests.map(\.method) == [.patch, .delete])
        #expect(try Self.data(client.requests.first) == .resource(ResourceObject(type: "tags", id: "9", attributes: ["name": nil])))
        #expect(client.requests.last?.body == nil)
    }

    @Test("relationship(at:) changes the endpoint with the given headers; another origin is refused before sending")
    func relationship() async throws {
        let client = ScriptedClient { _ in HTTPResponse(status: 204) }
        let session = Session(baseURL: exampleBase, client: client)
        let endpoint = session.relationship(at: try #require(URL(string: "articles/1/relationships/tags")))
        #expect(try endpoint.url.absoluteString == "https://api.example.com/v1/articles/1/relationships/tags")
        try await endpoint.add([ResourceIdentifier(type: "tags", id: "3")], headerFields: ["X-Trace": "2"])
        try await endpoint.replace(with: nil as ResourceIdentifier?, headerFields: ["X-Trace": "3"])
        #expect(client.requests.map(\.method) == [.post, .patch])
        #expect(client.requests.map { $0.headerFields["x-trace"] } == ["2", "3"])
        #expect(String(decoding: try #require(client.requests.last?.body), as: UTF8.self) == #"{"data":null}"#)

        let elsewhere = try #require(URL(string: "https://evil.example.com/tags/1"))
        let error = await expectThrows(JSONAPIClientError.self) { try await session.delete(elsewhere) }
        #expect(error?.code == .linkRefused)
        await #expect(throws: JSONAPIClientError.self) {
            try await session.relationship(at: elsewhere).remove([ResourceIdentifier(type: "tags", id: "1")])
        }
        #expect(client.requests.count == 2)
    }

    @Test("JSONAPIDecoder.decodeValue reads any JSON text; not JSON is invalidJSON with the offset", arguments: [
        ("5", JSONValue.int(5)), ("true", JSONValue.bool(true)), (#""5""#, JSONValue.string("5")),
        ("[1, null]", [1, nil]), (#"{"a": {"b": 1.5}}"#, ["a": ["b": 1.5]]), (" null ", JSONValue.null),
    ] as [(String, JSONValue)])
    func decodeValue(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONAPIDecoder().decodeValue(from: Data(text.utf8)) == expected)
    }

    @Test("decodeValue refuses what is not JSON, and nesting beyond maxNestingDepth", arguments: ["", "hello", "{", "[1,]", "1 2"])
    func decodeValueRefuses(_ text: String) {
        let error = expectThrows(JSONAPIDecodingError.self) { try JSONAPIDecoder().decodeValue(from: Data(text.utf8)) }
        #expect(error?.code == .invalidJSON)
    }

    @Test("decodeValue stops at maxNestingDepth")
    func decodeValueDepth() throws {
        var decoder = JSONAPIDecoder()
        decoder.maxNestingDepth = 3
        #expect(try decoder.decodeValue(from: Data("[[[1]]]".utf8)) == [[[1]]])
        #expect(throws: JSONAPIDecodingError.self) { try decoder.decodeValue(from: Data("[[[[1]]]]".utf8)) }
    }
}
