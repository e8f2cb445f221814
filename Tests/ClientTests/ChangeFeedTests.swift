import Foundation
import JSONAPIClient
import Testing
import TestSupport

@testable import JSONAPIClient

/// `ResourceStore.changes(of:)` streams through a `ChangeFeed`: a batch of changes added at once, taken one by one,
/// in order; the stream ends, and the observer stops, when the consumer's task is cancelled or the stream dropped.
@Suite("Change feed")
struct ChangeFeedTests {
    static func change(_ id: Int) -> StoreChange { StoreChange(type: "articles", id: String(id), kind: .updated) }

    /// Counts the calls of a feed's `stop`.
    final class Stops: Sendable {
        let count = LockedValue(0)
        var value: Int { count.withLock { $0 } }
        func stop() { count.withLock { $0 += 1 } }
    }

    @Test("Batches come out one change at a time, in the order added, across batches and waits")
    func order() async {
        let feed = ChangeFeed()
        feed.add([Self.change(1), Self.change(2)])
        feed.add([])
        feed.add([Self.change(3)])
        #expect(await feed.next() == Self.change(1))
        #expect(await feed.next() == Self.change(2))
        #expect(await feed.next() == Self.change(3))
        // Drained: the next batch wakes the consumer waiting, and the rest of it waits for the next calls.
        async let waiting = feed.next()
        try? await Task.sleep(for: .milliseconds(20))
        feed.add([Self.change(4), Self.change(5), Self.change(6)])
        #expect(await waiting == Self.change(4))
        #expect(await feed.next() == Self.change(5))
        #expect(await feed.next() == Self.change(6))
    }

    @Test("Two consumers waiting on one feed each get a change of the batch that wakes them, none twice")
    func twoConsumers() async {
        let feed = ChangeFeed()
        async let first = feed.next()
        async let second = feed.next()
        try? await Task.sleep(for: .milliseconds(20))
        feed.add([Self.change(1), Self.change(2), Self.change(3)])
        let taken = await [first, second]
        #expect(Set(taken.compactMap { $0?.id }) == ["1", "2"])
        #expect(await feed.next() == Self.change(3))
    }

    @Test("An ended feed gives nil to the consumer waiting and to every later call, and drops what is added")
    func end() async {
        let feed = ChangeFeed()
        feed.add([Self.change(1)])
        async let waiting: StoreChange? = {
            _ = await feed.next()
            return await feed.next()
        }()
        try? await Task.sleep(for: .milliseconds(20))
        feed.end()
        #expect(await waiting == nil)
        feed.add([Self.change(2)])
        #expect(await feed.next() == nil)
    }

    @Test("Cancelling the consumer's task ends the stream and stops the observer")
    func cancel() async {
        let stops = Stops()
        let feed = LockedValue<ChangeFeed?>(nil)
        let stream = ChangeFeed.stream { made in
            feed.withLock { $0 = made }
            return { stops.stop() }
        }
        let consumer = Task {
            var seen: [StoreChange] = []
            for await change in stream { seen.append(change) }
            return seen
        }
        feed.withLock { $0 }?.add([Self.change(1)])
        try? await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        let seen = await consumer.value
        #expect(seen == [Self.change(1)])
        #expect(stops.value >= 1)
    }

    @Test("Dropping the stream stops the observer")
    func drop() async {
        let stops = Stops()
        do {
            let stream = ChangeFeed.stream { _ in { stops.stop() } }
            _ = stream
        }
        #expect(stops.value == 1)
    }

    @Test("Through the store: a merge's changes of the type observed come out in order; none of another type")
    func throughStore() async {
        struct Article: Resource, Equatable {
            static let resourceType = "articles"
            var id: String
            var title: String
        }
        let store = ResourceStore()
        let probe = StreamProbe(store.changes(of: Article.self))
        let objects = (1...3).map { number in
            ResourceObject(type: "articles", id: String(number), attributes: ["title": .string("t\(number)")])
        } + [ResourceObject(type: "people", id: "9", attributes: ["name": .string("n")])]
        store.merge(objects)
        store.merge([ResourceObject(type: "articles", id: "4", attributes: ["title": .string("t4")])])
        for number in 1...4 { #expect(await probe.next() == Self.change(number)) }
        #expect(await probe.next(within: .milliseconds(50)) == nil)
    }
}
