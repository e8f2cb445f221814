import Foundation
import JSONAPIClient
import TestSupport
import Testing

@testable import jsonapi

/// `jsonapi get`, run in-process (GetCommand.run) with captured streams.
@Suite("jsonapi get")
struct GetCommandTests {
    final class Captured: @unchecked Sendable {
        private let lock = NSLock()
        private var out = Data()
        private var err: [String] = []
        private var raw = ""
        func write(_ data: Data) { lock.withLock { out.append(data) } }
        func error(_ line: String) { lock.withLock { err.append(line) } }
        func text(_ text: String) { lock.withLock { raw += text } }
        var output: Data { lock.withLock { out } }
        var errors: [String] { lock.withLock { err } }
        /// What was written to standard error as is (the in-place progress line).
        var errorText: String { lock.withLock { raw } }
    }

    private func run(_ arguments: [String], terminal: Bool = false) async -> (Int32, Captured) {
        let captured = Captured()
        let status = await GetCommand.run(
            arguments,
            streams: .init(
                output: { captured.write($0) }, error: { captured.error($0) }, errorIsTerminal: terminal,
                errorText: { captured.text($0) }))
        return (status, captured)
    }

    private func server() throws -> String { try TestServer.url().absoluteString }

    private func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// A transport that answers every request the same way, or fails.
    struct FixedClient: Client {
        var response: HTTPResponse?
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            guard let response else { throw URLError(.cannotConnectToHost) }
            return response
        }
    }

    private func run(_ arguments: [String], client: any Client) async -> (Int32, Captured) {
        let captured = Captured()
        let status = await GetCommand.run(
            arguments, streams: .init(output: { captured.write($0) }, error: { captured.error($0) }, errorIsTerminal: false),
            client: client)
        return (status, captured)
    }

    @Test("A response that does not decode: the pointer on standard error, exit 1")
    func decodingError() async {
        let body = Data(#"{"data": [{"type": "articles", "id": "1"}, {"id": "2"}]}"#.utf8)
        let (status, captured) = await run(
            ["https://api.example.com/articles"],
            client: FixedClient(response: HTTPResponse(status: 200, headerFields: ["Content-Type": "application/vnd.api+json"], body: body)))
        #expect(status == 1)
        #expect(captured.output.isEmpty)
        let message = captured.errors.joined(separator: "\n")
        #expect(message.contains("https://api.example.com/articles"))
        // The pointer once, not "at /data/1/type: /data/1/type: …".
        #expect(message.components(separatedBy: "/data/1/type").count == 2, "\(message)")
        #expect(message.contains("\n  not the expected document: /data/1/type: "), "\(message)")
    }

    @Test("A transport failure: the URL and the cause on standard error, exit 1")
    func transportError() async {
        let (status, captured) = await run(["https://api.example.com/articles"], client: FixedClient(response: nil))
        #expect(status == 1)
        #expect(captured.output.isEmpty)
        let message = captured.errors.joined(separator: "\n")
        #expect(message.contains("https://api.example.com/articles"))
        #expect(!message.isEmpty)
    }

    @Test("Parses every option; repeatable ones accumulate")
    func parse() throws {
        let options = try GetCommand.parse([
            "https://h.example/articles?x=1", "--include", "author,comments.author", "--include=tags", "--fields",
            "articles=title,author", "--fields", "people=name", "--sort", "-created", "--filter", "title.icontains=a=b",
            "--page", "2", "--page-size=5", "--header", "X-A: 1: 2", "--all", "--progress",
        ])
        #expect(options.url.absoluteString == "https://h.example/articles?x=1")
        #expect(options.include == ["author", "comments.author", "tags"])
        #expect(options.fields == ["articles": ["title", "author"], "people": ["name"]])
        #expect(options.sort == ["-created"])
        #expect(options.filters.map { "\($0.name)=\($0.value)" } == ["title.icontains=a=b"])
        #expect(options.page == 2 && options.pageSize == 5)
        #expect(options.headers.map { "\($0.name)|\($0.value)" } == ["X-A|1: 2"])
        #expect(options.all && options.progress)
    }

    @Test("Bad arguments exit 2 with a message", arguments: [
        [], ["ftp://h.example/x"], ["https://h.example", "--page", "0"], ["https://h.example", "--fields", "title"],
        ["https://h.example", "--bogus"], ["https://h.example", "--include"], ["https://h.example", "https://other"],
        ["https://h.example", "--header", "no colon"],
    ])
    func badArguments(_ arguments: [String]) async {
        let (status, captured) = await run(arguments)
        #expect(status == 2)
        // `Error: …`, then where the help is: not the whole usage.
        #expect(captured.errors.count == 2)
        #expect(captured.errors.first?.hasPrefix("Error: ") == true)
        #expect(captured.errors.last == "See 'jsonapi get --help'.")
        #expect(captured.output.isEmpty)
    }

    @Test("Fetches with options added to the URL's own query; prints the normalized document")
    func fetch() async throws {
        let base = try server()
        let (status, captured) = await run([
            base + "/paged/articles?filter%5Btitle.icontains%5D=article%200", "--include", "author", "--fields",
            "articles=title,author", "--fields", "people=name", "--sort", "-title", "--page", "2", "--page-size", "5",
        ])
        #expect(status == 0, "\(captured.errors)")
        let document = try json(captured.output)
        let data = try #require(document["data"] as? [[String: Any]])
        #expect(data.map { $0["id"] as? String } == ["94", "93", "92", "91", "90"])
        #expect(data.allSatisfy { ($0["attributes"] as? [String: Any])?.keys.sorted() == ["title"] })
        #expect((document["included"] as? [[String: Any]])?.isEmpty == false)
        let text = String(decoding: captured.output, as: UTF8.self)
        #expect(text.hasPrefix("{\n"))
        #expect(captured.errors.isEmpty)
    }

    @Test("--all follows next to the end and prints one merged document, with progress")
    func all() async throws {
        let base = try server()
        let (status, captured) = await run([
            base + "/paged/articles?fields%5Barticles%5D=title,author", "--include", "author", "--page-size", "40", "--all",
            "--progress",
        ])
        #expect(status == 0, "\(captured.errors)")
        let document = try json(captured.output)
        let data = try #require(document["data"] as? [[String: Any]])
        #expect(data.compactMap { $0["id"] as? String } == (1...200).map(String.init))
        #expect((document["included"] as? [[String: Any]])?.count == 20)
        let links = try #require(document["links"] as? [String: Any])
        #expect(links["next"] is NSNull)
        #expect(((document["meta"] as? [String: Any])?["pagination"] as? [String: Any])?["page"] as? Int == 5)
        #expect(captured.errors.count == 5)
        #expect(captured.errors.last == "jsonapi get: 5 pages, 200 of 200 resources")
    }

    /// A transport over URLSession that counts the most requests it had in flight at once.
    final class InFlightCounter: Client, @unchecked Sendable {
        private let base = URLSessionClient()
        private let lock = NSLock()
        private var now = 0
        private(set) var most = 0

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            lock.withLock {
                now += 1
                most = max(most, now)
            }
            defer { lock.withLock { now -= 1 } }
            try await Task.sleep(for: .milliseconds(20))  // so that concurrent requests overlap for sure
            return try await base.send(request)
        }
    }

    @Test("--all with --page and --page-size fetches pages four at a time, each once, in order; without, one at a time")
    func allConcurrent() async throws {
        let url = try server() + "/paged/articles?fields%5Barticles%5D=title"
        for (arguments, most) in [(["--page", "1", "--page-size", "15"], 4), (["--page-size", "15"], 1)] {
            let options = try GetCommand.parse([url, "--all"] + arguments)
            let counter = InFlightCounter()
            let document = try await GetCommand.fetch(options, client: counter) { _ in }.document
            #expect(document.data?.identifiers.compactMap(\.id) == (1...200).map(String.init))
            #expect(counter.most == most, "\(arguments)")
        }
    }

    /// A server that pages as fastapi-jsonapi does: no pagination links, only `meta.count` and `meta.totalPages`;
    /// `page[number]` (from 1) and `page[size]` (10 unless given) address the pages of 200 articles.
    struct LinklessServer: Client {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            func value(_ name: String) -> Int? { items.first { $0.name == name }?.value.flatMap { Int($0) } }
            let size = value("page[size]") ?? 10, number = value("page[number]") ?? 1
            let ids = ((number - 1) * size + 1...max((number - 1) * size + 1, min(number * size, 200)))
                .filter { $0 <= 200 }
            let data = ids.map { #"{"type": "articles", "id": "\#($0)", "attributes": {"title": "t\#($0)"}}"# }
            let pages = (200 + size - 1) / size
            return HTTPResponse(
                status: 200, headerFields: ["Content-Type": "application/vnd.api+json"],
                body: Data(#"{"data": [\#(data.joined(separator: ","))], "meta": {"count": 200, "totalPages": \#(pages)}}"#.utf8))
        }
    }

    @Test(
        "--all on a server without links goes on by the URL's own page[size] (or --page-size): every article, once",
        arguments: [["https://api.example.com/articles?page[size]=50"], ["https://api.example.com/articles?page%5Bsize%5D=50&page%5Bnumber%5D=1"],
            ["https://api.example.com/articles", "--page-size", "50"]])
    func allWithoutLinks(_ arguments: [String]) async throws {
        let options = try GetCommand.parse(arguments + ["--all"])
        let walk = try await GetCommand.fetch(options, client: LinklessServer()) { _ in }
        #expect(walk.document.data?.identifiers.compactMap(\.id) == (1...200).map(String.init))
        #expect(walk.pages == 4)
        #expect(walk.reportedTotal == 200)
        let (status, captured) = await run(arguments + ["--all"], client: LinklessServer())
        #expect(status == 0)
        #expect(captured.errors.isEmpty)
    }

    @Test("--all that ends before the total the server reports says so on standard error and exits 1")
    func allEndsShort() async throws {
        let (status, captured) = await run(["https://api.example.com/articles", "--all"], client: LinklessServer())
        #expect(status == 1)
        #expect(
            captured.errors.first?.hasPrefix(
                "Error: the walk ended after 1 page and 10 resources, but the server reports 200") == true,
            "\(captured.errors)")
        // What was fetched is still printed.
        #expect(try json(captured.output)["data"].map { ($0 as? [Any])?.count } == 10)
    }

    @Test("The strategy a URL spells: page[size] (and page[number]) page-based, page[limit] (and page[offset]) offset")
    func inferred() throws {
        func strategy(_ text: String) throws -> String? {
            try GetCommand.inferredStrategy(#require(URL(string: text))).map { String(describing: $0) }
        }
        #expect(try strategy("https://h/a?page%5Bsize%5D=50") == String(describing: PageBasedPagination.pageBased(1, 50)))
        #expect(try strategy("https://h/a?page%5Bnumber%5D=3&page%5Bsize%5D=5") == String(describing: PageBasedPagination.pageBased(3, 5)))
        #expect(try strategy("https://h/a?page%5Blimit%5D=20") == String(describing: OffsetPagination.offsetBased(0, 20)))
        #expect(try strategy("https://h/a?page%5Boffset%5D=40&page%5Blimit%5D=20") == String(describing: OffsetPagination.offsetBased(40, 20)))
        #expect(try strategy("https://h/a?page%5Bsize%5D=0") == nil)
        #expect(try strategy("https://h/a?page%5Bcursor%5D=x") == nil)
        #expect(try strategy("https://h/a") == nil)
    }

    struct RedirectingClient: Client {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            throw JSONAPIClientError(
                code: .redirectRefused,
                detail: "a redirect to https://other.example.com was refused: redirects are followed only within the request's origin",
                status: 307, responseHeaders: ["Location": "https://other.example.com/x?token=secret"])
        }
    }

    @Test("A refused redirect leads with the refusal, and names the other origin, never the whole Location")
    func refusedRedirect() async {
        let (status, captured) = await run(["https://api.example.com/articles"], client: RedirectingClient())
        #expect(status == 1)
        #expect(captured.errors.first?.hasPrefix("Error: redirect refused (HTTP 307) from GET https://api.example.com/articles") == true, "\(captured.errors)")
        #expect(captured.errors.joined().contains("a redirect to https://other.example.com was refused"))
        #expect(!captured.errors.joined().contains("token=secret"))
    }

    @Test("Progress is silent unless asked for or on a terminal")
    func quietProgress() async throws {
        let base = try server()
        let (status, captured) = await run([base + "/paged/articles", "--page-size", "100", "--all"])
        #expect(status == 0)
        #expect(captured.errors.isEmpty)
        #expect(captured.errorText.isEmpty)
    }

    @Test("On a terminal, progress updates one line in place: pages, resources of total, rate; then a newline")
    func terminalProgress() async throws {
        let base = try server()
        let (status, terminal) = await run([base + "/paged/articles", "--page-size", "100", "--all"], terminal: true)
        #expect(status == 0)
        #expect(terminal.errors.isEmpty)
        let updates = terminal.errorText.components(separatedBy: "\r\u{1B}[K")
        // Nothing before the first update; one update per page; no newline but the last character.
        #expect(updates.first == "")
        #expect(updates.count == 3, "\(terminal.errorText.debugDescription)")
        #expect(updates[1].hasPrefix("jsonapi get: 1 page, 100 of 200 resources, "))
        #expect(updates[2].hasPrefix("jsonapi get: 2 pages, 200 of 200 resources, "))
        #expect(updates[2].hasSuffix(" resources/s\n"))
        #expect(terminal.errorText.filter { $0 == "\n" }.count == 1)
    }

    @Test("An error document: exit 1, status and error objects on standard error")
    func errorDocument() async throws {
        let base = try server()
        let (status, captured) = await run([base + "/articles/999999"])
        #expect(status == 1)
        #expect(captured.output.isEmpty)
        let message = captured.errors.joined(separator: "\n")
        #expect(message.contains("HTTP 404 from GET \(base)/articles/999999"))
        #expect(message.contains("error: 404"))
        let (badFilter, filterCaptured) = await run([base + "/articles", "--filter", "nope=1"])
        #expect(badFilter == 1)
        #expect(filterCaptured.errors.joined().contains("HTTP 400"))
    }

    @Test("--header reaches the server")
    func header() async throws {
        let base = try server()
        let (status, captured) = await run([base + "/echo-headers", "--header", "X-Probe: yes"])
        #expect(status == 0)
        let meta = try #require(try json(captured.output)["meta"] as? [String: Any])
        #expect((meta["headers"] as? [String: Any])?["x-probe"] as? String == "yes")
    }
}
