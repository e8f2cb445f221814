import Foundation
import JSONAPIClient
import Testing
import TestSupport

/// Servers whose page links contradict each other: no `next` on a page while its `last` link or `meta` says later
/// pages exist (safrs 3.2.0 leaves `next` out of the page before its last). Every walk mode gives every resource,
/// in order, and logs the contradiction once.
@Suite("Links that contradict each other")
struct ContradictingLinksTests {
    /// Log lines a session wrote.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    /// The walks a user may write, each returning the ids it got, in order, and the session's log lines for it.
    enum Walk: String, CaseIterable, CustomTestStringConvertible {
        case nextLoop, appendNext, resources, pagesWithoutPrefetch, pagesPrefetching, pagesPrefetchingThree
        case pagesConcurrently
        var testDescription: String { rawValue }
    }

    private static func walk(
        _ walk: Walk, _ client: ScriptedClient, _ strategy: any PaginationStrategy
    ) async throws -> (ids: [String], log: [String]) {
        let lines = Lines()
        var configuration = Session.Configuration(prefetchThreshold: .zero)
        configuration.log = { lines.append($0) }
        let source = Pages.source(client, configuration: configuration)
        var ids: [String] = []
        switch walk {
        case .nextLoop:
            var page: FetchResponse<[ArticleSummary]>? = try await source.fetch().paginate(strategy)
            while let current = page {
                ids += current.data?.map(\.id) ?? []
                page = try await current.next()
            }
        case .appendNext:
            var document = try await source.fetch().paginate(strategy)
            while try await document.appendNext().hasMore {}
            ids = document.data?.map(\.id) ?? []
        case .resources:
            for try await article in source.fetch().page(strategy).resources() { ids.append(article.id) }
        case .pagesWithoutPrefetch, .pagesPrefetching, .pagesPrefetchingThree, .pagesConcurrently:
            let pages =
                switch walk {
                case .pagesWithoutPrefetch: source.fetch().page(strategy).pages(prefetch: 0)
                case .pagesPrefetchingThree: source.fetch().page(strategy).pages(prefetch: 3)
                case .pagesConcurrently: source.fetch().page(strategy).pages(concurrency: 4)
                default: source.fetch().page(strategy).pages()
                }
            for try await page in pages { ids += page.data?.map(\.id) ?? [] }
        }
        return (ids, lines.all)
    }

    /// safrs' offset pagination over `count` articles: `self`, `first`, `last`, `prev` and `next` links on each page,
    /// `meta.count` when `totals`; the page whose next page is the last one has no `next` (absent, or `null`).
    static func safrs(count: Int = 200, totals: Bool = true, nullNext: Bool = false, alsoWithout: Set<Int> = [])
        -> ScriptedClient
    {
        ScriptedClient { request in
            let limit = Int(request.url.queryValue("page[limit]") ?? "30") ?? 30
            let offset = Int(request.url.queryValue("page[offset]") ?? "0") ?? 0
            let lastOffset = ((count - 1) / limit) * limit
            func link(_ offset: Int) -> String {
                "https://api.example.com/v1/articles?page%5Boffset%5D=\(offset)&page%5Blimit%5D=\(limit)"
            }
            var links: [(String, String?)] = [("self", link(offset)), ("first", link(0)), ("last", link(lastOffset))]
            if offset > 0 { links.append(("prev", link(max(offset - limit, 0)))) }
            if offset + limit < lastOffset, !alsoWithout.contains(offset) {
                links.append(("next", link(offset + limit)))
            } else if nullNext, offset + limit == lastOffset {
                links.append(("next", nil))
            }
            let ids = offset < count ? Array(offset + 1...min(offset + limit, count)) : []
            return .document(Pages.body(ids, links: links, meta: totals ? #"{"count":\#(count),"limit":\#(limit)}"# : nil))
        }
    }

    @Test("safrs, offsetBased(0, 30) over 200: every walk mode gives all 200, in order, and logs once", arguments: Walk.allCases)
    func safrsOffset(_ walk: Walk) async throws {
        let client = Self.safrs()
        let (ids, log) = try await Self.walk(walk, client, .offsetBased(0, 30))
        #expect(ids == allSeededIDs)
        #expect(log.count == 1)
        #expect(log.first?.contains("/v1/articles") == true)
        #expect(log.first?.contains("page") == true && log.first?.contains("offset") == false)  // no query
        #expect(client.requests.count == 7)
        let offsets = client.requests.compactMap { $0.url.queryValue("page[offset]").flatMap(Int.init) }.sorted()
        #expect(offsets == [0, 30, 60, 90, 120, 150, 180])
    }

    @Test("Without totals, the last link's query says where the walk ends; a null next is no next", arguments: Walk.allCases)
    func safrsWithoutTotals(_ walk: Walk) async throws {
        let client = Self.safrs(totals: false, nullNext: true)
        let (ids, log) = try await Self.walk(walk, client, .offsetBased(0, 30))
        #expect(ids == allSeededIDs)
        #expect(log.count == 1)
        #expect(client.requests.count == 7)
    }

    @Test("A walk that starts on the page before last goes on to the last; one that starts on the last logs nothing", arguments: Walk.allCases)
    func fromLaterPage(_ walk: Walk) async throws {
        let (ids, log) = try await Self.walk(walk, Self.safrs(), .offsetBased(150, 30))
        #expect(ids == (151...200).map(String.init))
        #expect(log.count == 1)
        let (started, quiet) = try await Self.walk(walk, Self.safrs(), .offsetBased(180, 30))
        #expect(started == (181...200).map(String.init))
        #expect(quiet.isEmpty)
    }

    @Test("hasNext says there is a page after one whose links leave next out but whose last says more")
    func hasNext() async throws {
        let source = Pages.source(Self.safrs())
        let beforeLast = try await source.fetch().paginate(.offsetBased(150, 30))
        #expect(beforeLast.hasNext)
        let last = try #require(try await beforeLast.next())
        #expect(last.url.queryValue("page[offset]") == "180")
        #expect(!last.hasNext)
        #expect(try await last.next() == nil)
    }

    @Test("Links that agree are not second-guessed: a DRF last one page past the end, a last link on this page")
    func agreeingLinks() async throws {
        // The total says 200: a last link past it (DRF) does not make the walk go there.
        let client = ScriptedClient { request in
            let offset = Int(request.url.queryValue("page[offset]") ?? "0") ?? 0
            let next: String? = offset < 170 ? "https://api.example.com/v1/articles?page%5Boffset%5D=\(offset + 30)&page%5Blimit%5D=30" : nil
            return .document(
                Pages.body(
                    Array(offset + 1...min(offset + 30, 200)),
                    links: [("next", next), ("last", "https://api.example.com/v1/articles?page%5Boffset%5D=210&page%5Blimit%5D=30")],
                    meta: #"{"count":200}"#))
        }
        let (ids, log) = try await Self.walk(.nextLoop, client, .offsetBased(0, 30))
        #expect(ids == allSeededIDs)
        #expect(log.isEmpty)
        #expect(client.requests.count == 7)
        // Without a total, a last link naming the page itself ends the walk there.
        let alone = ScriptedClient(
            body: Pages.body([1, 2], links: [("last", "https://api.example.com/v1/articles?page%5Boffset%5D=0&page%5Blimit%5D=2")]))
        let (single, none) = try await Self.walk(.resources, alone, .offsetBased(0, 2))
        #expect(single == ["1", "2"])
        #expect(none.isEmpty)
        #expect(alone.requests.count == 1)
    }

    /// Page numbers over `count` articles, pages of `page[size]`; page `count / size` (the one before last) has no
    /// `next`; `meta.totalPages` when `totals`.
    static func numbered(count: Int = 200, totals: Bool) -> ScriptedClient {
        ScriptedClient { request in
            let size = Int(request.url.queryValue("page[size]") ?? "30") ?? 30
            let number = Int(request.url.queryValue("page[number]") ?? "1") ?? 1
            let pages = (count + size - 1) / size
            func link(_ number: Int) -> String {
                "https://api.example.com/v1/articles?page%5Bnumber%5D=\(number)&page%5Bsize%5D=\(size)"
            }
            var links: [(String, String?)] = [("first", link(1)), ("last", link(pages))]
            if number + 1 < pages { links.append(("next", link(number + 1))) }
            let first = (number - 1) * size + 1
            let ids = first <= count ? Array(first...min(number * size, count)) : []
            return .document(Pages.body(ids, links: links, meta: totals ? #"{"totalPages":\#(pages)}"# : nil))
        }
    }

    @Test("Page numbers: every walk mode gives all 200 when the page before last has no next", arguments: Walk.allCases, [true, false])
    func pageBased(_ walk: Walk, _ totals: Bool) async throws {
        let client = Self.numbered(totals: totals)
        let (ids, log) = try await Self.walk(walk, client, .pageBased(1, 30))
        #expect(ids == allSeededIDs)
        #expect(log.count == 1)
        #expect(client.requests.count == 7)
    }

    @Test("Cursors cannot be addressed: every walk mode ends where the links end, the same for all", arguments: Walk.allCases)
    func cursors(_ walk: Walk) async throws {
        let client = ScriptedClient { request in
            let after = Int((request.url.queryValue("page[after]") ?? "c0").dropFirst()) ?? 0
            let ids = Array(after + 1...min(after + 30, 200))
            let next: [(String, String?)] = after + 30 < 150 ? [("next", "https://api.example.com/v1/articles?page%5Bafter%5D=c\(after + 30)&page%5Bsize%5D=30")] : []
            return .document(
                Pages.body(ids, links: next + [("last", "https://api.example.com/v1/articles?page%5Bbefore%5D=c201&page%5Bsize%5D=30")], meta: #"{"page":{"total":200}}"#))
        }
        let (ids, log) = try await Self.walk(walk, client, .cursorBased(size: 30))
        #expect(ids == (1...150).map(String.init))
        #expect(log.isEmpty)
    }
}

extension ContradictingLinksTests {
    @Test("page(selectedBy:) reads the strategy's own parameters from a link's query, the last of each, the rest kept")
    func pageSelectedByQuery() {
        let offset = OffsetPagination(offset: 0, limit: 30, names: .init(offset: "o", limit: "l"))
        #expect(offset.page(selectedBy: [QueryItem("o", "150"), QueryItem("l", "25")]) == OffsetPagination(offset: 150, limit: 25, names: offset.names))
        #expect(offset.page(selectedBy: [QueryItem("o", "1"), QueryItem("o", "60")]) == OffsetPagination(offset: 60, limit: 30, names: offset.names))
        #expect(offset.page(selectedBy: [QueryItem("page[offset]", "60")]) == nil)
        #expect(offset.page(selectedBy: [QueryItem("o", "sixty")]) == nil)
        let numbered = PageBasedPagination(number: 1, size: 30)
        #expect(numbered.page(selectedBy: [QueryItem("page[number]", "6"), QueryItem("page[size]", "20")]) == PageBasedPagination(number: 6, size: 20))
        #expect(numbered.page(selectedBy: [QueryItem("page[number]", "6")]) == PageBasedPagination(number: 6, size: 30))
        #expect(numbered.page(selectedBy: [QueryItem("page[size]", "6")]) == nil)
        #expect(CursorPagination(size: 30, position: .range(after: nil, before: nil)).page(selectedBy: [QueryItem("page[after]", "c3")]) == nil)
    }

    @Test("A walk that turns round (prev after a contradiction) still logs once, and prev is not second-guessed")
    func turningRound() async throws {
        let lines = Lines()
        var configuration = Session.Configuration()
        configuration.log = { lines.append($0) }
        let source = Pages.source(Self.safrs(), configuration: configuration)
        let beforeLast = try await source.fetch().paginate(.offsetBased(150, 30))
        let last = try #require(try await beforeLast.next())
        let back = try #require(try await last.prev())
        #expect(back.url.queryValue("page[offset]") == "150")
        #expect(try await back.next()?.url.queryValue("page[offset]") == "180")
        #expect(lines.all.count == 1)
    }

    @Test("Two pages without next in one walk: every mode gives all 200 and logs once", arguments: Walk.allCases)
    func twoContradictions(_ walk: Walk) async throws {
        let client = Self.safrs(alsoWithout: [60])
        let (ids, log) = try await Self.walk(walk, client, .offsetBased(0, 30))
        #expect(ids == allSeededIDs)
        #expect(log.count == 1)
        #expect(client.requests.count == 7)
    }

    @Test("Links that agree log nothing in any mode: the last page's missing next is the end", arguments: Walk.allCases)
    func agreeingInEveryMode(_ walk: Walk) async throws {
        let client = ScriptedClient { request in
            let offset = Int(request.url.queryValue("page[offset]") ?? "0") ?? 0
            let next: [(String, String?)] = offset + 30 < 200 ? [("next", "https://api.example.com/v1/articles?page%5Boffset%5D=\(offset + 30)&page%5Blimit%5D=30")] : []
            return .document(
                Pages.body(
                    Array(offset + 1...min(offset + 30, 200)),
                    links: next + [("last", "https://api.example.com/v1/articles?page%5Boffset%5D=180&page%5Blimit%5D=30")],
                    meta: #"{"count":200}"#))
        }
        let (ids, log) = try await Self.walk(walk, client, .offsetBased(0, 30))
        #expect(ids == allSeededIDs)
        #expect(log.isEmpty)
        #expect(client.requests.count == 7)
    }
}
