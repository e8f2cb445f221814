import Foundation
import Testing

@testable import JSONAPIClientCore

/// One document of `Fixtures/spec-violations.json`: the pointers the validator must report for it, in document
/// order (none for a valid document), and a part of the message of the rule it is there for.
struct ViolationCase: Decodable, CustomTestStringConvertible, Sendable {
    var name: String
    var kind: String?
    var json: String
    var pointers: [String]
    var message: String?
    var testDescription: String { name }

    var documentKind: DocumentValidator.Kind? {
        switch kind ?? "response" {
        case "response": .response
        case "createRequest": .createRequest
        case "updateRequest": .updateRequest
        case "relationshipRequest": .relationshipRequest
        default: nil
        }
    }

    static func all() throws -> [ViolationCase] {
        try JSONDecoder().decode([ViolationCase].self, from: Fixture.data("spec-violations"))
    }
}

@Suite("Validation")
struct ValidationTests {
    @Test(
        "Valid fixtures have no violations",
        arguments: Fixture.valid.filter { $0 != "lenient" && $0 != "single-resource" })
    func validFixtures(name: String) throws {
        // lid.json is the body of a create request: its resources have no id yet.
        let kind: DocumentValidator.Kind = name == "lid" ? .createRequest : .response
        #expect(try DocumentValidator.validate(Fixture.data(name), as: kind) == [])
    }

    @Test("Each document reports exactly its violations, in document order", arguments: try ViolationCase.all())
    func violationCase(_ test: ViolationCase) throws {
        let kind = try #require(test.documentKind, "unknown kind \(test.kind ?? "")")
        let violations = try DocumentValidator.validate(Data(test.json.utf8), as: kind)
        #expect(violations.map(\.pointer) == test.pointers, "\(violations)")
        if let message = test.message {
            #expect(violations.contains { $0.message.contains(message) }, "\(violations)")
        }
    }

    @Test("What decoding tolerates, validation reports")
    func lenientIsNotValid() throws {
        let violations = try DocumentValidator.validate(Fixture.data("lenient"))
        #expect(violations.map(\.pointer) == ["/unknown", "/data/id"])
        // The decoder keeps a resource link the specification does not define; a resource may only have "self".
        let links = try DocumentValidator.validate(Fixture.data("single-resource"))
        #expect(links.map(\.description) == ["/data/links/alternate: a resource's links object must not contain the link \"alternate\""])
    }

    @Test("Every MUST violation is reported with its pointer")
    func everyViolation() throws {
        let text = """
            {
              "data": [
                {"type": "articles", "id": 1, "attributes": {"links": 1, "title": "x", "bad name!": 2},
                 "relationships": {"title": {"data": null}, "author": {}, "tags": {"data": [{"type": "tags"}]}}},
                {"id": "2"},
                {"type": "articles", "id": "3", "meta": [1], "links": {"self": {"title": "no href"}}}
              ],
              "errors": [],
              "included": [{"type": "people", "id": "9"}, {"type": "articles", "id": "3"}],
              "jsonapi": {"version": 1.1, "ext": "x"},
              "links": {"next": 5},
              "extra": true
            }
            """
        let violations = DocumentValidator.validate(try JSONValue.parse(text))
        let expected = [
            "/extra", "/errors", "/data/0/id", "/data/0/attributes/bad name!",
            "/data/0/relationships/author", "/data/0/relationships/tags/data/0", "/data/0/relationships/title",
            "/data/1", "/data/2/links/self", "/data/2/meta", "/included/1", "/links/next", "/jsonapi/version",
            "/jsonapi/ext", "/included/0",
        ]
        #expect(Set(violations.map(\.pointer)) == Set(expected))
        #expect(violations.contains { $0.description == "/data/0/relationships/title: \"title\" is both an attribute and a relationship; fields share one namespace" })
        #expect(violations.contains { $0.description == "/errors: \"data\" and \"errors\" must not coexist in the same document" })
    }

    @Test("Member names: extension and @-members are legal, others must use the allowed characters")
    func memberNames() {
        #expect(Checker.legal("title"))
        #expect(Checker.legal("first-name"))
        #expect(Checker.legal("atomic:operations"))
        #expect(Checker.legal("@context"))
        #expect(Checker.legal("naïve"))
        #expect(!Checker.legal("-leading"))
        #expect(!Checker.legal("trailing_"))
        #expect(!Checker.legal("a+b"))
        #expect(!Checker.legal(""))
        #expect(!Checker.legal("my-ext:member"))
        #expect(!Checker.legal(":member"))
        #expect(!Checker.legal("a:b:c"))
    }

    @Test("A lid-only resource is fine in a create request, not in a response")
    func lidByKind() throws {
        let data = try Fixture.data("lid")
        #expect(try DocumentValidator.validate(data, as: .createRequest) == [])
        #expect(try DocumentValidator.validate(data).map(\.pointer) == ["/data", "/data/relationships/author/data", "/included/0", "/included/0/relationships/articles/data/0"])
    }

    @Test("Full linkage follows long chains through included resources")
    func longChain() throws {
        // articles/0 → articles/1 → … → articles/N, every link but the first inside included.
        let count = 5_000
        func resource(_ index: Int) -> String {
            let next = index < count ? #"{"next": {"data": {"type": "articles", "id": "\#(index + 1)"}}}"# : "{}"
            return #"{"type": "articles", "id": "\#(index)", "relationships": \#(next)}"#
        }
        let included = (1...count).reversed().map(resource).joined(separator: ",")
        let linked = #"{"data": \#(resource(0)), "included": [\#(included)]}"#
        #expect(try DocumentValidator.validate(Data(linked.utf8)) == [])
        // Without the first link every included resource is an island.
        let unlinked = #"{"data": {"type": "articles", "id": "0"}, "included": [\#(included)]}"#
        #expect(try DocumentValidator.validate(Data(unlinked.utf8)).count == count)
    }

    @Test("Duplicate member names are found in a large object, once each")
    func duplicatesInALargeObject() throws {
        let names = (0..<20_000).map { "\"m\($0)\": \($0)" } + ["\"m7\": 0", "\"m19999\": 0"]
        let text = "{\"meta\": {" + names.joined(separator: ", ") + "}}"
        let violations = try DocumentValidator.validate(Data(text.utf8))
        #expect(violations.map(\.pointer) == ["/meta/m7", "/meta/m19999"])
    }

    @Test("A JSONValue document is validated like its text")
    func jsonValue() {
        let document: JSONValue = ["data": ["type": "test+1", "id": "1"], "links": ["wrong": "/x"]]
        #expect(DocumentValidator.validate(document).map(\.pointer) == ["/data/type", "/links/wrong"])
        #expect(DocumentValidator.validate(["data": ["type": "articles"]], as: .createRequest) == [])
    }

    enum Checker {
        static func legal(_ name: String) -> Bool {
            DocumentValidator.validate(["meta": .object([name: 1])]).isEmpty
        }
    }
}
