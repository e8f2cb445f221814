import Foundation
import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``LiveList`` against the test server's 200 seeded articles (`/paged/articles`, 30 a page: 7 pages).
@Suite("Live list against the test server")
@MainActor
struct LiveListServerTests {
    struct PagedArticle: Resource, Equatable {
        static let resourceType = "articles"
        var id: String
        var title: String
        var body: String
    }

    /// A transport to the server that records each request and holds those for one page number until released
    /// (or cancelled: then the request is not sent).
    final class HoldingClient: Client, @unchecked Sendable {
        let base = URLSessionClient()
        private let lock = NSLock()
        private var sent: [URL] = []
        private var held: (page: String, gate: Signal)?
        let arrivals = Events<String>()
        let cancellations = Events<String>()

        var requests: [URL] { lock.withLock { sent } }

        func hold(page: String) { lock.withLock { held = (page, Signal()) } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let page = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "page[number]" }?.value ?? "1"
            arrivals.send(page)
            if let gate = lock.withLock({ held?.page == page ? held?.gate : nil }) {
                await withTaskCancellationHandler { await gate.wait() } onCancel: { gate.fire() }
                if Task.isCancelled {
                    cancellations.send(page)
                    throw CancellationError()
                }
            }
            lock.withLock { sent.append(request.url) }
            return try await base.send(request)
        }
    }

    static func pageNumbers(_ urls: [URL]) -> [String] {
        urls.map { url in
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "page[number]" }?
                .value ?? "?"
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("loadMore() until hasMore is false: all 200 articles once, in order, one request per page")
    func walk() async throws {
        let client = HoldingClient()
        let api = Session(baseURL: try TestServer.url(), client: client)
        let list = api.source(PagedArticle.self, .path("paged/articles/<id>")).fetch().page(.pageBased(1, 30))
            .liveList()
        await list.load()
        var rounds = 0
        while list.hasMore, rounds < 20 {
            await list.loadMore()
            rounds += 1
        }
        #expect(list.resources.map(\.id) == (1...200).map(String.init))
        #expect(list.resources.first?.title == "Article 001")
        #expect(Self.pageNumbers(client.requests) == ["1", "2", "3", "4", "5", "6", "7"])
        #expect(rounds == 6)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A PATCH through another data source changes the list's element in place")
    func patch() async throws {
        let api = Session(baseURL: try TestServer.url())
        let paged = api.source(PagedArticle.self, .path("paged/articles/<id>")).fetch().page(.pageBased(5, 30))
            .liveList(prefetch: 0)
        await paged.load()
        #expect(paged.resources.map(\.id) == (121...150).map(String.init))
        let articles = api.source(PagedArticle.self, .path("articles/<id>"))
        let text = "Changed by LiveListServerTests \(UUID().uuidString)"
        var change = ResourceUpdate<PagedArticle>(id: "137")
        change.set("body", to: text)
        try await articles.update(change)
        await Observed.until("article 137 shows the new body") {
            paged.resources.first { $0.id == "137" }?.body == text
        }
        #expect(paged.resources.map(\.id) == (121...150).map(String.init))
        change.set("body", to: "Body of article 137.")
        try await articles.update(change)
        await Observed.until("article 137 is as seeded again") {
            paged.resources.first { $0.id == "137" }?.body == "Body of article 137."
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Dropping the list mid-page: the page in flight is cancelled and nothing more is sent")
    func droppedMidPage() async throws {
        let client = HoldingClient()
        let api = Session(baseURL: try TestServer.url(), client: client)
        var list: LiveList<PagedArticle>? = api.source(PagedArticle.self, .path("paged/articles/<id>")).fetch()
            .page(.pageBased(1, 30)).liveList(prefetch: 1)
        client.hold(page: "3")
        await list?.load()
        await list?.loadMore()
        #expect(list?.resources.count == 60)
        #expect(await client.arrivals.next("page 1") == "1")
        #expect(await client.arrivals.next("page 2") == "2")
        #expect(await client.arrivals.next("page 3, prefetched") == "3")
        let dropped = Weak(list)
        list = nil
        #expect(dropped.value == nil)
        #expect(await client.cancellations.next("page 3's cancellation") == "3")
        #expect(Self.pageNumbers(client.requests) == ["1", "2"])
    }
}
