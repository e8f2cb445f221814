import Foundation
import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

/// Links, `Location` and routers take a server's or a user's string through `URL(percentEncoding:)`: raw brackets,
/// spaces and non-ASCII are followed, not refused (as `URL(string:)` refuses them on macOS 13 and iOS 16).
@Suite("Written links become the same URLs everywhere")
struct WrittenURLTests {
    struct Note: Resource {
        static let resourceType = "notes"
        var id: String?
        var text: String
    }

    static func body(_ id: Int, next: String?) -> String {
        let links = next.map { #", "links": {"next": "\#($0)"}"# } ?? ""
        return #"{"data": [{"type": "notes", "id": "\#(id)", "attributes": {"text": "n"}}]\#(links)}"#
    }

    @Test("A next link with raw brackets and a space is followed, encoded")
    func nextLink() async throws {
        let client = ScriptedClient { request in
            request.url.absoluteString.contains("cursor") ? .document(Self.body(2, next: nil))
                : .document(Self.body(1, next: "/v1/notes?page[cursor]=a b&page[size]=1"))
        }
        let notes = Session(baseURL: exampleBase, client: client).source(Note.self, .path("notes/<id>"))
        let first = try await notes.fetch().result()
        let second = try #require(try await first.next())
        #expect(second.data?.first?.id == "2")
        #expect(
            client.requests.last?.url.absoluteString
                == "https://api.example.com/v1/notes?page%5Bcursor%5D=a%20b&page%5Bsize%5D=1")
    }

    @Test("A Location with non-ASCII and brackets reads as the encoded URL")
    func location() async throws {
        let client = ScriptedClient { _ in
            HTTPResponse(
                status: .init(code: 201),
                headerFields: ["Content-Type": "application/vnd.api+json", "Location": "/v1/notes/ñ?v[1]=x"],
                body: Data(#"{"data": {"type": "notes", "id": "ñ", "attributes": {"text": "n"}}}"#.utf8))
        }
        let notes = Session(baseURL: exampleBase, client: client).source(Note.self, .path("notes/<id>"))
        let created = try await notes.create(Note(id: nil, text: "n"))
        #expect(created.location?.absoluteString == "https://api.example.com/v1/notes/%C3%B1?v%5B1%5D=x")
    }

    @Test("A path template with non-ASCII or spaces, relative or absolute, makes the encoded URL")
    func pathTemplate() async throws {
        let client = ScriptedClient { request in
            request.url.absoluteString.hasSuffix("/7")
                ? .document(#"{"data": {"type": "notes", "id": "7", "attributes": {"text": "n"}}}"#)
                : .document(Self.body(1, next: nil))
        }
        let session = Session(baseURL: exampleBase, client: client)
        _ = try await session.source(Note.self, .path("nötes/<id>")).fetch().result()
        #expect(client.requests.last?.url.absoluteString == "https://api.example.com/v1/n%C3%B6tes")
        _ = try await session.source(Note.self, .path("https://other.example.com/all notes/<id>")).fetch(id: "7")
            .result()
        #expect(client.requests.last?.url.absoluteString == "https://other.example.com/all%20notes/7")
    }
}
