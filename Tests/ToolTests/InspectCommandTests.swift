import Foundation
import JSONAPIClientCore
import Testing

@Suite("jsonapi inspect")
struct InspectCommandTests {
    @Test("Prints the document normalized: pretty, sorted keys, unknown members dropped; exit 0")
    func normalized() async throws {
        let run = try await Tool.run(["inspect", Tool.fixture("lenient")])
        #expect(run.status == 0)
        #expect(run.standardError.isEmpty)
        #expect(run.standardOutput.hasPrefix("{\n  \"data\": {\n    \"attributes\": {\n"))
        #expect(!run.standardOutput.contains("unknown"))
        #expect(run.standardOutput.contains("\"id\": \"42\""))
        // What it prints is the same document.
        let original = try JSONAPIDecoder().decode(RawDocument.self, from: Data(contentsOf: URL(fileURLWithPath: Tool.fixture("lenient"))))
        #expect(try JSONAPIDecoder().decode(RawDocument.self, from: Data(run.standardOutput.utf8)) == original)
    }

    @Test("Reads standard input with -")
    func standardInput() async throws {
        let run = try await Tool.run(["inspect", "-"], input: Data(#"{"meta":{"b":1,"a":2}}"#.utf8))
        #expect(run.status == 0)
        #expect(run.standardOutput == "{\n  \"meta\": {\n    \"a\": 2,\n    \"b\": 1\n  }\n}\n")
    }

    @Test("--strict prints one POINTER: message line per violation on standard error and exits 1")
    func strict() async throws {
        let run = try await Tool.run(["inspect", "--strict", Tool.fixture("lenient")])
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(
            run.standardError.split(separator: "\n") == [
                "/unknown: a document must not contain the member \"unknown\"", "/data/id: id must be a string",
            ])
        let valid = try await Tool.run(["inspect", "--strict", Tool.fixture("spec-compound")])
        #expect(valid.status == 0)
    }

    @Test("A collection whose first element is identifier-only: every member of every element is printed")
    func sparseFirstElement() async throws {
        for arguments in [["inspect", Tool.fixture("sparse-first")], ["inspect", "--strict", Tool.fixture("sparse-first")]] {
            let run = try await Tool.run(arguments)
            #expect(run.status == 0)
            #expect(run.standardError.isEmpty)
            for member in [#""title": "Second""#, #""previous": {"#, #""self": "http://example.com/articles/2""#, #""rank": 2"#, #""hidden": true"#] {
                #expect(run.standardOutput.contains(member), "\(arguments): \(member)")
            }
        }
    }

    @Test("A document that does not decode: the pointer and the reason, exit 1")
    func undecodable() async throws {
        let run = try await Tool.run(["inspect", "-"], input: Data(#"{"data": {"id": "1", "attributes": {}}}"#.utf8))
        #expect(run.status == 1)
        #expect(run.standardError == "/data/type: expected member \"type\"\n")
        let syntax = try await Tool.run(["inspect", "-"], input: Data("{\"data\": [1,]}".utf8))
        #expect(syntax.status == 1)
        #expect(syntax.standardError.contains("invalid JSON"))
    }

    @Test("--strict --request checks a request body: a create body needs no id, an update body does")
    func requestKinds() async throws {
        let create = #"{"data": {"type": "articles", "attributes": {"title": "x"}, "relationships": {"author": {"data": {"type": "people", "id": "9"}}}}}"#
        let created = try await Tool.run(["inspect", "--strict", "--request=create", "-"], input: Data(create.utf8))
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardOutput.contains("\"title\": \"x\""))
        // The same body as a response or an update: a resource needs its id.
        let response = try await Tool.run(["inspect", "--strict", "-"], input: Data(create.utf8))
        #expect(response.status == 1)
        #expect(response.standardError == "/data: a resource object must contain \"id\"\n")
        let update = try await Tool.run(["inspect", "--strict", "--request", "update", "-"], input: Data(create.utf8))
        #expect(update.status == 1)
        #expect(update.standardOutput.isEmpty)
        #expect(update.standardError == "/data: a resource object must contain \"id\"\n")
    }

    @Test("--strict --request=create: every relationship needs data")
    func createRelationshipWithoutData() async throws {
        let body = #"{"data": {"type": "articles", "id": "1", "relationships": {"author": {"links": {"related": "/a"}}}}}"#
        let run = try await Tool.run(["inspect", "--strict", "--request=create", "-"], input: Data(body.utf8))
        #expect(run.status == 1)
        #expect(
            run.standardError
                == "/data/relationships/author: a relationship in a create request must contain \"data\" (the linkage the resource is to have)\n")
    }

    @Test("--strict --request=relationship: data is null, an identifier or identifiers")
    func relationshipRequest() async throws {
        let valid = try await Tool.run(["inspect", "--strict", "--request=relationship", "-"], input: Data(#"{"data": [{"type": "tags", "id": "2"}]}"#.utf8))
        #expect(valid.status == 0, "\(valid.standardError)")
        let resource = #"{"data": [{"type": "tags", "id": "2"}, {"type": "tags", "id": "3", "attributes": {"name": "x"}}]}"#
        let run = try await Tool.run(["inspect", "--strict", "--request=relationship", "-"], input: Data(resource.utf8))
        #expect(run.status == 1)
        #expect(run.standardError == "/data/1/attributes: a resource identifier object must not contain the member \"attributes\"\n")
    }

    @Test("--strict reports duplicate member names and null where an object belongs; without it they are read")
    func duplicatesAndNulls() async throws {
        let text = #"{"data": null, "meta": {"a": 1}, "meta": {"b": 2}, "links": null}"#
        let strict = try await Tool.run(["inspect", "--strict", "-"], input: Data(text.utf8))
        #expect(strict.status == 1)
        #expect(
            strict.standardError.split(separator: "\n") == [
                "/meta: the member name \"meta\" appears more than once in this object",
                "/links: links must be an object, not null (leave the member out instead)",
            ])
        let lenient = try await Tool.run(["inspect", "-"], input: Data(#"{"data": null, "meta": {"a": 1}, "meta": {"b": 2}}"#.utf8))
        #expect(lenient.status == 0, "\(lenient.standardError)")
    }

    @Test("Bad arguments and unreadable input exit 2 with a message", arguments: [
        ["inspect"], ["inspect", "a.json", "b.json"], ["inspect", "--bogus", "a.json"], ["inspect", "/nonexistent/file.json"],
        ["frobnicate"], [], ["inspect", "--strict", "--request=delete", "-"], ["inspect", "--request=create", "-"],
        ["inspect", "--strict", "-", "--request"],
    ])
    func usageErrors(arguments: [String]) async throws {
        let run = try await Tool.run(arguments)
        #expect(run.status == 2)
        #expect(!run.standardError.isEmpty)
        #expect(run.standardOutput.isEmpty)
    }
}
