import Foundation
import JSONAPIClientCore
import Testing

/// Encoding is linear in the models it writes whatever the shape of the graph they form: a compound document
/// encodes each related resource once, and a request body (a create body, the edit-a-copy diff) encodes the model
/// alone, its related models reduced to their identifiers.
///
/// Before, every path to an already-written model walked its relationships again: a layered graph of 20 layers
/// took 6 s to encode and 24 ran past 30 s; the create body of one of its resources took as long. The graphs here
/// are smaller (16 layers; a mesh of 8 resources, each linking to all the others), so that a regression fails in
/// bounded time: the exact output is asserted, and ``encodesEachModelOnce()`` counts the encodes.
@Suite("Encoding graphs of relationships")
struct EncodingGraphShapeTests {
    struct Node: Resource {
        static let resourceType = "nodes"
        var id: String
        var name: String?
        var links: [Node]?
    }

    /// The compact text of a node's resource object as the encoder writes it (members sorted by name).
    private static func resource(_ id: String, edges: [String]) -> String {
        let linkage = edges.map { #"{"id":"\#($0)","type":"nodes"}"# }.joined(separator: ",")
        return #"{"attributes":{"name":"n\#(id)"},"id":"\#(id)","relationships":{"links":{"data":[\#(linkage)]}},"type":"nodes"}"#
    }

    /// A document whose primary data is `primary` and whose `included` is `included`, each node linking to `edges`.
    private static func document(primary: [String], included: [String], edges: (String) -> [String]) -> String {
        let data = primary.map { resource($0, edges: edges($0)) }.joined(separator: ",")
        let rest = included.map { resource($0, edges: edges($0)) }.joined(separator: ",")
        return #"{"data":[\#(data)],"included":[\#(rest)]}"#
    }

    private static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// The bytes path (compact) and the resource-object path (pretty-printed) write the same document.
    private static func expectBothPathsAgree<Primary: Encodable & Sendable>(_ document: Document<Primary>) throws {
        let compact = try JSONAPIEncoder().encode(document)
        let pretty = try JSONAPIEncoder(outputFormatting: .prettyPrinted).encode(document)
        #expect(try JSONValue.parse(text(compact)) == JSONValue.parse(text(pretty)))
    }

    // MARK: - Layered

    static let layers = 16

    /// 2 nodes a layer, each linking to both nodes of the next layer.
    static func layerEdges(_ id: String) -> [String] {
        guard let layer = Int(id.dropLast()), layer + 1 < layers else { return [] }
        return ["\(layer + 1)a", "\(layer + 1)b"]
    }

    static let layeredText = document(
        primary: ["0a", "0b"], included: (1..<layers).flatMap { ["\($0)a", "\($0)b"] }, edges: layerEdges)

    @Test("A layered graph of 16 layers encodes as a document: every resource once, with all its linkage")
    func layeredDocument() throws {
        let document = try decode([Node].self, Self.layeredText)
        let encoded = Self.text(try JSONAPIEncoder().encode(document))
        // Included in the order their writing finished: the deepest layer first.
        let included = (1..<Self.layers).reversed().flatMap { ["\($0)a", "\($0)b"] }
        let expected = Self.document(primary: ["0a", "0b"], included: included, edges: Self.layerEdges)
        #expect(encoded == expected)
        try Self.expectBothPathsAgree(document)
    }

    @Test("In a layered graph, a create body and an edit's diff encode the one resource")
    func layeredBodies() throws {
        let node = try #require(try decode([Node].self, Self.layeredText).data?.first)
        let encoder = JSONAPIEncoder()
        #expect(
            Self.text(try encoder.encodeCreateBody(for: node))
                == #"{"data":{"attributes":{"name":"n0a"},"id":"0a","relationships":{"links":{"data":[{"id":"1a","type":"nodes"},{"id":"1b","type":"nodes"}]}},"type":"nodes"}}"#
        )
        let renamed = try ResourceUpdate(from: node) { $0.name = "x" }
        #expect(Self.text(try encoder.encodeUpdateBody(for: renamed)) == #"{"data":{"attributes":{"name":"x"},"id":"0a","type":"nodes"}}"#)
        let relinked = try ResourceUpdate(from: node) { $0.links?.removeLast() }
        #expect(
            Self.text(try encoder.encodeUpdateBody(for: relinked))
                == #"{"data":{"id":"0a","relationships":{"links":{"data":[{"id":"1a","type":"nodes"}]}},"type":"nodes"}}"#)
        let unchanged = try ResourceUpdate(from: node) { _ in }
        #expect(unchanged.isEmpty)
    }

    // MARK: - Mesh

    static let meshSize = 8
    static let meshIDs = (0..<meshSize).map(String.init)
    static func meshEdges(_ id: String) -> [String] { meshIDs.filter { $0 != id } }
    static let meshText = document(primary: ["0"], included: Array(meshIDs.dropFirst()), edges: meshEdges)

    @Test("A mesh of 8 resources, each linking to all the others, encodes as a document")
    func meshDocument() throws {
        let document = try decode([Node].self, Self.meshText)
        let encoded = Self.text(try JSONAPIEncoder().encode(document))
        // Node k was decoded (and is encoded) under node k - 1: the last one finishes first.
        let expected = Self.document(primary: ["0"], included: Self.meshIDs.dropFirst().reversed(), edges: Self.meshEdges)
        #expect(encoded == expected)
        try Self.expectBothPathsAgree(document)
    }

    @Test("In a mesh, a create body and an edit's diff encode the one resource")
    func meshBodies() throws {
        let node = try #require(try decode([Node].self, Self.meshText).data?.first?.links?.last)
        #expect(node.id == "\(Self.meshSize - 1)")
        let encoder = JSONAPIEncoder()
        let body = try JSONValue.parse(Self.text(encoder.encodeCreateBody(for: node)))
        let expected = try JSONValue.parse(#"{"data":\#(Self.resource(node.id, edges: Self.meshEdges(node.id)))}"#)
        #expect(body == expected)
        let update = try ResourceUpdate(from: node) { $0.links = $0.links?.filter { $0.id != "3" } }
        let linkage = Self.meshEdges(node.id).filter { $0 != "3" }.map { #"{"id":"\#($0)","type":"nodes"}"# }
        #expect(
            Self.text(try encoder.encodeUpdateBody(for: update))
                == #"{"data":{"id":"\#(node.id)","relationships":{"links":{"data":[\#(linkage.joined(separator: ","))]}},"type":"nodes"}}"#)
    }

    // MARK: - Counted

    /// How many times ``CountedNode``s were encoded.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        var count: Int { lock.withLock { value } }
        func add() { lock.withLock { value += 1 } }
        func reset() { lock.withLock { value = 0 } }
    }

    /// A ``Node`` that counts its encodes.
    struct CountedNode: Resource {
        static let resourceType = "nodes"
        static let encodes = Counter()
        var id: String
        var name: String?
        var links: [CountedNode]?

        enum CodingKeys: String, CodingKey { case id, name, links }

        func encode(to encoder: any Encoder) throws {
            Self.encodes.add()
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encodeIfPresent(name, forKey: .name)
            try container.encodeIfPresent(links, forKey: .links)
        }
    }

    @Test("Each model is encoded once for a document, and the model alone for a create body or a diff")
    func encodesEachModelOnce() throws {
        let document = try decode([CountedNode].self, Self.layeredText)
        let node = try #require(document.data?.first)
        CountedNode.encodes.reset()
        _ = try JSONAPIEncoder().encode(document)
        #expect(CountedNode.encodes.count == 2 * Self.layers)
        CountedNode.encodes.reset()
        _ = try JSONAPIEncoder().encodeCreateBody(for: node)
        #expect(CountedNode.encodes.count == 1)
        CountedNode.encodes.reset()
        _ = try ResourceUpdate(from: node) { $0.name = "x" }
        #expect(CountedNode.encodes.count == 2)
    }

    // MARK: - Cycles

    /// article → author → articles → author …, every article by the same author.
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

    static let articleCount = 50

    static var authorText: String {
        let linkage = (0..<articleCount).map { #"{"id":"\#($0)","type":"articles"}"# }.joined(separator: ",")
        let articles = (0..<articleCount).map {
            #"{"attributes":{"title":"t\#($0)"},"id":"\#($0)","relationships":{"author":{"data":{"id":"p","type":"people"}}},"type":"articles"}"#
        }
        let person = #"{"attributes":{"name":"Ada"},"id":"p","relationships":{"articles":{"data":[\#(linkage)]}},"type":"people"}"#
        return #"{"data":[\#(articles.joined(separator: ","))],"included":[\#(person)]}"#
    }

    @Test("A cycle (articles by an author who links them all) encodes as the document it was decoded from")
    func cycleDocument() throws {
        let document = try decode([Article].self, Self.authorText)
        // The author is written in full, from the first path that reaches them, not from the copy a cycle cut to
        // its identifier: their name and their whole list of articles.
        #expect(Self.text(try JSONAPIEncoder().encode(document)) == Self.authorText)
        try Self.expectBothPathsAgree(document)
    }

    @Test("In a cycle, a create body and an edit's diff encode the one resource")
    func cycleBodies() throws {
        let articles = try #require(try decode([Article].self, Self.authorText).data)
        let encoder = JSONAPIEncoder()
        #expect(
            Self.text(try encoder.encodeCreateBody(for: articles[3]))
                == #"{"data":{"attributes":{"title":"t3"},"id":"3","relationships":{"author":{"data":{"id":"p","type":"people"}}},"type":"articles"}}"#
        )
        // A change inside a related model is not a change of this resource.
        #expect(try ResourceUpdate(from: articles[3]) { $0.author?.name = "Bob" }.isEmpty)
        let author = try #require(articles[3].author)
        let update = try ResourceUpdate(from: author) { $0.articles = Array($0.articles?.prefix(2) ?? []) }
        #expect(
            Self.text(try encoder.encodeUpdateBody(for: update))
                == #"{"data":{"id":"p","relationships":{"articles":{"data":[{"id":"0","type":"articles"},{"id":"1","type":"articles"}]}},"type":"people"}}"#
        )
    }

    /// A ring of to-one relationships through `ToOne`, which stores the related model out of line.
    struct Friend: Resource {
        static let resourceType = "friends"
        var id: String
        var name: String
        var next: ToOne<Friend>
    }

    @Test("A ring of three to-one relationships: each resource once, each with its linkage")
    func ring() throws {
        func friend(_ id: Int) -> String {
            #"{"attributes":{"name":"f\#(id)"},"id":"\#(id)","relationships":{"next":{"data":{"id":"\#(id % 3 + 1)","type":"friends"}}},"type":"friends"}"#
        }
        let text = #"{"data":[\#(friend(1))],"included":[\#(friend(2)),\#(friend(3))]}"#
        let document = try decode([Friend].self, text)
        // Friend 3 is written first: its writing finishes before that of friend 2, which links it.
        #expect(Self.text(try JSONAPIEncoder().encode(document)) == #"{"data":[\#(friend(1))],"included":[\#(friend(3)),\#(friend(2))]}"#)
        try Self.expectBothPathsAgree(document)
        let second = try #require(document.data?.first?.next.resource)
        #expect(Self.text(try JSONAPIEncoder().encodeCreateBody(for: second)) == #"{"data":\#(friend(2))}"#)
    }

    // MARK: - Linkage is read, not encoded

    /// A model that cannot be encoded: linking it must not encode it.
    struct Sealed: Resource {
        static let resourceType = "sealed"
        var id: Int
        func encode(to encoder: any Encoder) throws {
            throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "not encodable"))
        }
    }

    struct Holder: Resource {
        static let resourceType = "holders"
        var id: String
        var sealed: Sealed?
    }

    @Test("A request body links a related model by its identity, without encoding it; a document must encode it")
    func linkageWithoutEncoding() throws {
        let holder = Holder(id: "1", sealed: Sealed(id: 7))
        let encoder = JSONAPIEncoder()
        #expect(
            Self.text(try encoder.encodeCreateBody(for: holder))
                == #"{"data":{"attributes":{},"id":"1","relationships":{"sealed":{"data":{"id":"7","type":"sealed"}}},"type":"holders"}}"#)
        let update = try ResourceUpdate(from: holder) { $0.sealed = Sealed(id: 8) }
        #expect(
            Self.text(try encoder.encodeUpdateBody(for: update))
                == #"{"data":{"id":"1","relationships":{"sealed":{"data":{"id":"8","type":"sealed"}}},"type":"holders"}}"#)
        #expect(throws: EncodingError.self) { try encoder.encode(Document(data: holder)) }
        #expect(throws: EncodingError.self) { try encoder.rawDocument(Document(data: holder)) }
    }
}
