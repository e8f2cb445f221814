import Foundation
import Testing

@testable import JSONAPIClient

/// Damage met after opening (issue 43, item 14): a page in the middle of the file that does not read makes SQLite
/// answer `SQLITE_CORRUPT` on the reads and writes that touch it, long after the file opened. The file is set
/// aside whole, logged, as at open; the store goes on empty and saves into a new file, which the next launch reads.
@Suite("Store damage after opening")
struct StoreDamageTests {
    struct Article: Resource, Equatable {
        static let resourceType = "articles"
        var id: String
        var title: String
        var body: String
    }

    static func persistence(_ directory: URL, log: StorePersistenceTests.Log = .init()) -> ResourceStore.Persistence {
        ResourceStore.Persistence(directory: directory, delay: .seconds(3600), log: { log.write($0) })
    }

    static func article(_ id: Int, title: String? = nil) -> ResourceObject {
        ResourceObject(
            type: "articles", id: String(format: "%05d", id),
            attributes: ["title": .string(title ?? "t\(id)"), "body": .string(String(repeating: "b", count: 200))])
    }

    /// A directory holding 2,000 articles (about 150 pages), checkpointed into the main file, no `-wal` left.
    static func seeded() async throws -> URL {
        let directory = StoreFaultInjectionTests.directory()
        do {
            let store = ResourceStore(configuration: .init(persistence: persistence(directory)))
            store.merge((1...2000).map { article($0) })
            try await store.flush()
        }
        let database = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path)
        _ = try database.rows("PRAGMA wal_checkpoint(TRUNCATE)")
        database.close()
        return directory
    }

    /// Writes garbage over the page in the middle of the main file (its b-tree page header among it).
    static func damageMiddlePage(_ directory: URL) throws {
        let path = PartitionDatabase.file(in: directory).path
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        let pages = size / 4096
        #expect(pages > 20, "\(pages) pages")
        try handle.seek(toOffset: (pages / 2) * 4096)
        try handle.write(contentsOf: Data(repeating: 0x5a, count: 4096))
        try handle.synchronize()
    }

    static func setAside(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: PartitionDatabase.folder(in: directory).path)
            .filter { $0.hasPrefix("default.sqlite.set-aside-") && !$0.hasSuffix("-wal") }
    }

    /// Waits (a bounded while) for the writer's queue to have set the file aside.
    static func drained(_ store: ResourceStore) async {
        await store.writer?.drained()
    }

    @Test("A read that meets a damaged page sets the file aside whole, logged; the store goes on empty, saves into a new file, and the next launch reads what was saved after")
    func damageMetByRead() async throws {
        let directory = try await Self.seeded()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = StorePersistenceTests.Log()
        let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory, log: log)))
        try Self.damageMiddlePage(directory)
        // Listing the type reads every row: it meets the page, and says the read failed.
        #expect { try store.resources(Article.self) } throws: { ($0 as? JSONAPIClientError)?.code == .storeNotRead }
        await Self.drained(store)
        #expect(try Self.setAside(in: directory).count == 1)
        #expect(log.messages.contains { $0.contains("set aside as") && $0.contains("the store starts empty") }, "\(log.messages)")
        #expect(store.count == 0)
        // The store goes on: what it saves now is in the new file.
        store.merge([Self.article(7, title: "after")])
        try await store.flush()
        let next = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
        #expect(try next.resources(Article.self).map(\.title) == ["after"])
        #expect(next.record(type: "articles", id: "00001") == nil)
    }

    @Test("One database object a file: the store and the write queue share its writer and reader connections; a set-aside the store makes at runtime keeps the queue's entries, written into the new file in their order")
    func setAsideKeepsTheQueue() async throws {
        let directory = try await Self.seeded()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = PartitionDatabase.file(in: directory).path
        let log = StorePersistenceTests.Log()
        let queue = WriteQueueDatabase(directory: directory, log: { log.write($0) })
        #expect(queue.load() == nil)
        try queue.save([.insert(WriteQueueDatabaseTests.entry("a")), .insert(WriteQueueDatabaseTests.entry("b"))])
        let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory, log: log)))
        #expect(store.writer != nil)
        // Two connections: the writer both write through, and the reader (was four: each its own pair).
        #expect(SQLiteDatabase.connections(to: path) == 2)
        try Self.damageMiddlePage(directory)
        #expect { try store.resources(Article.self) } throws: { ($0 as? JSONAPIClientError)?.code == .storeNotRead }
        await Self.drained(store)
        #expect(try Self.setAside(in: directory).count == 1)
        // The new file holds the queue's entries, in their order, and the queue goes on with them.
        func ids() throws -> [String] {
            let database = try SQLiteDatabase(path: path, creating: false)
            defer { database.close() }
            return try database.rows("SELECT id FROM write_queue ORDER BY seq").compactMap { $0.first?.text }
        }
        #expect(try ids() == ["a", "b"])
        #expect(try queue.claim(WriteQueueDatabaseTests.entry("a")) == .claimed)
        try queue.save([.delete(id: "a")])
        #expect(try ids() == ["b"])
        #expect(WriteQueueDatabase(directory: directory, log: { _ in }).load()?.map(\.id) == ["b"])
    }

    @Test("Emptied after a set-aside: a store of no account forgets its records' owner, an account's keeps it; either reads the new file's rows as asked", arguments: [nil, "alice"] as [String?])
    func startEmptyKeepsTheAccount(account: String?) throws {
        let directory = StoreFaultInjectionTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = ResourceStore(
            configuration: .init(persistence: Self.persistence(directory)), decoder: JSONAPIDecoder(),
            account: account, ofSession: false)
        let writer = try #require(store.writer)
        if account == nil { store.admit(CredentialDigest(account: "someone", key: store.digestKey)) }
        let owner = store.state.withLock { $0.owner }
        #expect(owner != nil)
        store.merge([Self.article(1)])
        store.startEmpty(after: writer)
        #expect(store.state.withLock { $0.owner } == (account == nil ? nil : owner))
        #expect(store.state.withLock { $0.records.readsDisk })
        #expect(store.count == 0)
    }

    @Test("A save that meets a damaged page sets the file aside and throws storeNotSaved (nothing of it is on disk); the next save goes into the new file, read at the next launch")
    func damageMetBySave() async throws {
        let directory = try await Self.seeded()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = StorePersistenceTests.Log()
        let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory, log: log)))
        try Self.damageMiddlePage(directory)
        // A merge of every id reads their rows first; the store cannot tell the damage from a read of another
        // process's rows until a page fails: whichever meets it first sets the file aside.
        store.merge((1...2000).map { Self.article($0, title: "new") })
        do {
            try await store.flush()
            // Saved: only when the read met the damage first and the store was emptied before the save.
            #expect(store.count == 0 || store.count == 2000)
        } catch {
            #expect(error.code == .storeNotSaved, "\(error)")
        }
        await Self.drained(store)
        #expect(try Self.setAside(in: directory).count == 1, "\(log.messages)")
        store.merge([Self.article(9, title: "after")])
        try await store.flush()
        let next = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
        let titles = try next.resources(Article.self).map(\.title)
        #expect(titles.contains("after"))
        #expect(!titles.contains("t1"))
    }

    @Test("A damaged page opening meets (the stored responses' table) sets the file aside as at open, not the store in memory")
    func damageMetAtOpen() async throws {
        let directory = StoreFaultInjectionTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
            store.merge([Self.article(1)])
            try await store.flush()
        }
        let path = PartitionDatabase.file(in: directory).path
        let database = try SQLiteDatabase(path: path)
        _ = try database.rows("PRAGMA wal_checkpoint(TRUNCATE)")
        let page = try #require(database.rows("SELECT rootpage FROM sqlite_master WHERE name = 'responses'").first?.first?.integer)
        database.close()
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64(page - 1) * 4096)
        try handle.write(contentsOf: Data(repeating: 0x5a, count: 4096))
        try handle.close()
        let log = StorePersistenceTests.Log()
        let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory, log: log)))
        #expect(store.writer != nil, "\(log.messages)")
        #expect(try Self.setAside(in: directory).count == 1, "\(log.messages)")
        store.merge([Self.article(2)])
        try await store.flush()
        let next = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
        #expect(next.record(type: "articles", id: "00002") != nil)
    }
}
