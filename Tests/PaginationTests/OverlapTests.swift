import Foundation
import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

/// Overlapping the network with the consumer: prefetch along `next`, and concurrent addressed pages.
@Suite("Prefetch and concurrent pages")
struct OverlapTests {
    struct Item: Resource, Equatable {
        static let resourceType = "items"
        var id: String
    }

    /// A collection of `pages` pages of `size` items behind page-number parameters; `links` chooses what each page
    /// says about the others (`next` only, or `last` too, or nothing but a meta total). Counts the requests, the
    /// most at once, and holds each request until `gate` lets it go (when given).
    final class Collection: @unchecked Sendable {
        enum Links { case nextOnly, nextAndLast, metaTotalOnly }
        let pages: Int
        let size: Int
        let links: Links
        private let lock = NSLock()
        private var asked: [Int] = []
        private var inFlight = 0
        private(set) var mostAtOnce = 0
        var gate: (@Sendable (Int) async -> Void)?

        init(pages: Int, size: Int = 3, links: Links = .nextOnly) {
            self.pages = pages
            self.size = size
            self.links = links
        }

        var requested: [Int] { lock.withLock { asked } }

        func respond(_ request: HTTPRequest) async throws -> HTTPResponse {
            let number = Int(request.url.queryValue("page[number]") ?? "1") ?? 1
            lock.withLock {
                asked.append(number)
                inFlight += 1
                mostAtOnce = max(mostAtOnce, inFlight)
            }
            defer { lock.withLock { inFlight -= 1 } }
            if let gate { await gate(number) }
            try Task.checkCancellation()
            let first = (number - 1) * size + 1
            let data = (first..<first + size).map { #"{"type":"items","id":"\#($0)"}"# }.joined(separator: ",")
            func link(_ page: Int) -> String { #""https://api.example.com/v1/items?page%5Bnumber%5D=\#(page)&page%5Bsize%5D=\#(size)""# }
            let next = number < pages ? link(number + 1) : "null"
            let body: String
            switch links {
            case .nextOnly: body = #"{"data":[\#(data)],"links":{"next":\#(next)}}"#
            case .nextAndLast: body = #"{"data":[\#(data)],"links":{"next":\#(next),"last":\#(link(pages))}}"#
            case .metaTotalOnly: body = #"{"data":[\#(data)],"meta":{"total":\#(pages * size)}}"#
            }
            return .document(body)
        }
    }

    private func source(_ collection: Collection, store: Bool = false, prefetchThreshold: Duration = .zero)
        -> DataSource<Item>
    {
        let client = ScriptedClient { try await collection.respond($0) }
        return DataSource<Item>(
            baseURL: exampleBase, router: .path("items/<id>"), client: client,
            configuration: .init(store: store ? .init() : nil, prefetchThreshold: prefetchThreshold))
    }

    /// Waits (a little) until the collection has seen `count` requests.
    private func settle(_ collection: Collection, at count: Int) async throws {
        for _ in 0..<100 where collection.requested.count < count { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(50))
    }

    /// Holds the request for page 2 until it is cancelled; the flag tells when it was.
    private func holdPageTwoUntilCancelled(_ collection: Collection) -> LockedFlag {
        let cancelled = LockedFlag()
        collection.gate = { number in
            guard number == 2 else { return }
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            cancelled.value = true
        }
        return cancelled
    }

    @Test("While the consumer holds page k, page k+1 (and no further) is asked for; prefetch 0 and 2 too",
        arguments: [0, 1, 2])
    func prefetchDepth(prefetch: Int) async throws {
        let collection = Collection(pages: 5)
        var pages = source(collection).fetch().page(.pageBased(1, 3)).pages(prefetch: prefetch).makeAsyncIterator()
        let first = try await pages.next()
        #expect(first?.data?.count == 3)
        try await settle(collection, at: 1 + prefetch)
        // With prefetch 2, page 3 is asked for when page 2 arrives if the consumer is still inside next() then, else
        // when it comes back: nothing of the walk enters the transport while the consumer runs its own code.
        let expected = prefetch == 2 ? [[1, 2], [1, 2, 3]] : [Array(1...1 + prefetch)]
        #expect(expected.contains(collection.requested))
        var ids = first?.data?.map(\.id) ?? []
        while let page = try await pages.next() { ids += page.data?.map(\.id) ?? [] }
        #expect(ids == (1...15).map(String.init))
        #expect(collection.requested == [1, 2, 3, 4, 5])  // nothing past the last page
    }

    @Test("A consumer that comes back within the threshold gets each page as it asks, from the second page on")
    func quickConsumersAreNotPrefetchedFor() async throws {
        let collection = Collection(pages: 6)
        // An hour: however loaded the machine, the consumer below comes back sooner, so it stays quick.
        var pages = source(collection, prefetchThreshold: .seconds(3600)).fetch().page(.pageBased(1, 3)).pages()
            .makeAsyncIterator()
        _ = try await pages.next()  // nothing known of the consumer yet: page 2 goes ahead
        _ = try await pages.next()  // back at once: page 3 is not asked for ahead
        try await settle(collection, at: 3)
        #expect(collection.requested == [1, 2])
        _ = try await pages.next()  // page 3, fetched on demand
        #expect(collection.requested == [1, 2, 3])
        var rest = 0
        while try await pages.next() != nil { rest += 1 }
        #expect(rest == 3)
        #expect(collection.requested == [1, 2, 3, 4, 5, 6])
        #expect(Session.Configuration().prefetchThreshold == .milliseconds(1))
    }

    @Test("A consumer slower than the threshold has the next page asked for ahead, page after page")
    func slowConsumersArePrefetchedFor() async throws {
        let collection = Collection(pages: 4)
        // Zero: every consumer is slower than that, whatever the machine does.
        var pages = source(collection, prefetchThreshold: .zero).fetch().page(.pageBased(1, 3)).pages()
            .makeAsyncIterator()
        _ = try await pages.next()
        _ = try await pages.next()  // page 2; page 3 goes ahead
        try await settle(collection, at: 3)
        #expect(collection.requested == [1, 2, 3])
        _ = try await pages.next()  // page 3; page 4 goes ahead
        try await settle(collection, at: 4)
        #expect(collection.requested == [1, 2, 3, 4])
        #expect(try await pages.next() != nil)
        #expect(try await pages.next() == nil)
        #expect(collection.requested == [1, 2, 3, 4])
    }

    @Test("Cancelling the consumer cancels the prefetch in flight; no further request is sent")
    func prefetchCancellation() async throws {
        let collection = Collection(pages: 5)
        let cancelled = holdPageTwoUntilCancelled(collection)
        let pages = source(collection).fetch().page(.pageBased(1, 3)).pages()
        let task = Task {
            var count = 0
            for try await _ in pages {
                count += 1
                try await settle(collection, at: 2)  // page 2 is in flight while page 1 is worked on
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return count
        }
        // Bounded: a walk whose next() never returned would fail here instead of hanging the run.
        #expect(isCancellation(await bounded { await task.result }))
        for _ in 0..<100 where !cancelled.value { try await Task.sleep(for: .milliseconds(5)) }
        #expect(cancelled.value)
        try await Task.sleep(for: .milliseconds(50))
        #expect(collection.requested == [1, 2])
    }

    @Test("Dropping the iterator cancels what it prefetched")
    func droppedIterator() async throws {
        let collection = Collection(pages: 5)
        let cancelled = holdPageTwoUntilCancelled(collection)
        do {
            var pages = source(collection).fetch().page(.pageBased(1, 3)).pages().makeAsyncIterator()
            _ = try await pages.next()
            try await settle(collection, at: 2)
        }
        for _ in 0..<100 where !cancelled.value { try await Task.sleep(for: .milliseconds(5)) }
        #expect(cancelled.value)
    }

    @Test(
        "Concurrent pages: up to n at once, yielded in order, every resource once, by meta total or last link",
        arguments: [(Collection.Links.nextAndLast, 4), (.metaTotalOnly, 4), (.nextAndLast, 1), (.metaTotalOnly, 10)])
    func concurrentPages(links: Collection.Links, concurrency: Int) async throws {
        let collection = Collection(pages: 10, links: links)
        collection.gate = { _ in try? await Task.sleep(for: .milliseconds(20)) }
        var ids: [String] = []
        var numbers: [Int] = []
        for try await page in source(collection).fetch().page(.pageBased(1, 3)).pages(concurrency: concurrency) {
            ids += page.data?.map(\.id) ?? []
            numbers.append(Int(page.url.queryValue("page[number]") ?? "1") ?? 1)
        }
        #expect(ids == (1...30).map(String.init))
        #expect(numbers == Array(1...10))
        #expect(collection.requested.sorted() == Array(1...10))
        #expect(collection.mostAtOnce <= concurrency)
        if concurrency > 1 { #expect(collection.mostAtOnce > 1) }
    }

    @Test("Without a total or a last link, concurrent pages fall back to prefetch along next (one at a time)")
    func concurrentFallsBack() async throws {
        let collection = Collection(pages: 6, links: .nextOnly)
        collection.gate = { _ in try? await Task.sleep(for: .milliseconds(10)) }
        var ids: [String] = []
        for try await item in source(collection).fetch().page(.pageBased(1, 3)).resources(concurrency: 4) {
            ids.append(item.id)
        }
        #expect(ids == (1...18).map(String.init))
        #expect(collection.mostAtOnce == 1)
        #expect(collection.requested == Array(1...6))
    }

    @Test("A one-page collection and an exact multiple of the page size end where they should")
    func edges() async throws {
        for pages in [1, 2] {
            let collection = Collection(pages: pages, links: .metaTotalOnly)
            var count = 0
            for try await _ in source(collection).fetch().page(.pageBased(1, 3)).resources(concurrency: 4) { count += 1 }
            #expect(count == pages * 3)
            #expect(collection.requested.sorted() == Array(1...pages))
        }
    }

    @Test("Against the server: a concurrent walk of all 200 articles, page-number and limit-offset, each once in order")
    func serverWalks() async throws {
        let base = try TestServer.url()
        let paged = DataSource<ArticleSummary>(baseURL: base, router: .path("paged/articles"))
        var ids: [String] = []
        for try await article in paged.fetch().page(.pageBased(1, 15)).resources(concurrency: 4) { ids.append(article.id) }
        #expect(ids == allSeededIDs)
        let offset = DataSource<ArticleSummary>(baseURL: base, router: .path("offset/articles"))
        ids = []
        for try await article in offset.fetch().page(.offsetBased(0, 15)).resources(concurrency: 4) { ids.append(article.id) }
        #expect(ids == allSeededIDs)
        let cursor = DataSource<ArticleSummary>(baseURL: base, router: .path("cursor/articles"))
        ids = []
        for try await article in cursor.fetch().page(.cursorBased(cursor: nil, size: 15)).resources(concurrency: 4) { ids.append(article.id) }
        #expect(ids == allSeededIDs)
    }
}

/// A Boolean shared between a test and its scripted transport.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Cancelling the consumer of `pages(concurrency: 4)`: no page request reaches the transport after it. A middleware
/// holds the requests for pages 3–5 (already started by the refill) until the test lets them go, after the
/// consumer was cancelled while it waited for page 2: they must stop there, before the transport.
@Suite("Cancellation of concurrent pages before the transport")
struct RefillCancellationTests {
    struct Item: Resource {
        static let resourceType = "items"
        var id: String
    }

    final class Gate: Middleware, @unchecked Sendable {
        private let lock = NSLock()
        private var open = false
        private var heldPages: [Int] = []
        var held: [Int] { lock.withLock { heldPages } }
        func release() { lock.withLock { open = true } }

        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            let number = Int(request.url.queryValue("page[number]") ?? "1") ?? 1
            if number > 1 {
                lock.withLock { heldPages.append(number) }
                // Ignores cancellation on purpose: the check that matters is the one between here and the transport.
                for _ in 0..<2000 where !lock.withLock({ open }) { await RefillCancellationTests.pause() }
            }
            return try await next(request)
        }
    }

    @Test("Pages started by the refill and cancelled with their consumer never reach the transport")
    func nothingReachesTheTransport() async throws {
        let gate = Gate()
        let client = ScriptedClient { request in
            let number = Int(request.url.queryValue("page[number]") ?? "1") ?? 1
            let first = (number - 1) * 3 + 1
            let data = (first..<first + 3).map { #"{"type":"items","id":"\#($0)"}"# }.joined(separator: ",")
            return .document(#"{"data":[\#(data)],"meta":{"total":36}}"#)
        }
        let source = DataSource<Item>(
            baseURL: exampleBase, router: .path("items/<id>"), client: client,
            configuration: .init(middlewares: [gate], prefetchThreshold: .zero))
        let request = source.fetch().page(.pageBased(1, 3))
        let consumer = Task {
            for try await _ in request.pages(concurrency: 4) {}
        }
        // Pages 2–5 are held before the transport; the consumer waits for page 2.
        for _ in 0..<400 where gate.held.count < 4 { await Self.pause() }
        #expect(gate.held.sorted() == [2, 3, 4, 5])
        consumer.cancel()
        #expect(isCancellation(await bounded { await consumer.result }))
        gate.release()
        for _ in 0..<20 { await Self.pause() }
        #expect(client.requests.map { $0.url.queryValue("page[number]") } == ["1"])
    }

    /// 5 ms, whether or not the calling task is cancelled.
    static func pause() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { continuation.resume() }
        }
    }
}
