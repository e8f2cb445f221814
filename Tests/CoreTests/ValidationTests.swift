import Foundation
import Testing

@testable import JSONAPIClientCore

@Suite("Validation")
struct ValidationTests {
    @Test(
        "Valid fixtures have no violations",
        arguments: Fixture.valid.filter { $0 != "lenient" })
    func validFixtures(name: String) throws {
        #expect(try DocumentValidator.validate(Fixture.data(name)) == [])
    }

    @Test("What decoding tolerates, validation reports")
    func lenientIsNotValid() throws {
        let violations = try DocumentValidator.validate(Fixture.data("lenient"))
        #expect(violations.map(\.pointer) == ["/unknown", "/data/id"])
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
            "/extra", "/errors", "/data/0/id", "/data/0/attributes/links", "/data/0/attributes/bad name!",
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
    }

    enum Checker {
        static func legal(_ name: String) -> Bool {
            DocumentValidator.validate(["meta": .object([name: 1])]).isEmpty
        }
    }
}
