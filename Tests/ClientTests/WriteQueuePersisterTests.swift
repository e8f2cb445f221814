import Foundation
import JSONAPIClientTesting
import TestSupport
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

    /// Waits (ten minutes at most: a bound, not a speed; a minute was reached under ThreadSanitizer on two cores, where
    /// the task that starts the save waited that long for a thread) until a held save has started, on a thread of its
    /// own: never on one of the cooperative pool's or Dispatch's few, which the save it waits for may need.
    func hasEntered() async -> Bool {
        let entered = entered
        return (try? await offPool { entered.wait(timeout: .now() + 600) == .success }) ?? false
    }

    /// The ids of each save's entries, in order.
    var saved: [[String]] { lock.withLock { saves } }
    var entries: [WriteQueue.Entry]? { lock.withLock { kept } }
    func fail(next count: Int) { lock.withLock { failures = count } }
    func hold(_ on: Bool) { lock.withLock { holding = on } }

    func read() throws -> [WriteQueue.Entry] { lock.withLock { kept ?? [] } }

    func save(_ changes: [WriteQueue.Change]) throws {
        if let probe { let free = probe(); lock.withLock { probes.append(free) } }
        if lock.withLock({ holding }) {
            entered.signal()
            _ = proceed.wait(timeout: .now() + 600)
        }
        try lock.withLock {
            if failures > 0 {
                failures -= 1
                throw CocoaError(.fileWriteOutOfSpace)
            }
            var entries = kept ?? []
            for change in changes {
                switch change {
                case .insert(let entry): entries.append(entry)
                case .update(let entry):
                    if let index = entries.firstIndex(where: { $0.id == entry.id }) { entries[index] = entry }
                case .delete(let id): entries.removeAll { $0.id == id }
                }
            }
            kept = entries
            saves.append(entries.map(\.id))
        }
    }
}

@Suite("Write queue persister")
struct WriteQueuePersisterTests {
    static func entry(_ id: String) -> WriteQueue.Entry {
        WriteQueue.Entry(
            method: .post, url: URL(string: "https://api.example.com/memos")!, type: "memos", resourceID: id,
            body: nil, headerFields: [:], kind: .create, clientGeneratedID: false, id: id,
            created: Date(timeIntervalSince1970: 1_700_000_000))
    }

    /// The snapshot numbered `version` that appends the entries `ids`.
    static func snapshot(_ version: UInt64, inserting ids: [String]) -> WriteQueue.StateMachine.Snapshot {
        WriteQueue.StateMachine.Snapshot(changes: ids.map { .insert(entry($0)) }, version: version)
    }

    @Test("Snapshots handed over while one is written are written once, the newest; an older one never after it")
    func coalesces() async throws {
        let storage = HeldStorage()
        let persister = WriteQueuePersister(storage: storage, log: { _ in })
        storage.hold(true)
        persister.submit(Self.snapshot(1, inserting: ["a"]))
        #expect(await storage.hasEntered())
        storage.hold(false)
        persister.submit(Self.snapshot(2, inserting: ["b"]))
        persister.submit(Self.snapshot(4, inserting: ["d"]))
        persister.submit(Self.snapshot(3, inserting: ["c"]))  // late: handed over after 4, appended before it
        storage.proceed.signal()
        try await persister.save(Self.snapshot(2, inserting: ["b"]))  // made durable by the write up to 4
        await persister.flush()
        #expect(storage.saved == [["a"], ["a", "b", "c", "d"]])
        try await persister.save(Self.snapshot(1, inserting: ["a"]))  // written long ago: returns at once
        #expect(storage.saved.count == 2)
    }

    @Test("A snapshot handed over after a newer one was taken waits for the write that carries its own changes")
    func lateSnapshotWaitsForItsWrite() async throws {
        // Snapshots are deltas, made under the queue's lock and handed over after it: the newer one (3) may be
        // written first. The older one's waiter (2) must not be told its entry is durable by that write.
        let storage = HeldStorage()
        let persister = WriteQueuePersister(storage: storage, log: { _ in })
        storage.hold(true)
        persister.submit(Self.snapshot(3, inserting: ["c"]))
        #expect(await storage.hasEntered())  // the write of 3 is under way, held
        let waiting = Task { () throws -> [String] in
            try await persister.save(Self.snapshot(2, inserting: ["b"]))
            return storage.entries?.map(\.id) ?? []  // what is durable when the waiter is told
        }
        storage.proceed.signal()  // the write of 3 ends
        #expect(await storage.hasEntered())  // the write of 2's changes, held in turn
        storage.hold(false)
        storage.proceed.signal()
        #expect(try await waiting.value.contains("b"))
    }

    @Test("A save that fails throws to its waiter; the next one writes the newest again")
    func failure() async throws {
        let storage = HeldStorage()
        let log = StorePersistenceTests.Log()
        let persister = WriteQueuePersister(storage: storage, log: { log.write($0) })
        storage.fail(next: 1)
        await #expect(throws: CocoaError.self) { try await persister.save(Self.snapshot(1, inserting: ["a"])) }
        #expect(log.messages.count == 1 && log.messages.first?.contains("not saved") == true)
        // The same version again: written this time (its changes were kept), though nothing newer was handed over.
        try await persister.save(Self.snapshot(1, inserting: ["a"]))
        #expect(storage.saved == [["a"]])
    }

    @Test("A failed write whose snapshot a newer one waits behind leaves its waiters to the newer write")
    func failureBeforeNewer() async throws {
        let storage = HeldStorage()
        let persister = WriteQueuePersister(storage: storage, log: { _ in })
        storage.hold(true)
        storage.fail(next: 1)
        async let first: Void = persister.save(Self.snapshot(1, inserting: ["a"]))
        #expect(await storage.hasEntered())
        storage.hold(false)
        persister.submit(Self.snapshot(2, inserting: ["b"]))
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
        let entry = Self.entry("a")
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
        let entry = Self.entry("a")
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
        // The queue's database cannot be made: a directory stands where it goes.
        try FileManager.default.createDirectory(
            at: PartitionDatabase.file(in: directory).appendingPathComponent("x"), withIntermediateDirectories: true)
        let server = FlakyMemos()
        let log = StorePersistenceTests.Log()
        let (api, memos) = try WriteQueueTests.session(
            server, persistence: .init(directory: directory, log: { log.write($0) }))
        await #expect {
            _ = try await memos.update(WriteQueueTests.draft) { $0.title = "Lost?" }
        } throws: { error in
            guard let error = error as? JSONAPIClientError else { return false }
            return error.code == .storeNotSaved && error.rolledBack?.attributes?["title"] == "Lost?"
        }
        #expect(api.writeQueue.entries.isEmpty)
        #expect(try api.store?.resource(Memo.self, id: "1")?.title == "Draft")
        #expect(log.messages.contains { $0.contains("cannot open its database") })
    }

    @Test("Write queue outbox: the newest change of an entry wins; an insert then its delete is nothing")
    func outboxMerges() {
        var outbox = WriteQueueOutbox()
        var a = Self.entry("a")
        outbox.take(.insert(a), version: 1)
        a.attempts = 1
        outbox.take(.update(a), version: 2)
        #expect(outbox.pending["a"]?.change == .insert(a) && outbox.pending["a"]?.order == 1)
        outbox.take(.insert(Self.entry("b")), version: 3)
        outbox.take(.delete(id: "b"), version: 4)
        #expect(outbox.pending["b"] == nil)
        // An entry read at launch: updated, then deleted.
        outbox.take(.update(Self.entry("c")), version: 5)
        outbox.take(.delete(id: "c"), version: 6)
        #expect(outbox.pending["c"]?.change == .delete(id: "c"))
        let items = outbox.takeAll()
        #expect(items.map(\.change) == [.delete(id: "c"), .insert(a)])
        #expect(outbox.isEmpty)
    }

    @Test("Write queue outbox: a change handed over late is dropped — a stale update, an insert after its delete")
    func outboxLate() {
        var outbox = WriteQueueOutbox()
        var a = Self.entry("a")
        outbox.take(.insert(a), version: 1)
        _ = outbox.takeAll()
        a.attempts = 2
        outbox.take(.update(a), version: 5)
        var stale = a
        stale.attempts = 1
        outbox.take(.update(stale), version: 4)
        outbox.take(.update(a), version: 5)  // the same snapshot twice
        #expect(outbox.takeAll().map(\.change) == [.update(a)])
        // A discard handed over before the insert it removes: the insert, late, is dropped, and so is its tombstone.
        outbox.take(.delete(id: "b"), version: 7)
        outbox.take(.insert(Self.entry("b")), version: 6)
        #expect(outbox.takeAll().map(\.change) == [.delete(id: "b")])
        #expect(outbox.remembered == 1)  // "a" alone: b's tombstone went with its insert
        outbox.take(.delete(id: "a"), version: 8)
        #expect(outbox.remembered == 0)  // inserted here: nothing older can come
    }

    @Test("Write queue outbox: changes whose write failed go back under newer ones")
    func outboxRestore() {
        var outbox = WriteQueueOutbox()
        var a = Self.entry("a")
        outbox.take(.insert(a), version: 1)
        outbox.take(.insert(Self.entry("b")), version: 2)
        outbox.take(.insert(Self.entry("c")), version: 3)
        let failed = outbox.takeAll()
        a.attempts = 1
        outbox.take(.update(a), version: 4)
        outbox.take(.delete(id: "b"), version: 5)
        outbox.restore(failed)
        // a: inserted as updated; b: never written, and deleted since; c: as it was.
        #expect(outbox.takeAll().map(\.change) == [.insert(a), .insert(Self.entry("c"))])
    }
}
