// Tests that a resource's keyed container is handed out again only when nothing holds it (`DecodingContainerPool`): a
// model that keeps its container, or is still reading with it, never sees another resource through it.
import Foundation
import Testing

@testable import JSONAPIClientCore

/// Where a model leaves its container, and a weak reference to the decode's context.
private final class Holder: @unchecked Sendable {
    var container: KeyedDecodingContainer<HoldingArticle.CodingKeys>?
    var decoder: (any Decoder)?
    weak var context: ResourceDecodingContext?
    /// Whether `context` was set to a context (which may be gone by now).
    var sawContext = false
}

/// An article whose `init(from:)` keeps its keyed container (reading nothing else but its id).
private struct HoldingArticle: Resource {
    static let resourceType = "articles"
    enum CodingKeys: String, CodingKey { case id, title, author }
    var id: String
    var holder = Holder()

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        holder.container = container
    }

    func encode(to encoder: any Encoder) throws {}
}

/// A category that reads its parent, a category too, between its own members: the parent's decode needs a
/// container of the same key type while this one is still in use.
private struct Category: Resource {
    static let resourceType = "categories"
    enum CodingKeys: String, CodingKey { case id, name, parent, rank }
    var id: String
    var name: String
    var parent: ToOne<Category>?
    var rank: Int

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        parent = try container.decodeIfPresent(ToOne<Category>.self, forKey: .parent)
        name = try container.decode(String.self, forKey: .name)
        rank = try container.decode(Int.self, forKey: .rank)
    }

    func encode(to encoder: any Encoder) throws {}
}

/// A person that notes the context it was decoded with, weakly.
private struct NotingPerson: Resource {
    static let resourceType = "people"
    enum CodingKeys: String, CodingKey { case id }
    var id: String
    var holder = Holder()

    init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .id)
        holder.context = (decoder as? ResourceDecoder)?.context
        holder.sawContext = holder.context != nil
    }

    func encode(to encoder: any Encoder) throws {}
}

@Suite("Containers handed out again")
struct ContainerPoolTests {
    static let articles = #"""
        {"data":[
          {"type":"articles","id":"1","attributes":{"title":"First"},
           "relationships":{"author":{"data":{"type":"people","id":"9"}}}},
          {"type":"articles","id":"2","attributes":{"title":"Second"},
           "relationships":{"author":{"data":{"type":"people","id":"8"}}}},
          {"type":"articles","id":"3","attributes":{"title":"Third"}}],
         "included":[{"type":"people","id":"9","attributes":{"firstName":"Dan","lastName":"Gebhardt"}},
                     {"type":"people","id":"8","attributes":{"firstName":"Ada","lastName":"Lovelace"}}]}
        """#

    @Test("Models that keep their containers each read their own resource through them")
    func keptContainers() throws {
        let articles = try #require(
            try JSONAPIDecoder().decode(Document<[HoldingArticle]>.self, from: Data(Self.articles.utf8)).data)
        #expect(articles.map(\.id) == ["1", "2", "3"])
        let containers = try articles.map { try #require($0.holder.container) }
        #expect(try containers.map { try $0.decode(String.self, forKey: .title) } == ["First", "Second", "Third"])
        let authors: [String?] = try containers.map { try $0.decodeIfPresent(Person.self, forKey: .author)?.lastName }
        #expect(authors == ["Gebhardt", "Lovelace", nil])
    }

    @Test("A model reads its own members after decoding a model of its own type part-way, at every depth")
    func sameTypeNested() throws {
        let body = #"""
            {"data":{"type":"categories","id":"1","attributes":{"name":"Leaf","rank":1},
               "relationships":{"parent":{"data":{"type":"categories","id":"2"}}}},
             "included":[
               {"type":"categories","id":"2","attributes":{"name":"Branch","rank":2},
                "relationships":{"parent":{"data":{"type":"categories","id":"3"}}}},
               {"type":"categories","id":"3","attributes":{"name":"Root","rank":3},
                "relationships":{"parent":{"data":null}}}]}
            """#
        let leaf = try #require(try JSONAPIDecoder().decode(Document<Category>.self, from: Data(body.utf8)).data)
        let branch = try #require(leaf.parent?.resource)
        let root = try #require(branch.parent?.resource)
        #expect([leaf.name, branch.name, root.name] == ["Leaf", "Branch", "Root"])
        #expect([leaf.rank, branch.rank, root.rank] == [Int](1...3))
        #expect([leaf.id, branch.id, root.id] == ["1", "2", "3"])
        #expect(root.parent?.identifier == nil)
    }

    @Test("Siblings of one type decoded one after another each read their own members")
    func siblingsInOrder() throws {
        // Many resources of one type through one container, handed out again each time.
        let count = 50
        let data = (1...count).map { #"{"type":"categories","id":"\#($0)","attributes":{"name":"c\#($0)","rank":\#($0)}}"# }
        let body = #"{"data":[\#(data.joined(separator: ","))]}"#
        let categories = try #require(
            try JSONAPIDecoder().decode(Document<[Category]>.self, from: Data(body.utf8)).data)
        #expect(categories.map(\.name) == (1...count).map { "c\($0)" })
        #expect(categories.map(\.rank) == Array(1...count))
    }

    @Test("The decode's context is freed when it ends, and when a kept decoder made a container after it")
    func contextFreed() throws {
        let body = #"{"data":[{"type":"people","id":"1"},{"type":"people","id":"2"}]}"#
        let holder: Holder
        do {
            let people = try #require(
                try JSONAPIDecoder().decode(Document<[NotingPerson]>.self, from: Data(body.utf8)).data)
            holder = people[1].holder
        }
        #expect(holder.sawContext)
        #expect(holder.context == nil)

        let witness = Holder()
        do {
            let kept = try #require(
                try JSONAPIDecoder().decode(Document<KeptDecoderArticle>.self, from: Data(KeptDecoderArticle.body.utf8))
                    .data)
            witness.context = (kept.holder.decoder as? ResourceDecoder)?.context
            #expect(witness.context != nil)
            // A container made after the decode, through the kept decoder, is not kept by the context.
            let late = try kept.holder.decoder?.container(keyedBy: KeptDecoderArticle.CodingKeys.self)
            #expect(try late?.decode(String.self, forKey: .title) == "Kept")
        }
        #expect(witness.context == nil)
    }
}

/// An article that keeps its decoder.
private struct KeptDecoderArticle: Resource {
    static let resourceType = "articles"
    static let body = #"{"data":{"type":"articles","id":"1","attributes":{"title":"Kept"}}}"#
    enum CodingKeys: String, CodingKey { case id, title }
    var id: String
    var holder = Holder()

    init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .id)
        holder.decoder = decoder
    }

    func encode(to encoder: any Encoder) throws {}
}

// MARK: - Handing out again, observed

/// The box a `KeyedDecodingContainer` is (one reference, which `DecodingContainerPool` checks before it keeps any).
private func containerBox<Key>(of container: KeyedDecodingContainer<Key>) -> ObjectIdentifier {
    ObjectIdentifier(unsafeBitCast(container, to: AnyObject.self))
}

/// The boxes the decoders below were handed, in order: a class, because models are values.
private final class Boxes: @unchecked Sendable {
    var seen: [ObjectIdentifier] = []
}

/// A plain object (in attributes) that notes its container's box.
private struct Tag: Decodable {
    enum CodingKeys: String, CodingKey { case label, weight }
    var label: String
    var weight: Int
    var boxes = Boxes()

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        boxes.seen.append(containerBox(of: container))
        label = try container.decode(String.self, forKey: .label)
        weight = try container.decode(Int.self, forKey: .weight)
    }
}

/// A plain object that reads objects of its own type between its own members: a tree.
private struct Node: Decodable {
    enum CodingKeys: String, CodingKey { case name, children, size }
    var name: String
    var children: [Node]
    var size: Int
    var box: ObjectIdentifier

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        box = containerBox(of: container)
        children = try container.decode([Node].self, forKey: .children)
        name = try container.decode(String.self, forKey: .name)
        size = try container.decode(Int.self, forKey: .size)
    }
}

/// A plain object that keeps its container (only read on the test's own task).
private struct Note: Decodable, @unchecked Sendable {
    enum CodingKeys: String, CodingKey { case text }
    var container: KeyedDecodingContainer<CodingKeys>

    init(from decoder: any Decoder) throws {
        container = try decoder.container(keyedBy: CodingKeys.self)
    }
}

private struct Shelf: Resource {
    static let resourceType = "shelves"
    enum CodingKeys: String, CodingKey { case id, tags, tree, notes }
    var id: String
    var tags: [Tag]
    var tree: Node?
    var notes: [Note]?
    var box: ObjectIdentifier

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        box = containerBox(of: container)
        id = try container.decode(String.self, forKey: .id)
        tags = try container.decode([Tag].self, forKey: .tags)
        tree = try container.decodeIfPresent(Node.self, forKey: .tree)
        notes = try container.decodeIfPresent([Note].self, forKey: .notes)
    }

    func encode(to encoder: any Encoder) throws {}
}

@Suite("Containers handed out again, observed")
struct ContainerPoolReuseTests {
    private func shelves(_ body: String) throws -> [Shelf] {
        try #require(MemoryLayout<KeyedDecodingContainer<Shelf.CodingKeys>>.size == MemoryLayout<AnyObject>.size)
        return try #require(try JSONAPIDecoder().decode(Document<[Shelf]>.self, from: Data(body.utf8)).data)
    }

    @Test("Sibling resources and sibling plain objects are read through one container each, handed out again")
    func siblingsShareOneContainer() throws {
        let tags = (1...4).map { #"{"label":"t\#($0)","weight":\#($0)}"# }.joined(separator: ",")
        let resources = (1...3).map { #"{"type":"shelves","id":"\#($0)","attributes":{"tags":[\#(tags)]}}"# }
        let shelves = try shelves(#"{"data":[\#(resources.joined(separator: ","))]}"#)
        #expect(shelves.map(\.id) == ["1", "2", "3"])
        #expect(Set(shelves.map(\.box)).count == 1)
        let tagBoxes = shelves.flatMap { $0.tags.flatMap(\.boxes.seen) }
        #expect(tagBoxes.count == 12 && Set(tagBoxes).count == 1)
        #expect(!Set(tagBoxes).isSubset(of: Set(shelves.map(\.box))))
        for shelf in shelves {
            #expect(shelf.tags.map(\.label) == ["t1", "t2", "t3", "t4"])
            #expect(shelf.tags.map(\.weight) == [1, 2, 3, 4])
        }
    }

    @Test("A plain object reading objects of its own type part-way gets its own container, at every depth")
    func treeOfOneType() throws {
        let tree = #"""
            {"name":"root","size":3,"children":[
              {"name":"a","size":1,"children":[{"name":"a1","size":0,"children":[]}]},
              {"name":"b","size":1,"children":[{"name":"b1","size":0,"children":[]}]}]}
            """#
        let shelves = try shelves(#"{"data":[{"type":"shelves","id":"1","attributes":{"tags":[],"tree":\#(tree)}}]}"#)
        let root = try #require(shelves.first?.tree)
        #expect(root.name == "root" && root.size == 3)
        #expect(root.children.map(\.name) == ["a", "b"] && root.children.map(\.size) == [1, 1])
        #expect(root.children.flatMap(\.children).map(\.name) == ["a1", "b1"])
        // The root's container is in use while its children are read; each level below it likewise.
        let a = root.children[0], b = root.children[1]
        #expect(root.box != a.box && a.box != a.children[0].box)
        // The table keeps the last container made for a key type: `a1`'s. `b` is read after `a1` has returned, so it
        // gets that container again; `b1` is read while `b` uses it, so it gets a new one.
        #expect(b.box == a.children[0].box && b.children[0].box != b.box)
    }

    @Test("A plain object that keeps its container still reads its own object through it")
    func keptObjectContainers() throws {
        let notes = (1...3).map { #"{"text":"note \#($0)"}"# }.joined(separator: ",")
        let shelves = try shelves(#"{"data":[{"type":"shelves","id":"1","attributes":{"tags":[],"notes":[\#(notes)]}}]}"#)
        let kept = try #require(shelves.first?.notes)
        #expect(try kept.map { try $0.container.decode(String.self, forKey: .text) } == ["note 1", "note 2", "note 3"])
        #expect(Set(kept.map { containerBox(of: $0.container) }).count == 3)
    }
}
