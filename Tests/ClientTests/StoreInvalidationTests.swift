import Foundation
import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

/// A successful create or delete makes the stored lists of its type stale, so that the next list is not missing
/// the new resource or showing the deleted one; a write makes its own URL's stored responses stale.
@Suite("Resource store: writes make stored lists stale")
struct StoreInvalidationTests {
    struct Label: Resource, Equatable {
        static let resourceType = "labels"
        var id: String
        var name: String
    }

    struct Writer: Resource, Equatable {
        static let resourceType = "writers"
        var id: String
        var name: String
    }

    /// Labels and writers in memory, every answer fresh for a minute with an ETag of its content, and a 304 for a
    /// matching `If-None-Match`; a create of a label named "invalid" is refused with 422.
    final class Server: @unchecked Sendable {
        private let lock = NSLock()
        private var labels: [String: String] = ["1": "one", "2": "two"]
        private var next = 3
        private(set) var log: [String] = []

        var requests: [String] { lock.withLock { log } }

        func respond(_ request: HTTPRequest) -> HTTPResponse {
            lock.withLock {
                let path = request.url.path
                log.append("\(request.method.rawValue) \(path)")
                let id = request.url.lastPathComponent
                switch (request.method, path) {
                case (.post, "/v1/labels"):
                    let body = String(decoding: request.body ?? Data(), as: UTF8.self)
                    if body.contains("invalid") { return .document(#"{"errors":[{"status":"422"}]}"#, status: 422) }
                    let name = body.contains("three") ? "three" : "new"
                    labels["\(next)"] = name
                    next += 1
                    return .document(#"{"data":\#(object(id: "\(next - 1)", name: name))}"#, status: 201)
                case (.delete, _):
                    labels[id] = nil
                    return HTTPResponse(status: .noContent)
                case (.patch, _):
                    labels[id] = "patched"
                    return .document(#"{"data":\#(object(id: id, name: "patched"))}"#)
                case (.get, "/v1/labels"):
                    let data = labels.keys.sorted().map { object(id: $0, name: labels[$0] ?? "") }
                    return cacheable(#"{"data":[\#(data.joined(separator: ","))]}"#, request)
                case (.get, "/v1/writers"):
                    return cacheable(#"{"data":[{"type":"writers","id":"1","attributes":{"name":"Ann"}}]}"#, request)
                case (.get, _):
                    return cacheable(#"{"data":\#(object(id: id, name: labels[id] ?? ""))}"#, request)
                default:
                    return HTTPResponse(status: .notFound)
                }
            }
        }

        private func object(id: String, name: String) -> String {
            #"{"type":"labels","id":"\#(id)","attributes":{"name":"\#(name)"}}"#
        }

        private func cacheable(_ body: String, _ request: HTTPRequest) -> HTTPResponse {
            let tag = "\"\(body.hashValue)\""
            let headers: HTTPFields = [.eTag: tag, "Cache-Control": "max-age=60"]
            if request.headerFields[.ifNoneMatch] == tag { return HTTPResponse(status: .notModified, headerFields: headers) }
            var response = HTTPResponse.document(body)
            for field in headers { response.headerFields.append(field) }
            return response
        }
    }

    func names(_ labels: DataSource<Label>, page: String? = nil) async throws -> (ResponseSource, [String]) {
        var request = labels.fetch().cachePolicy(.cacheFirst)
        if let page { request = request.query("page", page) }
        let response = try await request.result()
        return (response.source, (response.data ?? []).map(\.name))
    }

    @Test("A typed create or delete makes every stored list of its type stale: the next list asks the server")
    func typedWrites() async throws {
        let server = Server()
        let api = Session(baseURL: exampleBase, client: ScriptedClient { server.respond($0) })
        let labels = api.source(Label.self, .path("labels/<id>"))
        let writers = api.source(Writer.self, .path("writers/<id>"))
        _ = try await names(labels)
        _ = try await names(labels, page: "2")
        _ = try await writers.fetch().cachePolicy(.cacheFirst).result()
        #expect(try await names(labels).0 == .cache)
        try await labels.create(Label(id: "", name: "three"))
        let afterCreate = try await names(labels)
        #expect(afterCreate.0 == .network)
        #expect(afterCreate.1 == ["one", "two", "three"])
        #expect(try await names(labels, page: "2").0 == .network)  // every list of the type, whatever its query
        #expect(try await writers.fetch().cachePolicy(.cacheFirst).result().source == .cache)  // other types stay
        #expect(try await names(labels).0 == .cache)  // fresh again
        try await labels.delete(id: "1")
        let afterDelete = try await names(labels)
        #expect(afterDelete.0 == .network)
        #expect(afterDelete.1 == ["two", "three"])
    }

    @Test("A failed create makes nothing stale; an update makes its own URL stale, not the list")
    func failedAndUpdate() async throws {
        let server = Server()
        let api = Session(baseURL: exampleBase, client: ScriptedClient { server.respond($0) })
        let labels = api.source(Label.self, .path("labels/<id>"))
        _ = try await names(labels)
        _ = try await labels.fetch(id: "2").result()
        await #expect(throws: JSONAPIClientError.self) { try await labels.create(Label(id: "", name: "invalid")) }
        #expect(try await names(labels).0 == .cache)
        var change = ResourceUpdate<Label>(id: "2")
        change.set("name", to: "patched")
        try await labels.update(change)
        #expect(try await names(labels).0 == .cache)
        let single = try await labels.fetch(id: "2").cachePolicy(.cacheFirst).result()
        #expect(single.source == .network)
        #expect(single.data?.name == "patched")
    }

    @Test("Schema-less writes: a create at a URL and a delete by URL make that collection's stored responses stale")
    func schemaLessWrites() async throws {
        let server = Server()
        let api = Session(baseURL: exampleBase, client: ScriptedClient { server.respond($0) })
        let list = api.fetch(URL(string: "labels")!).cachePolicy(.cacheFirst)
        _ = try await list.result()
        #expect(try await list.result().source == .cache)
        try await api.create(ResourceObject(type: "labels", attributes: ["name": "three"]), at: URL(string: "labels")!)
        #expect(try await list.result().source == .network)
        #expect(try await list.result().source == .cache)
        try await api.delete(URL(string: "labels/3")!)
        let after = try await list.result()
        #expect(after.source == .network)
        if case .resources(let objects) = after.data { #expect(objects.map(\.id) == ["1", "2"]) } else { Issue.record() }
    }
}
