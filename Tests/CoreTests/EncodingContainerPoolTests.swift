// Tests that a model's keyed encoding container is handed out again only when nothing holds it
// (`EncodingContainerPool`), that it never writes one model's members into another's resource, and that the
// models' captures are still reused.
import Foundation
import Testing

@testable import JSONAPIClientCore

/// What the models below saw while encoding: a class, because models are values.
private final class Witness: @unchecked Sendable {
    var boxes: [ObjectIdentifier] = []
    var captures: [ObjectIdentifier] = []
    var kept: [KeyedEncodingContainer<Shelf.CodingKeys>] = []
    weak var context: ResourceEncodingContext?
}

/// The box a `KeyedEncodingContainer` is (one reference, which `EncodingContainerPool` checks before it keeps
/// any).
private func containerBox<Key>(of container: KeyedEncodingContainer<Key>) -> ObjectIdentifier {
    ObjectIdentifier(unsafeBitCast(container, to: AnyObject.self))
}

/// A model that notes its container's box and capture, may keep its container, and may link a parent of its own type
/// in the middle of its members.
private struct Shelf: Resource {
    static let resourceType = "shelves"
    enum CodingKeys: String, CodingKey { case id, name, rank, parent }
    var id: String
    var name: String
    var rank: Int
    var parent: ToOne<Shelf>?
    var keepsContainer = false
    var witness: Witness

    init(id: String, name: String, rank: Int, parent: Shelf? = nil, keepsContainer: Bool = false, witness: Witness) {
        self.id = id
        self.name = name
        self.rank = rank
        self.parent = parent.map { ToOne($0) }
        self.keepsContainer = keepsContainer
        self.witness = witness
    }

    init(from decoder: any Decoder) throws { throw CancellationError() }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        witness.boxes.append(containerBox(of: container))
        if let encoder = encoder as? ResourceObjectEncoder {
            witness.captures.append(ObjectIdentifier(encoder.capture))
            witness.context = encoder.context
        }
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        // The parent is encoded (linked and included) between this model's own members.
        try container.encodeIfPresent(parent, forKey: .parent)
        try container.encode(rank, forKey: .rank)
        if keepsContainer { witness.kept.append(container) }
    }
}

@Suite("Encoding containers handed out again")
struct EncodingContainerPoolTests {
    private func encode(_ shelves: [Shelf]) throws -> RawDocument {
        try #require(MemoryLayout<KeyedEncodingContainer<Shelf.CodingKeys>>.size == MemoryLayout<AnyObject>.size)
        let data = try JSONAPIEncoder().encode(Document(data: shelves))
        return try JSONAPIDecoder().decode(RawDocument.self, from: data)
    }

    private func members(of resource: ResourceObject) -> (name: JSONValue?, rank: JSONValue?) {
        (resource.attributes?["name"], resource.attributes?["rank"])
    }

    @Test("Sibling models are written through one container and one capture, each into its own resource")
    func siblingsShareOne() throws {
        let witness = Witness()
        let shelves = (1...5).map { Shelf(id: "\($0)", name: "s\($0)", rank: $0, witness: witness) }
        let document = try encode(shelves)
        let resources = document.data?.resources ?? []
        #expect(resources.map(\.id) == ["1", "2", "3", "4", "5"])
        #expect(resources.map { members(of: $0).name } == (1...5).map { .string("s\($0)") })
        #expect(resources.map { members(of: $0).rank } == (1...5).map { JSONValue(integerLiteral: $0) })
        // The container and the capture are the same for every shelf.
        #expect(witness.boxes.count >= 5 && Set(witness.boxes).count == 1)
        #expect(Set(witness.captures).count == 1)
    }

    @Test("A model linking a model of its own type part-way gets its own container; both write their own members")
    func sameTypeNested() throws {
        let witness = Witness()
        let root = Shelf(id: "1", name: "root", rank: 1, witness: witness)
        let branch = Shelf(id: "2", name: "branch", rank: 2, parent: root, witness: witness)
        let leaf = Shelf(id: "3", name: "leaf", rank: 3, parent: branch, witness: witness)
        let document = try encode([leaf])
        let primary = try #require(document.data?.resources.first)
        #expect(members(of: primary).name == .string("leaf"))
        #expect(members(of: primary).rank == 3)
        let included = Dictionary(uniqueKeysWithValues: (document.included ?? []).map { ($0.id ?? "", $0) })
        #expect(included.keys.sorted() == ["1", "2"])
        #expect(included["2"].map { members(of: $0).name } == .string("branch"))
        #expect(included["2"].map { members(of: $0).rank } == 2)
        #expect(included["1"].map { members(of: $0).name } == .string("root"))
        // The leaf, its parent and the root are written while the one below is still in use: three containers.
        #expect(Set(witness.boxes).count == 3)
    }

    @Test("A model that keeps its container keeps writing into its own capture; the next model gets another")
    func keptContainer() throws {
        let witness = Witness()
        let shelves = [
            Shelf(id: "1", name: "kept", rank: 1, keepsContainer: true, witness: witness),
            Shelf(id: "2", name: "next", rank: 2, witness: witness),
        ]
        let document = try encode(shelves)
        let resources = document.data?.resources ?? []
        #expect(resources.map { members(of: $0).name } == [.string("kept"), .string("next")])
        #expect(resources.map { members(of: $0).rank } == [1, 2])
        #expect(Set(witness.boxes.prefix(2)).count == 2)
        // Writing through the kept container after the encode changes nothing that was written.
        var kept = try #require(witness.kept.first)
        try kept.encode("late", forKey: .name)
        #expect(try encode(shelves).data?.resources.map { members(of: $0).name } == [.string("kept"), .string("next")])
    }

    @Test("The encode's context is freed when the encode ends")
    func contextFreed() throws {
        let witness = Witness()
        _ = try encode([Shelf(id: "1", name: "a", rank: 1, witness: witness)])
        #expect(!witness.captures.isEmpty)
        #expect(witness.context == nil)
    }
}
