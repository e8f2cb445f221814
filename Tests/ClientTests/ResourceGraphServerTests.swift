import Foundation
import JSONAPIClient
import Testing
import TestSupport

/// Graphs of new resources against the real server, both ways: as it is (ordered requests) and through its Atomic
/// Operations endpoint (`/operations`, drf-json-api-atomic-operations). Each graph's requests carry a `Referer` of
/// their own, so the server's access log shows exactly the requests each test made, with their statuses.
@Suite("Resource graphs against the test server")
struct ResourceGraphServerTests {
    /// A session on the test server; with the extension declared when `atomic`.
    func session(atomic: Bool) throws -> Session {
        let mediaType = atomic ? JSONAPIMediaType(ext: [AtomicOperation.extensionURI]) : JSONAPIMediaType()
        return Session(baseURL: try TestServer.url(), configuration: .init(mediaType: mediaType))
    }

    /// A marker for one test's requests, and the header that carries it.
    static func marker() -> (String, HTTPFields) {
        let marker = "graph-test-\(UUID().uuidString)"
        return (marker, ["Referer": marker])
    }

    /// The access log's `METHOD /path STATUS` for the requests marked `marker`, once there are `count` of them (or
    /// after 3 s), then a little later, so that an extra request would show too.
    static func requests(marked marker: String, count: Int) async -> [String] {
        func lines() -> [String] {
            TestServer.accessLog().filter { $0.contains("\"\(marker)\"") }.compactMap { line in
                guard let start = line.range(of: "\""), let end = line.range(of: " HTTP/1.1\" ") else { return nil }
                return String(line[start.upperBound..<end.lowerBound]) + " " + line[end.upperBound...].prefix(3)
            }
        }
        let deadline = ContinuousClock.now + .seconds(3)
        while lines().count < count, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        try? await Task.sleep(for: .milliseconds(100))
        return lines()
    }

    /// A new author, a new tag and an existing one (tag 1), and an article naming them; `title` makes it invalid
    /// when longer than the server's 200 characters.
    static func graph(_ name: String, title: String? = nil) -> ResourceGraph {
        let author = NewPerson(lid: "p1", name: name)
        let tag = NewTag(lid: "t1", name: "tag-\(name)")
        var graph = ResourceGraph()
        graph.add(NewArticle(
            lid: "a1", title: title ?? "Article by \(name)", body: "b", author: author,
            tags: [tag, NewTag(id: "1", lid: nil, name: "tag-1")]))
        graph.add(author)
        graph.add(tag)
        return graph
    }

    /// Checks on the server that the article `id` names the created author and tags.
    func expectArticle(_ id: String?, by name: String, on api: Session) async throws {
        let article = try await api.source(Article.self, .path("articles/<id>")).fetch(id: try #require(id))
            .include(["author", "tags"]).result()
        #expect(article.data?.author?.name == name)
        #expect(article.data?.tags?.resources.map(\.name) == ["tag-1", "tag-\(name)"])
    }

    /// Whether the server has a person named `name`.
    func personExists(_ name: String, on api: Session) async throws -> Bool {
        let people = try await api.source(Person.self, .path("people/<id>")).fetch().filter("name", name).result()
        return !(people.data ?? []).isEmpty
    }

    @Test("Without the extension: POSTs in dependency order, ids filled in; a later write naming the lid gets the id")
    func ordered() async throws {
        let api = try session(atomic: false)
        let (marker, headers) = Self.marker()
        let name = "Ordered \(UUID().uuidString.prefix(8))"
        let result = try await api.create(Self.graph(name), headerFields: headers)
        #expect(!result.isAtomic)
        #expect(result.created.map(\.type) == ["people", "tags", "articles"])
        #expect(result.created.map(\.lid) == ["p1", "t1", "a1"])
        try await expectArticle(result.id(NewArticle.self, lid: "a1"), by: name, on: api)
        // (The article itself does not decode as a NewArticle: tag 1 is not among the created, and NewTag needs its name.)
        let author = try #require(try result.created(NewPerson.self, lid: "p1"))
        #expect(author.name == name)
        #expect(author.id == result.id(NewPerson.self, lid: "p1"))

        // The comment names the article model as it was added, by local id: the session sends the id.
        let comment = try await api.source(NewComment.self, .path("comments/<id>")).create(
            NewComment(lid: "c1", body: "First!", article: NewArticle(lid: "a1", title: "")), headerFields: headers)
        #expect(comment.status == .created)
        let commentID = try #require(comment.data?.id)
        let article = try await api.source(Comment.self, .path("comments/<id>")).fetch(id: commentID).result()
        #expect(article.data?.article?.identifier?.id == result.id(type: "articles", lid: "a1"))
        #expect(await Self.requests(marked: marker, count: 4) == [
            "POST /people 201", "POST /tags 201", "POST /articles 201", "POST /comments 201",
        ])
    }

    @Test("With the extension: one atomic request to /operations creates the graph")
    func atomic() async throws {
        let api = try session(atomic: true)
        let (marker, headers) = Self.marker()
        let name = "Atomic \(UUID().uuidString.prefix(8))"
        let result = try await api.create(Self.graph(name), headerFields: headers)
        #expect(result.isAtomic)
        #expect(result.created.map(\.lid) == ["p1", "t1", "a1"])
        try await expectArticle(result.id(NewArticle.self, lid: "a1"), by: name, on: api)
        // The created resources are in the store as the server returned them.
        let articleID = try #require(result.id(type: "articles", lid: "a1"))
        #expect(api.store?.record(type: "articles", id: articleID)?.attributes?["title"] == .string("Article by \(name)"))
        #expect(await Self.requests(marked: marker, count: 1) == ["POST /operations 200"])
    }

    @Test("An atomic request the server refuses creates none of the graph")
    func atomicFailure() async throws {
        let api = try session(atomic: true)
        let (marker, headers) = Self.marker()
        let name = "Refused \(UUID().uuidString.prefix(8))"
        let error = await expectThrows(ResourceGraphError.self) {
            try await api.create(Self.graph(name, title: String(repeating: "x", count: 201)), headerFields: headers)
        }
        #expect(error?.code == .requestFailed)
        #expect(error?.created == [])
        #expect(error?.notCreated.count == 3)
        #expect(error?.clientError?.status?.code == 400)
        #expect(try await personExists(name, on: api) == false)
        #expect(await Self.requests(marked: marker, count: 1) == ["POST /operations 400"])
    }

    @Test("Without the extension, step 3 fails: the caller learns the two created (ids on the server), the store keeps them")
    func orderedFailure() async throws {
        let api = try session(atomic: false)
        let (marker, headers) = Self.marker()
        let name = "Partial \(UUID().uuidString.prefix(8))"
        let error = await expectThrows(ResourceGraphError.self) {
            try await api.create(Self.graph(name, title: String(repeating: "x", count: 201)), headerFields: headers)
        }
        #expect(error?.code == .requestFailed)
        #expect(error?.created.map(\.type) == ["people", "tags"])
        #expect(error?.failed == ResourceIdentifier(type: "articles", lid: "a1"))
        #expect(error?.notCreated == [])
        #expect(error?.clientError?.status?.code == 400)
        let personID = try #require(error?.created.first?.id)
        let person = try await api.source(Person.self, .path("people/<id>")).fetch(id: personID).result()
        #expect(person.data?.name == name)
        #expect(api.store?.record(type: "tags", id: error?.created.last?.id ?? "")?.attributes?["name"] == .string("tag-\(name)"))
        #expect(await Self.requests(marked: marker, count: 3) == ["POST /people 201", "POST /tags 201", "POST /articles 400"])
    }

    @Test("A server that answers the atomic request with 415 gets ordered requests instead")
    func fallback() async throws {
        let api = try session(atomic: true)
        let (marker, headers) = Self.marker()
        let name = "Fallback \(UUID().uuidString.prefix(8))"
        let result = try await api.create(Self.graph(name), operationsPath: "no-operations", headerFields: headers)
        #expect(!result.isAtomic)
        try await expectArticle(result.id(NewArticle.self, lid: "a1"), by: name, on: api)
        #expect(await Self.requests(marked: marker, count: 4) == [
            "POST /no-operations 415", "POST /people 201", "POST /tags 201", "POST /articles 201",
        ])
    }

    /// `marker`'s header, and the one that makes the server refuse unknown members in `data` (a `lid`) with 422, as
    /// django-ninja-jsonapi and Flask-Restless-NG do.
    static func strict(_ headers: HTTPFields) -> HTTPFields {
        var headers = headers
        headers[HTTPField.Name("X-Test-Strict-Members")] = "1"
        return headers
    }

    @Test("A server that refuses unknown members (a lid) takes the ordered requests: they carry no lid")
    func orderedOnStrictServer() async throws {
        let api = try session(atomic: false)
        let (marker, headers) = Self.marker()
        let name = "Strict \(UUID().uuidString.prefix(8))"
        // The server is strict: a create that carries a lid is refused.
        let refused = await expectThrows(JSONAPIClientError.self) {
            try await api.source(NewTag.self, .path("tags/<id>")).create(
                NewTag(lid: "t9", name: "tag-\(name)-refused"), headerFields: Self.strict(headers))
        }
        #expect(refused?.status?.code == 422)
        let result = try await api.create(Self.graph(name), headerFields: Self.strict(headers))
        #expect(!result.isAtomic)
        try await expectArticle(result.id(NewArticle.self, lid: "a1"), by: name, on: api)
        #expect(await Self.requests(marked: marker, count: 4) == [
            "POST /tags 422", "POST /people 201", "POST /tags 201", "POST /articles 201",
        ])
    }

    @Test("After a 415, the same session's next graph goes straight to ordered requests, on a strict server too")
    func fallbackRemembered() async throws {
        let api = try session(atomic: true)
        let (marker, headers) = Self.marker()
        let first = "Remembered \(UUID().uuidString.prefix(8))"
        let second = "Remembered \(UUID().uuidString.prefix(8))"
        let one = try await api.create(Self.graph(first), operationsPath: "no-operations", headerFields: Self.strict(headers))
        let two = try await api.create(Self.graph(second), operationsPath: "no-operations", headerFields: Self.strict(headers))
        #expect(!one.isAtomic && !two.isAtomic)
        try await expectArticle(two.id(NewArticle.self, lid: "a1"), by: second, on: api)
        #expect(await Self.requests(marked: marker, count: 7) == [
            "POST /no-operations 415", "POST /people 201", "POST /tags 201", "POST /articles 201",
            "POST /people 201", "POST /tags 201", "POST /articles 201",
        ])
    }
}
