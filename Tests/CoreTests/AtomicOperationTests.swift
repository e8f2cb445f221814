import Foundation
import Testing

@testable import JSONAPIClientCore

@Suite("Atomic Operations extension")
struct AtomicOperationTests {
    @Test("Operations encode as the extension describes; a lid from an earlier operation links later ones")
    func encodeOperations() throws {
        let author = ResourceIdentifier(type: "people", lid: "p1")
        let operations: [AtomicOperation] = [
            .add(ResourceObject(type: "people", lid: "p1", attributes: ["name": "Ann"])),
            .add(
                ResourceObject(
                    type: "articles", attributes: ["title": "Hello"],
                    relationships: ["author": Relationship(data: .toOne(author))])),
            .update(ResourceObject(type: "articles", id: "13", attributes: ["title": "Renamed"])),
            .replace("author", of: ResourceIdentifier(type: "articles", id: "13"), with: nil),
            .change(.add, "tags", of: ResourceIdentifier(type: "articles", id: "13"), members: [ResourceIdentifier(type: "tags", id: "1")]),
            .remove(ResourceIdentifier(type: "articles", id: "99")),
        ]
        let body = try JSONValue(parsing: [UInt8](JSONAPIEncoder().encodeAtomicOperations(operations)))
        let expected: JSONValue = [
            "atomic:operations": [
                ["op": "add", "data": ["type": "people", "lid": "p1", "attributes": ["name": "Ann"]]],
                [
                    "op": "add",
                    "data": [
                        "type": "articles", "attributes": ["title": "Hello"],
                        "relationships": ["author": ["data": ["type": "people", "lid": "p1"]]],
                    ],
                ],
                ["op": "update", "data": ["type": "articles", "id": "13", "attributes": ["title": "Renamed"]]],
                ["op": "update", "ref": ["type": "articles", "id": "13", "relationship": "author"], "data": nil],
                [
                    "op": "add", "ref": ["type": "articles", "id": "13", "relationship": "tags"],
                    "data": [["type": "tags", "id": "1"]],
                ],
                ["op": "remove", "ref": ["type": "articles", "id": "99"]],
            ]
        ]
        #expect(body == expected)
    }

    @Test("Results decode in request order; empty results are allowed")
    func decodeResults() throws {
        let text = #"""
            {"atomic:results": [
              {"data": {"type": "people", "id": "7", "lid": "p1", "attributes": {"name": "Ann"}}},
              {"data": {"type": "articles", "id": "8", "attributes": {"title": "Hello"}}, "meta": {"created": true}},
              {}
            ]}
            """#
        let results = try JSONAPIDecoder().decodeAtomicResults(from: Data(text.utf8))
        #expect(results.count == 3)
        #expect(results[0].data?.resources.first?.id == "7")
        #expect(results[0].data?.resources.first?.lid == "p1")
        #expect(results[1].meta == ["created": true])
        #expect(results[2] == AtomicResult())
        do {
            _ = try JSONAPIDecoder().decodeAtomicResults(from: Data(#"{"meta": {}}"#.utf8))
            Issue.record("expected an error: a 200 must carry atomic:results")
        } catch {
            #expect(error.code == .missingMember)
            #expect(error.pointer == "/atomic:results")
        }
        #expect(try JSONAPIDecoder().decodeAtomicResults(from: Data(#"{"atomic:results": []}"#.utf8)) == [])
        do {
            _ = try JSONAPIDecoder().decodeAtomicResults(from: Data(#"{"atomic:results": [{"data": 5}]}"#.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.pointer == "/atomic:results/0/data")
        }
    }
}
