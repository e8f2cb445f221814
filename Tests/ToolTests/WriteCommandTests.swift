import Foundation
import JSONAPIClient
import TestSupport
import Testing

@testable import jsonapi

/// `jsonapi create`, `update`, `delete`, `relationship` and `get --output table`, run in-process against the local
/// test server, with the requests they send recorded.
@Suite("jsonapi create, update, delete, relationship, table")
struct WriteCommandTests {
    /// Sends through URLSession and keeps every request.
    final class Recording: Client, @unchecked Sendable {
        private let lock = NSLock()
        private var sent: [HTTPRequest] = []
        private let base = URLSessionClient()
        var requests: [HTTPRequest] { lock.withLock { sent } }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            lock.withLock { sent.append(request) }
            return try await base.send(request)
        }
    }

    final class Captured: @unchecked Sendable {
        private let lock = NSLock()
        private var out = Data()
        private var err: [String] = []
        func write(_ data: Data) { lock.withLock { out.append(data) } }
        func error(_ line: String) { lock.withLock { err.append(line) } }
        var output: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
        var errors: [String] { lock.withLock { err } }
        /// Standard output as a JSON:API document.
        func document() throws -> RawDocument {
            try JSONAPIDecoder().decode(RawDocument.self, from: Data(output.utf8))
        }
    }

    struct Run {
        var status: Int32
        var captured: Captured
        var requests: [HTTPRequest]
    }

    private func run(_ arguments: [String], input: String = "") async -> Run {
        let captured = Captured(), client = Recording()
        let streams = Streams(
            output: { captured.write($0) }, error: { captured.error($0) }, errorIsTerminal: false,
            input: { Data(input.utf8) })
        let status = await JSONAPI.run(arguments, streams: streams, client: client)
        return Run(status: status, captured: captured, requests: client.requests)
    }

    private func server() throws -> String { try TestServer.url().absoluteString }

    /// The body a request sent, as a document.
    private func body(_ request: HTTPRequest?) throws -> RawDocument {
        try JSONAPIDecoder().decode(RawDocument.self, from: try #require(request?.body))
    }

    /// Creates a tag named `name` and returns its id.
    private func createTag(_ name: String) async throws -> String {
        let created = await run(["create", try server() + "/tags", "--type", "tags", "--set", "name=\(name)"])
        #expect(created.status == 0, "\(created.captured.errors)")
        return try #require(try created.captured.document().data?.identifiers.first?.id)
    }

    @Test("create: a document from --data, a bare resource object from a file or standard input, --type with --set")
    func create() async throws {
        let tags = try server() + "/tags"
        let fromData = await run(["create", tags, "-d", #"{"data": {"type": "tags", "attributes": {"name": "from data"}}}"#])
        #expect(fromData.status == 0, "\(fromData.captured.errors)")
        let created = try #require(try fromData.captured.document().data?.resources.first)
        #expect(created.attributes?["name"] == "from data")
        #expect(fromData.captured.errors.first?.hasPrefix("HTTP 201, Location: \(tags)/") == true)
        #expect(fromData.requests.map(\.method) == [.post])
        #expect(fromData.requests.first?.url.absoluteString == tags)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-create-\(UUID().uuidString).json")
        try Data(#"{"type": "tags", "attributes": {"name": "from file"}}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = await run(["create", tags, "--file", file.path])
        #expect(fromFile.status == 0, "\(fromFile.captured.errors)")
        #expect(try fromFile.captured.document().data?.resources.first?.attributes?["name"] == "from file")

        let fromInput = await run(["create", tags, "--file", "-"], input: #"{"type": "tags", "attributes": {"name": "stdin"}}"#)
        #expect(fromInput.status == 0, "\(fromInput.captured.errors)")
        #expect(try fromInput.captured.document().data?.resources.first?.attributes?["name"] == "stdin")

        let fromSet = await run(["create", tags, "-t", "tags", "--set", "name=set"])
        #expect(fromSet.status == 0, "\(fromSet.captured.errors)")
        #expect(try body(fromSet.requests.first).data == .resource(ResourceObject(type: "tags", attributes: ["name": "set"])))
    }

    @Test("create and update refuse a missing or bad body with exit 2, before sending anything", arguments: [
        ["create", "URL"], ["create", "URL", "--set", "name=x"], ["create", "URL", "-d", "[1]"],
        ["create", "URL", "-d", "{\"data\": [{\"type\": \"tags\"}]}"], ["create", "URL", "-d", "{nope"],
        ["create", "URL", "-d", "{}", "--file", "-"], ["create", "URL", "--file", "/nonexistent/body.json"],
        ["update", "URL"], ["update", "URL", "--set", "novalue"], ["update", "URL", "--type", "tags"],
    ])
    func badBodies(_ arguments: [String]) async throws {
        let url = try server() + "/tags"
        let result = await run(arguments.map { $0 == "URL" ? url : $0 })
        #expect(result.status == 2)
        #expect(result.requests.isEmpty)
        #expect(result.captured.errors.first?.hasPrefix("Error: ") == true)
        #expect(result.captured.errors.last == "See 'jsonapi \(arguments[0]) --help'.")
    }

    @Test("update --set/--null: a partial PATCH with only those members; values read as JSON when they are JSON")
    func update() async throws {
        let base = try server()
        let created = await run([
            "create", base + "/articles", "-d", #"{"type": "articles", "attributes": {"title": "Old", "body": "kept"}}"#,
        ])
        let id = try #require(try created.captured.document().data?.identifiers.first?.id)
        let url = base + "/articles/\(id)"
        let updated = await run(["update", url, "--set", "title=New title"])
        #expect(updated.status == 0, "\(updated.captured.errors)")
        // One GET learns the type and id; the PATCH carries only the attribute given.
        #expect(updated.requests.map(\.method) == [.get, .patch])
        #expect(
            try body(updated.requests.last).data
                == .resource(ResourceObject(type: "articles", id: id, attributes: ["title": "New title"])))
        let resource = try #require(try updated.captured.document().data?.resources.first)
        #expect(resource.attributes?["title"] == "New title")
        #expect(resource.attributes?["body"] == "kept")

        // --set values parse as JSON when they can, --null sends null.
        let typed = await run([
            "update", url, "-t", "articles", "--set", "a=5", "--set", "b=true", "--set", #"c="5""#, "--set", "d=[1, {\"x\": null}]",
            "--set", "e=not json", "--set", "f=", "--null", "g",
        ])
        #expect(typed.requests.map(\.method) == [.get, .patch])
        let attributes = try #require(try body(typed.requests.last).data?.resources.first?.attributes)
        #expect(attributes == ["a": 5, "b": true, "c": "5", "d": [1, ["x": nil]], "e": "not json", "f": "", "g": nil])
        // The server ignores attributes it does not know.
        #expect(typed.status == 0, "\(typed.captured.errors)")

        // A null the server refuses: its error, exit 1.
        let nulled = await run(["update", url, "--null", "title"])
        #expect(nulled.status == 1)
        #expect(nulled.captured.errors.first?.hasPrefix("Error: HTTP 400 from PATCH \(url)\n") == true)
        #expect(try body(nulled.requests.last).data?.resources.first?.attributes == ["title": nil])

        let fromData = await run(["update", url, "-d", #"{"data": {"type": "articles", "id": "\#(id)", "attributes": {"body": "new body"}}}"#])
        #expect(fromData.status == 0, "\(fromData.captured.errors)")
        #expect(fromData.requests.map(\.method) == [.patch])
        #expect(try fromData.captured.document().data?.resources.first?.attributes?["body"] == "new body")
    }

    @Test("delete: DELETE, the status on standard error; a second time is a 404 and exit 1")
    func delete() async throws {
        let base = try server()
        let id = try await createTag("doomed")
        let deleted = await run(["delete", base + "/tags/\(id)"])
        #expect(deleted.status == 0, "\(deleted.captured.errors)")
        #expect(deleted.requests.map(\.method) == [.delete])
        #expect(deleted.requests.first?.body == nil)
        #expect(deleted.captured.errors == ["HTTP 204"])
        #expect(deleted.captured.output.isEmpty)
        let again = await run(["delete", base + "/tags/\(id)"])
        #expect(again.status == 1)
        #expect(again.captured.errors.first?.hasPrefix("Error: HTTP 404 from DELETE \(base)/tags/\(id)\n") == true)
    }

    @Test("relationship: get, add, remove and replace a to-many; replace --to-one and empty it")
    func relationship() async throws {
        let base = try server()
        let created = await run(["create", base + "/articles", "--type", "articles", "--set", "title=Related"])
        let article = try #require(try created.captured.document().data?.identifiers.first?.id)
        let first = try await createTag("r1"), second = try await createTag("r2")
        let tags = base + "/articles/\(article)/relationships/tags"
        func linkage() async throws -> [String] {
            let got = await run(["relationship", tags, "get"])
            #expect(got.status == 0, "\(got.captured.errors)")
            return try got.captured.document().data?.identifiers.compactMap(\.id) ?? []
        }
        #expect(try await linkage() == [])
        let added = await run(["relationship", tags, "add", "tags:\(first)", "tags:\(second)"])
        #expect(added.status == 0, "\(added.captured.errors)")
        #expect(added.requests.map(\.method) == [.post])
        #expect(try await linkage() == [first, second])
        let removed = await run(["relationship", tags, "remove", "tags:\(first)"])
        #expect(removed.requests.map(\.method) == [.delete])
        #expect(try await linkage() == [second])
        let replaced = await run(["relationship", tags, "replace", "tags:\(first)"])
        #expect(replaced.requests.map(\.method) == [.patch])
        #expect(try body(replaced.requests.first).data == .identifiers([ResourceIdentifier(type: "tags", id: first)]))
        #expect(try await linkage() == [first])
        let emptied = await run(["relationship", tags, "replace"])
        #expect(emptied.status == 0)
        let emptyBody = try body(emptied.requests.first).data
        #expect(emptyBody?.isCollection == true && emptyBody?.identifiers == [])
        #expect(try await linkage() == [])

        let author = base + "/articles/\(article)/relationships/author"
        let set = await run(["relationship", author, "replace", "--to-one", "people:1"])
        #expect(set.status == 0, "\(set.captured.errors)")
        #expect(try body(set.requests.first).data == .identifier(ResourceIdentifier(type: "people", id: "1")))
        #expect(try set.captured.document().data == .identifier(ResourceIdentifier(type: "people", id: "1")))
        let cleared = await run(["relationship", author, "replace", "--to-one"])
        #expect(cleared.status == 0, "\(cleared.captured.errors)")
        #expect(try body(cleared.requests.first).data == .null)
        let got = await run(["relationship", author, "get"])
        #expect(try got.captured.document().data == .null)
    }

    @Test("relationship refuses bad arguments with exit 2, before sending anything", arguments: [
        ["relationship"], ["relationship", "URL"], ["relationship", "URL", "frob"], ["relationship", "URL", "add"],
        ["relationship", "URL", "add", "tags"], ["relationship", "URL", "add", ":1"], ["relationship", "URL", "add", "tags:"],
        ["relationship", "URL", "get", "tags:1"], ["relationship", "URL", "add", "--to-one", "tags:1"],
        ["relationship", "URL", "replace", "--to-one", "tags:1", "tags:2"], ["relationship", "ftp://x/y", "get"],
    ])
    func badRelationshipArguments(_ arguments: [String]) async throws {
        let url = try server() + "/articles/1/relationships/tags"
        let result = await run(arguments.map { $0 == "URL" ? url : $0 })
        #expect(result.status == 2)
        #expect(result.requests.isEmpty)
        #expect(result.captured.errors.last == "See 'jsonapi relationship --help'.")
    }

    @Test("get --output table: a header, then one aligned line per resource with type, id and the chosen columns")
    func table() async throws {
        let base = try server()
        let chosen = await run(["get", base + "/articles?page%5Bsize%5D=3", "-o", "table", "-c", "title,nope"])
        #expect(chosen.status == 0, "\(chosen.captured.errors)")
        #expect(
            chosen.captured.output == """
                type      id  title        nope
                articles  1   Article 001
                articles  2   Article 002
                articles  3   Article 003

                """)
        let all = await run(["get", base + "/people?page%5Bsize%5D=2", "--output=table"])
        let lines = all.captured.output.split(separator: "\n")
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true) == ["type", "id", "email", "name"])
        #expect(lines.count == 3)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("people  ") })
        // An empty collection: the header alone.
        let none = await run(["get", base + "/articles?filter%5Btitle.icontains%5D=no-such-title", "-o", "table", "-c", "title"])
        #expect(none.captured.output == "type  id  title\n")
        let bad = await run(["get", base + "/articles", "-c", "title"])
        #expect(bad.status == 2)
        let badOutput = await run(["get", base + "/articles", "-o", "yaml"])
        #expect(badOutput.status == 2)
    }

    @Test("Table cells: strings as text, other values as JSON, line breaks escaped, absent values empty")
    func tableCells() {
        let resources = [
            ResourceObject(type: "t", id: "1", attributes: ["a": "x\ny\tz", "b": ["k": [1, nil]], "c": 2.5]),
            ResourceObject(type: "t", lid: "local", attributes: ["a": nil]),
        ]
        #expect(
            Table(resources, columns: nil).text == """
                type  id     a        b               c
                t     1      x\\ny\\tz  {"k":[1,null]}  2.5
                t     local  null

                """)
        #expect(Table([], columns: []).text == "type  id\n")
    }
}
