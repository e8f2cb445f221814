// Tests that a member named twice reads as its last, for every kind of member and in both decoders, as
// `JSONDecoder` does (the specification forbids repeated members; the validator reports them).
import Foundation
import Testing

@testable import JSONAPIClientCore

private struct RepeatingAuthor: Resource, Equatable {
    static let resourceType = "people"
    var id: String
    var name: String
}

private struct RepeatingPlace: Codable, Equatable {
    var city: String
}

private struct RepeatingPost: Resource {
    static let resourceType = "posts"
    var id: String
    var title: String
    var views: Int
    var place: RepeatingPlace?
    var author: RepeatingAuthor?
}

@Suite("Repeated members: the last wins")
struct RepeatedMemberTests {
    /// `id`, `type`, attributes, a plain nested object's member, relationships, and a relationship's `data`, each
    /// given twice.
    static let body = #"""
        {"data":{"type":"posts","id":"1","type":"posts","id":"2",
          "attributes":{"title":"first","views":1,"title":"last","place":{"city":"Ghent","city":"Lyon"},"views":2},
          "relationships":{"author":{"data":{"type":"people","id":"8"}},
                           "author":{"data":{"type":"people","id":"8"},"data":{"type":"people","id":"9"}}}},
         "included":[{"type":"people","id":"8","attributes":{"name":"Eight"}},
                     {"type":"people","id":"9","attributes":{"name":"Nine","name":"Nine, last"}}]}
        """#

    @Test("A typed model reads the last of each repeated member")
    func typed() throws {
        let post = try #require(try JSONAPIDecoder().decode(Document<RepeatingPost>.self, from: Data(Self.body.utf8)).data)
        #expect(post.id == "2")
        #expect(post.title == "last")
        #expect(post.views == 2)
        #expect(post.place == RepeatingPlace(city: "Lyon"))
        #expect(post.author == RepeatingAuthor(id: "9", name: "Nine, last"))
    }

    @Test("A RawDocument reads the last of each repeated member")
    func raw() throws {
        let document = try JSONAPIDecoder().decode(RawDocument.self, from: Data(Self.body.utf8))
        guard case .resource(let post)? = document.data else {
            Issue.record("expected one resource")
            return
        }
        #expect(post.id == "2")
        #expect(post.attributes?["title"] == "last")
        #expect(post.attributes?["views"] == 2)
        #expect(post.attributes?["place"] == ["city": "Lyon"])
        #expect(post.relationships?["author"]?.data == .toOne(ResourceIdentifier(type: "people", id: "9")))
    }

    @Test("A repeated type: the last one decides whether the model's type matches")
    func type() throws {
        let lastMatches = #"{"data":{"type":"notes","type":"posts","id":"1","attributes":{"title":"t","views":0}}}"#
        #expect(try JSONAPIDecoder().decode(Document<RepeatingPost>.self, from: Data(lastMatches.utf8)).data?.id == "1")
        let lastDiffers = #"{"data":{"type":"posts","type":"notes","id":"1","attributes":{"title":"t","views":0}}}"#
        #expect(throws: (any Error).self) {
            try JSONAPIDecoder().decode(Document<RepeatingPost>.self, from: Data(lastDiffers.utf8))
        }
    }

    @Test("Repeated attributes and relationships objects: the last object, null included")
    func wholeObjects() throws {
        let body = #"""
            {"data":{"type":"posts","id":"1","attributes":{"title":"first","views":1},
              "attributes":{"title":"last","views":2}}}
            """#
        let post = try #require(try JSONAPIDecoder().decode(Document<RepeatingPost>.self, from: Data(body.utf8)).data)
        #expect(post.title == "last")
        let raw = try JSONAPIDecoder().decode(RawDocument.self, from: Data(body.utf8))
        guard case .resource(let resource)? = raw.data else {
            Issue.record("expected one resource")
            return
        }
        #expect(resource.attributes?["title"] == "last")
        let nulled = #"{"data":{"type":"posts","id":"1","attributes":{"title":"t"},"attributes":null}}"#
        guard case .resource(let bare)? = try JSONAPIDecoder().decode(RawDocument.self, from: Data(nulled.utf8)).data
        else {
            Issue.record("expected one resource")
            return
        }
        #expect(bare.attributes == nil)
    }
}
