import Foundation
import JSONAPIClientCore
import Testing

/// Typed decoding is linear in the document whatever the shape of its graph of relationships: each resource is
/// decoded at most once per model type (twice for primary data), and a cycle is cut to the identifier.
///
/// Before, every path through `included` that did not repeat a resource was decoded again: 8 articles that each
/// relate to all the others took half a second and 64 MB, 10 crashed the process. These documents are far larger;
/// without the memo they would not finish.
@Suite("Graphs of relationships")
struct GraphDecodingTests {
    struct Node: Resource {
        static let resourceType = "nodes"
        var id: String
        var name: String?
        var links: [Node]?
    }

    /// A document whose primary data is `primary` and whose `included` is `included`, each node linking to `edges`.
    private func document(primary: [String], included: [String], edges: (String) -> [String]) -> String {
        func resource(_ id: String) -> String {
            let linkage = edges(id).map { #"{"type": "nodes", "id": "\#($0)"}"# }.joined(separator: ",")
            return #"{"type": "nodes", "id": "\#(id)", "attributes": {"name": "n\#(id)"}, "relationships": {"links": {"data": [\#(linkage)]}}}"#
        }
        return #"{"data": [\#(primary.map(resource).joined(separator: ","))], "included": [\#(included.map(resource).joined(separator: ","))]}"#
    }

    @Test("A mesh: 60 resources that all link to each other")
    func mesh() throws {
        let ids = (0..<60).map(String.init)
        let text = document(primary: Array(ids.prefix(1)), included: Array(ids.dropFirst())) { id in ids.filter { $0 != id } }
        let root = try #require(try decode([Node].self, text).data?.first)
        #expect(root.name == "n0")
        let first = try #require(root.links)
        #expect(first.count == 59)
        #expect(first.allSatisfy { $0.name != nil })
        // Node 1 was decoded under node 0: its link back to 0 is a cycle and gives the identifier alone; its other
        // links are the resources themselves.
        let second = try #require(first.first?.links)
        #expect(second.count == 59)
        #expect(second.first { $0.id == "0" }?.name == nil)
        #expect(second.filter { $0.name != nil }.count == 58)
    }

    @Test("A layered graph: 2 resources a layer, each linking to both of the next, 40 layers deep")
    func layers() throws {
        let layers = 40
        let ids = (0..<layers).flatMap { ["\($0)a", "\($0)b"] }
        let text = document(primary: ["0a", "0b"], included: Array(ids.dropFirst(2))) { id in
            guard let layer = Int(id.dropLast()), layer + 1 < layers else { return [] }
            return ["\(layer + 1)a", "\(layer + 1)b"]
        }
        let primary = try #require(try decode([Node].self, text).data)
        #expect(primary.map(\.id) == ["0a", "0b"])
        // Follow the first link down: resolved until maxRelationshipDepth (32), the identifier alone below it.
        var node = primary[0]
        var depth = 0
        while let next = node.links?.first, next.name != nil {
            node = next
            depth += 1
        }
        #expect(depth == 31)
        #expect(node.links?.first?.id == "32a")
        // The second primary resource shares what the first decoded.
        #expect(primary[1].links?.map(\.id) == ["1a", "1b"])
        #expect(primary[1].links?.allSatisfy { $0.name != nil } == true)
    }

    /// article → author → articles → author …, the README's shape, with every article by the same author.
    struct Article: Resource {
        static let resourceType = "articles"
        var id: String
        var title: String?
        var author: Person?
    }

    struct Person: Resource {
        static let resourceType = "people"
        var id: String
        var name: String?
        var articles: [Article]?
    }

    @Test("The README's shape: 200 articles by one author who wrote them all; every article has its author")
    func readmeShape() throws {
        let count = 200
        let linkage = (0..<count).map { #"{"type": "articles", "id": "\#($0)"}"# }.joined(separator: ",")
        let articles = (0..<count).map {
            #"{"type": "articles", "id": "\#($0)", "attributes": {"title": "t\#($0)"}, "relationships": {"author": {"data": {"type": "people", "id": "p"}}}}"#
        }
        let person = #"{"type": "people", "id": "p", "attributes": {"name": "Ada"}, "relationships": {"articles": {"data": [\#(linkage)]}}}"#
        let text = #"{"data": [\#(articles.joined(separator: ","))], "included": [\#(person)]}"#
        let data = try #require(try decode([Article].self, text).data)
        #expect(data.count == count)
        #expect(data.allSatisfy { $0.author?.name == "Ada" })
        // The author is kept from the second article that names them, decoded under it: their list links back to
        // that article as an identifier (a cycle), and to the others in full, whose author is the cycle again.
        let written = try #require(data[5].author?.articles)
        #expect(written.count == count)
        #expect(written[1].title == nil)
        #expect(written[0].title == "t0")
        #expect(written[2].title == "t2")
        #expect(written[0].author?.id == "p")
        #expect(written[0].author?.name == nil)
    }

    /// The same `people` resource read as two model types, each named by many relationships: what is kept for one
    /// type is never handed to the other.
    @Test("One resource as two model types, each through many relationships: each gets the type it asks for")
    func oneResourceTwoTypes() throws {
        struct Reviewer: Resource {
            static let resourceType = "people"
            var id: String
            var email: String
            var score: Int
        }
        struct Review: Resource {
            static let resourceType = "reviews"
            var id: String
            var author: Person?
            var reviewer: Reviewer?
        }
        let count = 50
        let reviews = (0..<count).map {
            #"{"type": "reviews", "id": "\#($0)", "relationships": {"author": {"data": {"type": "people", "id": "p"}}, "reviewer": {"data": {"type": "people", "id": "p"}}}}"#
        }
        let person = #"{"type": "people", "id": "p", "attributes": {"name": "Ada", "email": "ada@example.com", "score": 7}}"#
        let text = #"{"data": [\#(reviews.joined(separator: ","))], "included": [\#(person)]}"#
        let data = try #require(try decode([Review].self, text).data)
        #expect(data.count == count)
        #expect(data.allSatisfy { $0.author?.name == "Ada" && $0.author?.id == "p" })
        #expect(data.allSatisfy { $0.reviewer?.email == "ada@example.com" && $0.reviewer?.score == 7 })
    }

    @Test("A resource that fails to decode fails the document at its own pointer, however many link to it")
    func failuresAreShared() throws {
        struct Strict: Resource {
            static let resourceType = "nodes"
            var id: String
            var name: String
            var links: [Strict]?
        }
        // Node 2 has no name; both 0 and 1 link to it.
        let text = #"""
            {"data": [{"type": "nodes", "id": "0", "attributes": {"name": "a"}, "relationships": {"links": {"data": [{"type": "nodes", "id": "2"}]}}},
                      {"type": "nodes", "id": "1", "attributes": {"name": "b"}, "relationships": {"links": {"data": [{"type": "nodes", "id": "2"}]}}}],
             "included": [{"type": "nodes", "id": "2", "attributes": {}}]}
            """#
        let error = decodingError([Strict].self, text)
        #expect(error?.pointer == "/included/0/attributes/name")
        #expect(error?.code == .missingMember)
    }
}
