import Foundation
import JSONAPIClient
import JSONAPIClientTesting
import Testing

/// A shared `GET` whose last waiter leaves is cancelled, even when the waiter leaves while the exchange is starting.
@Suite("Shared GETs cancelled as they start")
struct InFlightCancellationTests {
    struct Label: Resource, Equatable {
        static let resourceType = "labels"
        var id: String
        var name: String
    }

    /// The task to cancel from inside the transport.
    final class Victim: @unchecked Sendable {
        private let lock = NSLock()
        private var task: Task<Void, Never>?
        func set(_ task: Task<Void, Never>) { lock.withLock { self.task = task } }
        func cancel() { lock.withLock { task }?.cancel() }
    }

    @Test("The only waiter, cancelled before its exchange has suspended once, cancels the exchange")
    func cancelledWhileStarting() async throws {
        let victim = Victim()
        let go = Signal()
        let cancelled = Events<Bool>()
        // The transport cancels the waiting task before it first suspends: where the exchange starts as an immediate
        // task (Linux, the 26 releases), that is before the session has kept the exchange's handle.
        let client = ScriptedClient { _ in
            victim.cancel()
            let gate = Signal()
            await withTaskCancellationHandler { await gate.wait() } onCancel: { gate.fire() }
            cancelled.send(Task.isCancelled)
            throw CancellationError()
        }
        let api = Session(baseURL: URL(string: "https://api.example.com")!, client: client)
        let request = api.source(Label.self, .path("labels/<id>")).fetch()
        let waiter = Task {
            await go.wait()
            _ = try? await request.result()
        }
        victim.set(waiter)
        go.fire()
        await waiter.value
        #expect(await cancelled.next("the exchange's cancellation") == true)
    }

    @Test("An abandoned exchange that finishes late does not answer a newer one of the same request")
    func abandonedFinishesLate() async throws {
        let releaseFirst = Signal()
        let releaseSecond = Signal()
        let calls = Events<Int>()
        let counter = Counter()
        let client = ScriptedClient { _ in
            let call = counter.next()
            calls.send(call)
            if call == 1 {
                // The first exchange ignores its cancellation and answers late, with an error.
                await releaseFirst.wait()
                calls.send(-1)
                return .document(#"{"errors": [{"status": "500"}]}"#, status: 500)
            }
            await releaseSecond.wait()
            return .document(#"{"data": [{"type": "labels", "id": "1", "attributes": {"name": "one"}}]}"#)
        }
        let api = Session(baseURL: URL(string: "https://api.example.com")!, client: client)
        let request = api.source(Label.self, .path("labels/<id>")).fetch()
        let abandoned = Task { try await request.result() }
        #expect(await calls.next("the first exchange") == 1)
        abandoned.cancel()
        await #expect(throws: CancellationError.self) { try await abandoned.value }
        let newer = Task { try await request.result() }
        #expect(await calls.next("the second exchange") == 2)
        // The abandoned exchange answers while the newer one is still on the network (it finishes as soon as its
        // transport returns); only then does the newer one answer.
        releaseFirst.fire()
        #expect(await calls.next("the first exchange answering") == -1)
        releaseSecond.fire()
        #expect(try await newer.value.data?.first?.name == "one")
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func next() -> Int { lock.withLock { count += 1; return count } }
    }
}
