import Foundation
import JSONAPIClientCore
import Testing

@Suite("jsonapi inspect")
struct InspectCommandTests {
    @Test("Prints the document normalized: pretty, sorted keys, unknown members dropped; exit 0")
    func normalized() throws {
        let run = try Tool.run(["inspect", Tool.fixture("lenient")])
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
    func standardInput() throws {
        let run = try Tool.run(["inspect", "-"], input: Data(#"{"meta":{"b":1,"a":2}}"#.utf8))
        #expect(run.status == 0)
        #expect(run.standardOutput == "{\n  \"meta\": {\n    \"a\": 2,\n    \"b\": 1\n  }\n}\n")
    }

    @Test("--strict prints one POINTER: message line per violation on standard error and exits 1")
    func strict() throws {
        let run = try Tool.run(["inspect", "--strict", Tool.fixture("lenient")])
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(
            run.standardError.split(separator: "\n") == [
                "/unknown: a document must not contain the member \"unknown\"", "/data/id: id must be a string",
            ])
        let valid = try Tool.run(["inspect", "--strict", Tool.fixture("spec-compound")])
        #expect(valid.status == 0)
    }

    @Test("A collection whose first element is identifier-only: every member of every element is printed")
    func sparseFirstElement() throws {
        for arguments in [["inspect", Tool.fixture("sparse-first")], ["inspect", "--strict", Tool.fixture("sparse-first")]] {
            let run = try Tool.run(arguments)
            #expect(run.status == 0)
            #expect(run.standardError.isEmpty)
            for member in [#""title": "Second""#, #""previous": {"#, #""self": "http://example.com/articles/2""#, #""rank": 2"#, #""hidden": true"#] {
                #expect(run.standardOutput.contains(member), "\(arguments): \(member)")
            }
        }
    }

    @Test("A document that does not decode: the pointer and the reason, exit 1")
    func undecodable() throws {
        let run = try Tool.run(["inspect", "-"], input: Data(#"{"data": {"id": "1", "attributes": {}}}"#.utf8))
        #expect(run.status == 1)
        #expect(run.standardError == "/data/type: expected member \"type\"\n")
        let syntax = try Tool.run(["inspect", "-"], input: Data("{\"data\": [1,]}".utf8))
        #expect(syntax.status == 1)
        #expect(syntax.standardError.contains("invalid JSON"))
    }

    @Test("Bad arguments and unreadable input exit 2 with a message", arguments: [
        ["inspect"], ["inspect", "a.json", "b.json"], ["inspect", "--bogus", "a.json"], ["inspect", "/nonexistent/file.json"],
        ["frobnicate"], [],
    ])
    func usageErrors(arguments: [String]) throws {
        let run = try Tool.run(arguments)
        #expect(run.status == 2)
        #expect(!run.standardError.isEmpty)
        #expect(run.standardOutput.isEmpty)
    }
}
