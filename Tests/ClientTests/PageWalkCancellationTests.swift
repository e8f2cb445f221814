import Foundation
@testable import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

/// Cancelling the consumer of a page walk: no request of the walk enters the transport once `cancel()` has returned,
/// wherever the cancellation finds the consumer. Each interleaving is forced with continuations: requests are held in
/// the transport or in a middleware until the test lets them go, and the test waits for events, never for time.
@Suite("Cancelling a page walk sends nothing more")
struct PageWalkCancellationTests {
    struct Item: Resource {
        static let resourceType = "items"
        var id: String
    }

    /// A collection of 12 pages of 3 items (`meta.total` and `next` links), whose transport records each request's
    /// page, and which of them entered after the test said it had cancelled the consumer. Pages in `heldInTransport`
    /// wait there until released (answering whatever their cancellation); pages in `heldBeforeTransport` wait in a
    /// middleware, before the transport's gate, until released. The middleware reports each page as it comes
    /// (`arrived`) and how its way to the transport ended (`outcomes`: `true` when the transport answered it).
    final class Collection: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [Int] = []
        private var late: [Int] = []
        private var cancelled = false
        private var releasedPages: Set<Int> = []
        private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        let heldInTransport: Set<Int>
        let heldBeforeTransport: Set<Int>
        let entered = Events<Int>()
        let arrived = Events<Int>()
        let outcomes = Events<(page: Int, sent: Bool)>()

        init(heldInTransport: Set<Int> = [], heldBeforeTransport: Set<Int> = []) {
            self.heldInTransport = heldInTransport
            self.heldBeforeTransport = heldBeforeTransport
        }

        /// The pages that entered the transport, in order.
        var sent: [Int] { lock.withLock { entries } }
        /// The pages that entered the transport after ``markCancelled()``.
        var sentAfterCancel: [Int] { lock.withLock { late } }

        /// Called right after `cancel()` has returned.
        func markCancelled() { lock.withLock { cancelled = true } }

        /// Lets `page` go on, wherever it is held (now or later).
        func release(_ page: Int) {
            let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                releasedPages.insert(page)
                return waiting.removeValue(forKey: page)
            }
            continuation?.resume()
        }

        private func hold(_ page: Int) async {
            await withCheckedContinuation { continuation in
                let now = lock.withLock { () -> Bool in
                    if releasedPages.contains(page) { return true }
                    waiting[page] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        }

        static func page(of request: HTTPRequest) -> Int {
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            return Int(items.first { $0.name == "page[number]" }?.value ?? "1") ?? 1
        }

        lazy var client = ScriptedClient { [unowned self] request in
            let page = Self.page(of: request)
            lock.withLock {
                entries.append(page)
                if cancelled { late.append(page) }
            }
            entered.send(page)
            if heldInTransport.contains(page) { await hold(page) }
            let first = (page - 1) * 3 + 1
            let data = (first..<first + 3).map { #"{"type":"items","id":"\#($0)"}"# }.joined(separator: ",")
            let next = page < 12 ? #""https://api.example.com/v1/items?page%5Bnumber%5D=\#(page + 1)&page%5Bsize%5D=3""# : "null"
            return .document(#"{"data":[\#(data)],"links":{"next":\#(next)},"meta":{"total":36}}"#)
        }

        /// Holds the pages of `heldBeforeTransport` before the transport, and reports every page's way there.
        struct Holding: Middleware {
            let collection: Collection

            func intercept(
                _ request: HTTPRequest, context: MiddlewareContext,
                next: @Sendable (HTTPRequest) async throws -> HTTPResponse
            ) async throws -> HTTPResponse {
                let page = Collection.page(of: request)
                collection.arrived.send(page)
                // Ignores its task's cancellation on purpose: what matters is what happens at the transport.
                if collection.heldBeforeTransport.contains(page) { await collection.hold(page) }
                do {
                    let response = try await next(request)
                    collection.outcomes.send((page, true))
                    return response
                } catch {
                    collection.outcomes.send((page, false))
                    throw error
                }
            }
        }

        func source(store: Bool = false) -> DataSource<Item> {
            DataSource<Item>(
                baseURL: exampleBase, router: .path("items/<id>"), client: client,
                configuration: .init(
                    middlewares: [Holding(collection: self)], store: store ? .init() : nil, prefetchThreshold: .zero))
        }
    }

    /// Waits for `count` events of `events`; returns them.
    static func collect<Element: Sendable>(_ count: Int, of events: Events<Element>, _ what: String) async -> [Element] {
        var seen: [Element] = []
        for _ in 0..<count {
            guard let element = await events.next(what) else { break }
            seen.append(element)
        }
        return seen
    }

    /// The outcome for `page`, skipping other pages'.
    static func outcome(of page: Int, in collection: Collection) async -> Bool? {
        for _ in 0..<20 {
            guard let outcome = await collection.outcomes.next("the outcome of page \(page)") else { return nil }
            if outcome.page == page { return outcome.sent }
        }
        return nil
    }

    @Test("Cancelled inside next(), while a page it started has not reached the transport; pages complete just after",
          arguments: [false, true])
    func cancelledInsideNext(store: Bool) async throws {
        // Pages 2–4 wait in the transport, page 5 before it: the consumer's first next() cannot return before page 5
        // has entered, so it is inside next() when it is cancelled.
        let collection = Collection(heldInTransport: [2, 3, 4], heldBeforeTransport: [5])
        let request = collection.source(store: store).fetch().page(.pageBased(1, 3))
        let consumer = Task {
            for try await _ in request.pages(concurrency: 4) {}
        }
        #expect(Set(await Self.collect(4, of: collection.entered, "pages 1–4 entering")) == [1, 2, 3, 4])
        #expect(Set(await Self.collect(5, of: collection.arrived, "pages 1–5 arriving")) == [1, 2, 3, 4, 5])
        consumer.cancel()
        collection.markCancelled()
        // Pages 2–4 complete just after the cancellation; page 5 goes on to the transport.
        for page in [2, 3, 4, 5] { collection.release(page) }
        await #expect(throws: CancellationError.self) { try await consumer.value }
        #expect(await Self.outcome(of: 5, in: collection) == false)
        #expect(collection.sentAfterCancel == [])
        #expect(Set(collection.sent) == [1, 2, 3, 4])
    }

    @Test("Cancelled while its loop body runs: a page that the previous page's arrival would start never enters")
    func cancelledInLoopBody() async throws {
        // prefetch 2 along `next` links: page 3 is asked for when page 2 arrives, which the test makes happen while
        // the consumer runs its loop body on page 1, after it was cancelled.
        let collection = Collection(heldInTransport: [2])
        let request = collection.source().fetch().page(.pageBased(1, 3))
        let inBody = Signal()
        let goOn = Signal()
        let consumer = Task {
            var pages = 0
            for try await _ in request.pages(prefetch: 2) {
                pages += 1
                if pages == 1 {
                    inBody.fire()
                    await goOn.wait()
                }
            }
        }
        await inBody.wait()
        #expect(collection.sent == [1, 2])   // page 2 entered before next() returned page 1
        consumer.cancel()
        collection.markCancelled()
        collection.release(2)
        // Page 3 sets off once page 2 has arrived, while the consumer is still in its loop body.
        #expect(await Self.collect(3, of: collection.arrived, "pages 1–3 arriving") == [1, 2, 3])
        goOn.fire()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        #expect(await Self.outcome(of: 3, in: collection) == false)
        #expect(collection.sentAfterCancel == [])
        #expect(collection.sent == [1, 2])
    }

    @Test("The late refill: a page started after page 2 arrived, held before the transport, never enters it")
    func lateRefill() async throws {
        // Pages 2–5 answer at once; page 6, which the refill starts when page 2 is taken, waits before the transport.
        let collection = Collection(heldBeforeTransport: [6])
        let request = collection.source().fetch().page(.pageBased(1, 3))
        let goOn = Signal()
        let consumer = Task {
            var pages = 0
            for try await _ in request.pages(concurrency: 4) {
                pages += 1
                if pages == 2 { await goOn.wait() }
            }
        }
        // Wherever the consumer is now (inside next(), waiting for page 6 to enter; or, were next() not to wait, in
        // its loop body on page 2), it is cancelled while page 6 has not reached the transport.
        var arrived: [Int] = []
        while !arrived.contains(6), let page = await collection.arrived.next("page 6 arriving") { arrived.append(page) }
        consumer.cancel()
        collection.markCancelled()
        collection.release(6)
        #expect(await Self.outcome(of: 6, in: collection) == false)
        goOn.fire()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        #expect(collection.sentAfterCancel == [])
        #expect(Set(collection.sent) == [1, 2, 3, 4, 5])
    }

    @Test("A walk to its end sends each page once; a dropped iterator sends nothing more")
    func endedAndDropped() async throws {
        let collection = Collection()
        var ids: [String] = []
        for try await page in collection.source().fetch().page(.pageBased(1, 3)).pages(concurrency: 4) {
            ids += page.data?.map(\.id) ?? []
        }
        #expect(ids == (1...36).map(String.init))
        #expect(collection.sent.sorted() == Array(1...12))

        let held = Collection(heldInTransport: [2, 3, 4, 5])
        var iterator: PageSequence<[Item]>.Iterator? = held.source().fetch().page(.pageBased(1, 3)).pages(concurrency: 4)
            .makeAsyncIterator()
        #expect(try await iterator?.next()?.data?.count == 3)
        #expect(Set(held.sent) == [1, 2, 3, 4, 5])
        iterator = nil
        for page in 2...5 { held.release(page) }
        #expect(held.sent.count == 5)
    }
}

/// The gate's state machine, without tasks or transports.
@Suite("Page gate")
struct PageGateStateTests {
    typealias State = PageGateState<String, String>

    @Test("Requests enter while the consumer is inside next(), wait while it is outside, and are refused once it is cancelled")
    func phases() {
        var state = State()
        let first = state.start(counted: true)
        let chained = state.start(counted: false)
        #expect(first == 1 && chained == 2)
        #expect(state.pending == [1])
        // Outside: a request waits.
        #expect(state.arrive(ticket: 2, arrival: 1, isCancelled: false, parked: "p2").0 == .park)
        // The consumer comes in: the waiting request enters.
        let entered = state.enter(isCancelled: false)
        #expect(entered.proceeds && entered.resume == ["p2"])
        #expect(state.phase == .inside)
        // Waiting for the counted one; its arrival ends the wait.
        #expect(state.wait("consumer") == false)
        let arrival = state.arrive(ticket: 1, arrival: 2, isCancelled: false, parked: "p1")
        #expect(arrival.0 == .enter && arrival.waiting == "consumer")
        #expect(state.pending.isEmpty)
        #expect(state.wait("consumer") == true)
        state.leave()
        #expect(state.phase == .outside)
        // A request whose own task is cancelled is refused, wherever the consumer is.
        #expect(state.arrive(ticket: 2, arrival: 3, isCancelled: true, parked: "x").0 == .refuse)
        #expect(state.arrive(ticket: 2, arrival: 4, isCancelled: false, parked: "p4").0 == .park)
        #expect(state.unpark(arrival: 4) == "p4")
        #expect(state.unpark(arrival: 4) == nil)
        // Cancelled: the waiting are refused, nothing starts or enters any more, the consumer does not go on.
        #expect(state.arrive(ticket: 2, arrival: 5, isCancelled: false, parked: "p5").0 == .park)
        let cancelled = state.cancel()
        #expect(cancelled.parked == ["p5"])
        #expect(state.start(counted: true) == nil)
        #expect(state.arrive(ticket: 2, arrival: 6, isCancelled: false, parked: "p6").0 == .refuse)
        #expect(state.enter(isCancelled: false).proceeds == false)
        #expect(state.end().parked == [])
        #expect(state.phase == .cancelled)
    }

    @Test("A consumer entering cancelled refuses the waiting; an ended walk lets late requests in")
    func enteringCancelledAndEnded() {
        var state = State()
        _ = state.start(counted: true)
        #expect(state.arrive(ticket: 9, arrival: 1, isCancelled: false, parked: "late").0 == .park)
        let entered = state.enter(isCancelled: true)
        #expect(!entered.proceeds && entered.resume == ["late"])
        #expect(state.phase == .cancelled)

        var ended = State()
        let ticket = ended.start(counted: true) ?? 0
        #expect(ended.wait("consumer") == false)
        #expect(ended.arrive(ticket: ticket, arrival: 1, isCancelled: false, parked: "p").0 == .park)
        let over = ended.end()
        #expect(over.parked == ["p"] && over.waiting == "consumer")
        #expect(ended.phase == .ended)
        #expect(ended.arrive(ticket: ticket, arrival: 2, isCancelled: false, parked: "q").0 == .enter)
        #expect(ended.enter(isCancelled: false).proceeds)
        #expect(ended.enter(isCancelled: true).proceeds == false)
        #expect(ended.wait("consumer") == true)
    }

    @Test("A request that settles without entering (done, or sharing another's exchange) ends the wait when it is the last")
    func settling() {
        var state = State()
        let one = state.start(counted: true) ?? 0
        let two = state.start(counted: true) ?? 0
        _ = state.enter(isCancelled: false)
        #expect(state.wait("consumer") == false)
        #expect(state.settle(one) == nil)
        #expect(state.settle(one) == nil)
        #expect(state.settle(two) == "consumer")
        #expect(state.settle(two) == nil)
        #expect(state.wait("consumer") == true)
    }
}
