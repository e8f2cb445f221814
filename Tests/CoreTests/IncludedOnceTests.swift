import Foundation
import Testing

@testable import JSONAPIClientCore

/// A related model linked many times is written to `included` once, as first met; a later copy is only linked.
@Suite("Included once")
struct IncludedOnceTests {
    struct Buddy: Resource, Equatable {
        static let resourceType = "buddies"
        var id: String
        var nickname: String
    }

    struct Member: Resource, Equatable {
        static let resourceType = "people"
        var id: String
        var name: String
        var buddy: Buddy?
    }

    struct Post: Resource, Equatable {
        static let resourceType = "posts"
        var id: String
        var author: Member?
    }

    /// Writes its `lid` after its `id`: its identity is only known at the end.
    struct LateLid: Resource, Equatable {
        static let resourceType = "people"
        var id: String
        var name: String
        var lid: String?

        enum CodingKeys: String, CodingKey { case id, name, lid }
    }

    struct Note: Resource, Equatable {
        static let resourceType = "notes"
        var id: String
        var writer: LateLid
    }

    /// A later copy's relationships are not followed: nothing written links to what only it links (a buddy written
    /// to `included` would break full linkage, which the specification requires), and following them on every path
    /// made encoding exponential on layered graphs.
    @Test("Copies of a related model: the first is written, later ones are only linked")
    func laterCopies() throws {
        let posts = [
            Post(id: "1", author: Member(id: "7", name: "first", buddy: nil)),
            Post(id: "2", author: Member(id: "7", name: "second", buddy: Buddy(id: "b", nickname: "bee"))),
            Post(id: "3", author: Member(id: "7", name: "first", buddy: nil)),
        ]
        let raw = try JSONAPIDecoder().decode(RawDocument.self, from: JSONAPIEncoder().encode(Document(data: posts)))
        #expect(raw.included?.map(\.identifier.description) == ["people/7"])
        #expect(raw.included?.first?.attributes?["name"] == "first")
        #expect(raw.included?.first?.relationships?["buddy"] == nil)
    }

    @Test("A model whose identity is completed after its id is still written in full")
    func identityAfterID() throws {
        let notes = [
            Note(id: "1", writer: LateLid(id: "7", name: "no lid", lid: nil)),
            Note(id: "2", writer: LateLid(id: "7", name: "with lid", lid: "x")),
        ]
        // (Not a valid document to read back: the same (type, id) twice.)
        let json = try JSONValue(parsing: [UInt8](JSONAPIEncoder().encode(Document(data: notes))))
        let included = try #require(json["included"]?.arrayValue)
        #expect(included.map { $0["lid"] } == [nil, "x"])
        #expect(included.map { $0["attributes"]?["name"] } == ["no lid", "with lid"])
    }

    @Test("A request body links related models without writing them")
    func requestBody() throws {
        let body = try JSONAPIEncoder().encodeCreateBody(
            for: Post(id: "", author: Member(id: "7", name: "n", buddy: Buddy(id: "b", nickname: "bee"))))
        let raw = try JSONAPIDecoder().decode(RawDocument.self, from: body)
        #expect(raw.included == nil)
        #expect(raw.data?.resources.first?.relationships?["author"]?.data == .toOne(ResourceIdentifier(type: "people", id: "7")))
    }
}

@Suite("Identifier set")
struct IdentifierSetTests {
    @Test("Behaves as a Set of identifiers, small decimal ids or not")
    func likeASet() {
        let identifiers = [
            ResourceIdentifier(type: "people", id: "5"), ResourceIdentifier(type: "people", id: "05"),
            ResourceIdentifier(type: "robots", id: "5"), ResourceIdentifier(type: "people", id: "5", lid: "x"),
            ResourceIdentifier(type: "people", lid: "5"), ResourceIdentifier(type: "people", id: "99999999"),
            ResourceIdentifier(type: "people", id: "1048576"), ResourceIdentifier(type: "people", id: "1048575"),
            ResourceIdentifier(type: "people", id: "caf\u{e9}"), ResourceIdentifier(type: "people", id: "cafe\u{301}"),
            ResourceIdentifier(type: "people", id: "0"), ResourceIdentifier(type: "people", id: ""),
            ResourceIdentifier(type: "people", id: "-1"), ResourceIdentifier(type: "people", id: "5", meta: ["m": 1]),
        ]
        var set = IdentifierSet()
        var reference = Set<ResourceIdentifier>()
        for identifier in identifiers + identifiers.reversed() {
            #expect(set.contains(identifier) == reference.contains(identifier))
            #expect(set.insert(identifier) == reference.insert(identifier).inserted)
            #expect(set.contains(identifier))
        }
    }
}
