import Foundation
import Testing

@testable import JSONAPIClient

/// The write queue's rows in the partition's database: where the file is, what a save writes, claims between
/// processes (here two storages, each with a claim token of its own), the import of an earlier version's file, and
/// files that are damaged or not the library's.
@Suite("Write queue database")
struct WriteQueueDatabaseTests {
    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("queue-db-\(UUID().uuidString)")
    }

    static func entry(_ id: String, attempts: Int = 0) -> WriteQueue.Entry {
        WriteQueue.Entry(
            method: .post, url: URL(string: "https://api.example.com/memos")!, type: "memos", resourceID: id,
            body: Data(#"{"data":{"type":"memos"}}"#.utf8), headerFields: ["X-Trace": "1"], kind: .create,
            clientGeneratedID: false, id: id, attempts: attempts, created: Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test("The database is JSONAPIClient/default.sqlite in the app's directory; nothing else is added there")
    func layout() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = WriteQueueDatabase(directory: directory, log: { _ in })
        #expect(storage.load() == nil)
        try storage.save([.insert(Self.entry("a"))])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["JSONAPIClient"])
        let folder = directory.appendingPathComponent("JSONAPIClient")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains("default.sqlite"))
        #expect(PartitionDatabase.file(in: directory).path == folder.appendingPathComponent("default.sqlite").path)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
    }

    @Test("Inserts, updates and deletes read back in the queue's order, with every field of an entry")
    func changes() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = WriteQueueDatabase(directory: directory, log: { _ in })
        var a = Self.entry("a")
        a.owner = CredentialDigest(high: 1, low: 2)
        a.sent = true
        a.isFailing = true
        try storage.save([.insert(a), .insert(Self.entry("b")), .insert(Self.entry("c"))])
        let changed = Self.entry("c", attempts: 4)
        try storage.save([.delete(id: "b"), .update(changed)])
        try storage.save([.insert(Self.entry("d"))])
        let reopened = WriteQueueDatabase(directory: directory, log: { _ in })
        #expect(reopened.load() == [a, changed, Self.entry("d")])
        // An update or delete of an entry it never knew changes nothing.
        try reopened.save([.update(Self.entry("x")), .delete(id: "y")])
        #expect(WriteQueueDatabase(directory: directory, log: { _ in }).load()?.map(\.id) == ["a", "c", "d"])
    }

    @Test("Every checkpointInterval commits a checkpoint copies the WAL into the database file, in the background; none while suspended")
    func backgroundCheckpoint() throws {
        for suspended in [false, true] {
            let directory = Self.directory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let storage = WriteQueueDatabase(directory: directory, log: { _ in })
            try storage.save([.insert(Self.entry("first"))])
            let file = PartitionDatabase.file(in: directory).path
            func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.intValue ?? 0 }
            let before = size()
            // Commits 2 to 99: the 100th starts the checkpoint (in the suspended run, by hand: no write may run then;
            // a 100th commit before the suspension started one that, under load, ran before it).
            for n in 2..<WriteQueueDatabase.checkpointInterval {
                try storage.save([.insert(Self.entry("\(n)"))])
            }
            if suspended { Suspension.shared.suspend(under: directory) }
            defer { if suspended { Suspension.shared.resume(under: directory) } }
            if suspended {
                storage.checkpointNow()
            } else {
                try storage.save([.insert(Self.entry("last"))])
            }
            storage.checkpointsRun()  // the connection stays open: its close would checkpoint too
            if suspended { #expect(size() == before, "a checkpoint ran while suspended") } else { #expect(size() > before) }
        }
    }

    @Test("A save writes only its rows: the database grows by about a page per append, however long the queue")
    func appendCost() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = WriteQueueDatabase(directory: directory, log: { _ in })
        for n in 0..<300 { try storage.save([.insert(Self.entry("e\(n)"))]) }
        let wal = PartitionDatabase.file(in: directory).path + "-wal"
        func walSize() -> Int { (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0 }
        // The WAL restarts after a checkpoint; measured over appends that do not cross one (1000 pages).
        let before = walSize()
        for n in 300..<310 { try storage.save([.insert(Self.entry("e\(n)"))]) }
        let grown = walSize() - before
        #expect(grown >= 0 && grown <= 10 * 2 * (4096 + 24), "\(grown) bytes for 10 appends")
    }

    @Test("An update never brings back a row another process deleted")
    func noResurrection() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = WriteQueueDatabase(directory: directory, log: { _ in })
        try first.save([.insert(Self.entry("a")), .insert(Self.entry("b"))])
        let second = WriteQueueDatabase(directory: directory, log: { _ in })
        #expect(second.load()?.map(\.id) == ["a", "b"])
        try second.save([.delete(id: "a")])
        try first.save([.update(Self.entry("a", attempts: 1))])
        try first.save([.insert(Self.entry("c"))])  // may take a's rowid: "a" is still gone
        try first.save([.update(Self.entry("a", attempts: 2))])
        #expect(WriteQueueDatabase(directory: directory, log: { _ in }).load()?.map(\.id) == ["b", "c"])
    }

    @Test("Claims: one holder at a time; released by its update or delete; taken over when its lease ran out")
    func claims() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        let first = WriteQueueDatabase(directory: directory, log: { _ in }, now: { clock.now })
        try first.save([.insert(Self.entry("a")), .insert(Self.entry("b"))])
        let second = WriteQueueDatabase(directory: directory, log: { _ in }, now: { clock.now })
        _ = second.load()
        #expect(try first.claim(Self.entry("a")) == .claimed)
        #expect(try first.claim(Self.entry("a")) == .claimed)  // its own claim, again
        #expect(try second.claim(Self.entry("a")) == .held)
        // While held, another's update and delete change nothing.
        let third = WriteQueueDatabase(directory: directory, log: { _ in }, now: { clock.now })
        _ = third.load()
        try third.save([.update(Self.entry("a", attempts: 9)), .delete(id: "a")])
        #expect(WriteQueueDatabase(directory: directory, log: { _ in }).load()?.first?.attempts == 0)
        // Released by the holder's update (an attempt that failed): the other may claim it.
        try first.save([.update(Self.entry("a", attempts: 1))])
        #expect(try second.claim(Self.entry("a")) == .claimed)
        #expect(try first.claim(Self.entry("a")) == .held)
        // The holder delivered it: gone for the other.
        try second.save([.delete(id: "a")])
        #expect(try first.claim(Self.entry("a")) == .gone)
        // A lease that ran out is taken over, though its process (this one) is alive.
        #expect(try first.claim(Self.entry("b")) == .claimed)
        clock.advance(by: 121)
        #expect(try second.claim(Self.entry("b")) == .claimed)
    }

    @Test("The claim of a process that is gone is taken over at once")
    func deadProcess() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = WriteQueueDatabase(directory: directory, log: { _ in })
        try storage.save([.insert(Self.entry("a"))])
        // Another process's claim, made by hand: a pid that is no process (beyond the kernel's pid_max).
        let database = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path)
        let until = WriteQueueDatabase.milliseconds(Date()) + 60_000
        for pid in [Int64(Int32.max), -5, Int64.max] {
            try database.execute(
                "UPDATE write_queue SET claim_token = 'other', claim_pid = ?, claim_until = ?", [.integer(pid), .integer(until)])
            #expect(try storage.claim(Self.entry("a")) == .claimed, "pid \(pid)")
        }
        // A live one (this process's own pid, another token) holds.
        try database.execute(
            "UPDATE write_queue SET claim_token = 'other', claim_pid = ?, claim_until = ?",
            [.integer(Int64(ProcessInfo.processInfo.processIdentifier)), .integer(until)])
        #expect(try storage.claim(Self.entry("a")) == .held)
    }

    /// Writes `bytes` where the database goes, then loads: the queue must start empty with one logged line.
    static func loadsAfterSettingAside(_ make: (URL) throws -> Void, reason: String) throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = PartitionDatabase.folder(in: directory)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try make(PartitionDatabase.file(in: directory))
        let log = StorePersistenceTests.Log()
        let storage = WriteQueueDatabase(directory: directory, log: { log.write($0) })
        #expect(storage.load() == nil)
        #expect(log.messages.count == 1 && log.messages.first?.contains("set aside") == true, "\(log.messages)")
        #expect(log.messages.first?.contains(reason) == true, "\(log.messages)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.contains { $0.hasPrefix("default.sqlite.set-aside-") }, "\(names)")
        // A new database works.
        try storage.save([.insert(Self.entry("a"))])
        #expect(WriteQueueDatabase(directory: directory, log: { _ in }).load()?.map(\.id) == ["a"])
    }

    @Test("A file that is not a database is set aside whole, logged, and the queue starts empty")
    func notADatabase() throws {
        try Self.loadsAfterSettingAside({ try Data(repeating: 0x5a, count: 10_000).write(to: $0) }, reason: "not a database")
    }

    @Test("Another program's database is set aside, not changed")
    func foreign() throws {
        try Self.loadsAfterSettingAside(
            { url in
                let database = try SQLiteDatabase(path: url.path)
                try database.execute("CREATE TABLE notes(text)")
            }, reason: "another program's database")
        try Self.loadsAfterSettingAside(
            { url in try SQLiteDatabase(path: url.path).setApplicationID(7) }, reason: "application id 7")
    }

    @Test("A database of a newer schema is set aside")
    func newer() throws {
        try Self.loadsAfterSettingAside(
            { url in
                let database = try SQLiteDatabase(path: url.path)
                try database.setApplicationID(PartitionDatabase.applicationID)
                try database.setUserVersion(PartitionDatabase.schemaVersion + 1)
            }, reason: "newer version")
    }

    @Test("A row that is not an entry is set aside inside the file, logged; the other entries are read, and the file stays")
    func foreignRow() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = PartitionDatabase.file(in: directory).path
        try WriteQueueDatabase(directory: directory, log: { _ in }).save(
            [.insert(Self.entry("a")), .insert(Self.entry("b")), .insert(Self.entry("c"))])
        try SQLiteDatabase(path: path).execute("UPDATE write_queue SET entry = x'00ff' WHERE id = 'b'")
        let log = StorePersistenceTests.Log()
        let storage = WriteQueueDatabase(directory: directory, log: { log.write($0) })
        #expect(storage.load()?.map(\.id) == ["a", "c"])
        #expect(log.messages.count == 1 && log.messages.first?.contains("1 rows") == true, "\(log.messages)")
        let names = try FileManager.default.contentsOfDirectory(atPath: PartitionDatabase.folder(in: directory).path)
        #expect(!names.contains { $0.contains("set-aside") }, "\(names)")
        let aside = try SQLiteDatabase(path: path).rows("SELECT id, entry FROM write_queue_set_aside")
        #expect(aside == [[.text("b"), .blob(Data([0x00, 0xff]))]])
        // Read again: nothing left to set aside, and the queue goes on.
        try storage.save([.insert(Self.entry("d"))])
        #expect(WriteQueueDatabase(directory: directory, log: { log.write($0) }).load()?.map(\.id) == ["a", "c", "d"])
        #expect(log.messages.count == 1, "\(log.messages)")
    }

    @Test("An unreadable row of an account's database is set aside in that file, whose store keeps its connection and its saves; the default partition's is not touched")
    func foreignRowBesideTheStore() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let account = PartitionDatabase.partition(forAccount: "ada")
        try WriteQueueDatabase(directory: directory, log: { _ in }).save([.insert(Self.entry("kept"))])
        try WriteQueueDatabase(directory: directory, partition: account, log: { _ in }).save(
            [.insert(Self.entry("a")), .insert(Self.entry("b"))])
        let path = PartitionDatabase.file(in: directory, partition: account).path
        try SQLiteDatabase(path: path).execute("UPDATE write_queue SET entry = x'00ff' WHERE id = 'a'")
        // The store opens the file first (as a session does), then the queue reads it.
        let persistence = ResourceStore.Persistence(directory: directory, log: { _ in })
        let writer = try #require(StoreWriter.open(persistence, partition: account)?.writer)
        #expect(WriteQueueDatabase(directory: directory, partition: account, log: { _ in }).load()?.map(\.id) == ["b"])
        // The store's connection still writes into the file at `path`: a new connection reads its row.
        writer.setMeta("probe", .text("after"))
        await writer.close()
        let probe = try SQLiteDatabase(path: path).rows("SELECT value FROM meta WHERE key = 'probe'")
        #expect(probe == [[.text("after")]])
        let names = try FileManager.default.contentsOfDirectory(atPath: PartitionDatabase.folder(in: directory).path)
        #expect(!names.contains { $0.contains("set-aside") }, "\(names)")
        #expect(WriteQueueDatabase(directory: directory, log: { _ in }).load()?.map(\.id) == ["kept"])
    }

    @Test("A damaged file is not set aside while another connection of this process has it open (nor its -shm removed): opening fails instead; two set-asides in one second keep both files")
    func damagedFileOpenElsewhere() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let account = PartitionDatabase.partition(forAccount: "ada")
        let folder = PartitionDatabase.folder(in: directory)
        let path = PartitionDatabase.file(in: directory, partition: account).path
        let held = try PartitionDatabase.open(in: directory, partition: account, log: { _ in })
        try held.execute("INSERT INTO meta (key, value) VALUES ('probe', 1)")
        // The next connection's first statement answers "not a database" (the fault seam: damage seen by one
        // connection only).
        let faults = SQLiteFaults.inject(
            .init(code: SQLiteError.notADatabase, at: 1, persistent: false, calls: [.step]), under: directory)
        defer { faults.remove() }
        let log = StorePersistenceTests.Log()
        #expect(throws: SQLiteError.self) {
            try PartitionDatabase.open(in: directory, partition: account, log: { log.write($0) })
        }
        #expect(log.messages.count == 1 && log.messages.first?.contains("not set aside") == true, "\(log.messages)")
        #expect(FileManager.default.fileExists(atPath: path + "-shm"))
        #expect(try held.rows("SELECT value FROM meta WHERE key = 'probe'") == [[.integer(1)]])
        held.close()
        faults.remove()
        // With no connection open, damage sets the file aside, each time under a name of its own.
        for round in 1...2 {
            try Data(repeating: 0x5a, count: 10_000).write(to: URL(fileURLWithPath: path))
            _ = try PartitionDatabase.open(in: directory, partition: account, log: { _ in })
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            let aside = names.filter { $0.hasPrefix(account + ".sqlite.set-aside-") && !$0.hasSuffix("-wal") }
            #expect(aside.count == round, "\(names)")
        }
    }

    @Test("A set-aside name is the time and a random part, and never one a file has")
    func asideNamesAreUnique() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("x.sqlite").path
        var names = Set<String>()
        for _ in 0..<50 {
            let name = try #require(PartitionDatabase.asideName(for: path))
            #expect(name.hasPrefix(path + ".set-aside-") && !FileManager.default.fileExists(atPath: name))
            #expect(names.insert(name).inserted)
            try Data().write(to: URL(fileURLWithPath: name))
        }
    }

    @Test("Two connections making a new file at once (an app's queue and store at launch): neither sets it aside")
    func concurrentFirstOpen() async throws {
        for _ in 0..<40 {
            let directory = Self.directory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let log = StorePersistenceTests.Log()
            let opened = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        await withCheckedContinuation { continuation in
                            Thread {
                                do {
                                    _ = try PartitionDatabase.open(in: directory, log: { log.write($0) })
                                    continuation.resume(returning: true)
                                } catch {
                                    log.write("not opened: \(error)")
                                    continuation.resume(returning: false)
                                }
                            }.start()
                        }
                    }
                }
                return await group.reduce(true) { $0 && $1 }
            }
            #expect(opened)
            #expect(log.messages.isEmpty, "\(log.messages)")
            if !log.messages.isEmpty { break }
        }
    }
}

/// A clock the test moves.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var time = Date(timeIntervalSince1970: 1_800_000_000)
    var now: Date { lock.withLock { time } }
    func advance(by seconds: TimeInterval) { lock.withLock { time += seconds } }
}
