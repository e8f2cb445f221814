import Foundation
import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

/// Inverse relationships in the store: a change to one end of a declared pair changes the other end of the records
/// the store holds. (StoreInverseServerTests does it through writes against the test server.)
@Suite("Store: inverse relationships")
struct StoreInverseTests {
    struct Writer: Resource, Equatable {
        static let resourceType = "writers"
        var id: String
        var name: String
        var posts: ToMany<Post>?
    }

    struct Post: Resource, Equatable {
        static let resourceType = "posts"
        static let inverseRelationships = [InverseRelationship("author", of: Writer.self, "posts")]
        var id: String
        var title: String
        var author: ToOne<Writer>?
    }

    /// A post that names its author but declares no inverse.
    struct PlainPost: Resource, Equatable {
        static let resourceType = "posts"
        var id: String
        var title: String
    }

    static func writer(_ id: String, posts: [String]?) -> ResourceObject {
        ResourceObject(
            type: "writers", id: id, attributes: ["name": .string("W\(id)")],
            relationships: ["posts": posts.map { Relationship(data: .toMany($0.map { ResourceIdentifier(type: "posts", id: $0) })) }
                ?? Relationship(links: Links(["related": Link(href: "/writers/\(id)/posts")]))])
    }

    static func post(_ id: String, author: String?) -> ResourceObject {
        ResourceObject(
            type: "posts", id: id, attributes: ["title": .string("P\(id)")],
            relationships: ["author": Relationship(data: .toOne(author.map { ResourceIdentifier(type: "writers", id: $0) }))])
    }

    static func linkage(_ store: ResourceStore, _ type: String, _ id: String, _ name: String) -> Linkage? {
        store.record(type: type, id: id)?.relationships?[name]?.data
    }

    static func posts(_ ids: String...) -> Linkage { .toMany(ids.map { ResourceIdentifier(type: "posts", id: $0) }) }
    static func writer(_ id: String?) -> Linkage { .toOne(id.map { ResourceIdentifier(type: "writers", id: $0) }) }

    /// A store that knows the pair.
    static func store() -> ResourceStore {
        let store = ResourceStore()
        store.register(Post.self)
        return store
    }

    @Test("A new post with an author joins the author's posts; a move leaves one and joins the other; a removal leaves")
    func toOneSide() {
        let store = Self.store()
        store.merge([Self.writer("1", posts: []), Self.writer("2", posts: ["9"])])
        store.merge([Self.post("5", author: "1")])
        #expect(Self.linkage(store, "writers", "1", "posts") == Self.posts("5"))
        store.merge([Self.post("5", author: "2")])
        #expect(Self.linkage(store, "writers", "1", "posts") == Self.posts())
        #expect(Self.linkage(store, "writers", "2", "posts") == Self.posts("9", "5"))
        store.merge([Self.post("5", author: nil)])
        #expect(Self.linkage(store, "writers", "2", "posts") == Self.posts("9"))
        store.merge([Self.post("5", author: "1")])
        store.remove(type: "posts", id: "5")
        #expect(Self.linkage(store, "writers", "1", "posts") == Self.posts())
    }

    @Test("A post already among the author's posts is not added twice; one merged again changes nothing")
    func noDuplicates() {
        let store = Self.store()
        store.merge([Self.writer("1", posts: ["5"])])
        store.merge([Self.post("5", author: "1")])
        store.merge([Self.post("5", author: "1")])
        #expect(Self.linkage(store, "writers", "1", "posts") == Self.posts("5"))
    }

    @Test("The to-many side moves the to-one side: a post added to a writer's posts gets the writer as author, one taken out loses it")
    func toManySide() {
        let store = Self.store()
        store.merge([Self.post("5", author: nil), Self.post("6", author: "3")])
        store.merge([Self.writer("1", posts: ["5", "6"])])
        #expect(Self.linkage(store, "posts", "5", "author") == Self.writer("1"))
        #expect(Self.linkage(store, "posts", "6", "author") == Self.writer("1"))
        store.merge([Self.writer("1", posts: ["6"])])
        #expect(Self.linkage(store, "posts", "5", "author") == Self.writer(nil))
        #expect(Self.linkage(store, "posts", "6", "author") == Self.writer("1"))
        // A writer leaving a post it no longer holds does not take the post from its new author.
        store.merge([Self.post("6", author: "2")])
        store.merge([Self.writer("1", posts: [])])
        #expect(Self.linkage(store, "posts", "6", "author") == Self.writer("2"))
    }

    @Test("Removing a writer empties the author of its posts")
    func removeToManySide() {
        let store = Self.store()
        store.merge([Self.writer("1", posts: ["5"]), Self.post("5", author: "1")])
        store.remove(type: "writers", id: "1")
        #expect(Self.linkage(store, "posts", "5", "author") == Self.writer(nil))
    }

    @Test("A related record whose relationship came without linkage, or that the store does not hold, is left alone")
    func unknownLinkage() {
        let store = Self.store()
        store.merge([Self.writer("1", posts: nil)])
        store.merge([Self.post("5", author: "1"), Self.post("6", author: "4")])
        #expect(Self.linkage(store, "writers", "1", "posts") == nil)
        #expect(store.record(type: "writers", id: "4") == nil)
        // A post sent without the author's linkage keeps its author, and moves nobody.
        store.merge([Self.writer("2", posts: [])])
        store.merge([Self.post("7", author: "2")])
        store.merge([ResourceObject(type: "posts", id: "7", relationships: ["author": Relationship(links: Links(["related": Link(href: "/x")]))])])
        #expect(Self.linkage(store, "writers", "2", "posts") == Self.posts("7"))
        #expect(Self.linkage(store, "posts", "7", "author") == Self.writer("2"))
    }

    @Test("A store that was never told the pair changes only the record merged")
    func undeclared() throws {
        let store = ResourceStore()
        _ = try store.resource(PlainPost.self, id: "5")  // a typed read of a model without inverses registers none
        store.merge([Self.writer("1", posts: [])])
        store.merge([Self.post("5", author: "1")])
        #expect(Self.linkage(store, "writers", "1", "posts") == Self.posts())
    }

    @Test("A typed read of the declaring model teaches the store the pair")
    func typedReadRegisters() throws {
        let store = ResourceStore()
        _ = try store.resources(Post.self)
        store.merge([Self.writer("1", posts: [])])
        store.merge([Self.post("5", author: "1")])
        #expect(Self.linkage(store, "writers", "1", "posts") == Self.posts("5"))
    }

    @Test("A data source teaches its session's store the pair")
    func dataSourceRegisters() throws {
        let api = Session(baseURL: exampleBase, client: ScriptedClient { _ in .document("{}") })
        _ = api.source(Post.self, .path("posts/<id>"))
        let store = try #require(api.store)
        store.merge([Self.writer("1", posts: [])])
        store.merge([Self.post("5", author: "1")])
        #expect(Self.linkage(store, "writers", "1", "posts") == Self.posts("5"))
    }

    @Test("A polymorphic relationship keeps each related type's end")
    func polymorphic() {
        struct Note: Resource {
            static let resourceType = "notes"
            static let inverseRelationships = [
                InverseRelationship("subject", relatedType: "posts", "notes"),
                InverseRelationship("subject", relatedType: "writers", "notes"),
            ]
            var id: String
        }
        let store = ResourceStore()
        store.register(Note.self)
        let empty = Relationship(data: .toMany([]))
        store.merge([
            ResourceObject(type: "posts", id: "1", relationships: ["notes": empty]),
            ResourceObject(type: "writers", id: "1", relationships: ["notes": empty]),
        ])
        let note = { (type: String) in
            ResourceObject(
                type: "notes", id: "n", relationships: ["subject": Relationship(data: .toOne(ResourceIdentifier(type: type, id: "1")))])
        }
        store.merge([note("posts")])
        let noted = Linkage.toMany([ResourceIdentifier(type: "notes", id: "n")])
        #expect(Self.linkage(store, "posts", "1", "notes") == noted)
        #expect(Self.linkage(store, "writers", "1", "notes") == .toMany([]))
        store.merge([note("writers")])
        #expect(Self.linkage(store, "posts", "1", "notes") == .toMany([]))
        #expect(Self.linkage(store, "writers", "1", "notes") == noted)
    }

    @Test("An observer of the other end is told, and reads the record with the change")
    func observersTold() async throws {
        let store = Self.store()
        store.merge([Self.writer("1", posts: [])])
        let probe = StreamProbe(store.updates(of: Writer.self, id: "1"))
        #expect(await probe.next()??.posts?.identifiers.map(\.id) == [])
        store.merge([Self.post("5", author: "1")])
        #expect(await probe.next()??.posts?.identifiers.map(\.id) == ["5"])
        store.remove(type: "posts", id: "5")
        #expect(await probe.next()??.posts?.identifiers.map(\.id) == [])
    }

    @Test("Only the records that changed are reported: not an end that already agreed, has no linkage, or points elsewhere")
    func onlyChangesReported() async throws {
        let store = Self.store()
        store.merge([
            Self.writer("1", posts: ["5", "6"]), Self.writer("3", posts: nil), Self.writer("9", posts: []),
            Self.post("5", author: "1"), Self.post("6", author: "2"), Self.post("14", author: "13"),
        ])
        store.merge([Self.writer("13", posts: [])])  // arrives after post 14, so does not list it
        let writers = StreamProbe(store.changes(of: Writer.self))
        let posts = StreamProbe(store.changes(of: Post.self))
        var renamed = Self.post("5", author: "1")
        renamed.attributes?["title"] = .string("Renamed")
        store.merge([renamed])  // writer 1 already has post 5
        store.merge([Self.post("7", author: "3")])  // writer 3's posts came without linkage
        store.merge([Self.writer("1", posts: ["5"])])  // post 6's author is writer 2, not 1
        store.merge([Self.post("14", author: nil)])  // writer 13 does not list post 14: nothing to take out
        store.merge([Self.post("10", author: "9")])  // writer 9 gains post 10
        #expect(await writers.next()?.id == "1")
        #expect(await writers.next()?.id == "9")
        #expect(await posts.next()?.id == "5")
        #expect(await posts.next()?.id == "7")
        #expect(await posts.next()?.id == "14")
        #expect(await posts.next()?.id == "10")
        #expect(Self.linkage(store, "posts", "6", "author") == Self.writer("2"))
    }

    @Test("A relationship endpoint's change moves the other end")
    func relationshipEndpoint() async throws {
        let client = ScriptedClient { _ in HTTPResponse(status: .noContent) }
        let api = Session(baseURL: exampleBase, client: client)
        let writers = api.source(Writer.self, .path("writers/<id>"))
        _ = api.source(Post.self, .path("posts/<id>"))
        let store = try #require(api.store)
        store.merge([Self.writer("1", posts: []), Self.post("5", author: nil)])
        let changes = StreamProbe(store.changes(of: Post.self))
        try await writers.relationship("posts", of: "1").add([ResourceIdentifier(type: "posts", id: "5")])
        #expect(Self.linkage(store, "posts", "5", "author") == Self.writer("1"))
        #expect(await changes.next()?.id == "5")
        try await writers.relationship("posts", of: "1").remove([ResourceIdentifier(type: "posts", id: "5")])
        #expect(Self.linkage(store, "posts", "5", "author") == Self.writer(nil))
    }
}
