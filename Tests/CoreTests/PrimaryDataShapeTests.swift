import Foundation
import Testing

@testable import JSONAPIClientCore

/// The schema-less reader reads each element of a primary-data array for what it is: an identifier-only first
/// element does not make the others lose their attributes, relationships, links or meta.
@Suite("The schema-less reader never drops members")
struct PrimaryDataShapeTests {
    static let sparseFirst: [ResourceObject] = [
        ResourceObject(type: "articles", id: "1"),
        ResourceObject(
            type: "articles", id: "2", attributes: ["title": "Second"],
            relationships: ["previous": Relationship(data: .toOne(ResourceIdentifier(type: "articles", id: "1")))],
            links: Links(["self": Link(href: "http://example.com/articles/2")]), meta: ["rank": 2]),
        ResourceObject(type: "articles", id: "3", meta: ["hidden": true]),
    ]

    @Test("Element 0 identifier-only, element 1 a full resource: every element is a resource, nothing lost")
    func sparseFirstElement() throws {
        let document = try Fixture.raw("sparse-first")
        #expect(document.data == .resources(Self.sparseFirst))
        // The same through a typed document of PrimaryData and through the Atomic Operations results.
        let typed = try JSONAPIDecoder().decode(Document<PrimaryData>.self, from: Fixture.data("sparse-first"))
        #expect(typed.data == .resources(Self.sparseFirst))
        let fixture = try JSONValue(parsing: [UInt8](Fixture.data("sparse-first")))
        var writer = JSONWriter()
        writer.write(["atomic:results": [["data": fixture["data"] ?? .null]]], sortedKeys: true)
        let results = try JSONAPIDecoder().decodeAtomicResults(from: Data(writer.bytes))
        #expect(results.first?.data == .resources(Self.sparseFirst))
    }

    @Test("Each position of the full resource, and all identifier-only elements", arguments: 0..<3)
    func fullResourceAnywhere(position: Int) throws {
        var elements: [JSONValue] = [
            ["type": "tags", "id": "1"], ["type": "tags", "id": "2", "meta": ["m": 1]], ["type": "tags", "id": "3"],
        ]
        elements[position] = ["type": "tags", "id": .string("\(position + 1)"), "attributes": ["name": "full"]]
        var writer = JSONWriter()
        writer.write(["data": .array(elements)], sortedKeys: true)
        let document = try JSONAPIDecoder().decode(RawDocument.self, from: Data(writer.bytes))
        let resources = try #require({ if case .resources(let resources)? = document.data { resources } else { nil } }())
        #expect(resources.map(\.id) == ["1", "2", "3"])
        #expect(resources[position].attributes == ["name": "full"])
        #expect(resources[1].meta == (position == 1 ? nil : ["m": 1]))

        let identifiersOnly = try JSONAPIDecoder().decode(
            RawDocument.self, from: Data(#"{"data": [{"type": "tags", "id": "1"}, {"type": "tags", "id": "2", "meta": {"m": 1}}]}"#.utf8))
        #expect(
            identifiersOnly.data
                == .identifiers([ResourceIdentifier(type: "tags", id: "1"), ResourceIdentifier(type: "tags", id: "2", meta: ["m": 1])]))
    }
}
