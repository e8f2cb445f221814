import Foundation
import JSONAPIClient
import Testing
import TestSupport

/// Walks all 200 seeded articles through each of the test server's pagination styles.
@Suite("Walking the test server's collections")
struct IntegrationWalkTests {
    private func source(_ path: String, client: any Client = URLSessionClient()) throws -> DataSource<ArticleSummary> {
        DataSource<ArticleSummary>(baseURL: try TestServer.url(), router: .path(path), client: client)
    }

    /// Follows `step` from `start` until it gives nil; returns every page.
    private func walk(from start: FetchResponse<[ArticleSummary]>, _ step: (FetchResponse<[ArticleSummary]>) async throws -> FetchResponse<[ArticleSummary]>?)
        async throws -> [FetchResponse<[ArticleSummary]>]
    {
        var pages = [start]
        while let next = try await step(pages[pages.count - 1]) {
            pages.append(next)
            if pages.count > 100 { Issue.record("more than 100 pages"); break }
        }
        return pages
    }

    private func ids(_ pages: [FetchResponse<[ArticleSummary]>]) -> [String] { pages.flatMap { $0.data?.map(\.id) ?? [] } }

    @Test("Page number: forwards, backwards, first, last, reload")
    func pageNumber() async throws {
        let source = try source("paged/articles")
        let first = try await source.fetch().paginate(.pageBased(1, 30))
        let forward = try await walk(from: first) { try await $0.next() }
        #expect(forward.count == 7)
        #expect(ids(forward) == allSeededIDs)

        let last = try #require(try await first.last())
        #expect(last.data?.count == 20)
        #expect(last.meta?["pagination"]?["page"] == 7)
        let backward = try await walk(from: last) { try await $0.prev() }
        #expect(ids(backward.reversed()) == allSeededIDs)
        #expect(try await last.first()?.data?.first?.id == "1")
        #expect(try await first.prev() == nil)
        #expect(try await last.next() == nil)

        let reloaded = try await forward[3].reload()
        #expect(reloaded.data == forward[3].data)
        #expect(reloaded.url == forward[3].url)
    }

    @Test("Page number with include, sparse fieldsets and sort kept on every page")
    func pageNumberWithOptions() async throws {
        let source = try source("paged/articles")
        let first = try await source.fetch().include("author").fields(["articles": ["title", "author"], "people": ["name"]])
            .sort("-title").paginate(.pageBased(1, 45))
        let pages = try await walk(from: first) { try await $0.next() }
        #expect(pages.count == 5)
        #expect(ids(pages) == allSeededIDs.reversed())
        for page in pages {
            let url = page.url.absoluteString
            #expect(url.contains("include=author"))
            #expect(url.contains("fields%5Barticles%5D=title%2Cauthor"))
            #expect(url.contains("fields%5Bpeople%5D=name"))
            #expect(url.contains("sort=-title"))
            for article in page.data ?? [] {
                #expect(article.created == nil, "created was not asked for")
                #expect(article.author?.name == "Person \(((Int(article.id) ?? 0) - 1) % 20 + 1)")
            }
        }
        let back = try await walk(from: try #require(try await first.last())) { try await $0.prev() }
        #expect(ids(back.reversed()) == allSeededIDs.reversed())
    }

    enum Style: String, CaseIterable, Sendable {
        case pageNumber = "paged/articles", offset = "offset/articles", cursor = "cursor/articles"
        case cursorProfile = "cursor-profile/articles"

        func first(_ request: FetchRequest<[ArticleSummary]>) async throws -> FetchResponse<[ArticleSummary]> {
            switch self {
            case .pageNumber: try await request.paginate(.pageBased(1, 45))
            case .offset: try await request.paginate(.offsetBased(0, 45))
            case .cursor: try await request.paginate(.cursorBased(cursor: nil, size: 45))
            case .cursorProfile: try await request.paginate(.cursorBased(size: 45))
            }
        }
    }

    @Test("Every style keeps include, sparse fieldsets and sort on every page, forwards and backwards", arguments: Style.allCases)
    func optionsKept(_ style: Style) async throws {
        let request = try source(style.rawValue).fetch().include("author")
            .fields(["articles": ["title", "author"], "people": ["name"]]).sort("-created")
        let first = try await style.first(request)
        let forward = try await walk(from: first) { try await $0.next() }
        #expect(ids(forward) == allSeededIDs.reversed())
        let end = try #require(forward.last)
        let backward = try await walk(from: end) { try await $0.prev() }
        #expect(ids(backward.reversed()) == allSeededIDs.reversed())
        for page in forward + backward {
            let url = page.url
            #expect(url.queryValue("include") == "author")
            #expect(url.queryValue("fields[articles]") == "title,author")
            #expect(url.queryValue("fields[people]") == "name")
            #expect(url.queryValue("sort") == "-created")
            for article in page.data ?? [] {
                #expect(article.created == nil)
                #expect(article.author?.name == "Person \(((Int(article.id) ?? 0) - 1) % 20 + 1)")
            }
        }
    }

    @Test("Limit-offset: forwards, and backwards from DRF's last link one page past the end")
    func offset() async throws {
        let source = try source("offset/articles")
        let first = try await source.fetch().paginate(.offsetBased(0, 25))
        let forward = try await walk(from: first) { try await $0.next() }
        #expect(ids(forward) == allSeededIDs)
        #expect(forward.count == 8)

        // DRF's last link points at offset 200: an empty page, since 200 is a multiple of 25.
        let last = try #require(try await first.last())
        #expect(last.data?.isEmpty == true)
        #expect(last.url.queryValue("page[offset]") == "200")
        let backward = try await walk(from: last) { try await $0.prev() }
        #expect(ids(backward.reversed()) == allSeededIDs)
        #expect(try await last.first()?.data?.first?.id == "1")
        let reloaded = try await forward[2].reload()
        #expect(reloaded.data?.map(\.id) == forward[2].data?.map(\.id))
    }

    @Test("page[cursor]: forwards to the end, backwards to the start, first; no last link")
    func cursor() async throws {
        let source = try source("cursor/articles")
        let first = try await source.fetch().include("author").paginate(.cursorBased(cursor: nil, size: 30))
        let forward = try await walk(from: first) { try await $0.next() }
        #expect(ids(forward) == allSeededIDs)
        #expect(forward.allSatisfy { $0.data?.allSatisfy { $0.author != nil } == true })
        let backward = try await walk(from: try #require(forward.last)) { try await $0.prev() }
        #expect(ids(backward.reversed()) == allSeededIDs)
        #expect(try await forward[4].first()?.data?.first?.id == "1")
        #expect(try await first.last() == nil)
        let reloaded = try await forward[1].reload()
        #expect(reloaded.data?.map(\.id) == forward[1].data?.map(\.id))
    }

    @Test("Cursor pagination profile: page[after] forwards, page[before] backwards, total in meta")
    func cursorProfile() async throws {
        let source = try source("cursor-profile/articles")
        let first = try await source.fetch().fields(["articles": ["title"]]).paginate(.cursorBased(size: 30))
        #expect(first.meta?["page"]?["total"] == 200)
        #expect(first.links?.isNull("prev") == true)
        let forward = try await walk(from: first) { try await $0.next() }
        #expect(ids(forward) == allSeededIDs)
        #expect(forward.last?.links?.isNull("next") == true)
        #expect(forward[1].url.queryValue("page[after]") != nil)
        let backward = try await walk(from: try #require(forward.last)) { try await $0.prev() }
        #expect(ids(backward.reversed()) == allSeededIDs)
        #expect(backward[1].url.queryValue("page[before]") != nil)
        #expect(try await forward[3].first()?.data?.first?.id == "1")
    }

    @Test("Cursor pagination profile: a page size over the maximum is a 400 with meta.page.maxSize")
    func cursorProfileMaxSize() async throws {
        let error = await expectThrows(JSONAPIClientError.self) {
            try await source("cursor-profile/articles").fetch().paginate(.cursorBased(size: 500))
        }
        #expect(error?.status == .badRequest)
        #expect(error?.errors.first?.meta?["page"]?["maxSize"] == 100)
    }

    @Test("appendNext to the end: all primary data, merged included, last page's links and meta")
    func appendNext() async throws {
        let source = try source("paged/articles")
        var document = try await source.fetch().include("author").paginate(.pageBased(1, 40))
        let raw = try await source.fetch(as: PrimaryData.self).include("author").paginate(.pageBased(1, 40))
        var rawDocument = raw
        var rounds = 0
        while true {
            let result = try await document.appendNext()
            try await rawDocument.appendNext()
            rounds += 1
            #expect(result.added.count == 40)
            if !result.hasMore { break }
        }
        #expect(rounds == 4)
        #expect(document.data?.map(\.id) == allSeededIDs)
        #expect(document.meta?["pagination"]?["page"] == 5)
        #expect(document.links?.isNull("next") == true)
        let extra = try await document.appendNext()
        #expect(extra.added.isEmpty && extra.hasMore == false)
        #expect(rawDocument.data?.resources.map { $0.id ?? "" } == allSeededIDs)
        #expect(rawDocument.included?.count == 20)
        #expect(Set(rawDocument.included?.map { $0.id ?? "" } ?? []).count == 20)
    }

    @Test("The resource stream walks everything; cancelled after N items, no further request is sent")
    func streamCancellation() async throws {
        let counting = CountingClient(URLSessionClient())
        let source = try source("paged/articles", client: counting)
        var seen: [String] = []
        for try await article in source.fetch().page(.pageBased(1, 50)).resources() { seen.append(article.id) }
        #expect(seen == allSeededIDs)
        #expect(counting.count == 4)

        let cancelling = CountingClient(URLSessionClient())
        let paged = try self.source("paged/articles", client: cancelling)
        let progress = ProgressLog()
        let task = Task { () -> [String] in
            var ids: [String] = []
            for try await article in paged.fetch().page(.pageBased(1, 10)).resources(prefetch: 0, progress: { progress.append($0) }) {
                ids.append(article.id)
                if ids.count == 25 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return ids
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(cancelling.count == 3)
        try await Task.sleep(for: .milliseconds(300))
        #expect(cancelling.count == 3)
        #expect(progress.all.map(\.pagesFetched) == [1, 2, 3])
        #expect(progress.all.map(\.resourcesFetched) == [10, 20, 30])
        #expect(progress.all.allSatisfy { $0.totalResources == 200 })
    }
}

final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [PaginationProgress] = []
    func append(_ entry: PaginationProgress) { lock.withLock { entries.append(entry) } }
    var all: [PaginationProgress] { lock.withLock { entries } }
}
