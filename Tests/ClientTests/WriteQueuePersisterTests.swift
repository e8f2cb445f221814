import Foundation
import JSONAPIClientTesting
import Testing

@testable import JSONAPIClient

/// A storage in memory that the test can hold inside `save` (to look at the queue meanwhile) or make fail.
final class HeldStorage: WriteQueueStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [WriteQueue.Entry]?
    private var failures = 0
    private var holding = false
    private var saves: [[String]] = []
    /// Signalled when a save starts, while holding.
    let entered = DispatchSemaphore(value: 0)
    /// Signalled by the test to let a held save go on.
    let proceed = DispatchSemaphore(value: 0)
    /// Whether each save ran with the queue's state free: the test's `probe`, run inside each save.
    private(set) var probes: [Bool] = []
    var probe: (@Sendable () -> Bool)?

    init(_ entries: [WriteQueue.Entry]? = nil) { kept = entries }

    /// Waits (a minute at most: a bound, not a speed) until a held save has started, on a thread of its own: never
    /// on one of the cooperative pool's or Dispatch's few, which the save it waits for may need.
    func hasEntered() async -> Bool {
        let entered = entered
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: entered.wait(timeout: .now() + 60) == .success) }.start()
        }
    }

    /// The ids of each save's entries, in order.
    var saved: [[String]] { lock.withLock { saves } }
    var entries: [WriteQueue.Entry]? { lock.withLock { kept } }
    func fail(next count: Int) { lock.withLock { failures = count } }
    func hold(_ on: Bool) { lock.withLock { holding = on } }

    func load() -> [WriteQueue.Entry]? { lock.withLock { kept } }

    func save(_ entries: [WriteQueue.Entry]) throws {
        if let probe { let free = probe(); lock.withLock { probes.append(free) } }
        if lock.withLock({ holding }) {
            entered.signal()
            _ = proceed.wait(timeout: .now() + 60)
        }
        try lock.withLock {
            if failures > 0 {
                failures -= 1
                throw CocoaError(.fileWriteOutOfSpace)
            }
            kept = entries
            saves.append(entries.map(\.id))
        }
    }
}

@Suite("Write queue persister")
struct WriteQueuePersisterTests {
    static func snapshot(_ version: UInt64, _ ids: [String]) -> WriteQueue.StateMachine.Snapshot {
        let entries = ids.map { id in
            WriteQueue.Entry(
                method: .post, url: URL(string: "https://api.example.com/memos")!, type: "memos", resourceID: id,
                body: nil, headerFields: [:], kind: .create, clientGeneratedID: false, id: id)
        }
        return WriteQueue.StateMachine.Snapshot(entries: entries, version: version)
    }

    @Test("Snapshots handed over while one is written are written once, the newest; an older one never after it")
    func coalesces() async throws {
        let storage = HeldStorage()
        let persister = WriteQueuePersister(storage: storage, log: { _ in })
        storage.hold(true)
        persister.submit(Self.snapshot(1, ["a"]))
        #expect(await storage.hasEntered())
        storage.hold(false)
        persister.submit(Self.snapshot(2, ["a", "b"]))
        persister.submit(Self.snapshot(4, ["a", "b", "c", "d"]))
        persister.submit(Self.snapshot(3, ["a", "b", "c"]))  // late: older than 4
        storage.proceed.signal()
        try await persister.save(Self.snapshot(2, ["a", "b"]))  // made durable by version 4's write
        await persister.flush()
        #expect(storage.saved == [["a"], ["a", "b", "c", "d"]])
        try await persister.save(Self.snapshot(1, ["a"]))  // written long ago: returns at once
        #expect(storage.saved.count == 2)
    }

    @Test("A save that fails throws to its waiter; the next one writes the newest again")
    func failure() async throws {
        let storage = HeldStorage()
        let log = StorePersistenceTests.Log()
        let persister = WriteQueuePersister(storage: storage, log: { log.write($0) })
        storage.fail(next: 1)
        await #expect(throws: CocoaError.self) { try await persister.save(Self.snapshot(1, ["a"])) }
        #expect(log.messages.count == 1 && log.messages.first?.contains("not saved") == true)
        // The same version again: written this time, though nothing newer was handed over.
        try await persister.save(Self.snapshot(1, ["a"]))
        #expect(storage.saved == [["a"]])
    }

    @Test("A failed write whose snapshot a newer one waits behind leaves its waiters to the newer write")
    func failureBeforeNewer() async throws {
        let storage = HeldStorage()
        let persister = WriteQueuePersister(storage: storage, log: { _ in })
        storage.hold(true)
        storage.fail(next: 1)
        async let first: Void = persister.save(Self.snapshot(1, ["a"]))
        #expect(await storage.hasEntered())
        storage.hold(false)
        persister.submit(Self.snapshot(2, ["a", "b"]))
        storage.proceed.signal()
        try await first  // the first write failed, the second includes it
        #expect(storage.saved == [["a", "b"]])
    }

    @Test("A queued write returns once its entry is saved; the file work runs with the queue's lock free")
    func queuedOnceDurable() async throws {
        let storage = HeldStorage()
        let queue = WriteQueue(configuration: .init(), storage: storage, log: nil)
        storage.probe = { [weak queue] in
            // Runs inside the save: if the queue's lock were held, this would not return (the semaphore times out).
            let done = DispatchSemaphore(value: 0)
            let probed = queue
            Thread { _ = probed?.entries; done.signal() }.start()
            return done.wait(timeout: .now() + 10) == .success
        }
        let entry = Self.snapshot(1, ["a"]).entries[0]
        try await queue.enqueue(entry, layer: nil)
        #expect(storage.entries?.map(\.id) == ["a"])
        #expect(storage.probes == [true])
        #expect(queue.entries.map(\.id) == ["a"])
    }

    @Test("A queued write whose entry cannot be saved throws storeNotSaved, leaves the queue and is not sent")
    func notDurableThrows() async throws {
        let storage = HeldStorage()
        let server = FlakyMemos()
        let api = Session(
            baseURL: HeldWrites.baseURL, client: server.client, configuration: .init(writes: .offline))
        let queue = WriteQueue(configuration: .init(), storage: storage, log: nil)
        queue.attach(api)
        let entry = Self.snapshot(1, ["a"]).entries[0]
        storage.fail(next: 2)
        await #expect {
            try await queue.enqueue(entry, layer: nil)
        } throws: { error in
            (error as? JSONAPIClientError)?.code == .storeNotSaved
        }
        #expect(queue.entries.isEmpty)
        await queue.flush()
        server.go(online: true)
        await queue.replay()
        #expect(server.served.isEmpty)
    }

    @Test("Through a session: an offline write whose entry cannot be saved throws, and its optimistic change is undone")
    func sessionWriteNotDurable() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queue-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = FlakyMemos()
        let (api, memos) = try WriteQueueTests.session(server, persistence: .init(directory: directory))
        // The queue's file cannot be made: a directory stands where it goes.
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent(WriteQueueFile.name).appendingPathComponent("x"),
            withIntermediateDirectories: true)
        await #expect {
            _ = try await memos.update(WriteQueueTests.draft) { $0.title = "Lost?" }
        } throws: { error in
            guard let error = error as? JSONAPIClientError else { return false }
            return error.code == .storeNotSaved && error.rolledBack?.attributes?["title"] == "Lost?"
        }
        #expect(api.writeQueue.entries.isEmpty)
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "Draft")
    }
}
