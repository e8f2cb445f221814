import Foundation
import JSONAPIClient
import Testing
import TestSupport

@Suite("Navigation with a scripted transport")
struct ScriptedNavigationTests {
    private func ids(_ document: FetchResponse<[ArticleSummary]>?) -> [String] { document?.data?.map(\.id) ?? [] }

    @Test("Without links, next/prev/first/last come from the strategy and meta.pagination, keeping the options")
    func fallbackWithTotals() async throws {
        let client = Pages.linklessServer(count: 7) { pages, count in #"{"pagination":{"pages":\#(pages),"count":\#(count)}}"# }
        let source = Pages.source(client)
        let first = try await source.fetch().include("author").sort("-title").paginate(.pageBased(1, 3))
        let second = try #require(try await first.next())
        let third = try #require(try await second.next())
        #expect(ids(first) + ids(second) + ids(third) == ["1", "2", "3", "4", "5", "6", "7"])
        #expect(try await third.next() == nil)
        #expect(try await first.prev() == nil)
        #expect(ids(try await first.last()) == ["7"])
        #expect(ids(try await third.first()) == ["1", "2", "3"])
        #expect(ids(try await third.prev()) == ["4", "5", "6"])
        for request in client.requests {
            #expect(request.url.queryValue("include") == "author")
            #expect(request.url.queryValue("sort") == "-title")
        }
        #expect(client.requests.count == 6)
    }

    @Test("Without links or totals: a full page justifies a next page, a short one ends; no last page")
    func fallbackWithoutTotals() async throws {
        let client = Pages.linklessServer(count: 7) { _, _ in nil }
        let source = Pages.source(client)
        var pages: [FetchResponse<[ArticleSummary]>] = []
        for try await page in source.fetch().page(.pageBased(1, 3)).pages() { pages.append(page) }
        #expect(pages.map { $0.data?.count ?? 0 } == [3, 3, 1])
        #expect(try await pages[0].last() == nil)
        #expect(client.requests.count == 3)
    }

    @Test("Without links, offset pagination uses meta's count; the last page holds the last resource")
    func offsetFallback() async throws {
        let client = ScriptedClient { request in
            let offset = Int(request.url.queryValue("page[offset]") ?? "0") ?? 0
            let ids = Array(offset + 1...min(offset + 4, 10))
            return .document(Pages.body(ids, meta: #"{"count":10}"#))
        }
        let first = try await Pages.source(client).fetch().paginate(.offsetBased(0, 4))
        let last = try #require(try await first.last())
        #expect(ids(last) == ["9", "10"])
        #expect(last.url.queryValue("page[offset]") == "8")
        #expect(try await last.next() == nil)
        #expect(ids(try await last.prev()) == ["5", "6", "7", "8"])
    }

    @Test("reload() sends a new request: to the self link when the document has one, else the original request")
    func reload() async throws {
        let selfLink = "https://api.example.com/v1/articles?canonical=1&page%5Bnumber%5D=1"
        let client = ScriptedClient { _ in .document(Pages.body([1], links: [("self", selfLink)])) }
        let page = try await Pages.source(client).fetch().include("author").paginate(.pageBased(1, 1))
        let reloaded = try await page.reload()
        #expect(client.requests.count == 2)
        #expect(client.requests[1].url.absoluteString == selfLink)
        #expect(reloaded.url.absoluteString == selfLink)

        let plain = ScriptedClient { _ in .document(Pages.body([1])) }
        let original = try await Pages.source(plain).fetch().include("author").paginate(.pageBased(1, 1))
        _ = try await original.reload()
        _ = try await original.reload()
        #expect(plain.requests.count == 3)
        #expect(plain.requests.map(\.url) == Array(repeating: plain.requests[0].url, count: 3))
        #expect(plain.requests[2].url.queryValue("include") == "author")
    }

    @Test("A null link means no page, and the strategy is not consulted")
    func nullLinks() async throws {
        let client = ScriptedClient(body: Pages.body([1, 2, 3], links: [("next", nil), ("prev", nil), ("first", "https://api.example.com/v1/articles")]))
        let page = try await Pages.source(client).fetch().paginate(.pageBased(1, 3))
        #expect(page.hasNext == false)
        #expect(try await page.next() == nil)
        #expect(try await page.prev() == nil)
        #expect(try await page.last() == nil)
        #expect(client.requests.count == 1)
    }

    @Test("Relative links resolve against the request URL; encoded brackets are kept exactly")
    func relativeLinks() async throws {
        let client = ScriptedClient { request in
            switch request.url.queryValue("page[number]") {
            case nil, "1": .document(Pages.body([1], links: [("next", "?page%5Bnumber%5D=2&filter%5Btitle%5D=a%2Cb")]))
            case "2": .document(Pages.body([2], links: [("next", "/v1/articles?page%5Bnumber%5D=3")]))
            case "3": .document(Pages.body([3], links: [("next", "articles?page%5Bnumber%5D=4&x=%7E")]))
            default: .document(Pages.body([4], links: [("next", nil)]))
            }
        }
        var document = try await Pages.source(client).fetch().result()
        while try await document.appendNext().hasMore {}
        #expect(ids(document) == ["1", "2", "3", "4"])
        #expect(client.requests.map(\.url.absoluteString) == [
            "https://api.example.com/v1/articles",
            "https://api.example.com/v1/articles?page%5Bnumber%5D=2&filter%5Btitle%5D=a%2Cb",
            "https://api.example.com/v1/articles?page%5Bnumber%5D=3",
            "https://api.example.com/v1/articles?page%5Bnumber%5D=4&x=%7E",
        ])
    }

    @Test("Links to another origin or scheme are refused, and nothing is sent")
    func refusedLinks() async throws {
        for href in [
            "https://evil.example.net/v1/articles?page=2", "http://api.example.com/v1/articles?page=2",
            "https://api.example.com:8443/v1/articles", "ftp://api.example.com/v1/articles", "javascript:alert(1)",
            "file:///etc/passwd",
        ] {
            let client = ScriptedClient(body: Pages.body([1], links: [("next", href)]))
            let page = try await Pages.source(client).fetch().result()
            let error = await expectThrows(JSONAPIClientError.self) { try await page.next() }
            #expect(error?.code == .linkRefused, "\(href)")
            #expect(client.requests.count == 1, "\(href)")
        }
    }

    @Test("An allowed origin is followed, without the auth middleware's header")
    func allowedOrigin() async throws {
        let client = ScriptedClient { request in
            request.url.host == "api.example.com"
                ? .document(Pages.body([1], links: [("next", "https://mirror.example.org/articles?page=2")]))
                : .document(Pages.body([2], links: [("next", nil)]))
        }
        let source = Pages.source(
            client,
            configuration: .init(
                middlewares: [BearerTokenMiddleware { "secret" }],
                allowedLinkOrigins: [Origin(scheme: "https", host: "mirror.example.org", port: 443)]))
        let first = try await source.fetch().result()
        let second = try await first.next()
        #expect(ids(second) == ["2"])
        #expect(client.requests.map { $0.headerFields[.authorization] } == ["Bearer secret", nil])
    }

    @Test(
        "An allowed origin lets no other through: another host, port or scheme is refused, the session's own followed",
        arguments: [
            ("https://mirror.example.org/articles?page=2", true),
            ("https://api.example.com/v1/articles?page=2", true),
            ("https://evil.example.org/articles?page=2", false),
            ("https://mirror.example.org:8443/articles?page=2", false),
            ("http://mirror.example.org/articles?page=2", false),
            ("https://api.example.com:444/v1/articles?page=2", false),
        ])
    func allowListIsExact(_ next: String, _ followed: Bool) async throws {
        let client = ScriptedClient { request in
            request.url.absoluteString.hasSuffix("page=2")
                ? .document(Pages.body([2], links: [("next", nil)]))
                : .document(Pages.body([1], links: [("next", next)]))
        }
        let source = Pages.source(
            client,
            configuration: .init(allowedLinkOrigins: [Origin(scheme: "https", host: "mirror.example.org", port: 443)]))
        let first = try await source.fetch().result()
        if followed {
            #expect(ids(try await first.next()) == ["2"])
        } else {
            let error = await expectThrows(JSONAPIClientError.self) { try await first.next() }
            #expect(error?.code == .linkRefused)
            #expect(client.requests.count == 1)
        }
    }

    @Test("A next link that repeats, or a cycle, ends iteration with paginationLoop")
    func loopGuard() async throws {
        let repeating = ScriptedClient { request in
            .document(Pages.body([1], links: [("next", "https://api.example.com/v1/articles?page=2")]))
        }
        var pages = 0
        let error = await expectThrows(JSONAPIClientError.self) {
            for try await _ in Pages.source(repeating).fetch().pages() { pages += 1 }
        }
        #expect(error?.code == .paginationLoop)
        #expect(pages == 2)
        #expect(repeating.requests.count == 2)

        let cycle = ScriptedClient { request in
            let next = request.url.queryValue("page") == "b" ? "a" : "b"
            return .document(Pages.body([1], links: [("next", "https://api.example.com/v1/articles?page=\(next)")]))
        }
        var document = try await Pages.source(cycle).fetch().query("page", "a").result()
        try await document.appendNext()
        let cycleError = await expectThrows(JSONAPIClientError.self) { try await document.appendNext() }
        #expect(cycleError?.code == .paginationLoop)
        #expect(cycle.requests.count == 2)
    }

    @Test("The maximum page count ends an endless collection with tooManyPages")
    func maxPages() async throws {
        let endless = ScriptedClient { request in
            let n = Int(request.url.queryValue("n") ?? "0") ?? 0
            return .document(Pages.body([n], links: [("next", "https://api.example.com/v1/articles?n=\(n + 1)")]))
        }
        var seen = 0
        let error = await expectThrows(JSONAPIClientError.self) {
            for try await _ in Pages.source(endless, configuration: .init(maxPages: 3)).fetch().resources() { seen += 1 }
        }
        #expect(error?.code == .tooManyPages)
        #expect(seen == 3)
        #expect(endless.requests.count == 3)
    }

    @Test("An empty last page ends the streams cleanly")
    func emptyLastPage() async throws {
        let client = ScriptedClient { request in
            request.url.query == nil
                ? .document(Pages.body([1, 2], links: [("next", "https://api.example.com/v1/articles?page=2")]))
                : .document(Pages.body([], links: [("next", nil)]))
        }
        var pages: [Int] = []
        for try await page in Pages.source(client).fetch().pages() { pages.append(page.data?.count ?? -1) }
        #expect(pages == [2, 0])
        var resources: [String] = []
        for try await article in Pages.source(client).fetch().resources() { resources.append(article.id) }
        #expect(resources == ["1", "2"])
        var document = try await Pages.source(client).fetch().result()
        let sent = client.requests.count
        let result = try await document.appendNext()
        #expect(result.added.isEmpty && !result.hasMore)
        #expect(client.requests.count == sent + 1)  // the empty page was fetched
        #expect(ids(document) == ["1", "2"])
    }

    @Test("DRF limit-offset: last points one page past the end; walking next never goes there")
    func drfOffsetLast() async throws {
        let base = "https://api.example.com/v1/articles?page%5Blimit%5D=10"
        let client = ScriptedClient { request in
            switch request.url.queryValue("page[offset]") {
            case nil, "0":
                .document(Pages.body(Array(1...10), links: [("first", base), ("last", base + "&page%5Boffset%5D=20"), ("next", base + "&page%5Boffset%5D=10"), ("prev", nil)], meta: #"{"pagination":{"count":20,"limit":10,"offset":0}}"#))
            case "10":
                .document(Pages.body(Array(11...20), links: [("first", base), ("last", base + "&page%5Boffset%5D=20"), ("next", nil), ("prev", base)], meta: #"{"pagination":{"count":20,"limit":10,"offset":10}}"#))
            default:
                .document(Pages.body([], links: [("first", base), ("last", base + "&page%5Boffset%5D=20"), ("next", nil), ("prev", base + "&page%5Boffset%5D=10")], meta: #"{"pagination":{"count":20,"limit":10,"offset":20}}"#))
            }
        }
        var seen: [String] = []
        for try await article in Pages.source(client).fetch().page(.offsetBased(0, 10)).resources() { seen.append(article.id) }
        #expect(seen == (1...20).map(String.init))
        #expect(client.requests.count == 2)
        let first = try await Pages.source(client).fetch().paginate(.offsetBased(0, 10))
        let last = try #require(try await first.last())
        #expect(last.data?.isEmpty == true)
        #expect(ids(try await last.prev()) == (11...20).map(String.init))
    }

    @Test("A to-many relationship's linkage pages like a collection")
    func linkagePagination() async throws {
        let client = ScriptedClient { request in
            request.url.query == nil
                ? .document(#"{"data":[{"type":"tags","id":"1"},{"type":"tags","id":"2"}],"links":{"self":"https://api.example.com/v1/articles/1/relationships/tags","next":"https://api.example.com/v1/articles/1/relationships/tags?page%5Bnumber%5D=2"}}"#)
                : .document(#"{"data":[{"type":"tags","id":"2"},{"type":"tags","id":"3"}],"links":{"self":"https://api.example.com/v1/articles/1/relationships/tags?page%5Bnumber%5D=2","next":null}}"#)
        }
        let tags = Pages.source(client, path: "articles/<id>").relationship("tags", of: "1")
        var linkage = try await tags.fetchToMany().result()
        #expect(linkage.hasNext)
        let result = try await linkage.appendNext()
        #expect(result.added.map(\.id) == ["3"])
        #expect(linkage.data?.compactMap(\.id) == ["1", "2", "3"])
        #expect(!result.hasMore)
        var all: [String] = []
        for try await identifier in tags.fetchToMany().resources() { all.append(identifier.id ?? "") }
        #expect(all == ["1", "2", "2", "3"])
    }

    @Test("A to-many relationship object's pagination links page through its linkage")
    func relationshipObjectPagination() async throws {
        struct Tagged: Resource {
            static let resourceType = "articles"
            var id: String
            var tags: ToMany<ResourceIdentifier>
        }
        let client = ScriptedClient { request in
            switch request.url.path {
            case "/v1/articles/1":
                .document(#"{"data":{"type":"articles","id":"1","relationships":{"tags":{"data":[{"type":"tags","id":"1"}],"links":{"related":"/v1/articles/1/tags","next":"/v1/articles/1/relationships/tags?page%5Bnumber%5D=2"}}}}}"#)
            default:
                request.url.queryValue("page[number]") == "2"
                    ? .document(#"{"data":[{"type":"tags","id":"2"}],"links":{"next":"/v1/articles/1/relationships/tags?page%5Bnumber%5D=3"}}"#)
                    : .document(#"{"data":[{"type":"tags","id":"2"}],"links":{"next":null}}"#)
            }
        }
        let source = DataSource<Tagged>(baseURL: exampleBase, router: .path("articles/<id>"), client: client)
        let article = try #require(try await source.fetch(id: "1").result().data)
        #expect(source.fetchLinkage(.prev, of: article.tags) == nil)
        let more = try #require(source.fetchLinkage(.next, of: article.tags))
        var ids = article.tags.identifiers.compactMap(\.id)
        for try await identifier in more.resources() { ids.append(identifier.id ?? "") }
        #expect(ids == ["1", "2", "2"])
        #expect(client.requests.map(\.url.absoluteString).dropFirst() == [
            "https://api.example.com/v1/articles/1/relationships/tags?page%5Bnumber%5D=2",
            "https://api.example.com/v1/articles/1/relationships/tags?page%5Bnumber%5D=3",
        ])
    }

    @Test("appendNext leaves out resources and included ones it already has")
    func appendDeduplicates() async throws {
        let client = ScriptedClient { request in
            request.url.queryValue("page") == nil
                ? .document(Pages.body([1, 2, 3], links: [("next", "https://api.example.com/v1/articles?page=2")], meta: #"{"page":1}"#, included: [1, 2, 3], author: true))
                : .document(Pages.body([3, 4, 21], links: [("next", nil)], meta: #"{"page":2}"#, included: [3, 4, 1], author: true))
        }
        var raw = try await Pages.source(client).fetch(as: PrimaryData.self).include("author").result()
        let result = try await raw.appendNext()
        #expect(result.added.map(\.id) == ["4", "21"])
        #expect(raw.data?.resources.compactMap(\.id) == ["1", "2", "3", "4", "21"])
        #expect(raw.included?.compactMap(\.id) == ["1", "2", "3", "4"])
        #expect(raw.meta?["page"] == 2)
        #expect(raw.links?.isNull("next") == true)

        var typed = try await Pages.source(client).fetch().include("author").result()
        try await typed.appendNext()
        #expect(ids(typed) == ["1", "2", "3", "4", "21"])
        #expect(typed.data?.last?.author?.name == "Person 1")
    }

    @Test("A response's document is plain data: equal to the same bytes decoded without a session")
    func documentIsPlainData() async throws {
        let body = Pages.body([1, 2], links: [("next", "https://api.example.com/v1/articles?page=2")])
        let page = try await Pages.source(ScriptedClient(body: body)).fetch().result()
        let decoded = try JSONAPIDecoder().decode(Document<[ArticleSummary]>.self, from: Data(body.utf8))
        #expect(page.document == decoded)
        #expect(page.hasNext)
        #expect(page.url.absoluteString == "https://api.example.com/v1/articles")
    }

    @Test("Cancelling a stream stops requests at once")
    func streamCancellation() async throws {
        let client = ScriptedClient { request in
            let n = Int(request.url.queryValue("n") ?? "0") ?? 0
            return .document(Pages.body([n * 2 + 1, n * 2 + 2], links: [("next", "https://api.example.com/v1/articles?n=\(n + 1)")]))
        }
        let source = Pages.source(client)
        let task = Task { () -> Int in
            var count = 0
            for try await _ in source.fetch().resources() {
                count += 1
                if count == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return count
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(client.requests.count == 2)
    }
}
