import Foundation
@testable import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

/// Cancelling the consumer of a page walk: no request of the walk enters the transport once `cancel()` has returned,
/// wherever the cancellation finds the consumer. Each interleaving is forced: requests are held in the transport (after
/// entering it) or in a middleware (before the walk's gate) until the test lets them go, and the test waits for
/// events (bounded), never for time.
@Suite("Cancelling a page walk sends nothing more")
struct PageWalkCancellationTests {
    struct Item: Resource {
        static let resourceType = "items"
        var id: String
    }

    /// What the walk did, as the test sees it.
    struct Log: Sendable {
        /// The pages that entered the transport, in order.
        var entered: [Int] = []
        /// Those that entered after the test marked the cancellation (just after `cancel()` returned).
        var enteredAfterCancel: [Int] = []
        /// The pages that reached the last middleware (before the gate).
        var arrived: [Int] = []
        /// How each page's way past the last middleware ended: `true` when the transport answered it.
        var outcomes: [Int: Bool] = [:]
        /// The pages the consumer got.
        var consumed: [Int] = []
        var cancelled = false
        /// The consumer is in its loop body, waiting for the test.
        var inBody = false
        /// How many times the consumer called `next()` (it is inside the last, or about to enter it).
        var asked = 0
    }

    /// A collection of 12 pages of 3 items (`meta.total` and `next` links) behind a scripted transport that records
    /// what enters it; `inTransport` pages wait there (entered) until released, `beforeGate` pages wait in a
    /// middleware, before the walk's gate, until released.
    final class Scene: Sendable {
        let log = Watched(Log())
        let inTransport: Set<Int>
        let beforeGate: Set<Int>
        let holds = Holds<Int>()

        init(inTransport: Set<Int> = [], beforeGate: Set<Int> = []) {
            self.inTransport = inTransport
            self.beforeGate = beforeGate
        }

        static func page(of request: HTTPRequest) -> Int {
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            return Int(items.first { $0.name == "page[number]" }?.value ?? "1") ?? 1
        }

        /// Marks the cancellation: called right after `cancel()` returned.
        func markCancelled() { log.update { $0.cancelled = true } }

        /// Lets every held page go.
        func releaseAll() { for page in 1...12 { holds.release(page) } }

        var client: ScriptedClient {
            ScriptedClient { [self] request in
                let page = Self.page(of: request)
                log.update { log in
                    log.entered.append(page)
                    if log.cancelled { log.enteredAfterCancel.append(page) }
                }
                if inTransport.contains(page) { await holds.hold(page) }
                let first = (page - 1) * 3 + 1
                let data = (first..<first + 3).map { #"{"type":"items","id":"\#($0)"}"# }.joined(separator: ",")
                let next = page < 12 ? #""https://api.example.com/v1/items?page%5Bnumber%5D=\#(page + 1)&page%5Bsize%5D=3""# : "null"
                return .document(#"{"data":[\#(data)],"links":{"next":\#(next)},"meta":{"total":36}}"#)
            }
        }

        /// Holds the pages of `beforeGate` before the gate, and records every page's way past it.
        struct Holding: Middleware {
            let scene: Scene

            func intercept(
                _ request: HTTPRequest, context: MiddlewareContext,
                next: @Sendable (HTTPRequest) async throws -> HTTPResponse
            ) async throws -> HTTPResponse {
                let page = Scene.page(of: request)
                scene.log.update { $0.arrived.append(page) }
                // Ignores its task's cancellation on purpose: what matters is what the gate does after it.
                if scene.beforeGate.contains(page) { await scene.holds.hold(page) }
                do {
                    let response = try await next(request)
                    scene.log.update { $0.outcomes[page] = true }
                    return response
                } catch {
                    scene.log.update { $0.outcomes[page] = false }
                    throw error
                }
            }
        }

        func request(store: Bool) -> FetchRequest<[Item]> {
            DataSource<Item>(
                baseURL: exampleBase, router: .path("items/<id>"), client: client,
                configuration: .init(
                    middlewares: [Holding(scene: self)], store: store ? .init() : nil, prefetchThreshold: .zero)
            ).fetch().page(.pageBased(1, 3))
        }

        /// Consumes `pages`; in its loop body after page `pauseAfter`, it says so and waits for the release of key 0.
        func consume(_ pages: PageSequence<[Item]>, pauseAfter: Int? = nil) -> Task<Void, any Error> {
            Task { [self] in
                var iterator = pages.makeAsyncIterator()
                while true {
                    log.update { $0.asked += 1 }
                    guard let page = try await iterator.next() else { return }
                    let number = Scene.page(of: HTTPRequest(method: .get, url: page.url))
                    log.update { $0.consumed.append(number) }
                    if number == pauseAfter {
                        log.update { $0.inBody = true }
                        await holds.hold(0)
                    }
                }
            }
        }
    }

    @Test("Cancelled inside next(), waiting for a page: the pages in the transport complete just after, and nothing more enters",
          arguments: [false, true])
    func cancelledWaitingForAPage(store: Bool) async throws {
        let scene = Scene(inTransport: [2, 3, 4, 5])
        let consumer = scene.consume(scene.request(store: store).pages(concurrency: 4))
        // next() returned page 1 once pages 2–5 had entered; the second next() waits for page 2.
        #expect(await scene.log.wait { Set($0.entered) == [1, 2, 3, 4, 5] && $0.consumed == [1] && $0.asked == 2 })
        consumer.cancel()
        scene.markCancelled()
        scene.releaseAll()  // pages 2–5 complete just after the cancellation
        #expect(isCancellation(await bounded { await consumer.result }))
        #expect(await scene.log.wait { log in (2...5).allSatisfy { log.outcomes[$0] != nil } })
        #expect(scene.log.value.enteredAfterCancel == [])
        #expect(Set(scene.log.value.entered) == [1, 2, 3, 4, 5])
        #expect(scene.log.value.consumed == [1])
    }

    @Test("Cancelled inside next(), while a page it started is on its way to the transport: that page never enters",
          arguments: [false, true])
    func cancelledWhileAPageIsOnItsWay(store: Bool) async throws {
        // Page 5 waits before the gate: the first next() cannot return before page 5 has reached it, so the consumer
        // is inside next() when it is cancelled.
        let scene = Scene(inTransport: [2, 3, 4], beforeGate: [5])
        let consumer = scene.consume(scene.request(store: store).pages(concurrency: 4))
        #expect(await scene.log.wait { Set($0.entered) == [1, 2, 3, 4] && Set($0.arrived) == [1, 2, 3, 4, 5] })
        #expect(scene.log.value.consumed == [])
        consumer.cancel()
        scene.markCancelled()
        scene.releaseAll()  // pages 2–4 complete, and page 5 goes on to the gate, just after the cancellation
        #expect(isCancellation(await bounded { await consumer.result }))
        #expect(await scene.log.wait { log in (2...5).allSatisfy { log.outcomes[$0] != nil } })
        #expect(scene.log.value.outcomes[5] == false)
        #expect(scene.log.value.enteredAfterCancel == [])
        #expect(Set(scene.log.value.entered) == [1, 2, 3, 4])
    }

    @Test("Cancelled while its loop body runs: a page that an earlier page's arrival starts never enters",
          arguments: [false, true])
    func cancelledInLoopBodyChained(store: Bool) async throws {
        // prefetch 2 along `next`: page 3 is asked for when page 2 arrives, which the test makes happen after the
        // consumer was cancelled in its loop body on page 1.
        let scene = Scene(inTransport: [2])
        let consumer = scene.consume(scene.request(store: store).pages(prefetch: 2), pauseAfter: 1)
        #expect(await scene.log.wait { $0.inBody && $0.entered == [1, 2] })
        consumer.cancel()
        scene.markCancelled()
        scene.holds.release(2)  // page 2 completes just after the cancellation, and page 3 sets off
        #expect(await scene.log.wait { $0.arrived.contains(3) })
        scene.holds.release(0)  // the loop body ends; the consumer asks for the next page, cancelled
        #expect(isCancellation(await bounded { await consumer.result }))
        #expect(await scene.log.wait { $0.outcomes[2] != nil && $0.outcomes[3] != nil })
        #expect(scene.log.value.outcomes[3] == false)
        #expect(scene.log.value.enteredAfterCancel == [])
        #expect(scene.log.value.entered == [1, 2])
    }

    @Test("Cancelled while its loop body runs, pages ahead in the transport: they complete after it, and start nothing",
          arguments: [false, true])
    func cancelledInLoopBodyConcurrent(store: Bool) async throws {
        let scene = Scene(inTransport: [3, 4, 5, 6])
        let consumer = scene.consume(scene.request(store: store).pages(concurrency: 4), pauseAfter: 2)
        // next() returned page 2 once page 6 (the refill after page 2) had entered.
        #expect(await scene.log.wait { $0.inBody && Set($0.entered) == Set(1...6) })
        consumer.cancel()
        scene.markCancelled()
        scene.releaseAll()  // pages 3–6 complete while the loop body still runs, after the cancellation
        #expect(await scene.log.wait { log in (3...6).allSatisfy { log.outcomes[$0] != nil } })
        scene.holds.release(0)  // the loop body ends; the consumer asks for the next page, cancelled
        #expect(isCancellation(await bounded { await consumer.result }))
        #expect(scene.log.value.enteredAfterCancel == [])
        #expect(Set(scene.log.value.entered) == Set(1...6))
        #expect(scene.log.value.consumed == [1, 2])
    }

    @Test("A page arriving while the consumer works waits for it, and goes on when it comes back (not cancelled)")
    func parkedUntilTheConsumerComesBack() async throws {
        let scene = Scene(inTransport: [2])
        let consumer = Task {
            var numbers: [Int] = []
            var pages = scene.request(store: false).pages(prefetch: 2).makeAsyncIterator()
            numbers.append(Scene.page(of: HTTPRequest(method: .get, url: try #require(try await pages.next()).url)))
            scene.log.update { $0.inBody = true }
            await scene.holds.hold(0)
            while let page = try await pages.next() {
                numbers.append(Scene.page(of: HTTPRequest(method: .get, url: page.url)))
            }
            return numbers
        }
        #expect(await scene.log.wait { $0.inBody && $0.entered == [1, 2] })
        scene.holds.release(2)
        // Page 3 sets off once page 2 has arrived and waits at the gate: it has not entered while the body runs.
        #expect(await scene.log.wait { $0.arrived.contains(3) })
        #expect(!scene.log.value.entered.contains(3))
        scene.holds.release(0)
        let numbers = await bounded { try? await consumer.value }
        #expect(numbers == .some(Array(1...12)))
        #expect(scene.log.value.entered == Array(1...12))
    }

    @Test("A walk to its end sends each page once; a dropped iterator lets nothing more in")
    func endedAndDropped() async throws {
        let scene = Scene()
        let pages = scene.request(store: false).pages(concurrency: 4)
        let ids = await bounded { () -> [String]? in
            var ids: [String] = []
            do {
                for try await page in pages { ids += page.data?.map(\.id) ?? [] }
            } catch { return nil }
            return ids
        }
        #expect(ids == .some((1...36).map(String.init)))
        #expect(scene.log.value.entered.sorted() == Array(1...12))

        // Dropped after page 1 while page 2 is held in the transport and page 3 waits before the gate.
        let held = Scene(inTransport: [2], beforeGate: [3])
        let walk = held.request(store: false).pages(prefetch: 2)
        let first = await bounded { () -> Int? in
            var iterator = walk.makeAsyncIterator()
            return try? await iterator.next()?.data?.count
        }
        #expect(first == .some(3))
        held.releaseAll()
        #expect(await held.log.wait { $0.outcomes[2] != nil })
        // Page 3 sets off from page 2 only if page 2's task was not cancelled in time; either way it never enters.
        #expect(!held.log.value.entered.contains(3))
        #expect(held.log.value.entered.allSatisfy { [1, 2].contains($0) })
    }
}

extension PageWalkCancellationTests {
    @Test("After a page fails, the walk is over: next() gives nil, not CancellationError, and nothing more is sent")
    func nilAfterAnError() async throws {
        let scene = Scene()
        let failing = ScriptedClient { request in
            let page = Scene.page(of: request)
            guard page != 3 else { return .document(#"{"errors":[{"status":"500"}]}"#, status: 500) }
            return try await scene.client.send(request)
        }
        let request = DataSource<Item>(
            baseURL: exampleBase, router: .path("items/<id>"), client: failing,
            configuration: .init(prefetchThreshold: .zero)
        ).fetch().page(.pageBased(1, 3))
        let outcome = await bounded { () -> (pages: Int, failed: Bool, after: Bool) in
            var iterator = request.pages(concurrency: 2).makeAsyncIterator()
            var pages = 0
            var failed = false
            while true {
                do {
                    guard try await iterator.next() != nil else { break }
                    pages += 1
                } catch {
                    failed = error is JSONAPIClientError
                    break
                }
            }
            let after: Bool
            do { after = try await iterator.next() == nil } catch { after = false }
            return (pages, failed, after)
        }
        #expect(outcome?.pages == 2 && outcome?.failed == true && outcome?.after == true)
        #expect(scene.log.value.entered.allSatisfy { (1...4).contains($0) })
    }
}

/// The middleware chain's entry to the transport: only a walk's `GET`s wait for, or are refused by, its gate.
@Suite("Page gate at the transport")
struct PageGateAdmissionTests {
    @Test("A write in a task that inherited a stopped walk's ticket is sent; a GET is refused; no walk, sent")
    func onlyGETsBelongToAWalk() async throws {
        let gate = PageGate()
        let ticket = try #require(gate.start(awaited: false))
        gate.stop()
        try await PageGate.$current.withValue(ticket) {
            try await PageGate.admit(HTTPRequest(method: .post, url: exampleBase))
            await #expect(throws: CancellationError.self) {
                try await PageGate.admit(HTTPRequest(method: .get, url: exampleBase))
            }
        }
        try await PageGate.admit(HTTPRequest(method: .get, url: exampleBase))
        #expect(gate.start(awaited: true) == nil)
    }

    @Test("A request waiting at the gate is refused when its own task is cancelled")
    func parkedRequestCancelled() async throws {
        let gate = PageGate()
        let ticket = try #require(gate.start(awaited: false))
        let arrived = Watched(false)
        let request = Task {
            arrived.update { $0 = true }
            try await PageGate.$current.withValue(ticket) {
                try await PageGate.admit(HTTPRequest(method: .get, url: exampleBase))
            }
        }
        #expect(await arrived.wait { $0 })
        request.cancel()
        #expect(isCancellation(await bounded { await request.result }))
    }

    @Test("A request waiting at the gate goes on when the consumer comes back, and is refused when it comes back cancelled",
          arguments: [false, true])
    func parkedRequestResumed(cancelled: Bool) async throws {
        let gate = PageGate()
        let ticket = try #require(gate.start(awaited: false))
        let request = Task {
            try await PageGate.$current.withValue(ticket) {
                try await PageGate.admit(HTTPRequest(method: .get, url: exampleBase))
            }
        }
        // Parked: it stays so until the consumer comes back.
        #expect(await bounded {
            while gate.parkedCount == 0 { await Task.yield() }
            return true
        } == true)
        #expect(gate.enter(isCancelled: cancelled) == !cancelled)
        let result = await bounded { await request.result }
        if cancelled { #expect(isCancellation(result)) } else { #expect((try? result?.get()) != nil) }
    }
}

/// The gate's state machine, without tasks or transports.
@Suite("Page gate state machine")
struct PageGateStateMachineTests {
    typealias Machine = PageGate.StateMachine<String, String>

    private static func admitted(_ decision: Machine.Decision) -> String?? {
        if case .admit(let waiter) = decision { return .some(waiter) }
        return nil
    }

    private static func refused(_ decision: Machine.Decision) -> String?? {
        if case .refuse(let waiter) = decision { return .some(waiter) }
        return nil
    }

    private static func isPark(_ decision: Machine.Decision) -> Bool {
        if case .park = decision { return true }
        return false
    }

    private static func names(_ actions: [Machine.Action]) -> [String] {
        actions.map {
            switch $0 {
            case .retry(let parked): "retry \(parked)"
            case .refuse(let parked): "refuse \(parked)"
            case .resume(let waiter): "resume \(waiter)"
            }
        }.sorted()
    }

    @Test("Inside next(), requests pass at once and end the consumer's wait; outside, they wait, and pass when it comes back")
    func phases() {
        var machine = Machine()
        #expect(machine.enter(isCancelled: false).proceeds)
        let first = machine.start(awaited: true)
        let chained = machine.start(awaited: false)
        #expect(first == 1 && chained == 2)
        #expect(machine.awaited == [1])
        #expect(machine.wait("consumer") == nil)
        let (decision, arrival) = machine.arrive(ticket: 1, arrival: nil, isCancelled: false)
        #expect(Self.admitted(decision) == .some("consumer"))
        #expect(arrival == 1)
        #expect(machine.awaited.isEmpty)
        #expect(machine.wait("again") == "again")  // nothing left to wait for: resumed at once
        machine.leave()
        #expect(machine.phase == .outside)
        // Outside: the chained request waits.
        let (parking, second) = machine.arrive(ticket: 2, arrival: nil, isCancelled: false)
        #expect(Self.isPark(parking))
        #expect(machine.park("p2", arrival: second, isCancelled: false) == .parked)
        #expect(machine.parkedCount == 1)
        // The consumer comes back: the request arrives again, and the consumer waits until it has.
        let (proceeds, actions) = machine.enter(isCancelled: false)
        #expect(proceeds && Self.names(actions) == ["retry p2"])
        #expect(machine.returning == [second])
        #expect(machine.wait("consumer") == nil)
        #expect(Self.admitted(machine.arrive(ticket: 2, arrival: second, isCancelled: false).decision) == .some("consumer"))
        #expect(machine.returning.isEmpty)
    }

    @Test("Stopped: the waiting are refused, the wait ends, nothing starts or passes again, the consumer does not go on")
    func stopped() {
        var machine = Machine()
        _ = machine.enter(isCancelled: false)
        _ = machine.start(awaited: true)
        #expect(machine.wait("consumer") == nil)
        machine.leave()
        let (_, arrival) = machine.arrive(ticket: 9, arrival: nil, isCancelled: false)
        #expect(machine.park("late", arrival: arrival, isCancelled: false) == .parked)
        #expect(Self.names(machine.stop()) == ["refuse late", "resume consumer"])
        #expect(machine.start(awaited: true) == nil)  // a page completing just after the cancel starts no refill
        #expect(Self.refused(machine.arrive(ticket: 1, arrival: nil, isCancelled: false).decision) != nil)
        #expect(machine.park("later", arrival: 5, isCancelled: false) == .refuse)
        #expect(machine.enter(isCancelled: false).proceeds == false)
        #expect(Self.names(machine.finish()) == [])
        #expect(machine.phase == .stopped)
        #expect(machine.wait("consumer") == "consumer")
    }

    @Test("A consumer coming back cancelled refuses the waiting requests and goes no further")
    func enteringCancelled() {
        var machine = Machine()
        let (_, arrival) = machine.arrive(ticket: 3, arrival: nil, isCancelled: false)
        #expect(machine.park("p", arrival: arrival, isCancelled: false) == .parked)
        let (proceeds, actions) = machine.enter(isCancelled: true)
        #expect(!proceeds && Self.names(actions) == ["refuse p"])
        #expect(machine.phase == .stopped)
    }

    @Test("The consumer's wait ends when the task of a request it waits for ends without reaching the gate")
    func finishedWithoutArriving() {
        var machine = Machine()
        _ = machine.enter(isCancelled: false)
        let one = machine.start(awaited: true) ?? 0
        let two = machine.start(awaited: true) ?? 0
        #expect(machine.wait("consumer") == nil)
        #expect(machine.finished(one) == nil)
        #expect(machine.finished(one) == nil)
        #expect(machine.finished(two) == "consumer")
        #expect(machine.finished(two) == nil)
    }

    @Test("A request's own cancellation: refused at the gate, or taken from the waiting")
    func ownCancellation() {
        var machine = Machine()
        _ = machine.enter(isCancelled: false)
        #expect(Self.refused(machine.arrive(ticket: 1, arrival: nil, isCancelled: true).decision) != nil)
        machine.leave()
        let (_, arrival) = machine.arrive(ticket: 2, arrival: nil, isCancelled: false)
        #expect(machine.park("p", arrival: arrival, isCancelled: true) == .refuse)
        let (_, next) = machine.arrive(ticket: 2, arrival: nil, isCancelled: false)
        #expect(machine.park("q", arrival: next, isCancelled: false) == .parked)
        #expect(machine.unpark(next) == "q")
        #expect(machine.unpark(next) == nil)
        #expect(Self.names(machine.enter(isCancelled: false).actions) == [])
    }

    @Test("A request told to wait finds the consumer back before it parks: it arrives again, and is waited for")
    func consumerBackBeforeParking() {
        var machine = Machine()
        let (decision, arrival) = machine.arrive(ticket: 1, arrival: nil, isCancelled: false)
        #expect(Self.isPark(decision))
        _ = machine.enter(isCancelled: false)
        #expect(machine.park("p", arrival: arrival, isCancelled: false) == .retry)
        #expect(machine.returning == [arrival])
        #expect(machine.wait("consumer") == nil)
        #expect(Self.admitted(machine.arrive(ticket: 1, arrival: arrival, isCancelled: false).decision) == .some("consumer"))
    }

    @Test("At the end, the waiting and the late pass; a dropped iterator stops a walk that had not ended")
    func finishedAndDropped() {
        var machine = Machine()
        let (_, arrival) = machine.arrive(ticket: 1, arrival: nil, isCancelled: false)
        #expect(machine.park("refresh", arrival: arrival, isCancelled: false) == .parked)
        #expect(Self.names(machine.finish()) == ["retry refresh"])
        #expect(machine.phase == .finished)
        #expect(Self.admitted(machine.arrive(ticket: 1, arrival: arrival, isCancelled: false).decision) != nil)
        #expect(Self.names(machine.drop()) == [])
        #expect(machine.phase == .finished)

        var dropped = Machine()
        let (_, waiting) = dropped.arrive(ticket: 1, arrival: nil, isCancelled: false)
        #expect(dropped.park("p", arrival: waiting, isCancelled: false) == .parked)
        #expect(Self.names(dropped.drop()) == ["refuse p"])
        #expect(dropped.phase == .stopped)
    }
}
