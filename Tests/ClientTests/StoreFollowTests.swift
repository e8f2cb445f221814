import Foundation
import Testing
import TestSupport

@testable import JSONAPIClient

/// A store follows another process's saves (issue 43, item 8): about a second after an app extension commits, a
/// record the store holds takes the row saved, and its observers — live objects — are told. Another process is a
/// connection outside the process's one database object (`DatabasePool`) here.
@Suite("Store follows another process")
struct StoreFollowTests {
    struct Article: Resource, Equatable {
        static let resourceType = "articles"
        var id: String
        var title: String
    }

    static func persistence(_ directory: URL) -> ResourceStore.Persistence {
        ResourceStore.Persistence(directory: directory, delay: .seconds(3600), log: { _ in })
    }

    static func article(_ id: String, _ title: String) -> ResourceObject {
        ResourceObject(type: "articles", id: id, attributes: ["title": .string(title)])
    }

    /// Saves `title` for article `id` as another process does: through a connection of its own.
    static func saveElsewhere(_ id: String, _ title: String, in directory: URL) throws {
        let database = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path, creating: false)
        defer { database.close() }
        let object = #"{"type":"articles","id":"\#(id)","attributes":{"title":"\#(title)"}}"#
        try database.execute(
            "INSERT OR REPLACE INTO records (type, id, object) VALUES ('articles', ?, ?)", [.text(id), .blob(Data(object.utf8))])
    }

    static func rowid(_ id: String, in directory: URL) throws -> Int64? {
        let database = try SQLiteDatabase(path: PartitionDatabase.file(in: directory).path, creating: false)
        defer { database.close() }
        return try database.rows("SELECT rowid FROM records WHERE type = 'articles' AND id = ?", [.text(id)]).first?.first?.integer
    }

    @Test("A held record takes another process's save and its observers are told; one with a change of its own waiting keeps it; one not held is read when asked; nothing is saved back")
    func follows() async throws {
        let directory = StoreFaultInjectionTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
        store.merge([Self.article("1", "old"), Self.article("2", "old")])
        try await store.flush()
        store.merge([Self.article("2", "mine")])  // not saved yet
        let writer = try #require(store.writer)
        writer.pollNow()  // nothing new
        try Self.saveElsewhere("1", "theirs", in: directory)
        try Self.saveElsewhere("2", "theirs", in: directory)
        try Self.saveElsewhere("3", "theirs", in: directory)
        let changes = store.changes(of: Article.self)
        writer.pollNow()
        #expect(try store.resource(Article.self, id: "1")?.title == "theirs")
        #expect(try store.resource(Article.self, id: "2")?.title == "mine")
        #expect(try store.resource(Article.self, id: "3")?.title == "theirs")
        let change = await bounded {
            var iterator = changes.makeAsyncIterator()
            return await iterator.next()
        } ?? nil
        #expect(change?.id == "1" && change?.kind == .updated)
        // The row taken is not written back: its rowid stays; the change of its own is saved.
        let before = try Self.rowid("1", in: directory)
        try await store.flush()
        #expect(try Self.rowid("1", in: directory) == before)
        let next = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
        #expect(try next.resource(Article.self, id: "2")?.title == "mine")
    }

    @Test("A read of another process's saves that fails is made again at the next look")
    func failedReadIsMadeAgain() async throws {
        let directory = StoreFaultInjectionTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let faults = SQLiteFaults.inject(
            .init(code: SQLiteFaults.ioError, at: 1, persistent: false, statement: "FROM records WHERE rowid >"),
            under: directory)
        faults.pause()
        defer { faults.remove() }
        let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
        store.merge([Self.article("1", "old")])
        try await store.flush()
        let writer = try #require(store.writer)
        writer.pollNow()
        try Self.saveElsewhere("1", "theirs", in: directory)
        faults.fail()
        writer.pollNow()
        #expect(faults.failures == 1)
        #expect(store.record(type: "articles", id: "1")?.attributes?["title"] == .string("old"))
        writer.pollNow()
        #expect(store.record(type: "articles", id: "1")?.attributes?["title"] == .string("theirs"))
    }

    #if DEBUG
    @Test("A look reads only the rows saved since the last one, not this store's own; a commit is told once, and a look with nothing new tells nobody")
    func readsOnlyWhatIsNew() async throws {
        let directory = StoreFaultInjectionTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
        let writer = try #require(store.writer)
        writer.pollNow()
        store.merge((1...100).map { Self.article(String($0), "mine") })
        try await store.flush()
        try Self.saveElsewhere("7", "theirs", in: directory)
        let pool = DatabasePool.pool(in: directory, partition: PartitionDatabase.defaultPartition, protection: .appDefault, log: { _ in })
        let told = pool.looksThatTold
        writer.pollNow()
        writer.pollNow()
        #expect(pool.looksThatTold == told + 1)
        #expect(writer.rowsReadForOtherProcesses == 1)
        #expect(store.record(type: "articles", id: "7")?.attributes?["title"] == .string("theirs"))
        // This store's own save since: the next look after another commit reads that commit's row alone.
        store.merge([Self.article("8", "mine again")])
        try await store.flush()
        try Self.saveElsewhere("9", "theirs", in: directory)
        writer.pollNow()
        #expect(writer.rowsReadForOtherProcesses == 2)  // 9 alone: 8 was this store's, saved with nothing else between
    }
    #endif

    @Test("Without a poll from the test: the store's observers hear of another process's save within seconds")
    func followsOnItsOwn() async throws {
        let directory = StoreFaultInjectionTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = ResourceStore(configuration: .init(persistence: Self.persistence(directory)))
        store.merge([Self.article("1", "old")])
        try await store.flush()
        let changes = store.changes(of: Article.self)
        try Self.saveElsewhere("1", "theirs", in: directory)
        // A bound on a hang, not a timing: the change comes at the pool's next look, about a second.
        let change = await bounded {
            var iterator = changes.makeAsyncIterator()
            return await iterator.next()
        } ?? nil
        #expect(change?.id == "1")
        #expect(store.record(type: "articles", id: "1")?.attributes?["title"] == .string("theirs"))
    }
}
