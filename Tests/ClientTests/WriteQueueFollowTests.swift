import Foundation
import Testing

@testable import JSONAPIClient

/// Another process's queued writes reach a long-lived process (issue 43, item 8): the partition's database object
/// looks at the writer's `PRAGMA data_version` every second, and the write queue reads the rows it does not know.
/// Another process is a connection outside the process's one database object here (its `DatabasePool`): in one
/// process every store and queue of a file share that object.
@Suite("Write queue follows another process")
struct WriteQueueFollowTests {
    /// The entries told to `follow`, in the order told.
    final class Arrivals: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [WriteQueue.Arrival] = []
        func append(_ arrivals: [WriteQueue.Arrival]) { lock.withLock { all += arrivals } }
        var told: [WriteQueue.Arrival] { lock.withLock { all } }
    }

    /// Inserts `entry` into the file of `directory` as another process does: through a connection of its own.
    static func insertElsewhere(_ entry: WriteQueue.Entry, seq: Int64? = nil, in directory: URL) throws {
        let database = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path, creating: false)
        defer { database.close() }
        let json = try JSONEncoder().encode(WriteQueue.StoredEntry(entry))
        if let seq {
            try database.execute(
                "INSERT INTO write_queue (seq, id, entry) VALUES (?, ?, ?)", [.integer(seq), .text(entry.id), .blob(json)])
        } else {
            try database.execute("INSERT INTO write_queue (id, entry) VALUES (?, ?)", [.text(entry.id), .blob(json)])
        }
    }

    @Test("Rows another process added are told once, each before the first held entry added after it; this object's own commits and a look with nothing new tell nothing")
    func arrivalsInOrder() throws {
        let directory = WriteQueueDatabaseTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = WriteQueueDatabase(directory: directory, log: { _ in })
        #expect(storage.load() == nil)
        try storage.save(["a", "b", "c"].map { .insert(WriteQueueDatabaseTests.entry($0)) })
        try storage.save([.delete(id: "b")])  // seq 2 is free: another process's row can take it
        let arrivals = Arrivals()
        storage.follow { arrivals.append($0) }
        storage.pollNow()
        #expect(arrivals.told.isEmpty)
        try Self.insertElsewhere(WriteQueueDatabaseTests.entry("x"), seq: 2, in: directory)
        try Self.insertElsewhere(WriteQueueDatabaseTests.entry("y"), in: directory)
        storage.pollNow()
        #expect(arrivals.told.map(\.entry.id) == ["x", "y"])
        #expect(arrivals.told.map(\.before) == ["c", nil])
        #expect(arrivals.told.first?.entry == WriteQueueDatabaseTests.entry("x"))
        // Nothing new, and this object's own commit: nothing told.
        storage.pollNow()
        try storage.save([.insert(WriteQueueDatabaseTests.entry("d"))])
        storage.pollNow()
        #expect(arrivals.told.count == 2)
        // An arrival is this object's from then on: it claims and deletes it.
        #expect(try storage.claim(WriteQueueDatabaseTests.entry("x")) == .claimed)
        try storage.save([.delete(id: "x")])
        #expect(storage.load()?.map(\.id) == ["a", "c", "y", "d"])
    }

    @Test("A read of another process's rows that fails is made again at the next look, never taken for nothing new")
    func failedReadIsMadeAgain() throws {
        let directory = WriteQueueDatabaseTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let faults = SQLiteFaults.inject(
            .init(code: SQLiteFaults.ioError, at: 1, persistent: false, statement: "FROM write_queue"), under: directory)
        faults.pause()
        defer { faults.remove() }
        let storage = WriteQueueDatabase(directory: directory, log: { _ in })
        #expect(storage.load() == nil)
        let arrivals = Arrivals()
        storage.follow { arrivals.append($0) }
        try Self.insertElsewhere(WriteQueueDatabaseTests.entry("x"), in: directory)
        faults.fail()
        storage.pollNow()
        #expect(arrivals.told.isEmpty && faults.failures == 1)
        storage.pollNow()
        #expect(arrivals.told.map(\.entry.id) == ["x"])
    }

    #if DEBUG
    @Test("A user of the file that follows nothing (a store's writer no store follows) does not make the pool tell a commit again")
    func usersThatFollowNothing() throws {
        let directory = WriteQueueDatabaseTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let opened = try #require(StoreWriter.open(.init(directory: directory, log: { _ in })))
        let storage = WriteQueueDatabase(directory: directory, log: { _ in })
        #expect(storage.load() == nil)
        let arrivals = Arrivals()
        storage.follow { arrivals.append($0) }
        let pool = DatabasePool.pool(in: directory, partition: PartitionDatabase.defaultPartition, protection: .appDefault, log: { _ in })
        let told = pool.looksThatTold
        try Self.insertElsewhere(WriteQueueDatabaseTests.entry("x"), in: directory)
        storage.pollNow()
        storage.pollNow()
        #expect(pool.looksThatTold == told + 1)
        #expect(arrivals.told.map(\.entry.id) == ["x"])
        _ = opened
    }
    #endif

    @Test("Before its first read a queue tells nothing: every row is new to it then, and the read places them")
    func nothingBeforeTheRead() throws {
        let directory = WriteQueueDatabaseTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try WriteQueueDatabase(directory: directory, log: { _ in }).save([.insert(WriteQueueDatabaseTests.entry("a"))])
        let storage = WriteQueueDatabase(directory: directory, log: { _ in })
        let arrivals = Arrivals()
        storage.follow { arrivals.append($0) }
        try Self.insertElsewhere(WriteQueueDatabaseTests.entry("x"), in: directory)
        storage.pollNow()
        #expect(arrivals.told.isEmpty)
        #expect(storage.load()?.map(\.id) == ["a", "x"])
    }

    @Test("The machine puts arrivals before the entry each names, else at the end, and keeps one it holds where it is")
    func machinePlacesArrivals() {
        var machine = WriteQueue.StateMachine()
        func entry(_ id: String) -> WriteQueue.Entry { WriteQueueDatabaseTests.entry(id) }
        machine.loaded([entry("a"), entry("c")], layers: [:])
        machine.arrived(
            [.init(entry: entry("x"), before: "c"), .init(entry: entry("y"), before: "c"), .init(entry: entry("a"), before: nil),
             .init(entry: entry("z"), before: "gone"), .init(entry: entry("w"), before: nil)],
            layers: [:])
        #expect(machine.entries.map(\.id) == ["a", "x", "y", "c", "z", "w"])
    }

    @Test("A long-lived session sends what another process queued within seconds, exactly once, without a relaunch")
    func sessionSendsArrivals() async throws {
        let directory = WriteQueueDatabaseTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = StorePersistenceTests.Log()
        let server = FlakyMemos()
        server.go(online: true)
        let (api, _) = try WriteQueueTests.session(server, persistence: WriteQueuePersistenceTests.persistence(directory, log))
        #expect(api.writeQueue.entries.isEmpty)
        // Another process (an extension, through its own connection) queues a write offline.
        try Self.insertElsewhere(WriteQueueDatabaseTests.entry("e1"), in: directory)
        // The session's queue finds it at the pool's next look (every second) and sends it; a bound on a hang,
        // not a timing: it returns as soon as the write reached the server.
        for _ in 0..<6_000 where server.served.isEmpty || !api.writeQueue.entries.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(server.served == [#"POST /memos"#])
        #expect(api.writeQueue.entries.isEmpty)
        await api.writeQueue.flush()
        #expect(WriteQueueDatabase(directory: directory, log: { _ in }).load() == nil)
        try await Task.sleep(for: .milliseconds(1_200))  // another look finds nothing more to send
        #expect(server.served.count == 1)
    }
}
