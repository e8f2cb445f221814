import Foundation
@testable import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

/// Creating a graph of new resources in one call, against scripted transports: the order of the requests, what each
/// carries, atomic or not, failures part-way, and local ids replaced in the store and in later writes.
/// (ResourceGraphServerTests does it against the real server.)
@Suite("Resource graphs")
struct ResourceGraphTests {
    /// A server that creates whatever is posted to a collection: a new id per resource (`<type>-<n>`), the resource
    /// echoed with its attributes and relationships. `failing` collections answer 422; `status` overrides 201.
    final class CreatingServer: @unchecked Sendable {
        private let lock = NSLock()
        private var next = 0
        var failing: Set<String> = []
        var status = 201
        var atomicStatus: Int?

        lazy var client = ScriptedClient { [unowned self] request in self.respond(request) }

        /// The posted bodies' JSON values, in order.
        var bodies: [[String: JSONValue]] {
            client.requests.compactMap { request in
                request.body.flatMap { try? JSONAPIDecoder().decodeValue(from: $0).objectValue }
            }
        }

        /// The request lines: `POST /v1/people`.
        var lines: [String] { client.requests.map { "\($0.method.rawValue) \($0.url.path)" } }

        private func newID(_ type: String) -> String {
            lock.withLock {
                next += 1
                return "\(type)-\(next)"
            }
        }

        private func respond(_ request: HTTPRequest) -> HTTPResponse {
            guard let body = request.body, let value = try? JSONAPIDecoder().decodeValue(from: body).objectValue else {
                return .document("", status: 400)
            }
            let type = request.url.lastPathComponent
            if type == "operations" {
                if let atomicStatus {
                    return .document(
                        #"{"errors":[{"status":"\#(atomicStatus)","source":{"pointer":"/atomic:operations/1/data/attributes/title"}}]}"#,
                        status: atomicStatus)
                }
                let results = (value["atomic:operations"]?.arrayValue ?? []).map { operation -> String in
                    #"{"data":\#(created(operation.objectValue?["data"]?.objectValue ?? [:]))}"#
                }
                return .document(#"{"atomic:results":[\#(results.joined(separator: ","))]}"#)
            }
            if failing.contains(type) {
                return .document(#"{"errors":[{"status":"422","title":"Invalid","detail":"no \#(type) today"}]}"#, status: 422)
            }
            if status == 204 { return .document("", status: 204) }
            guard let data = value["data"]?.objectValue else { return .document("", status: 400) }
            return .document(#"{"data":\#(created(data))}"#, status: status)
        }

        /// The resource object the server creates from `data`: a new id, no lid, the rest as sent.
        private func created(_ data: [String: JSONValue]) -> String {
            var object = data
            object["lid"] = nil
            object["id"] = .string(newID(data["type"]?.stringValue ?? "?"))
            var writer = [String]()
            for (key, value) in object.sorted(by: { $0.key < $1.key }) { writer.append("\"\(key)\":\(Self.json(value))") }
            return "{" + writer.joined(separator: ",") + "}"
        }

        static func json(_ value: JSONValue) -> String {
            switch value {
            case .null: "null"
            case .bool(let flag): flag ? "true" : "false"
            case .int(let number): String(number)
            case .double(let number): String(number)
            case .number(let number): number.description
            case .string(let text): "\"\(text)\""
            case .array(let elements): "[" + elements.map(json).joined(separator: ",") + "]"
            case .object(let members):
                "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\(json($0.value))" }.joined(separator: ",") + "}"
            }
        }
    }

    static let atomicMediaType = JSONAPIMediaType(ext: [AtomicOperation.extensionURI])

    /// A new resource that names another (or itself) by local id.
    struct Node: Resource {
        static let resourceType = "nodes"
        var id: String?
        var lid: String?
        var next: ResourceIdentifier?
    }

    func session(_ server: CreatingServer, atomic: Bool = false) -> Session {
        Session(
            baseURL: exampleBase, client: server.client,
            configuration: .init(mediaType: atomic ? Self.atomicMediaType : JSONAPIMediaType()))
    }

    /// An article added before its new author and tags, which it names by local id.
    static func articleGraph() -> ResourceGraph {
        let author = NewPerson(lid: "p1", name: "Ann")
        let tags = [NewTag(lid: "t1", name: "swift"), NewTag(lid: "t2", name: "graphs")]
        var graph = ResourceGraph()
        graph.add(NewArticle(lid: "a1", title: "Hello", author: author, tags: tags))
        graph.add(author)
        graph.add(tags)
        return graph
    }

    /// The linkage `name` of a posted body's primary resource.
    static func linkage(_ body: [String: JSONValue], _ name: String) -> JSONValue? {
        body["data"]?.objectValue?["relationships"]?.objectValue?[name]?.objectValue?["data"]
    }

    // MARK: Ordered requests

    @Test("Without the extension: one POST per resource, dependencies first, each naming the earlier ones by id")
    func orderedRequests() async throws {
        let server = CreatingServer()
        let result = try await session(server).create(Self.articleGraph())
        #expect(!result.isAtomic)
        #expect(server.lines == ["POST /v1/people", "POST /v1/tags", "POST /v1/tags", "POST /v1/articles"])
        let article = try #require(server.bodies.last)
        #expect(Self.linkage(article, "author") == .object(["type": "people", "id": "people-1"]))
        #expect(Self.linkage(article, "tags") == .array([
            .object(["type": "tags", "id": "tags-2"]), .object(["type": "tags", "id": "tags-3"]),
        ]))
        // Each resource is sent without its local id (a server without the extension may refuse the member) and
        // without an id.
        #expect(server.bodies.allSatisfy { $0["data"]?.objectValue?.keys.contains("lid") == false })
        #expect(article["data"]?.objectValue?["id"] == nil)
        #expect(result.created.map(\.id) == ["people-1", "tags-2", "tags-3", "articles-4"])
        #expect(result.created.map(\.lid) == ["p1", "t1", "t2", "a1"])
        #expect(result.id(NewArticle.self, lid: "a1") == "articles-4")
        #expect(result.id(type: "tags", lid: "t2") == "tags-3")
        #expect(result.id(type: "tags", lid: "a1") == nil)
        let created = try #require(try result.created(NewArticle.self, lid: "a1"))
        #expect(created.id == "articles-4")
        #expect(created.author?.id == "people-1")
        #expect(created.author?.name == "Ann")
        #expect(created.tags.map(\.name) == ["swift", "graphs"])
        #expect(try result.created(NewArticle.self, lid: "nope") == nil)
    }

    @Test("The graph's order stands where no relationship decides; a chain is created from its end")
    func stableOrder() async throws {
        let server = CreatingServer()
        let first = NewTag(lid: "x", name: "x")
        let person = NewPerson(lid: "p", name: "Bo")
        var graph = ResourceGraph()
        graph.add(NewComment(lid: "c", body: "hi", article: NewArticle(lid: "a", title: "T", author: person)))
        graph.add(NewArticle(lid: "a", title: "T", author: person))
        graph.add(first)
        graph.add(person)
        _ = try await session(server).create(graph)
        #expect(server.lines == ["POST /v1/tags", "POST /v1/people", "POST /v1/articles", "POST /v1/comments"])
        #expect(Self.linkage(server.bodies[3], "article") == .object(["type": "articles", "id": "articles-3"]))
    }

    @Test("Step k fails: the error lists what was created (type, lid, id), what failed, what was not sent")
    func orderedFailure() async throws {
        let server = CreatingServer()
        server.failing = ["articles"]
        let api = session(server)
        var graph = Self.articleGraph()
        graph.add(NewComment(lid: "c1", body: "first", article: NewArticle(lid: "a1", title: "Hello")))
        let error = await expectThrows(ResourceGraphError.self) { try await api.create(graph) }
        #expect(error?.code == .requestFailed)
        #expect(error?.created.map { "\($0.type) \($0.lid ?? "-") \($0.id)" } == [
            "people p1 people-1", "tags t1 tags-2", "tags t2 tags-3",
        ])
        #expect(error?.failed == ResourceIdentifier(type: "articles", lid: "a1"))
        #expect(error?.notCreated == [ResourceIdentifier(type: "comments", lid: "c1")])
        #expect(error?.clientError?.status?.code == 422)
        #expect(error?.clientError?.errors.first?.detail == "no articles today")
        #expect(server.lines.count == 4)
        // Nothing created is forgotten: the store has them, and the session their local ids.
        #expect(api.store?.record(type: "people", id: "people-1")?.attributes?["name"] == "Ann")
        #expect(api.store?.record(type: "tags", id: "tags-3") != nil)
        #expect(api.localIDs.id(type: "tags", lid: "t2", clears: 0) == "tags-3")
        #expect(api.localIDs.id(type: "articles", lid: "a1", clears: 0) == nil)
        #expect(error?.description.contains("created: people/lid:p1 → people-1") == true)
        #expect(error?.description.contains("not created: comments/lid:c1") == true)
    }

    @Test("The first request fails: nothing created, everything else not sent")
    func firstFails() async throws {
        let server = CreatingServer()
        server.failing = ["people"]
        let error = await expectThrows(ResourceGraphError.self) { try await session(server).create(Self.articleGraph()) }
        #expect(error?.created == [])
        #expect(error?.failed == ResourceIdentifier(type: "people", lid: "p1"))
        #expect(error?.notCreated.count == 3)
        #expect(server.lines == ["POST /v1/people"])
    }

    @Test("A 202 without the id: that resource is unconfirmed and those that name it are not sent")
    func accepted() async throws {
        let server = CreatingServer()
        server.status = 202
        let error = await expectThrows(ResourceGraphError.self) { try await session(server).create(Self.articleGraph()) }
        #expect(error?.code == .idNotReturned)
        #expect(error?.unconfirmed == [ResourceIdentifier(type: "people", lid: "p1")])
        #expect(error?.notCreated.count == 3)
        #expect(server.lines.count == 1)
    }

    @Test("A 204 to a resource with a client-generated id creates it as sent; without one the id is not known")
    func noContent() async throws {
        let server = CreatingServer()
        server.status = 204
        var graph = ResourceGraph()
        graph.add(NewTag(id: "uuid-1", lid: "t1", name: "mine"))
        let result = try await session(server).create(graph)
        #expect(result.created.map(\.id) == ["uuid-1"])
        #expect(result.created.first?.resource.attributes?["name"] == "mine")

        var unnamed = ResourceGraph()
        unnamed.add(NewTag(lid: "t2", name: "theirs"))
        let error = await expectThrows(ResourceGraphError.self) { try await session(server).create(unnamed) }
        #expect(error?.code == .idNotReturned)
    }

    @Test("A cancelled graph reports what it created before the cancellation")
    func cancelled() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let client = ScriptedClient { request in
            if request.url.lastPathComponent == "people" {
                return .document(#"{"data":{"type":"people","id":"9","attributes":{"name":"Ann"}}}"#, status: 201)
            }
            gate.continuation.yield()
            try await Task.sleep(for: .seconds(30))
            return .document("", status: 500)
        }
        let api = Session(baseURL: exampleBase, client: client)
        let second = StreamProbe(gate.stream)
        let task = Task { try await api.create(Self.articleGraph()) }
        #expect(await second.next() != nil)   // the second request is on its way (bounded: 10 s)
        task.cancel()
        let error = await expectThrows(ResourceGraphError.self) { try await task.value }
        #expect(error?.created.map(\.id) == ["9"])
        #expect(error?.underlyingError is CancellationError)
        #expect(error?.failed == ResourceIdentifier(type: "tags", lid: "t1"))
    }

    // MARK: Before anything is sent

    @Test("A cycle among new resources is refused before anything is sent")
    func cycle() async throws {
        let server = CreatingServer()
        var graph = ResourceGraph()
        graph.add(Node(lid: "a", next: ResourceIdentifier(type: "nodes", lid: "b")))
        graph.add(Node(lid: "b", next: ResourceIdentifier(type: "nodes", lid: "c")))
        graph.add(Node(lid: "c", next: ResourceIdentifier(type: "nodes", lid: "a")))
        graph.add(Node(lid: "d", next: ResourceIdentifier(type: "nodes", lid: "d")))   // itself: one request, fine
        for atomic in [false, true] {
            let error = await expectThrows(ResourceGraphError.self) { try await session(server, atomic: atomic).create(graph) }
            #expect(error?.code == .cycle)
            #expect(error?.failed == ResourceIdentifier(type: "nodes", lid: "a"))
            #expect(error?.detail.contains("nodes/lid:a, nodes/lid:b, nodes/lid:c") == true)
            #expect(error?.detail.contains("lid:d") == false)
            // The failed resource is not among those not created.
            #expect(error?.notCreated == ["b", "c", "d"].map { ResourceIdentifier(type: "nodes", lid: $0) })
        }
        #expect(server.lines.isEmpty)
    }

    @Test("Two resources with one local id, and a relationship to an unknown local id, are refused unsent")
    func naming() async throws {
        let server = CreatingServer()
        var twice = ResourceGraph()
        twice.add(NewTag(lid: "t1", name: "a"))
        twice.add(NewPerson(lid: "p1", name: "Bo"))
        twice.add(NewTag(lid: "t1", name: "b"))
        let duplicate = await expectThrows(ResourceGraphError.self) { try await session(server).create(twice) }
        #expect(duplicate?.code == .duplicateLocalID)
        #expect(duplicate?.failed == ResourceIdentifier(type: "tags", lid: "t1"))
        // `failed` names both resources with the local id; neither is listed again.
        #expect(duplicate?.notCreated == [ResourceIdentifier(type: "people", lid: "p1")])

        var sameID = ResourceGraph()
        sameID.add(NewTag(id: "7", lid: nil, name: "a"))
        sameID.add(NewTag(id: "8", lid: nil, name: "c"))
        sameID.add(NewTag(id: "7", lid: nil, name: "b"))
        let clientIDs = await expectThrows(ResourceGraphError.self) { try await session(server).create(sameID) }
        #expect(clientIDs?.code == .duplicateLocalID)
        #expect(clientIDs?.failed == ResourceIdentifier(type: "tags", id: "7"))
        #expect(clientIDs?.notCreated == [ResourceIdentifier(type: "tags", id: "8")])

        var sameLidOtherType = ResourceGraph()
        sameLidOtherType.add(NewTag(lid: "x", name: "a"))
        sameLidOtherType.add(NewPerson(lid: "x", name: "Bo"))
        _ = try await session(server).create(sameLidOtherType)   // a local id is unique per type
        #expect(server.lines.count == 2)

        var unknown = ResourceGraph()
        unknown.add(NewTag(lid: "t1", name: "a"))
        unknown.add(NewArticle(lid: "a1", title: "T", author: NewPerson(lid: "ghost", name: "G")))
        let missing = await expectThrows(ResourceGraphError.self) { try await session(server).create(unknown) }
        #expect(missing?.code == .unknownLocalID)
        #expect(missing?.failed == ResourceIdentifier(type: "articles", lid: "a1"))
        #expect(missing?.notCreated == [ResourceIdentifier(type: "tags", lid: "t1")])
        #expect(missing?.detail.contains("\"author\" of articles/lid:a1 names people/lid:ghost") == true)
        #expect(server.lines.count == 2)
    }

    @Test("A resource that cannot be encoded is refused unsent; an empty graph sends nothing")
    func invalid() async throws {
        struct Broken: Resource {
            static let resourceType = "broken"
            var id: String?
            var lid: String?
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "no"))
            }
        }
        let server = CreatingServer()
        var graph = ResourceGraph()
        graph.add(NewTag(lid: "t", name: "ok"))
        graph.add(Broken(lid: "b"))
        #expect(graph.count == 2)
        let error = await expectThrows(ResourceGraphError.self) { try await session(server).create(graph) }
        #expect(error?.code == .invalidResource)
        #expect(error?.failed == ResourceIdentifier(type: "broken", lid: "b"))
        #expect(error?.notCreated == [ResourceIdentifier(type: "tags", lid: "t")])
        #expect(error?.underlyingError is EncodingError)
        let empty = try await session(server).create(ResourceGraph())
        #expect(empty.created.isEmpty)
        #expect(server.lines.isEmpty)
    }

    @Test("A router that cannot place a resource fails the graph before the first request")
    func unroutable() async throws {
        let server = CreatingServer()
        var graph = ResourceGraph()
        graph.add(NewTag(lid: "t", name: "ok"))
        graph.add(NewPerson(lid: "p", name: "Bo"), .path("people?x=1"))
        let error = await expectThrows(ResourceGraphError.self) { try await session(server).create(graph) }
        #expect(error?.code == .invalidResource)
        #expect(error?.notCreated == [ResourceIdentifier(type: "tags", lid: "t")])
        #expect(server.lines.isEmpty)
    }

    // MARK: Atomic Operations

    @Test("With the extension declared: one atomic request, adds in dependency order, lids left for the server")
    func atomic() async throws {
        let server = CreatingServer()
        let api = session(server, atomic: true)
        let result = try await api.create(Self.articleGraph())
        #expect(result.isAtomic)
        #expect(server.lines == ["POST /v1/operations"])
        let request = try #require(server.client.requests.first)
        #expect(request.headerFields[.contentType] == #"application/vnd.api+json; ext="https://jsonapi.org/ext/atomic""#)
        let operations = try #require(server.bodies.first?["atomic:operations"]?.arrayValue)
        #expect(operations.map { $0.objectValue?["op"] } == ["add", "add", "add", "add"])
        let data = operations.map { $0.objectValue?["data"]?.objectValue ?? [:] }
        #expect(data.map { $0["lid"] } == ["p1", "t1", "t2", "a1"])
        #expect(data[3]["relationships"]?.objectValue?["author"]?.objectValue?["data"] == .object(["type": "people", "lid": "p1"]))
        #expect(result.created.map(\.id) == ["people-1", "tags-2", "tags-3", "articles-4"])
        #expect(try result.created(NewPerson.self, lid: "p1")?.name == "Ann")
        // The atomic results reach the store like any write's.
        #expect(api.store?.record(type: "articles", id: "articles-4")?.attributes?["title"] == "Hello")
        #expect(api.localIDs.id(type: "articles", lid: "a1", clears: 0) == "articles-4")
    }

    @Test("An atomic request the server refuses creates nothing; the error points at the failing resource")
    func atomicFailure() async throws {
        let server = CreatingServer()
        server.atomicStatus = 422
        let error = await expectThrows(ResourceGraphError.self) { try await session(server, atomic: true).create(Self.articleGraph()) }
        #expect(error?.code == .requestFailed)
        #expect(error?.created == [])
        #expect(error?.failed == ResourceIdentifier(type: "tags", lid: "t1"))   // operation 1
        #expect(error?.notCreated.count == 3)
        #expect(error?.clientError?.status?.code == 422)
        #expect(server.lines == ["POST /v1/operations"])
    }

    @Test("415 or 406 on the atomic attempt: the server does not apply the extension, so ordered requests follow",
          arguments: [415, 406])
    func fallback(status: Int) async throws {
        let server = CreatingServer()
        server.atomicStatus = status
        let result = try await session(server, atomic: true).create(Self.articleGraph())
        #expect(!result.isAtomic)
        #expect(server.lines == ["POST /v1/operations", "POST /v1/people", "POST /v1/tags", "POST /v1/tags", "POST /v1/articles"])
        #expect(result.id(type: "articles", lid: "a1") == "articles-4")
        // The plain creates do not apply the extension, so they do not carry it.
        #expect(server.client.requests.dropFirst().map { $0.headerFields[.contentType] } == Array(repeating: "application/vnd.api+json", count: 4))
    }

    @Test("A session remembers that the server refused the extension: its next graph goes straight to ordered POSTs",
          arguments: [415, 406])
    func refusalRemembered(status: Int) async throws {
        let server = CreatingServer()
        server.atomicStatus = status
        let api = session(server, atomic: true)
        _ = try await api.create(Self.articleGraph())
        #expect(server.client.requests.count == 5)
        let second = try await api.create(Self.articleGraph())
        #expect(!second.isAtomic)
        #expect(server.lines.dropFirst(5) == ["POST /v1/people", "POST /v1/tags", "POST /v1/tags", "POST /v1/articles"])
        // Another operations endpoint of the same session is still tried.
        server.atomicStatus = nil
        let elsewhere = try await api.create(Self.articleGraph(), operationsPath: "other/operations")
        #expect(elsewhere.isAtomic)
        #expect(server.lines.last == "POST /v1/other/operations")
        // A failure that is not a refusal of the extension is not remembered.
        let refused = CreatingServer()
        refused.atomicStatus = 422
        let other = session(refused, atomic: true)
        _ = await expectThrows(ResourceGraphError.self) { try await other.create(Self.articleGraph()) }
        refused.atomicStatus = nil
        #expect(try await other.create(Self.articleGraph()).isAtomic)
        #expect(refused.lines == ["POST /v1/operations", "POST /v1/operations"])
    }

    @Test("A resource that names itself by its local id keeps the local id in its ordered POST")
    func namesItself() async throws {
        let server = CreatingServer()
        var graph = ResourceGraph()
        graph.add(Node(lid: "d", next: ResourceIdentifier(type: "nodes", lid: "d")))
        graph.add(Node(lid: "e", next: ResourceIdentifier(type: "nodes", lid: "d")))
        _ = try await session(server).create(graph)
        #expect(server.bodies.map { $0["data"]?.objectValue?["lid"] } == ["d", nil])
    }

    @Test("Atomic results without ids (a 204, a result without data) leave the resources unconfirmed")
    func atomicWithoutIDs() async throws {
        let empty = ScriptedClient(status: 204, body: "")
        let api = Session(baseURL: exampleBase, client: empty, configuration: .init(mediaType: Self.atomicMediaType))
        let error = await expectThrows(ResourceGraphError.self) { try await api.create(Self.articleGraph()) }
        #expect(error?.code == .idNotReturned)
        #expect(error?.unconfirmed.count == 4)

        let partial = ScriptedClient { _ in
            .document(#"{"atomic:results":[{"data":{"type":"people","id":"5"}},{},{"meta":{}},{"data":{"type":"tags","id":"x"}}]}"#)
        }
        let other = Session(baseURL: exampleBase, client: partial, configuration: .init(mediaType: Self.atomicMediaType))
        let some = await expectThrows(ResourceGraphError.self) { try await other.create(Self.articleGraph()) }
        #expect(some?.created.map(\.id) == ["5"])
        // The fourth result is a tag where the article was expected: not taken for the article.
        #expect(some?.unconfirmed == [
            ResourceIdentifier(type: "tags", lid: "t1"), ResourceIdentifier(type: "tags", lid: "t2"),
            ResourceIdentifier(type: "articles", lid: "a1"),
        ])
        #expect(other.localIDs.id(type: "people", lid: "p1", clears: 0) == "5")
    }

    @Test("An atomic batch reaches the store: results merged, removed resources forgotten, lists of touched types stale")
    func atomicStore() async throws {
        let client = ScriptedClient { request in
            guard request.method == .get else {
                return .document(#"{"atomic:results":[{"data":{"type":"people","id":"5","attributes":{"name":"Ann"}}},{}]}"#)
            }
            let type = request.url.lastPathComponent
            var response = HTTPResponse.document(#"{"data":[{"type":"\#(type)","id":"1","attributes":{"title":"One"}}]}"#)
            response.headerFields.append("Cache-Control", "max-age=60")
            return response
        }
        struct Titled: Resource {
            static let resourceType = "articles"
            var id: String
            var title: String
        }
        struct Label: Resource {
            static let resourceType = "tags"
            var id: String
            var title: String
        }
        let api = Session(baseURL: exampleBase, client: client)
        let articles = api.source(Titled.self, .path("articles/<id>")).fetch().cachePolicy(.cacheFirst)
        let tags = api.source(Label.self, .path("tags/<id>")).fetch().cachePolicy(.cacheFirst)
        _ = try await articles.result()
        _ = try await tags.result()
        _ = try await articles.result()
        #expect(client.requests.count == 2)
        #expect(api.store?.record(type: "articles", id: "1") != nil)
        try await api.atomic([
            .add(ResourceObject(type: "people", attributes: ["name": "Ann"])),
            .remove(ResourceIdentifier(type: "articles", id: "1")),
        ])
        #expect(api.store?.record(type: "people", id: "5")?.attributes?["name"] == "Ann")
        #expect(api.store?.record(type: "articles", id: "1") == nil)
        _ = try await tags.result()       // untouched type: still fresh
        #expect(client.requests.count == 3)
        _ = try await articles.result()   // a removed article's list: asked again
        #expect(client.requests.count == 4)
        #expect(client.requests.last?.url.lastPathComponent == "articles")
    }

    // MARK: Local ids afterwards

    @Test("A later write that still names a local id is sent with the server's id")
    func laterWrite() async throws {
        let server = CreatingServer()
        let api = session(server)
        let article = NewArticle(lid: "a1", title: "Hello")
        var graph = ResourceGraph()
        graph.add(article)
        _ = try await api.create(graph)
        _ = try await api.source(NewComment.self, .path("comments/<id>")).create(NewComment(lid: "c9", body: "Nice", article: article))
        let comment = try #require(server.bodies.last)
        #expect(Self.linkage(comment, "article") == .object(["type": "articles", "id": "articles-1"]))
        #expect(comment["data"]?.objectValue?["lid"] == "c9")   // not created yet: stays a local id

        // A relationship body and an atomic operation's ref are rewritten too; attributes are the user's own.
        _ = try? await api.relationship(at: URL(string: "comments/1/relationships/article")!)
            .replace(with: ResourceIdentifier(type: "articles", lid: "a1"))
        #expect(server.bodies.last?["data"] == .object(["type": "articles", "id": "articles-1"]))
        _ = try? await api.atomic([
            .replace("author", of: ResourceIdentifier(type: "articles", lid: "a1"), with: nil),
            .add(ResourceObject(type: "notes", attributes: ["about": .object(["type": "articles", "lid": "a1"])])),
        ])
        let operations = try #require(server.bodies.last?["atomic:operations"]?.arrayValue)
        #expect(operations[0].objectValue?["ref"] == .object(["type": "articles", "id": "articles-1", "relationship": "author"]))
        #expect(operations[1].objectValue?["data"]?.objectValue?["attributes"]
            == .object(["about": .object(["type": "articles", "lid": "a1"])]))
    }

    @Test("A graph that uses a local id again names its own new resource, not the earlier one")
    func lidReused() async throws {
        let server = CreatingServer()
        let api = session(server)
        for _ in 0..<2 {
            var graph = ResourceGraph()
            let author = NewPerson(lid: "p1", name: "Ann")
            graph.add(author)
            graph.add(NewArticle(lid: "a1", title: "T", author: author))
            _ = try await api.create(graph)
        }
        #expect(server.lines.count == 4)
        // The second person was posted as new (no id, and no lid: ordered creates carry none), and the second
        // article names it, not the first.
        #expect(server.bodies[2]["data"]?.objectValue?["id"] == nil)
        #expect(server.bodies[2]["data"]?.objectValue?.keys.contains("lid") == false)
        #expect(Self.linkage(server.bodies[3], "author") == .object(["type": "people", "id": "people-3"]))
        #expect(api.localIDs.id(type: "people", lid: "p1", clears: 0) == "people-3")
    }

    @Test("A graph may name a resource an earlier graph created, by its local id, and an existing one by id")
    func earlierGraph() async throws {
        let server = CreatingServer()
        let api = session(server)
        let author = NewPerson(lid: "p1", name: "Ann")
        var first = ResourceGraph()
        first.add(author)
        _ = try await api.create(first)
        var second = ResourceGraph()
        second.add(NewArticle(lid: "a1", title: "T", author: author, tags: [NewTag(id: "5", lid: nil, name: "old")]))
        _ = try await api.create(second)
        #expect(Self.linkage(server.bodies[1], "author") == .object(["type": "people", "id": "people-1"]))
        #expect(Self.linkage(server.bodies[1], "tags") == .array([.object(["type": "tags", "id": "5"])]))
    }

    @Test("The store's linkage by local id names the id once the resource is created; its observers hear of it")
    func storeLinkage() async throws {
        let server = CreatingServer()
        let api = session(server)
        let store = try #require(api.store)
        store.merge([
            ResourceObject(
                type: "comments", id: "c1", attributes: ["body": "draft"],
                relationships: [
                    "article": Relationship(data: .toOne(ResourceIdentifier(type: "articles", lid: "a1"))),
                    "tags": Relationship(data: .toMany([
                        ResourceIdentifier(type: "tags", id: "3"), ResourceIdentifier(type: "tags", lid: "a1"),
                    ])),
                    "none": Relationship(data: .toOne(nil)),
                ]),
            ResourceObject(
                type: "comments", id: "c2",
                relationships: ["article": Relationship(data: .toOne(ResourceIdentifier(type: "articles", lid: "other")))]),
        ])
        let changes = StreamProbe(store.changes(of: NewComment.self))
        var graph = ResourceGraph()
        graph.add(NewArticle(lid: "a1", title: "Hello"))
        _ = try await api.create(graph)
        let relationships = try #require(store.record(type: "comments", id: "c1")?.relationships)
        #expect(relationships["article"]?.data == .toOne(ResourceIdentifier(type: "articles", id: "articles-1")))
        // A tag with the same local id is another resource: local ids are per type.
        #expect(relationships["tags"]?.data == .toMany([
            ResourceIdentifier(type: "tags", id: "3"), ResourceIdentifier(type: "tags", lid: "a1"),
        ]))
        #expect(relationships["none"]?.data == .toOne(nil))
        #expect(store.record(type: "comments", id: "c2")?.relationships?["article"]?.data
            == .toOne(ResourceIdentifier(type: "articles", lid: "other")))
        #expect(await changes.next() == StoreChange(type: "comments", id: "c1", kind: .updated))
    }

    @Test("After the store is cleared (another account), a local id of the earlier one is no longer replaced")
    func clearedStore() async throws {
        let server = CreatingServer()
        let api = session(server)
        let article = NewArticle(lid: "a1", title: "Hello")
        var graph = ResourceGraph()
        graph.add(article)
        _ = try await api.create(graph)
        api.store?.clear()
        _ = try await api.source(NewComment.self, .path("comments/<id>")).create(NewComment(lid: "c", body: "x", article: article))
        #expect(Self.linkage(server.bodies.last ?? [:], "article") == .object(["type": "articles", "lid": "a1"]))
    }

    @Test("The session remembers at most its limit of local ids, the oldest going first")
    func bound() {
        let ids = LocalIDs(limit: 3)
        for number in 1...5 {
            ids.record([LocalIDs.Key(type: "t", lid: "\(number)"): "id\(number)"], clears: 0)
        }
        #expect((1...5).map { ids.id(type: "t", lid: "\($0)", clears: 0) } == [nil, nil, "id3", "id4", "id5"])
        ids.record([LocalIDs.Key(type: "t", lid: "3"): "again"], clears: 0)   // used again: now the newest
        ids.record([LocalIDs.Key(type: "t", lid: "6"): "id6"], clears: 0)
        #expect((3...6).map { ids.id(type: "t", lid: "\($0)", clears: 0) } == ["again", nil, "id5", "id6"])
        #expect(ids.id(type: "t", lid: "6", clears: 1) == nil)   // the store was cleared since
        let none = LocalIDs(limit: 0)
        none.record([LocalIDs.Key(type: "t", lid: "1"): "x"], clears: 0)
        #expect(none.id(type: "t", lid: "1", clears: 0) == nil)
    }

    @Test("A body is sent as it was encoded when it names no remembered local id")
    func untouched() {
        let ids = LocalIDs()
        let body = Data(#"{"data":{"type":"articles","lid":"a1"}}"#.utf8)
        #expect(ids.replacing(in: body, decoder: JSONAPIDecoder(), clears: 0) == body)
        ids.record([LocalIDs.Key(type: "articles", lid: "a2"): "9"], clears: 0)
        #expect(ids.replacing(in: body, decoder: JSONAPIDecoder(), clears: 0) == body)
        let other = Data(#"{"data":{"type":"articles","id":"1"}}"#.utf8)
        #expect(ids.replacing(in: other, decoder: JSONAPIDecoder(), clears: 0) == other)
        let named = Data(#"{"data":{"type":"articles","lid":"a2"}}"#.utf8)
        #expect(ids.replacing(in: named, decoder: JSONAPIDecoder(), clears: 0) == Data(#"{"data":{"id":"9","type":"articles"}}"#.utf8))
    }
}
