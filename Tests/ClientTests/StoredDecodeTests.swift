import Foundation
@testable import JSONAPIClient
import JSONAPIClientCore
import JSONAPIClientTesting
import Testing
import TestSupport

/// A read the store answers with the body it answered with before takes that body's decode of last time
/// (`StoredDecodes`): never another body's, another type's, or another account's.
@Suite("Reads answered from the store: the stored body decoded once")
struct StoredDecodeTests {
    struct Note: Resource, Equatable {
        static let resourceType = "notes"
        var id: String
        var title: String
    }

    struct Title: Resource, Equatable {
        static let resourceType = "notes"
        var id: String
        var title: String?
    }

    /// A server whose note 1 is titled `title`, fresh for a day.
    final class Server: @unchecked Sendable {
        let lock = NSLock()
        var title = "First"
        func respond(_ request: HTTPRequest) -> HTTPResponse {
            var response = HTTPResponse.document(
                lock.withLock { #"{"data":{"type":"notes","id":"1","attributes":{"title":"\#(title)"}}}"# })
            response.headerFields[HTTPField.Name("Cache-Control")] = "max-age=86400"
            return response
        }
    }

    @Test("A second cacheFirst read of a stored response parses nothing and gives the same document")
    func secondReadParsesNothing() async throws {
        let server = Server()
        let api = Session(baseURL: exampleBase, client: ScriptedClient { server.respond($0) })
        let notes = api.source(Note.self, .path("notes/<id>"))
        let first = try await notes.fetch(id: "1").cachePolicy(.cacheFirst).result()
        let body = Data(#"{"data":{"type":"notes","id":"1","attributes":{"title":"First"}}}"#.utf8)
        let counter = ParseCounter(body)
        let (second, third) = try await ParseCounter.$current.withValue(counter) {
            (
                try await notes.fetch(id: "1").cachePolicy(.cacheFirst).result(),
                try await notes.fetch(id: "1").cachePolicy(.cacheFirst).result()
            )
        }
        #expect(second.source == .cache)
        #expect(second.data == first.data)
        #expect(third.data == first.data)
        #expect(counter.count == 1)  // the first answer from the store decodes the body; the next ones do not
    }

    @Test("A new body, another type or a clear decodes again")
    func otherBodiesDecodeAgain() async throws {
        let server = Server()
        let api = Session(baseURL: exampleBase, client: ScriptedClient { server.respond($0) })
        let store = try #require(api.store)
        let notes = api.source(Note.self, .path("notes/<id>"))
        _ = try await notes.fetch(id: "1").cachePolicy(.cacheFirst).result()
        _ = try await notes.fetch(id: "1").cachePolicy(.cacheFirst).result()  // remembered
        // Another type of the same body: its own decode.
        let title = try await api.source(Title.self, .path("notes/<id>")).fetch(id: "1").cachePolicy(.cacheFirst)
            .result()
        #expect(title.data == Title(id: "1", title: "First"))
        // A new body (fetched again): the new document, never the old one's decode.
        server.lock.withLock { server.title = "Second" }
        _ = try await notes.fetch(id: "1").cachePolicy(.networkOnly).result()
        #expect(try await notes.fetch(id: "1").cachePolicy(.cacheFirst).result().data?.title == "Second")
        // After a clear: nothing stored, so the server answers, and its document is the one shown.
        store.clear()
        server.lock.withLock { server.title = "Third" }
        let cleared = try await notes.fetch(id: "1").cachePolicy(.cacheFirst).result()
        #expect(cleared.source == .network)
        #expect(cleared.data?.title == "Third")
        #expect(try await notes.fetch(id: "1").cachePolicy(.cacheFirst).result().data?.title == "Third")
    }
}
